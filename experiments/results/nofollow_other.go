//go:build !unix

package results

import (
	"io/fs"
	"os"
)

// openNoFollow checks path with os.Lstat before opening it: a link made between the two is
// followed, which O_NOFOLLOW prevents where there is one (nofollow_unix.go).
func openNoFollow(path string, flag int, perm os.FileMode) (*os.File, error) {
	if fi, err := os.Lstat(path); err == nil && fi.Mode()&fs.ModeSymlink != 0 {
		return nil, symlinkError(path)
	}
	return os.OpenFile(path, flag, perm)
}

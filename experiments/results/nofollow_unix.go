//go:build unix

package results

import (
	"errors"
	"io/fs"
	"os"
	"syscall"
)

// openNoFollow opens with O_NOFOLLOW, which fails with ELOOP on a symbolic link, so that no link
// made between a check and the open is followed either.
func openNoFollow(path string, flag int, perm os.FileMode) (*os.File, error) {
	f, err := os.OpenFile(path, flag|syscall.O_NOFOLLOW, perm)
	if err != nil && errors.Is(err, syscall.ELOOP) {
		if fi, lerr := os.Lstat(path); lerr == nil && fi.Mode()&fs.ModeSymlink != 0 {
			return nil, symlinkError(path)
		}
	}
	return f, err
}

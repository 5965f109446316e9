package results

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
)

// A run directory's files are opened without following a symbolic link in their place: a link
// named .reserve, .lock, run.log or results.jsonl (planted, or left by a copy) would have the run
// write over the file it names, and a link named reports/ or data/ would have it write into
// another directory. The directory itself may be a link (-out on scratch space).

// OpenNoFollow opens a file of a run directory as os.OpenFile does, refusing a symbolic link at
// path (ErrSymlink) instead of opening the file it names. Where the system cannot open without
// following (not unix), it checks path with os.Lstat first.
func OpenNoFollow(path string, flag int, perm os.FileMode) (*os.File, error) {
	return openNoFollow(path, flag, perm)
}

// ErrSymlink is the error, wrapped, of OpenNoFollow and MkdirNoFollow for a symbolic link.
var ErrSymlink = errors.New("is a symbolic link")

// symlinkError says that path is a symbolic link, and to what.
func symlinkError(path string) error {
	to, err := os.Readlink(path)
	if err != nil {
		to = "unknown"
	}
	return fmt.Errorf("%s %w (to %s): hcbench writes a run directory's files only in it, never through a link, which could write over what it names; remove the link", path, ErrSymlink, to)
}

// MkdirNoFollow makes the directory dir of a run directory (reports/, data/) unless it exists,
// refusing a symbolic link (ErrSymlink) or a file that is not a directory in its place. Its
// parent must exist.
func MkdirNoFollow(dir string) error {
	for {
		fi, err := os.Lstat(dir)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			if err := os.Mkdir(dir, 0o755); !errors.Is(err, fs.ErrExist) {
				return err // nil, or why it could not be made
			}
			continue // made meanwhile by another process (a shard): look again
		case err != nil:
			return err
		case fi.Mode()&fs.ModeSymlink != 0:
			return symlinkError(dir)
		case !fi.IsDir():
			return fmt.Errorf("%s is not a directory, and a run directory's %s/ goes there: move it away", dir, fi.Name())
		}
		return nil
	}
}

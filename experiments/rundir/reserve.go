package rundir

import (
	"errors"
	"os"
	"sync"

	"github.com/hcbench/hcbench/experiments/results"
)

// reserveBytes is the disk space a run keeps in reserve while it runs: more than a manifest and
// the last lines of its log take.
const reserveBytes = 256 << 10

// Reserved is a file of reserveBytes zeros in the run directory, written (not sparse) so that its
// blocks are taken, and removed to free them when the run ends or when the final manifest cannot
// be written otherwise (a full disk).
type Reserved struct {
	path string
	once sync.Once
	ok   bool // the file was written whole
}

// Reserve writes the reserve file. It is best effort: on a disk already too full, or a
// file system that cannot tell, the run goes on without it. A symbolic link in its place is an
// error (results.ErrSymlink): writing the zeros through it would overwrite what it names.
func Reserve(path string) (*Reserved, error) {
	r := &Reserved{path: path}
	f, err := results.OpenNoFollow(path, os.O_CREATE|os.O_TRUNC|os.O_WRONLY, 0o644)
	if errors.Is(err, results.ErrSymlink) {
		return nil, err
	}
	if err != nil {
		return r, nil
	}
	_, werr := f.Write(make([]byte, reserveBytes))
	serr := f.Sync()
	cerr := f.Close()
	r.ok = werr == nil && serr == nil && cerr == nil
	return r, nil
}

// release removes the reserve file, and reports whether it freed space (the file had been
// written whole and is removed now, the first time release is called).
func (r *Reserved) Release() bool {
	freed := false
	r.once.Do(func() { freed = os.Remove(r.path) == nil && r.ok })
	return freed
}

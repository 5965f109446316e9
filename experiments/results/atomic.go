package results

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// A PendingFile is a file being written through a temporary file in its directory, which Commit
// renames into place once every byte is on disk: a kill, a full disk or a failed write at any
// point leaves the file as it was (or absent), never empty or half written, and a reader (the
// page, a person listing the run) never sees it being written. The temporary file is hidden (a
// dot file) and removed on every error; only a process killed before Commit leaves it behind.
type PendingFile struct {
	path string
	f    *os.File
	w    *bufio.Writer
	done bool // committed or discarded
}

// CreateAtomic starts writing the file path (created if new, replaced whole by Commit if not).
// The caller writes it and calls Commit; Close discards it unless Commit succeeded, so that
// `defer f.Close()` cleans up on every error path.
func CreateAtomic(path string) (*PendingFile, error) {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+"-*")
	if err != nil {
		return nil, err
	}
	return &PendingFile{path: path, f: f, w: bufio.NewWriterSize(f, 64<<10)}, nil
}

// Write writes to the temporary file. Its errors are also Commit's.
func (p *PendingFile) Write(b []byte) (int, error) {
	if p.done {
		return 0, fmt.Errorf("write to %s after Commit or Close", p.path)
	}
	return p.w.Write(b)
}

// Commit flushes the file, syncs it to disk (so that a crash after the rename finds the new
// contents, not an empty file, and a write error that the disk reports late is seen here), and
// renames it to its path. On an error the temporary file is removed and the path is untouched.
func (p *PendingFile) Commit() error {
	if p.done {
		return fmt.Errorf("%s: Commit after Commit or Close", p.path)
	}
	p.done = true
	err := p.w.Flush()
	if err == nil {
		// CreateTemp makes the file private; a run directory is shared, like the files os.Create
		// makes.
		err = p.f.Chmod(0o644)
	}
	if err == nil {
		err = p.f.Sync()
	}
	if cerr := p.f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(p.f.Name(), p.path)
	}
	if err != nil {
		os.Remove(p.f.Name())
		return fmt.Errorf("writing %s: %w", p.path, err)
	}
	return nil
}

// Close discards the file unless Commit was called: the temporary file is removed and the path
// is untouched. After Commit it does nothing.
func (p *PendingFile) Close() error {
	if p.done {
		return nil
	}
	p.done = true
	return errors.Join(p.f.Close(), os.Remove(p.f.Name()))
}

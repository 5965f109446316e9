package datadir

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// MirrorReport lists what WriteMirror did: the sources it wrote or found in the mirror, as paths
// of the mirror (OWNER/REPO/COMMIT/PATH), and the files of the data directory it lacked.
type MirrorReport struct {
	Written []string // copied from the data directory into the mirror
	Present []string // in the mirror already with the right sum
	// Missing are the files of the data directory that hold a source and are missing or modified
	// (Rel "pam50/sources/x.txt"); their sources are not in the mirror.
	Missing []FileStatus
}

// WriteMirror writes the sources of sets from the data directory dir into the folder out, laid
// out as a mirror: each source at out/OWNER/REPO/COMMIT/PATH (Source.MirrorPath), where Fetch
// finds it with FetchOptions.Mirror set to out (or file://out, or a web server over out). A source
// is read from the file of the set's folder that holds it byte for byte (Set.SourceFile: a
// downloaded file or a kept source) and checked against its sum; a source the data directory
// lacks is listed in the report's Missing, not an error. A source already in the mirror with the
// right sum is kept; anything else is written through a temporary file and a rename. Nothing is
// downloaded. WriteMirror returns the errors of writing, joined, and stops when ctx is done.
func WriteMirror(ctx context.Context, dir, out string, sets []Set, progress io.Writer) (*MirrorReport, error) {
	if progress == nil {
		progress = io.Discard
	}
	rep := &MirrorReport{}
	var errs []error
	for i := range sets {
		s := &sets[i]
		for _, src := range s.Sources() {
			if err := ctx.Err(); err != nil {
				return rep, errors.Join(append(errs, err)...)
			}
			held := s.SourceFile(src)
			fst := checkFile(dir, s, held)
			if fst.State != FilePresent {
				rep.Missing = append(rep.Missing, fst)
				continue
			}
			mp := src.MirrorPath()
			dst := filepath.Join(out, filepath.FromSlash(mp))
			if got, err := fileSum(dst); err == nil && got == src.SHA256 {
				rep.Present = append(rep.Present, mp)
				continue
			}
			b, err := readChecked(filepath.Join(dir, s.Name, filepath.FromSlash(held.Name)), src.SHA256)
			if err == nil {
				err = os.MkdirAll(filepath.Dir(dst), 0o755)
			}
			if err == nil {
				err = writeAtomic(filepath.Dir(dst), filepath.Base(dst), b)
			}
			if err != nil {
				errs = append(errs, fmt.Errorf("%s: %w", mp, err))
				continue
			}
			fmt.Fprintf(progress, "%s: written from %s\n", mp, fst.Rel)
			rep.Written = append(rep.Written, mp)
		}
	}
	return rep, errors.Join(errs...)
}

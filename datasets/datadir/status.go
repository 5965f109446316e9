package datadir

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"
)

// FileState is what the data directory holds of one file of a set.
type FileState int

const (
	FileMissing  FileState = iota // no such file
	FilePresent                   // there, with the right sum
	FileModified                  // there, with another sum (or unreadable)
)

// SetState sums up the states of a set's files.
type SetState int

const (
	SetMissing  SetState = iota // no file of the set is there
	SetPartial                  // some files are there with the right sums, others missing
	SetPresent                  // every file is there with the right sum
	SetModified                 // some file is there with a wrong sum
)

func (s SetState) String() string {
	return [...]string{"missing", "partly present", "present", "modified"}[s]
}

// FileStatus is the state of one file: Got is the sum found (for a modified file), Err a read
// error other than absence.
type FileStatus struct {
	File  *File
	Rel   string // SET/NAME, slash-separated
	State FileState
	Got   string
	Err   error
}

// Problem words a file that is not present, or "" for a present one or an optional one that is
// absent (see Note).
func (f FileStatus) Problem() string {
	switch {
	case f.State == FilePresent, f.absent():
		return ""
	case f.State == FileMissing:
		return f.Rel + ": missing"
	case f.Err != nil:
		return fmt.Sprintf("%s: unreadable: %v", f.Rel, f.Err)
	}
	return fmt.Sprintf("%s: modified: sha256 %s, expected %s", f.Rel, f.Got, f.File.SHA256)
}

// Note words an optional file that is absent, or present without a sum to check it against; ""
// for any other file.
func (f FileStatus) Note() string {
	switch {
	case f.absent():
		return fmt.Sprintf("%s: optional, absent (%s)", f.Rel, f.File.Optional)
	case f.File.Optional != "" && f.State == FilePresent && f.File.SHA256 == "":
		return f.Rel + ": optional, present, not checked (the catalog has no SHA-256 of it)"
	}
	return ""
}

// absent reports whether the file is optional and missing.
func (f FileStatus) absent() bool { return f.File.Optional != "" && f.State == FileMissing }

// SetStatus is the state of a set in a data directory, file by file, and of the sources its
// folder keeps (Set.KeptSources).
type SetStatus struct {
	Set   *Set
	State SetState
	Files []FileStatus
	// Sources are the states of the kept sources. A missing one is no problem (a data directory
	// fetched before they were kept lacks them; `hcbench data mirror` then cannot serve its set),
	// a modified one is: State is then SetModified.
	Sources []FileStatus
}

// Check reads the files of set s in the data directory dir, and the sources it keeps, and checks
// their sums.
func Check(dir string, s *Set) SetStatus {
	st := SetStatus{Set: s}
	count := map[FileState]int{}
	for _, f := range s.Files {
		fst := checkFile(dir, s, f)
		if !fst.absent() {
			count[fst.State]++
		}
		st.Files = append(st.Files, fst)
	}
	for _, f := range s.KeptSources() {
		fst := checkFile(dir, s, f)
		if fst.State == FileModified {
			count[FileModified]++
		}
		st.Sources = append(st.Sources, fst)
	}
	switch {
	case count[FileModified] > 0:
		st.State = SetModified
	case count[FileMissing] == 0:
		st.State = SetPresent
	case count[FilePresent] > 0:
		st.State = SetPartial
	default:
		st.State = SetMissing
	}
	return st
}

// checkFile reads one file of set s in the data directory dir and checks its sum.
func checkFile(dir string, s *Set, f File) FileStatus {
	fst := FileStatus{File: &f, Rel: s.Name + "/" + f.Name}
	got, err := fileSum(filepath.Join(dir, s.Name, filepath.FromSlash(f.Name)))
	switch {
	case err == nil && (got == f.SHA256 || f.SHA256 == ""):
		fst.State = FilePresent // a file without a sum (optional) is not checked
	case err == nil:
		fst.State, fst.Got = FileModified, got
	case errors.Is(err, fs.ErrNotExist):
		fst.State = FileMissing
	default:
		fst.State, fst.Err = FileModified, err
	}
	return fst
}

// KeptSources counts the sources the set's folder keeps with the right sum, of those it should.
func (st SetStatus) KeptSources() (kept, want int) {
	for _, f := range st.Sources {
		if f.State == FilePresent {
			kept++
		}
	}
	return kept, len(st.Sources)
}

// Problems lists one line for each file of the set that is missing or modified, and for each
// kept source that is modified.
func (st SetStatus) Problems() []string {
	var out []string
	for _, f := range st.Files {
		if p := f.Problem(); p != "" {
			out = append(out, p)
		}
	}
	for _, f := range st.Sources {
		if f.State == FileModified {
			out = append(out, f.Problem())
		}
	}
	return out
}

// Notes lists one line for each optional file of the set that is absent, or present but not
// checked.
func (st SetStatus) Notes() []string {
	var out []string
	for _, f := range st.Files {
		if n := f.Note(); n != "" {
			out = append(out, n)
		}
	}
	return out
}

// Absent counts the optional files of the set that are absent.
func (st SetStatus) Absent() int {
	n := 0
	for _, f := range st.Files {
		if f.absent() {
			n++
		}
	}
	return n
}

// Readme is the README.md that Fetch writes into a set's folder: what the set is, where each
// file comes from (with its sum) and the licence.
func Readme(s *Set) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# %s\n\n%s.\n\n", s.Name, s.Title)
	fmt.Fprintf(&b, "Written by `hcbench data fetch`, which downloaded the files below from their public sources, checked\n"+
		"their SHA-256 sums and made the derived files (\"made by hcbench\" below) from their sources.\n"+
		"`hcbench data verify %s` checks the sums again.\n\n", s.Name)
	b.WriteString(wrap(s.About, 100) + "\n\n")
	fmt.Fprintf(&b, "Licence: %s.\n\n## Files\n\n", s.Licence)
	for _, f := range s.Files {
		if f.SHA256 == "" {
			fmt.Fprintf(&b, "- `%s`, optional, not fetched: %s; in the repository at %s\n", f.Name, f.Optional, f.From[0].URL(DefaultBase))
			continue
		}
		fmt.Fprintf(&b, "- `%s`, sha256 `%s`: ", f.Name, f.SHA256)
		if !f.Derived() {
			fmt.Fprintf(&b, "downloaded from %s\n", f.From[0].URL(DefaultBase))
			continue
		}
		fmt.Fprintf(&b, "made by hcbench: %s; from\n", f.How)
		for _, src := range f.From {
			fmt.Fprintf(&b, "  - %s (sha256 `%s`)\n", src.URL(DefaultBase), src.SHA256)
		}
	}
	if kept := s.KeptSources(); len(kept) > 0 {
		fmt.Fprintf(&b, "\n## Sources\n\n`%s/` keeps the downloaded sources of the derived files above that are no file of the set,\n"+
			"so that `hcbench data mirror DIR` can serve every source of the set to a machine without internet:\n\n", SourcesDir)
		for _, f := range kept {
			fmt.Fprintf(&b, "- `%s`, sha256 `%s`: downloaded from %s\n", f.Name, f.SHA256, f.From[0].URL(DefaultBase))
		}
	}
	return b.String()
}

// wrap breaks text into lines of at most width bytes at spaces.
func wrap(text string, width int) string {
	var b strings.Builder
	n := 0
	for i, w := range strings.Fields(text) {
		if i > 0 && n+1+len(w) > width {
			b.WriteByte('\n')
			n = 0
		} else if i > 0 {
			b.WriteByte(' ')
			n++
		}
		b.WriteString(w)
		n += len(w)
	}
	return b.String()
}

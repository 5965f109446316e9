// Package labelled holds tables of labelled feature vectors (items in rows, features in columns,
// an optional class label per item) and reads them from two formats: UNC's PAM50 training matrix as
// distributed (ReadPAM50, genes in rows) and labelled CSV files, optionally gzip-compressed, with a
// header of column names, no header, or scikit-learn's header of class names (ReadCSV). It also
// draws the small subsamples the pam50 experiment clusters (Stratified, FirstPerLabel; see
// ../shared/design/pam50.md §6).
//
// Missing cells are kept as NaN, so the missing mask survives loading; FillMissing applies the
// paper's zero fill when wanted. Every error about a file names the file and the 1-based line.
package labelled

import (
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"unicode/utf8"
)

// Data is a table of items (rows) with feature vectors, names and optional class labels.
//
// The readers return Data whose rows all have len(Features) entries (or the same length when
// Features is nil) and whose Names are unique and non-empty.
type Data struct {
	Names    []string    // item names (sample names), unique
	Features []string    // feature names (genes), may be nil when the file has none
	X        [][]float64 // X[i] is item i's vector; missing cells hold NaN
	Labels   []string    // class label per item, "" = unknown; nil when the data have no labels
	Missing  int         // number of missing cells in X

	// rowMissing[i] is the number of cells of row i that the file lacked, so that Subset can
	// count them after FillMissing has erased the NaNs. nil for Data built outside this package;
	// Subset then counts the NaNs it copies.
	rowMissing []int
}

// Len returns the number of items.
func (d *Data) Len() int { return len(d.X) }

// FillMissing replaces every NaN cell of X by v. Missing is kept: it counts what the file lacked,
// not what X holds now.
func (d *Data) FillMissing(v float64) {
	for _, row := range d.X {
		for k, x := range row {
			if math.IsNaN(x) {
				row[k] = v
			}
		}
	}
}

// Subset returns a copy of rows idx, in that order: names, vectors, labels (nil stays nil) and
// the features are copied, so the result shares no memory with d. Its Missing counts the cells of
// those rows that the file lacked, even after FillMissing.
//
// Preconditions: every index is in [0, Len()), no index repeats (names stay unique), and Names and
// Labels, when not nil, have Len() entries. Subset panics otherwise, as slice indexing would.
func (d *Data) Subset(idx []int) *Data {
	s := &Data{
		X:          make([][]float64, len(idx)),
		rowMissing: make([]int, len(idx)),
	}
	if d.Features != nil {
		s.Features = append([]string{}, d.Features...)
	}
	if d.Names != nil {
		s.Names = make([]string, len(idx))
	}
	if d.Labels != nil {
		s.Labels = make([]string, len(idx))
	}
	seen := make(map[int]int, len(idx))
	for j, i := range idx {
		if i < 0 || i >= len(d.X) {
			panic(fmt.Sprintf("labelled: Subset: index %d out of range [0, %d)", i, len(d.X)))
		}
		if prev, dup := seen[i]; dup {
			panic(fmt.Sprintf("labelled: Subset: index %d given twice (positions %d and %d)", i, prev, j))
		}
		seen[i] = j
		if d.Names != nil {
			s.Names[j] = d.Names[i]
		}
		s.X[j] = append([]float64{}, d.X[i]...)
		if d.Labels != nil {
			s.Labels[j] = d.Labels[i]
		}
		if d.rowMissing != nil {
			s.rowMissing[j] = d.rowMissing[i]
		} else {
			s.rowMissing[j] = countNaN(d.X[i])
		}
		s.Missing += s.rowMissing[j]
	}
	return s
}

// LabelCounts returns the number of items per label, with "" counting the unknown ones. Data
// without labels (Labels nil) count every item as unknown.
func (d *Data) LabelCounts() map[string]int {
	c := map[string]int{}
	if d.Labels == nil {
		if n := d.Len(); n > 0 {
			c[""] = n
		}
		return c
	}
	for _, l := range d.Labels {
		c[l]++
	}
	return c
}

// ReadFile opens path and reads it with ReadPAM50 (format "pam50") or ReadCSV (format "csv"). Both
// detect gzip compression by its magic bytes. A missing file gives an error naming the path; errors
// about the contents name the path and the line. CSV options with format "pam50" are an error, not
// silently ignored.
//
// The readers' limits apply (see ReadCSV): a line, and a CSV record, of at most MaxLineBytes
// (16 MiB), gzip data of at most MaxGzipBytes (1 GiB) decompressed. The file is read as a stream,
// never seeked, so path may name a FIFO or a device (/dev/stdin); /dev/zero fails after 16 MiB.
func ReadFile(path, format string, o CSVOptions) (*Data, error) {
	switch format {
	case "pam50":
		if o.Header != "" || o.LabelColumn != "" || o.NameColumn != "" || len(o.Ignore) > 0 || o.Unknown != "" {
			return nil, fmt.Errorf("%s: CSV options (header, label, name, ignored columns, unknown label) do not apply to format pam50", path)
		}
	case "csv":
	default:
		return nil, fmt.Errorf("%s: unknown format %q (want pam50 or csv)", path, format)
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err // *PathError: "open PATH: no such file or directory"
	}
	defer f.Close()
	return Read(f, path, format, o)
}

// Read reads data in format "pam50" (ReadPAM50) or "csv" (ReadCSV) from r; name labels errors.
// CSV options with format "pam50" are an error, as for ReadFile.
func Read(r io.Reader, name, format string, o CSVOptions) (*Data, error) {
	return ReadLimit(r, name, format, o, 0)
}

// ReadLimit is Read that stops with an error (a *linelimit.TooMuchError, at its line) once the
// text, decompressed, goes on past maxText bytes (maxText ≤ 0: no such bound): a bound on what
// the parsed data hold, for a stream or compressed file whose size is not known before reading.
func ReadLimit(r io.Reader, name, format string, o CSVOptions, maxText int64) (*Data, error) {
	switch format {
	case "pam50":
		if o.Header != "" || o.LabelColumn != "" || o.NameColumn != "" || len(o.Ignore) > 0 || o.Unknown != "" {
			return nil, fmt.Errorf("%s: CSV options (header, label, name, ignored columns, unknown label) do not apply to format pam50", name)
		}
		return readPAM50(r, name, maxText)
	case "csv":
		return readCSV(r, name, o, maxText)
	}
	return nil, fmt.Errorf("%s: unknown format %q (want pam50 or csv)", name, format)
}

// parseValue reads one feature cell. Empty cells and "NA" (any case) are missing; NaN (any
// spelling strconv accepts), ±Inf and out-of-range numbers are errors. A NaN is refused, not
// taken for a missing value, because it is what a computation leaves that had no value to
// give (0/0, a constant column standardised), which reading it as missing would hide. msg
// describes a bad cell.
func parseValue(s string) (v float64, missing bool, msg string) {
	if s == "" || len(s) == 2 && (s[0] == 'N' || s[0] == 'n') && (s[1] == 'A' || s[1] == 'a') {
		return math.NaN(), true, ""
	}
	v, err := strconv.ParseFloat(s, 64)
	switch {
	case err != nil && math.IsInf(v, 0):
		return 0, false, fmt.Sprintf("%q is out of the range of float64", s)
	case err != nil:
		return 0, false, fmt.Sprintf("%q is not a number", s)
	case math.IsNaN(v):
		return 0, false, fmt.Sprintf("%q is not a number: leave a missing value empty or write NA (a NaN is often the result of 0/0)", s)
	case math.IsInf(v, 0):
		return 0, false, fmt.Sprintf("%q is not a finite number", s)
	}
	return v, false, ""
}

// textError describes a name or label cell that is not UTF-8 text, or returns "". Such bytes
// would all become U+FFFD in the records' JSON, so that different labels would read the same.
func textError(what, s string) string {
	if utf8.ValidString(s) {
		return ""
	}
	return fmt.Sprintf("%s %q is not UTF-8 text; convert the file to UTF-8 (for example iconv -f latin1 -t utf-8)", what, s)
}

func countNaN(row []float64) int {
	n := 0
	for _, x := range row {
		if math.IsNaN(x) {
			n++
		}
	}
	return n
}

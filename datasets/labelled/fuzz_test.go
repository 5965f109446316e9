package labelled_test

import (
	"bytes"
	"compress/gzip"
	"encoding/csv"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/hcbench/hcbench/datasets/labelled"
	"github.com/hcbench/hcbench/internal/limittest"
)

// fuzzOptions are the option sets FuzzReadCSV tries, picked by a byte of the input.
var fuzzOptions = []labelled.CSVOptions{
	{},
	smallOptions,
	{Header: "none", LabelColumn: "none"},
	{Header: "none", LabelColumn: "1", NameColumn: "2", Unknown: "?"},
	{Header: "sklearn"},
	{Header: "sklearn", LabelColumn: "none", Ignore: []string{"1"}},
	{Header: "names", LabelColumn: "none", NameColumn: "id", Ignore: []string{"2", "x"}},
}

// textLen is the length of the text a reader sees in data: for gzip input, what it decompresses
// to (up to the reader's limit), else data itself. Allocation is bounded in proportion to it.
func textLen(data []byte) int {
	n := len(data)
	if len(data) >= 2 && data[0] == 0x1f && data[1] == 0x8b {
		if gz, err := gzip.NewReader(bytes.NewReader(data)); err == nil {
			m, _ := io.Copy(io.Discard, io.LimitReader(gz, labelled.MaxGzipBytes))
			n += int(m)
		}
	}
	return n
}

// Allocation bound of the readers: allocPerByte times the text, plus allocConst. The constant
// covers the buffers (two of 64 KiB, encoding/csv's 4 KiB, a gzip reader's 40 KiB of tables and
// window) and the few messages of the bad lines (badlines.Max of them, each quoting at most a
// cell, which TestAllocBound's inputs make long). Per byte of text the worst case is a CSV of
// two-byte rows (",\n" or "1\n"): each row costs a []string and a []float64 of one or two
// entries, a name string, and its share of the Names, X and row count slices, which grow by a
// quarter at a time when large, so that about 5 times their final size is allocated in all:
// some 300 bytes for 2 bytes of text. Wide rows cost less per byte (a cell "1," is a string
// header and a float64, 24 bytes for 2); the PAM50 matrix at most 71 per byte (a header of
// one-character sample names: a string, a label, a row and a map entry each). TestAllocBound
// measures these shapes at 1 MiB, at most 153 per byte; fuzzing found no input above the
// constant.
const (
	allocPerByte = 256
	allocConst   = 512 << 10
)

func checkAlloc(t *testing.T, what string, a uint64, data []byte) {
	t.Helper()
	if n := textLen(data); a > uint64(allocPerByte*n+allocConst) {
		t.Fatalf("%s allocated %d bytes for %d bytes of text (%.0f per byte), more than %d per byte and %d", what, a, n, float64(a)/float64(n), allocPerByte, allocConst)
	}
}

// checkData checks what the readers promise of a Data: as many names, labels and rows as items,
// names unique and not empty, rows of one width (that of Features when set), no infinite values,
// and Missing the number of NaN cells.
func checkData(t *testing.T, d *labelled.Data, labels bool) {
	t.Helper()
	n := d.Len()
	if n == 0 || len(d.Names) != n || (d.Labels == nil) == labels || labels && len(d.Labels) != n {
		t.Fatalf("%d rows, %d names, labels %v (%d), want labels %v", n, len(d.Names), d.Labels != nil, len(d.Labels), labels)
	}
	width := len(d.X[0])
	if d.Features != nil {
		width = len(d.Features)
	}
	seen := map[string]bool{}
	nan := 0
	for i, row := range d.X {
		if len(row) != width || width == 0 {
			t.Fatalf("row %d has %d values, want %d", i, len(row), width)
		}
		for _, x := range row {
			if math.IsNaN(x) {
				nan++
			} else if math.IsInf(x, 0) {
				t.Fatalf("row %d holds %v", i, x)
			}
		}
		if d.Names[i] == "" || seen[d.Names[i]] {
			t.Fatalf("row %d: name %q empty or repeated", i, d.Names[i])
		}
		seen[d.Names[i]] = true
		if !utf8.ValidString(d.Names[i]) || d.Labels != nil && !utf8.ValidString(d.Labels[i]) {
			t.Fatalf("row %d: name %q or label not UTF-8 text", i, d.Names[i])
		}
	}
	if nan != d.Missing {
		t.Fatalf("Missing %d, %d NaN cells", d.Missing, nan)
	}
}

// sameData reports whether a and b hold the same items, NaN equal to NaN.
func sameData(a, b *labelled.Data) bool {
	if !slices.Equal(a.Names, b.Names) || !slices.Equal(a.Labels, b.Labels) || !slices.Equal(a.Features, b.Features) || a.Missing != b.Missing || len(a.X) != len(b.X) {
		return false
	}
	for i := range a.X {
		if !slices.EqualFunc(a.X[i], b.X[i], func(x, y float64) bool { return x == y || math.IsNaN(x) && math.IsNaN(y) }) {
			return false
		}
	}
	return true
}

func cell(x float64) string {
	if math.IsNaN(x) {
		return "NA"
	}
	return strconv.FormatFloat(x, 'g', -1, 64)
}

// unused returns base, or base with underscores added, so that it is none of names.
func unused(base string, names []string) string {
	for slices.Contains(names, base) {
		base += "_"
	}
	return base
}

// writeCSV writes d as a CSV with a header, the names first and the labels last.
func writeCSV(t *testing.T, d *labelled.Data) ([]byte, labelled.CSVOptions) {
	t.Helper()
	features := d.Features
	if features == nil {
		for j := range d.X[0] {
			features = append(features, "f"+strconv.Itoa(j))
		}
	}
	o := labelled.CSVOptions{NameColumn: unused("name", features), LabelColumn: "none"}
	header := append([]string{o.NameColumn}, features...)
	if d.Labels != nil {
		o.LabelColumn = unused("label", header)
		header = append(header, o.LabelColumn)
	}
	var b bytes.Buffer
	w := csv.NewWriter(&b)
	w.Write(header)
	for i, row := range d.X {
		rec := []string{d.Names[i]}
		for _, x := range row {
			rec = append(rec, cell(x))
		}
		if d.Labels != nil {
			rec = append(rec, d.Labels[i])
		}
		w.Write(rec)
	}
	w.Flush()
	if err := w.Error(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes(), o
}

// FuzzReadCSV: ReadCSV never panics, allocates within the bound, and returns consistent Data,
// which written back as a CSV reads back the same. The options are one of fuzzOptions, or, for k
// past them, a header kind picked by k with label as the label column.
func FuzzReadCSV(f *testing.F) {
	for k := range fuzzOptions {
		f.Add([]byte(smallCSV), uint8(k), "")
	}
	for _, s := range []string{smallCSV, "\ufeff" + smallCSV, "2,1,a,b\n1,0\n1,1\n", "a\n\"", "\x1f\x8b", ",,,\n,,,\n"} {
		f.Add([]byte(s), uint8(len(fuzzOptions)), "")
		f.Add([]byte(s), uint8(len(fuzzOptions)+1), "1")
		f.Add([]byte(s), uint8(len(fuzzOptions)+2), "none")
	}
	for _, s := range []string{
		"a,b,c\n1,2,x\n3,4,y\n",
		"\ufeffa,b\r\n1,A\r\n\r\n2,B\r\n",
		"1,2,a,b\n1,0\n",
		"2,2,a,b\n1,2,0\n3,NA,1\n",
		"id,x,y,class\nr1,1e3,-0,\" c \"\nr2,,NaN,d\n",
		"x,\"y\nz\",c\n1,2,a\n",
		"a,b\n1,\"2\n",
		"a,b\n1,x\"y\n",
		"a,a\n1,2\n",
		"a,b\n1\n1,2,3\n",
		"a,b\n1,1e400\n",
		"1,2000000000000,a\n1,0\n",
	} {
		for k := range fuzzOptions {
			f.Add([]byte(s), uint8(k), "")
		}
	}
	f.Add([]byte(gz(f, smallCSV)), uint8(1), "")
	f.Add([]byte(gz(f, "\ufeffa,b\n1,x\n")), uint8(0), "")
	f.Add([]byte(gz(f, smallCSV))[:40], uint8(1), "")
	f.Fuzz(func(t *testing.T, data []byte, k uint8, label string) {
		var o labelled.CSVOptions
		if int(k) < len(fuzzOptions) {
			o = fuzzOptions[k]
		} else {
			o = labelled.CSVOptions{Header: []string{"names", "sklearn", "none"}[int(k)%3], LabelColumn: label}
		}
		var d *labelled.Data
		var err error
		a := limittest.Allocated(func() { d, err = labelled.ReadCSV(bytes.NewReader(data), "f.csv", o) })
		checkAlloc(t, "ReadCSV", a, data)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "f.csv") {
				t.Fatalf("error %q does not name the file", err)
			}
			return
		}
		checkData(t, d, o.LabelColumn != "none")
		if (d.Features != nil) != (o.Header == "" || o.Header == "names") {
			t.Fatalf("Features %q with header %q", d.Features, o.Header)
		}
		text, o2 := writeCSV(t, d)
		d2, err := labelled.ReadCSV(bytes.NewReader(text), "again.csv", o2)
		if err != nil {
			t.Fatalf("written back, the data do not read: %v\n%s", err, text)
		}
		if d.Features == nil {
			d2.Features = nil
		}
		if !sameData(d, d2) {
			t.Fatalf("written back, the data read differently:\n%+v\n%+v\n%s", d, d2, text)
		}
	})
}

// writePAM50 writes d in the PAM50 matrix layout: samples in columns, genes in rows.
func writePAM50(d *labelled.Data) []byte {
	var b bytes.Buffer
	b.WriteString("\t" + strings.Join(d.Names, "\t") + "\nsubtype\t" + strings.Join(d.Labels, "\t") + "\n")
	for g, gene := range d.Features {
		b.WriteString(gene)
		for i := range d.X {
			b.WriteString("\t" + cell(d.X[i][g]))
		}
		b.WriteString("\n")
	}
	return b.Bytes()
}

// FuzzReadPAM50: ReadPAM50 never panics, allocates within the bound, and returns consistent
// Data, which written back in the matrix layout reads back the same.
func FuzzReadPAM50(f *testing.F) {
	for _, s := range []string{
		smallPAM50,
		"\ufeff" + strings.ReplaceAll(smallPAM50, "\n", "\r\n"),
		"\n\tA\tB\n\nSUBTYPE\tx\t\nG\tNA\t1\n\nH\tnan\t-0\n",
		"\tS1\tS1\nsubtype\tA\tB\nG\t1\t2\n",
		"\tS1\nsubtype\tA\nG\t1\nG\t2\n",
		"\tS1\nsubtype\tA\nG\t1\t2\n",
		"x\tS1\nsubtype\tA\nG\t1\n",
		"\tS1\nG1\t1\n",
		strings.ReplaceAll(smallPAM50, "\n", "\r"),
		"\tS1\nsubtype\tA\nG\tInf\n",
	} {
		f.Add([]byte(s))
	}
	f.Add([]byte(gz(f, smallPAM50)))
	f.Add([]byte(gz(f, smallPAM50))[:30])
	f.Fuzz(func(t *testing.T, data []byte) {
		var d *labelled.Data
		var err error
		a := limittest.Allocated(func() { d, err = labelled.ReadPAM50(bytes.NewReader(data), "f.tsv") })
		checkAlloc(t, "ReadPAM50", a, data)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "f.tsv") {
				t.Fatalf("error %q does not name the file", err)
			}
			return
		}
		checkData(t, d, true)
		text := writePAM50(d)
		d2, err := labelled.ReadPAM50(bytes.NewReader(text), "again.tsv")
		if err != nil {
			t.Fatalf("written back, the data do not read: %v\n%q", err, text)
		}
		if !sameData(d, d2) {
			t.Fatalf("written back, the data read differently:\n%+v\n%+v\n%q", d, d2, text)
		}
	})
}

// TestAllocBound holds the readers to the fuzz targets' allocation bound on the inputs that
// allocate most per byte, 1 MiB of each: fuzzing explores small inputs, where the constant hides
// the slope.
func TestAllocBound(t *testing.T) {
	if testing.Short() {
		t.Skip("reads some MiB")
	}
	const size = 1 << 20
	repeat := func(head, row string) string {
		return head + strings.Repeat(row, (size-len(head))/len(row))
	}
	numbered := func(head, format string) string {
		var b strings.Builder
		b.WriteString(head)
		for k := 0; b.Len() < size; k++ {
			fmt.Fprintf(&b, format, k)
		}
		return b.String()
	}
	for _, c := range []struct {
		name string
		text string
		o    labelled.CSVOptions
	}{
		{"one-byte rows", repeat("x\n", "1\n"), labelled.CSVOptions{LabelColumn: "none"}},
		{"empty rows", repeat("x,y\n", ",\n"), labelled.CSVOptions{LabelColumn: "none"}},
		{"labelled rows", repeat("x,y\n", "1,\n"), labelled.CSVOptions{}},
		{"named rows", numbered("n,x\n", "%d,1\n"), labelled.CSVOptions{NameColumn: "n", LabelColumn: "none"}},
		{"quoted rows", repeat("x\n", "\"\"\n"), labelled.CSVOptions{LabelColumn: "none"}},
		{"sklearn rows", repeat("262143,1,a\n", "1,0\n"), labelled.CSVOptions{Header: "sklearn"}},
		{"bad rows", repeat("x,y\n", "1\n"), labelled.CSVOptions{}},
		{"long bad cells", repeat("x,y\n", "1,"+strings.Repeat("z", 100000)+"\n"), labelled.CSVOptions{LabelColumn: "none"}},
		{"wide", repeat("", "1,"), labelled.CSVOptions{Header: "none", LabelColumn: "none"}},
		{"wide header", numbered("", "c%d,") + "\n" + strings.Repeat("1,", 1<<16), labelled.CSVOptions{}},
		{"gzip rows", gz(t, repeat("x\n", "1\n")), labelled.CSVOptions{LabelColumn: "none"}},
	} {
		var err error
		a := limittest.Allocated(func() { _, err = labelled.ReadCSV(strings.NewReader(c.text), "f.csv", c.o) })
		checkAlloc(t, "ReadCSV of "+c.name, a, []byte(c.text))
		t.Logf("CSV %s: %.1f bytes per byte of text (%v)", c.name, float64(a)/float64(textLen([]byte(c.text))), err != nil)
	}
	for _, c := range []struct{ name, text string }{
		{"one-sample genes", numbered("\tS\nsubtype\tA\n", "%d\t\n")},
		{"samples", numbered("\t", "%d\t") + "x\n"},
		{"samples and genes", numbered("\t", "%d\t") + "x\nsubtype" + strings.Repeat("\t", 1<<17) + "\n"},
		{"repeated genes", repeat("\tS\nsubtype\tA\n", "G\t1\n")},
		{"gzip genes", gz(t, numbered("\tS\nsubtype\tA\n", "%d\t\n"))},
	} {
		var err error
		a := limittest.Allocated(func() { _, err = labelled.ReadPAM50(strings.NewReader(c.text), "f.tsv") })
		checkAlloc(t, "ReadPAM50 of "+c.name, a, []byte(c.text))
		t.Logf("PAM50 %s: %.1f bytes per byte of text (%v)", c.name, float64(a)/float64(textLen([]byte(c.text))), err != nil)
	}
}

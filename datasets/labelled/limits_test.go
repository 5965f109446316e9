package labelled_test

import (
	"compress/gzip"
	"io"
	"os"
	"strings"
	"testing"

	"github.com/hcbench/hcbench/datasets/labelled"
	"github.com/hcbench/hcbench/internal/limittest"
)

// slack is what reading allocates besides the line being refused: buffers (64 KiB each), the
// last chunk of a long line (at most 1 MiB, see package linelimit), the lines before it.
const slack = 3 << 20

// TestReadCSVLineTooLong: a line of 200 MiB without a newline (after a good header and row) is
// refused with the file, its line and the limit, having read and allocated about the limit
// (16 MiB), not the 200 MiB.
func TestReadCSVLineTooLong(t *testing.T) {
	for _, o := range []labelled.CSVOptions{{}, {Header: "none", LabelColumn: "none"}, {Header: "sklearn"}} {
		src := &limittest.Stream{Byte: '7', Len: 200 << 20}
		var err error
		a := limittest.Allocated(func() {
			_, err = labelled.ReadCSV(io.MultiReader(strings.NewReader("2,1,a,b\n1,0\n"), src), "x.csv", o)
		})
		want := "x.csv:3: line longer than 16 MiB (16777216 bytes), the limit for one line of a data file"
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Fatalf("%+v: error %v, want it to contain %q", o, err, want)
		}
		if src.Served > labelled.MaxLineBytes+slack || a > labelled.MaxLineBytes+slack {
			t.Errorf("%+v: read %d bytes of the stream and allocated %d, want about the limit %d", o, src.Served, a, labelled.MaxLineBytes)
		}
	}
}

// TestReadFileDevZero: the user's case, /dev/zero read as a CSV (and as a PAM50 matrix), fails
// after the limit instead of growing until the process is killed.
func TestReadFileDevZero(t *testing.T) {
	if _, err := os.Stat("/dev/zero"); err != nil {
		t.Skip("no /dev/zero")
	}
	for _, format := range []string{"csv", "pam50"} {
		var err error
		a := limittest.Allocated(func() { _, err = labelled.ReadFile("/dev/zero", format, labelled.CSVOptions{}) })
		want := "/dev/zero:1: line longer than 16 MiB (16777216 bytes)"
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: error %v, want it to contain %q", format, err, want)
		}
		if a > labelled.MaxLineBytes+slack {
			t.Errorf("%s: allocated %d bytes, want about the limit %d", format, a, labelled.MaxLineBytes)
		}
	}
}

// TestReadPAM50LineTooLong: as TestReadCSVLineTooLong for the PAM50 matrix, the long line being
// a gene line after blank lines.
func TestReadPAM50LineTooLong(t *testing.T) {
	src := &limittest.Stream{Byte: '\t', Len: 200 << 20}
	var err error
	a := limittest.Allocated(func() {
		_, err = labelled.ReadPAM50(io.MultiReader(strings.NewReader(smallPAM50+"\n\nG3"), src), "x.tsv")
	})
	want := "x.tsv:7: line longer than 16 MiB (16777216 bytes), the limit for one line of a data file"
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("error %v, want it to contain %q", err, want)
	}
	if src.Served > labelled.MaxLineBytes+slack || a > labelled.MaxLineBytes+slack {
		t.Errorf("read %d bytes of the stream and allocated %d, want about the limit %d", src.Served, a, labelled.MaxLineBytes)
	}
}

// TestReadCSVLineAtLimit: a line of exactly the limit is read.
func TestReadCSVLineAtLimit(t *testing.T) {
	defer labelled.SetLimits(1000, labelled.MaxGzipBytes)()
	name := strings.Repeat("n", 1000-len(",1"))
	d, err := labelled.ReadCSV(strings.NewReader("name,x\n"+name+",1\n"), "x.csv", labelled.CSVOptions{NameColumn: "name", LabelColumn: "none"})
	if err != nil || d.Names[0] != name {
		t.Fatalf("%v", err)
	}
	_, err = labelled.ReadCSV(strings.NewReader("name,x\n"+name+"n,1\n"), "x.csv", labelled.CSVOptions{NameColumn: "name", LabelColumn: "none"})
	if err == nil || !strings.Contains(err.Error(), "x.csv:2: line longer than 1000 bytes") {
		t.Fatalf("one byte over: %v", err)
	}
}

// TestReadCSVRecordTooLong: a quoted field that is never closed continues the record over every
// later line; past 16 MiB the record is refused, naming the line it starts on, the line reached
// and the limit.
func TestReadCSVRecordTooLong(t *testing.T) {
	line := strings.Repeat("q", 1<<16-1) + "\n"
	src := &lines{line: line, n: 400} // 25 MiB
	var err error
	a := limittest.Allocated(func() {
		_, err = labelled.ReadCSV(io.MultiReader(strings.NewReader("a,b\n1,2\n\n3,\""), src), "x.csv", labelled.CSVOptions{LabelColumn: "none"})
	})
	want := "x.csv:4: the record that starts here is still open at line 258, and the next line would take it past 16 MiB (16777216 bytes), the limit for one CSV record; is a quoted field never closed?"
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("error %v, want it to contain %q", err, want)
	}
	// encoding/csv collects the record in buffers that grow by a quarter at a time, and copies
	// it into a string: about seven times the limit in all, still bounded.
	if a > 8*labelled.MaxLineBytes {
		t.Errorf("allocated %d bytes, want at most 8 times the limit %d", a, labelled.MaxLineBytes)
	}
	t.Logf("allocated %.1f MiB", float64(a)/(1<<20))
}

// lines yields n copies of line.
type lines struct {
	line string
	n    int
	cur  string
}

func (l *lines) Read(p []byte) (int, error) {
	if l.cur == "" {
		if l.n == 0 {
			return 0, io.EOF
		}
		l.n--
		l.cur = l.line
	}
	k := copy(p, l.cur)
	l.cur = l.cur[k:]
	return k, nil
}

// TestGzipBomb: gzip data that decompress beyond the limit are refused with the line reached and
// the limit, having decompressed no more than it. The limit is lowered to 1 MiB here; the real one,
// 1 GiB, would take seconds to decompress.
func TestGzipBomb(t *testing.T) {
	defer labelled.SetLimits(labelled.MaxLineBytes, 1<<20)()
	pr, pw := io.Pipe()
	go func() {
		w := gzip.NewWriter(pw)
		w.Write([]byte("x\n"))
		row := []byte(strings.Repeat("1\n", 4096))
		for range 1 << 10 { // 8 MiB
			if _, err := w.Write(row); err != nil {
				return
			}
		}
		w.Close()
		pw.Close()
	}()
	_, err := labelled.ReadCSV(pr, "x.csv.gz", labelled.CSVOptions{LabelColumn: "none"})
	pr.CloseWithError(io.ErrClosedPipe)
	want := "x.csv.gz:524289: the gzip data decompress to more than 1 MiB (1048576 bytes), the limit for compressed input (a guard against gzip bombs); if the data really are this large, decompress the file (gunzip) and read it uncompressed"
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("error %v, want it to contain %q", err, want)
	}

	// The PAM50 reader has the same limit.
	text := gz(t, "\tS1\nsubtype\tA\n"+strings.Repeat("\n", 2<<20))
	_, err = labelled.ReadPAM50(strings.NewReader(text), "x.tsv.gz")
	if err == nil || !strings.Contains(err.Error(), "x.tsv.gz:1048565: the gzip data decompress to more than 1 MiB") {
		t.Fatalf("PAM50: error %v", err)
	}

	// Exactly at the limit is fine.
	text = "x\n" + strings.Repeat("1\n", (1<<20-2)/2)
	d, err := labelled.ReadCSV(strings.NewReader(gz(t, text)), "x.csv.gz", labelled.CSVOptions{LabelColumn: "none"})
	if err != nil || d.Len() != (1<<20-2)/2 {
		t.Fatalf("at the limit: %v", err)
	}
}

// TestReadLimitText: ReadLimit stops data whose text, decompressed, goes on past its bound, at the
// line reached, for CSV (gzip data included) and the PAM50 TSV; text up to the bound is read.
func TestReadLimitText(t *testing.T) {
	text := "x\n" + strings.Repeat("1\n", 1000) // 2002 bytes
	o := labelled.CSVOptions{LabelColumn: "none"}
	for _, in := range []string{text, gz(t, text)} {
		if _, err := labelled.ReadLimit(strings.NewReader(in), "x.csv", "csv", o, 1000); err == nil || !strings.Contains(err.Error(), "x.csv:501: the data go on past 1000 bytes of text") {
			t.Errorf("over the bound: %v", err)
		}
		if d, err := labelled.ReadLimit(strings.NewReader(in), "x.csv", "csv", o, int64(len(text))); err != nil || d.Len() != 1000 {
			t.Errorf("at the bound: %v", err)
		}
	}
	tsv := "\tS1\nsubtype\tA\n" + strings.Repeat("G\t1\n", 100)
	if _, err := labelled.ReadLimit(strings.NewReader(tsv), "x.tsv", "pam50", labelled.CSVOptions{}, 100); err == nil || !strings.Contains(err.Error(), "the data go on past 100 bytes of text") {
		t.Errorf("PAM50 over the bound: %v", err)
	}
}

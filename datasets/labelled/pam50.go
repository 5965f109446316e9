package labelled

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/hcbench/hcbench/datasets/badlines"
	"github.com/hcbench/hcbench/internal/english"
	"github.com/hcbench/hcbench/internal/linelimit"
)

// MaxLineBytes bounds one line of a CSV or PAM50 file (its line ending excluded), and one CSV
// record, which spans several lines when a quoted field holds line breaks. A wide data file has
// a few hundred KB per line (60,000 genes of 15 characters: 900 KB); 16 MiB leaves room for 18
// times that, while a file without line breaks (/dev/zero, a binary file) is refused after 16 MiB
// read, with about that much memory held, instead of growing a buffer until the process is killed.
const MaxLineBytes = 16 << 20

// MaxGzipBytes bounds the decompressed size of gzip input, against a gzip bomb: deflate shrinks a
// repetitive text up to 1032 times, so a 1 MB file could otherwise expand to a gigabyte per
// megabyte. The data the clustering experiments read are far smaller; a file that really is larger
// can be decompressed and read uncompressed, whose size the user sees on disk.
const MaxGzipBytes = 1 << 30

// The limits in force; tests lower them.
var (
	lineLimit = MaxLineBytes
	gzipLimit = int64(MaxGzipBytes)
)

// openInput returns r decompressed when it starts with the gzip magic bytes (1f 8b), with a UTF-8
// byte order mark at the start of the (decompressed) text removed, as lines of at most lineLimit
// bytes; decompressed gzip data stop with an error after gzipLimit bytes. r is only read, never
// seeked, so it may be a pipe.
//
// maxText > 0 bounds the whole text (decompressed): reading stops with a *linelimit.TooMuchError
// past it (see ReadLimit).
func openInput(r io.Reader, name string, maxText int64) (*linelimit.Reader, error) {
	br := bufio.NewReaderSize(r, linelimit.BufSize)
	magic, err := br.Peek(2)
	if err != nil && err != io.EOF {
		return nil, fmt.Errorf("%s: %v", name, err)
	}
	if len(magic) == 2 && magic[0] == 0x1f && magic[1] == 0x8b {
		gz, err := gzip.NewReader(br)
		if err != nil {
			return nil, fmt.Errorf("%s: starts like gzip but is not a valid gzip stream: %v", name, err)
		}
		br = bufio.NewReaderSize(&gzipData{r: gz, max: gzipLimit}, linelimit.BufSize)
	}
	if maxText > 0 {
		br = bufio.NewReaderSize(linelimit.Capped(br, maxText), linelimit.BufSize)
	}
	bom, err := br.Peek(3)
	if err != nil && err != io.EOF {
		return nil, fmt.Errorf("%s:1: %v", name, err)
	}
	if string(bom) == "\ufeff" {
		br.Discard(3)
	}
	return linelimit.NewReader(br, lineLimit), nil
}

// gzipData reads decompressed gzip data: it marks errors of a damaged stream (a truncated file, a
// bad checksum) as such, and refuses to give more than max bytes.
type gzipData struct {
	r      io.Reader
	n, max int64
}

// errGzipTooLarge is the error for gzip data that decompress to more than the limit.
type errGzipTooLarge struct{ max int64 }

func (e *errGzipTooLarge) Error() string {
	return fmt.Sprintf("the gzip data decompress to more than %s, the limit for compressed input (a guard against gzip bombs); if the data really are this large, decompress the file (gunzip) and read it uncompressed",
		linelimit.Size(int(e.max)))
}

func (g *gzipData) Read(p []byte) (int, error) {
	if g.n >= g.max {
		// Tell the end of the data at the limit from more data beyond it.
		var one [1]byte
		n, err := g.r.Read(one[:])
		if n > 0 {
			return 0, &errGzipTooLarge{g.max}
		}
		return 0, g.wrap(err)
	}
	if int64(len(p)) > g.max-g.n {
		p = p[:g.max-g.n]
	}
	n, err := g.r.Read(p)
	g.n += int64(n)
	return n, g.wrap(err)
}

func (g *gzipData) wrap(err error) error {
	if err != nil && err != io.EOF {
		err = fmt.Errorf("damaged gzip data: %w", err)
	}
	return err
}

// inputError describes an error of reading line (1-based) of the file name: a line over the
// limit, gzip data over theirs, or an error of the underlying reader.
func inputError(name string, line int, err error) error {
	if e, ok := linelimit.IsTooLong(err); ok {
		return fmt.Errorf("%s:%d: line longer than %s, the limit for one line of a data file; is this a text file with line breaks (LF or CRLF)? A binary file, or one with old Mac (CR) line endings, reads as one huge line",
			name, e.Line, linelimit.Size(e.Limit))
	}
	return fmt.Errorf("%s:%d: %w", name, line, err)
}

// lineReader yields the lines of a text file without their LF or CRLF ending, counting them from 1.
type lineReader struct {
	src  *linelimit.Reader
	name string
	line int // number of the line last returned
}

// next returns the next line; ok is false at the end of the input.
func (lr *lineReader) next() (s string, ok bool, err error) {
	b, err := lr.src.Line()
	if err == io.EOF {
		return "", false, nil
	}
	if err != nil {
		return "", false, inputError(lr.name, lr.line+1, err)
	}
	lr.line++
	b = bytes.TrimSuffix(b, []byte("\n"))
	b = bytes.TrimSuffix(b, []byte("\r"))
	if bytes.IndexByte(b, '\r') >= 0 {
		return "", false, fmt.Errorf("%s:%d: carriage return inside the line (old Mac line endings? want LF or CRLF)", lr.name, lr.line)
	}
	return string(b), true, nil
}

// nextNonBlank skips lines holding only white space.
func (lr *lineReader) nextNonBlank() (string, bool, error) {
	for {
		s, ok, err := lr.next()
		if err != nil || !ok || strings.TrimSpace(s) != "" {
			return s, ok, err
		}
	}
}

// ReadPAM50 reads UNC's PAM50 training matrix as distributed (220arrays_nonUBCcommon+12normal_50g.txt,
// pam50.md §2): tab-separated, CRLF or LF line endings, genes in rows and samples in columns.
//   - Line 1: an empty corner cell, then the sample names (non-empty, unique, UTF-8).
//   - Line 2: `subtype`, then one label (UTF-8) per sample; an empty cell is an unknown label ("").
//   - Then one line per gene: its symbol (non-empty, unique), then one value per sample; an empty
//     cell or "NA" is missing and stored as NaN ("NaN" is refused, see parseValue).
//
// The result has one item per sample, Features the gene symbols in file order, and Labels always
// set (all "" when no sample has a label). Blank lines are skipped; a UTF-8 byte order mark and gzip
// compression are accepted. name labels errors, which give the 1-based line, e.g.
// "x.tsv:7: row has 12 fields, want 233". Bad gene lines are all reported (see package badlines);
// a broken header or subtype line stops reading.
//
// Limits, against hostile or mistaken input: a line may hold at most MaxLineBytes (16 MiB) and
// gzip data may decompress to at most MaxGzipBytes (1 GiB); past either, reading stops with an
// error naming the line and the limit, having held about the limit in memory. Within them, memory
// grows in proportion to the text read. r is only read, never seeked, so it may be a pipe.
func ReadPAM50(r io.Reader, name string) (*Data, error) {
	return readPAM50(r, name, 0)
}

// readPAM50 is ReadPAM50 with a bound on the whole text (see ReadLimit).
func readPAM50(r io.Reader, name string, maxText int64) (*Data, error) {
	br, err := openInput(r, name, maxText)
	if err != nil {
		return nil, err
	}
	lr := &lineReader{src: br, name: name}

	head, ok, err := lr.nextNonBlank()
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, fmt.Errorf("%s: empty file", name)
	}
	hl := lr.line
	hf := strings.Split(head, "\t")
	if len(hf) < 2 {
		return nil, fmt.Errorf("%s:%d: no tab on the header line: want an empty corner cell, then the sample names, tab-separated", name, hl)
	}
	if c := strings.TrimSpace(hf[0]); c != "" {
		return nil, fmt.Errorf("%s:%d: the first cell is %q, want it empty (the corner above the gene symbols; is this UNC's PAM50 training matrix?)", name, hl, c)
	}
	want := len(hf)
	n := want - 1
	d := &Data{Names: make([]string, n), Labels: make([]string, n), X: make([][]float64, n), rowMissing: make([]int, n)}
	seen := make(map[string]int, n)
	for i := range n {
		s := strings.TrimSpace(hf[i+1])
		if s == "" {
			return nil, fmt.Errorf("%s:%d: column %d: empty sample name", name, hl, i+2)
		}
		if prev, dup := seen[s]; dup {
			return nil, fmt.Errorf("%s:%d: column %d: sample name %q is also in column %d", name, hl, i+2, s, prev+2)
		}
		if msg := textError("sample name", s); msg != "" {
			return nil, fmt.Errorf("%s:%d: column %d: %s", name, hl, i+2, msg)
		}
		seen[s] = i
		d.Names[i] = s
	}

	sub, ok, err := lr.nextNonBlank()
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, fmt.Errorf("%s: no subtype line after the sample names (line %d)", name, hl)
	}
	sf := strings.Split(sub, "\t")
	if len(sf) != want {
		return nil, fmt.Errorf("%s:%d: row has %s, want %d", name, lr.line, english.Count(len(sf), "field", "fields"), want)
	}
	if c := strings.TrimSpace(sf[0]); !strings.EqualFold(c, "subtype") {
		return nil, fmt.Errorf("%s:%d: the first cell is %q, want \"subtype\" (the line of class labels)", name, lr.line, c)
	}
	for i := range n {
		d.Labels[i] = strings.TrimSpace(sf[i+1])
		if msg := textError("subtype", d.Labels[i]); msg != "" {
			return nil, fmt.Errorf("%s:%d: column %d: %s", name, lr.line, i+2, msg)
		}
	}

	var cols [][]float64 // cols[g][i]: gene g of sample i
	genes := map[string]int{}
	bad := badlines.New(name)
genes:
	for {
		s, ok, err := lr.nextNonBlank()
		if err != nil {
			return nil, errors.Join(bad.Err(), err)
		}
		if !ok {
			break
		}
		f := strings.Split(s, "\t")
		if len(f) != want {
			bad.Addf(lr.line, "row has %s, want %d", english.Count(len(f), "field", "fields"), want)
			continue
		}
		g := strings.TrimSpace(f[0])
		if g == "" {
			bad.Addf(lr.line, "empty gene symbol")
			continue
		}
		if prev, dup := genes[g]; dup {
			bad.Addf(lr.line, "gene %q already on line %d", g, prev)
			continue
		}
		genes[g] = lr.line
		col := make([]float64, n)
		miss := make([]bool, n)
		for i := range n {
			v, m, msg := parseValue(strings.TrimSpace(f[i+1]))
			if msg != "" {
				bad.Addf(lr.line, "column %d (sample %s): %s", i+2, d.Names[i], msg)
				continue genes
			}
			col[i], miss[i] = v, m
		}
		for i, m := range miss {
			if m {
				d.rowMissing[i]++
				d.Missing++
			}
		}
		d.Features = append(d.Features, g)
		cols = append(cols, col)
	}
	if err := bad.Err(); err != nil {
		return nil, err
	}
	if len(cols) == 0 {
		return nil, fmt.Errorf("%s: no gene lines after the subtype line (line %d)", name, lr.line)
	}
	// Transpose into one contiguous block, a row per sample.
	gn := len(cols)
	block := make([]float64, n*gn)
	for i := range n {
		row := block[i*gn : (i+1)*gn : (i+1)*gn]
		for g, col := range cols {
			row[g] = col[i]
		}
		d.X[i] = row
	}
	return d, nil
}

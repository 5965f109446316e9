package labelled

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/hcbench/hcbench/datasets/badlines"
	"github.com/hcbench/hcbench/internal/english"
	"github.com/hcbench/hcbench/internal/linelimit"
)

// CSVOptions describe a labelled CSV file (optionally gzip-compressed, detected by the gzip magic
// bytes).
//
// A column is given by its name (Header "names"; the name is tried first) or by its 1-based
// position. LabelColumn "none" and NameColumn "" or "none" mean no such column, whatever the
// header holds. The label, name and ignored columns must be distinct; all other columns are
// features.
type CSVOptions struct {
	Header      string   // "names" (first line has column names; also ""), "none", or "sklearn" (first line: n_samples, n_features, class names...; the label column holds 0-based class indices into those names)
	LabelColumn string   // a column name (Header "names"), or a 1-based position, or "" for the last column; "none" for unlabelled data
	NameColumn  string   // column with item names, same forms; "" = none (items are named by 0-based row index)
	Ignore      []string // further columns to drop (names or 1-based positions)
	Unknown     string   // label value meaning "unknown" (e.g. "Unknown"); such labels become ""
}

// ReadCSV reads a labelled CSV file with one item per row: comma-separated, RFC 4180 quoting, LF
// or CRLF line endings, an optional UTF-8 byte order mark, gzip compression detected by the magic
// bytes. Blank lines are skipped.
//
// Every row must have as many fields as the header (Header "names"), as the first row (Header
// "none"), or n_features+1 (Header "sklearn", whose rows are the features then the class index, as
// scikit-learn's load_csv_data reads them; the header's n_samples must equal the number of rows).
// Feature cells that are empty or "NA" (any case) are missing (NaN in X, counted in Missing); other
// cells must be finite numbers, and "NaN" is refused (see parseValue). Item names and labels must
// be UTF-8 text. An empty label cell, or one equal to o.Unknown, is unknown ("").
// With Header "sklearn" the other label cells must be class indices 0 ≤ k < number of class names,
// and the label is the k-th class name. Item names, from o.NameColumn, must be non-empty and
// unique; without a name column items are named "0", "1", ... by row.
//
// Features holds the feature columns' names with Header "names" and is nil otherwise. Labels is nil
// when o.LabelColumn is "none". name labels errors, which give the 1-based line, e.g.
// "x.csv:9: column 4: \"abc\" is not a number". Bad rows are all reported (see package badlines);
// a broken header, or CSV syntax the parser cannot read past, stops reading.
//
// Limits, against hostile or mistaken input: a line may hold at most MaxLineBytes (16 MiB), and so
// may a record that spans lines (a quoted field with line breaks); gzip data may decompress to at
// most MaxGzipBytes (1 GiB). Past any of them reading stops with an error naming the line and the
// limit, having held about the limit in memory, so that reading /dev/zero fails after 16 MiB.
// Within them, memory grows in proportion to the text read. r is only read, never seeked, so it
// may be a pipe.
func ReadCSV(r io.Reader, name string, o CSVOptions) (*Data, error) {
	return readCSV(r, name, o, 0)
}

// readCSV is ReadCSV with a bound on the whole text (see ReadLimit).
func readCSV(r io.Reader, name string, o CSVOptions, maxText int64) (*Data, error) {
	mode := o.Header
	if mode == "" {
		mode = "names"
	}
	if mode != "names" && mode != "none" && mode != "sklearn" {
		return nil, fmt.Errorf("%s: unknown header kind %q (want names, none or sklearn)", name, o.Header)
	}
	lr, err := openInput(r, name, maxText)
	if err != nil {
		return nil, err
	}
	src := &csvSource{lr: lr, limit: lineLimit, startLine: 1}
	cr := csv.NewReader(src)
	cr.FieldsPerRecord = -1 // ragged rows are reported below, with the expected count
	cr.TrimLeadingSpace = true
	read := func() ([]string, int, error) {
		rec, err := cr.Read()
		if err == io.EOF {
			return nil, 0, io.EOF
		}
		if err != nil {
			var pe *csv.ParseError
			var re *recordTooLong
			switch {
			case errors.As(err, &re):
				return nil, 0, fmt.Errorf("%s:%d: the record that starts here is still open at line %d, and the next line would take it past %s, the limit for one CSV record; is a quoted field never closed? (a line break inside quotes continues the field)",
					name, re.startLine, re.line, linelimit.Size(re.limit))
			case errors.As(err, &pe):
				return nil, 0, fmt.Errorf("%s:%d:%d: %v", name, pe.Line, pe.Column, pe.Err)
			}
			return nil, 0, inputError(name, lr.Lines()+1, err)
		}
		src.mark()
		for k := range rec {
			rec[k] = strings.TrimSpace(rec[k])
		}
		line, _ := cr.FieldPos(0)
		return rec, line, nil
	}

	first, firstLine, err := read()
	if err == io.EOF {
		return nil, fmt.Errorf("%s: empty file", name)
	}
	if err != nil {
		return nil, err
	}

	var (
		header      []string // column names (mode "names")
		classes     []string // class names (mode "sklearn")
		nSamples    = -1     // rows announced by a sklearn header
		ncol        int
		pending     []string // the first data row when it has been read already
		pendingLine int
	)
	switch mode {
	case "names":
		header = first
		ncol = len(header)
		at := map[string]int{}
		for k, h := range header {
			if h == "" {
				continue
			}
			if prev, dup := at[h]; dup {
				return nil, fmt.Errorf("%s:%d: columns %d and %d are both named %q", name, firstLine, prev+1, k+1, h)
			}
			at[h] = k
		}
	case "sklearn":
		if len(first) < 2 {
			return nil, fmt.Errorf("%s:%d: sklearn header has %d field(s), want n_samples, n_features, then the class names", name, firstLine, len(first))
		}
		ns, err1 := strconv.Atoi(first[0])
		nf, err2 := strconv.Atoi(first[1])
		if err1 != nil || err2 != nil || ns < 0 || nf < 1 {
			return nil, fmt.Errorf("%s:%d: sklearn header starts %q,%q, want n_samples ≥ 0 and n_features ≥ 1 as integers", name, firstLine, first[0], first[1])
		}
		nSamples, classes = ns, first[2:]
		for k, c := range classes {
			if msg := textError("class name", c); msg != "" {
				return nil, fmt.Errorf("%s:%d: column %d: %s", name, firstLine, k+3, msg)
			}
		}
		// Take the row width from the first data row, so that a huge n_features allocates nothing.
		rec, line, err := read()
		if err == io.EOF {
			return nil, fmt.Errorf("%s: no data rows", name)
		}
		if err != nil {
			return nil, err
		}
		if len(rec) != nf+1 {
			return nil, fmt.Errorf("%s:%d: row has %s, want %d (n_features %d on line %d, then the class index)", name, line, english.Count(len(rec), "field", "fields"), nf+1, nf, firstLine)
		}
		pending, pendingLine, ncol = rec, line, nf+1
	case "none":
		pending, pendingLine, ncol = first, firstLine, len(first)
	}

	col := func(spec, what string) (int, error) { return resolveColumn(spec, what, header, ncol, name, firstLine) }
	labelCol, nameCol := -1, -1
	switch o.LabelColumn {
	case "none":
	case "":
		labelCol = ncol - 1
	default:
		if labelCol, err = col(o.LabelColumn, "label column"); err != nil {
			return nil, err
		}
	}
	if o.NameColumn != "" && o.NameColumn != "none" {
		if nameCol, err = col(o.NameColumn, "name column"); err != nil {
			return nil, err
		}
	}
	role := make([]string, ncol) // "" = feature
	if labelCol >= 0 {
		role[labelCol] = "the label column"
	}
	if nameCol >= 0 {
		if role[nameCol] != "" {
			return nil, fmt.Errorf("%s: column %d is both %s and the name column", name, nameCol+1, role[nameCol])
		}
		role[nameCol] = "the name column"
	}
	for _, spec := range o.Ignore {
		k, err := col(spec, "ignored column")
		if err != nil {
			return nil, err
		}
		switch role[k] {
		case "", "ignored": // naming a column twice in Ignore is harmless
		default:
			return nil, fmt.Errorf("%s: ignored column %q is %s (column %d)", name, spec, role[k], k+1)
		}
		role[k] = "ignored"
	}
	if mode == "sklearn" && labelCol >= 0 && len(classes) == 0 {
		return nil, fmt.Errorf("%s:%d: the sklearn header lists no class names, so the class indices in the label column cannot be named", name, firstLine)
	}
	var feat []int
	for k, r := range role {
		if r == "" {
			feat = append(feat, k)
		}
	}
	if len(feat) == 0 {
		return nil, fmt.Errorf("%s: no feature columns are left after the label, name and ignored columns", name)
	}

	d := &Data{}
	if header != nil {
		d.Features = make([]string, len(feat))
		for j, k := range feat {
			d.Features[j] = header[k]
		}
	}
	if labelCol >= 0 {
		d.Labels = []string{}
	}
	names := map[string]int{} // item name → line
	bad := badlines.New(name)
rows:
	for {
		rec, line := pending, pendingLine
		if pending != nil {
			pending = nil
		} else {
			rec, line, err = read()
			if err == io.EOF {
				break
			}
			if err != nil {
				// The CSV parser cannot resynchronise after a broken quote, so reading stops.
				return nil, errors.Join(bad.Err(), err)
			}
		}
		if len(rec) != ncol {
			bad.Addf(line, "row has %s, want %d", english.Count(len(rec), "field", "fields"), ncol)
			continue
		}
		row := make([]float64, len(feat))
		miss := 0
		for j, k := range feat {
			v, m, msg := parseValue(rec[k])
			if msg != "" {
				bad.Addf(line, "column %d%s: %s", k+1, columnName(header, k), msg)
				continue rows
			}
			if m {
				miss++
			}
			row[j] = v
		}
		item := strconv.Itoa(len(d.X))
		if nameCol >= 0 {
			item = rec[nameCol]
			if item == "" {
				bad.Addf(line, "column %d: empty item name", nameCol+1)
				continue
			}
			if msg := textError("item name", item); msg != "" {
				bad.Addf(line, "column %d: %s", nameCol+1, msg)
				continue
			}
			if prev, dup := names[item]; dup {
				bad.Addf(line, "item name %q already used on line %d", item, prev)
				continue
			}
			names[item] = line
		}
		if labelCol >= 0 {
			l := rec[labelCol]
			if msg := textError("label", l); msg != "" {
				bad.Addf(line, "column %d: %s", labelCol+1, msg)
				continue
			}
			if l == o.Unknown {
				l = ""
			}
			if mode == "sklearn" && l != "" {
				c, err := strconv.Atoi(l)
				if err != nil {
					bad.Addf(line, "column %d: class index %q is not an integer", labelCol+1, l)
					continue
				}
				if c < 0 || c >= len(classes) {
					bad.Addf(line, "column %d: class index %d is out of range: the header (line %d) names %s, indices 0 to %d", labelCol+1, c, firstLine, english.Count(len(classes), "class", "classes"), len(classes)-1)
					continue
				}
				if l = classes[c]; l == o.Unknown {
					l = ""
				}
			}
			d.Labels = append(d.Labels, l)
		}
		d.Names = append(d.Names, item)
		d.X = append(d.X, row)
		d.rowMissing = append(d.rowMissing, miss)
		d.Missing += miss
	}
	if err := bad.Err(); err != nil {
		return nil, err
	}
	if len(d.X) == 0 {
		return nil, fmt.Errorf("%s: no data rows", name)
	}
	if nSamples >= 0 && nSamples != len(d.X) {
		return nil, fmt.Errorf("%s:%d: the sklearn header says %s, the file has %s", name, firstLine, english.Count(nSamples, "sample", "samples"), english.Count(len(d.X), "row", "rows"))
	}
	return d, nil
}

// csvSource hands encoding/csv the input line by line (each within the line limit), and stops a
// record that spans more than limit bytes, which a quoted field left open would otherwise grow
// without bound. The CSV parser reads a line only when it needs it (its buffer never holds more
// than the line it is parsing), so the bytes handed over since the last record ended are the
// bytes of the current record and the blank lines before it.
type csvSource struct {
	lr        *linelimit.Reader
	limit     int
	cur       []byte // the rest of the line being handed over
	delivered int64  // bytes handed over so far
	start     int64  // delivered when the last record ended, or after the blank lines after it
	startLine int    // the line after those
}

// recordTooLong is the error for a record that spans more than the limit.
type recordTooLong struct{ startLine, line, limit int }

func (e *recordTooLong) Error() string {
	return fmt.Sprintf("a record from line %d to %d spans more than %d bytes", e.startLine, e.line, e.limit)
}

func (s *csvSource) Read(p []byte) (int, error) {
	if len(s.cur) == 0 {
		b, err := s.lr.Line()
		if err != nil {
			return 0, err
		}
		if s.delivered > s.start && s.delivered-s.start+int64(len(b)) > int64(s.limit) {
			return 0, &recordTooLong{startLine: s.startLine, line: s.lr.Lines() - 1, limit: s.limit}
		}
		if s.delivered == s.start && (len(b) == 1 || len(b) == 2 && b[0] == '\r') && b[len(b)-1] == '\n' {
			// A blank line before a record, which the parser skips: the record starts later.
			s.start, s.startLine = s.delivered+int64(len(b)), s.lr.Lines()+1
		}
		s.cur = b
	}
	n := copy(p, s.cur)
	s.cur = s.cur[n:]
	s.delivered += int64(n)
	return n, nil
}

// mark notes that a record has ended.
func (s *csvSource) mark() { s.start, s.startLine = s.delivered, s.lr.Lines()+1 }

// resolveColumn returns the 0-based index of the column that spec names: a header name, else a
// 1-based position.
func resolveColumn(spec, what string, header []string, ncol int, name string, headerLine int) (int, error) {
	s := strings.TrimSpace(spec)
	for k, h := range header {
		if h != "" && h == s {
			return k, nil
		}
	}
	p, err := strconv.Atoi(s)
	if err != nil {
		if header == nil {
			return 0, fmt.Errorf("%s: %s %q: the file has no header line of column names, so give a 1-based column position", name, what, spec)
		}
		return 0, fmt.Errorf("%s:%d: %s %q is not in the header (columns: %s)", name, headerLine, what, spec, listNames(header))
	}
	if p < 1 || p > ncol {
		return 0, fmt.Errorf("%s: %s %d is out of range: the file has %s (1-based positions)", name, what, p, english.Count(ncol, "column", "columns"))
	}
	return p - 1, nil
}

// listNames shows the header's names, the first 12 of them.
func listNames(header []string) string {
	const max = 12
	q := make([]string, 0, max+1)
	for k, h := range header {
		if k == max {
			q = append(q, fmt.Sprintf("… %d in all", len(header)))
			break
		}
		q = append(q, strconv.Quote(h))
	}
	return strings.Join(q, ", ")
}

// columnName returns " (NAME)" for a column with a header name, else "".
func columnName(header []string, k int) string {
	if header == nil || header[k] == "" {
		return ""
	}
	return " (" + header[k] + ")"
}

package datadir

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"
)

// pam50Matrix is UNC's PAM50 training file, parsed: tab-separated with CRLF line endings, line 1
// an empty corner cell and the sample names, line 2 "subtype" and one label a sample ("" for
// unknown), then one line a gene: its symbol and one value a sample ("" for missing).
type pam50Matrix struct {
	samples  []string
	subtypes []string
	genes    []string
	values   [][]string // values[gene][sample]
}

// parseTSV splits a tab-separated file with the given line ending into rows of equal width
// (at least minCols), checking that the file ends with a line ending.
func parseTSV(name string, b []byte, eol string, minCols int) ([][]string, error) {
	s := string(b)
	if !strings.HasSuffix(s, eol) {
		return nil, fmt.Errorf("%s: does not end with %q", name, eol)
	}
	lines := strings.Split(strings.TrimSuffix(s, eol), eol)
	rows := make([][]string, len(lines))
	for i, l := range lines {
		if strings.ContainsAny(l, "\r\n") {
			return nil, fmt.Errorf("%s: line %d: stray line break (lines must end with %q)", name, i+1, eol)
		}
		rows[i] = strings.Split(l, "\t")
		if len(rows[i]) != len(rows[0]) || len(rows[i]) < minCols {
			return nil, fmt.Errorf("%s: line %d has %d fields, line 1 %d", name, i+1, len(rows[i]), len(rows[0]))
		}
	}
	return rows, nil
}

func parsePAM50Matrix(b []byte) (*pam50Matrix, error) {
	const name = "220arrays_nonUBCcommon+12normal_50g.txt"
	rows, err := parseTSV(name, b, "\r\n", 2)
	if err != nil {
		return nil, err
	}
	if len(rows) < 3 || rows[0][0] != "" || rows[1][0] != "subtype" {
		return nil, fmt.Errorf("%s: want a header line, a subtype line and gene lines", name)
	}
	m := &pam50Matrix{samples: rows[0][1:], subtypes: rows[1][1:]}
	for _, r := range rows[2:] {
		m.genes = append(m.genes, r[0])
		m.values = append(m.values, r[1:])
	}
	return m, nil
}

// pam50ZeroFilled makes pam50_232x50_zerofilled.csv from the training file: one row a sample
// ("index,sample,subtype,GENES..."), LF line endings, missing values written 0, unknown subtypes
// Unknown, value strings copied unchanged.
func pam50ZeroFilled(src [][]byte) ([]byte, error) {
	if len(src) != 1 {
		return nil, fmt.Errorf("pam50: %d sources, want the training file", len(src))
	}
	m, err := parsePAM50Matrix(src[0])
	if err != nil {
		return nil, err
	}
	for _, f := range append(append([]string{}, m.samples...), m.genes...) {
		if strings.ContainsAny(f, ",\"") {
			return nil, fmt.Errorf("pam50: name %q would need CSV quoting", f)
		}
	}
	var out bytes.Buffer
	out.WriteString("index,sample,subtype," + strings.Join(m.genes, ",") + "\n")
	for j, s := range m.samples {
		sub := m.subtypes[j]
		if sub == "" {
			sub = "Unknown"
		}
		out.WriteString(strconv.Itoa(j+1) + "," + s + "," + sub)
		for g := range m.genes {
			v := m.values[g][j]
			if v == "" {
				v = "0"
			}
			out.WriteString("," + v)
		}
		out.WriteByte('\n')
	}
	return out.Bytes(), nil
}

// pam50ExampleMatch makes sampleInputFile_200subjects_to_train232.tsv from the training file,
// UNC's example input sampleInputFile_200subjects.txt (tab-separated, CRLF; line 1 the subject
// names, line 2 a "T" row, then the same genes in the same order) and its example classifier
// output sampleInputFile_pam50scores.txt (tab-separated, quoted, CRLF; a "Call" column). Every
// example column is an exact copy (same strings, same empty cells) of one or more training
// columns; each line gives the subject, the 1-based training indices and samples it copies
// (joined with ";"), their subtype (Unknown for unlabelled) and UNC's PAM50 call for the subject.
func pam50ExampleMatch(src [][]byte) ([]byte, error) {
	if len(src) != 3 {
		return nil, fmt.Errorf("pam50: %d sources, want the training file, the example input and its scores", len(src))
	}
	m, err := parsePAM50Matrix(src[0])
	if err != nil {
		return nil, err
	}
	const exName, scName = "sampleInputFile_200subjects.txt", "sampleInputFile_pam50scores.txt"
	ex, err := parseTSV(exName, src[1], "\r\n", 2)
	if err != nil {
		return nil, err
	}
	if len(ex) != len(m.genes)+2 || ex[0][0] != "" {
		return nil, fmt.Errorf("%s: %d lines, want a header, a T line and the %d genes", exName, len(ex), len(m.genes))
	}
	for g, gene := range m.genes {
		if ex[g+2][0] != gene {
			return nil, fmt.Errorf("%s: line %d is gene %q, the training file's is %q", exName, g+3, ex[g+2][0], gene)
		}
	}
	sc, err := parseTSV(scName, src[2], "\r\n", 2)
	if err != nil {
		return nil, err
	}
	unq := func(s string) string {
		if len(s) >= 2 && s[0] == '"' && s[len(s)-1] == '"' {
			return s[1 : len(s)-1]
		}
		return s
	}
	callCol := -1
	for i, h := range sc[0] {
		if unq(h) == "Call" {
			callCol = i
		}
	}
	if callCol < 0 {
		return nil, fmt.Errorf("%s: no Call column", scName)
	}
	calls := map[string]string{}
	for _, r := range sc[1:] {
		calls[unq(r[0])] = unq(r[callCol])
	}

	column := func(vals [][]string, j int) string {
		var b strings.Builder
		for g := range m.genes {
			b.WriteString(vals[g][j])
			b.WriteByte('\t')
		}
		return b.String()
	}
	byColumn := map[string][]int{}
	for j := range m.samples {
		k := column(m.values, j)
		byColumn[k] = append(byColumn[k], j)
	}
	exVals := make([][]string, len(m.genes))
	for g := range m.genes {
		exVals[g] = ex[g+2][1:]
	}
	var out bytes.Buffer
	out.WriteString("example_subject\ttrain_index\ttrain_sample\ttrain_subtype\texample_pam50_call\n")
	for j, subject := range ex[0][1:] {
		match := byColumn[column(exVals, j)]
		if len(match) == 0 {
			return nil, fmt.Errorf("%s: subject %s copies no training column", exName, subject)
		}
		call, ok := calls[subject]
		if !ok {
			return nil, fmt.Errorf("%s: no call for subject %s", scName, subject)
		}
		var idx, names, subs []string
		for _, i := range match {
			idx = append(idx, strconv.Itoa(i+1))
			names = append(names, m.samples[i])
			s := m.subtypes[i]
			if s == "" {
				s = "Unknown"
			}
			if len(subs) == 0 || subs[len(subs)-1] != s {
				subs = append(subs, s)
			}
		}
		fmt.Fprintf(&out, "%s\t%s\t%s\t%s\t%s\n", subject, strings.Join(idx, ";"), strings.Join(names, ";"), strings.Join(subs, ";"), call)
	}
	return out.Bytes(), nil
}

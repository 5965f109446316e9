package labelled_test

import (
	"bytes"
	"compress/gzip"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/hcbench/hcbench/datasets/labelled"
)

func gz(t testing.TB, s string) string {
	t.Helper()
	var b bytes.Buffer
	w := gzip.NewWriter(&b)
	if _, err := w.Write([]byte(s)); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// same compares vectors with NaN equal to NaN.
func same(a, b [][]float64) bool {
	return slices.EqualFunc(a, b, func(x, y []float64) bool {
		return slices.EqualFunc(x, y, func(u, v float64) bool { return u == v || math.IsNaN(u) && math.IsNaN(v) })
	})
}

var nan = math.NaN()

// A small PAM50-layout file: 3 samples, 2 genes, one unknown label, one missing value.
const smallPAM50 = "\tS1\tS2\tS3\nsubtype\tBasal\t\tLumA\nG1\t1.5\t-2\t\nG2\t0\t3e-1\t4\n"

func TestReadPAM50Accepts(t *testing.T) {
	want := &labelled.Data{
		Names:    []string{"S1", "S2", "S3"},
		Features: []string{"G1", "G2"},
		X:        [][]float64{{1.5, 0}, {-2, 0.3}, {nan, 4}},
		Labels:   []string{"Basal", "", "LumA"},
		Missing:  1,
	}
	variants := map[string]string{
		"LF":           smallPAM50,
		"CRLF":         strings.ReplaceAll(smallPAM50, "\n", "\r\n"),
		"BOM":          "\ufeff" + smallPAM50,
		"no final EOL": strings.TrimSuffix(smallPAM50, "\n"),
		"blank lines":  strings.Replace(smallPAM50, "G2", "\r\n  \nG2", 1) + "\n\n",
		"gzip":         gz(t, "\ufeff"+strings.ReplaceAll(smallPAM50, "\n", "\r\n")),
		"NA":           strings.Replace(smallPAM50, "\t\nG2", "\tNA\nG2", 1),
		"na":           strings.Replace(smallPAM50, "\t\nG2", "\tna\nG2", 1),
	}
	for name, text := range variants {
		d, err := labelled.ReadPAM50(strings.NewReader(text), name)
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if !reflect.DeepEqual(d.Names, want.Names) || !reflect.DeepEqual(d.Features, want.Features) ||
			!reflect.DeepEqual(d.Labels, want.Labels) || d.Missing != want.Missing || !same(d.X, want.X) {
			t.Errorf("%s: got %+v\nwant %+v", name, d, want)
		}
	}
}

func TestReadPAM50Errors(t *testing.T) {
	cases := []struct{ name, text, want string }{
		{"empty", "", "empty: empty file"},
		{"only BOM", "\ufeff\r\n", "only BOM: empty file"},
		{"no tab", "a,b,c\n", "no tab:1: no tab"},
		{"corner", "x\tS1\nsubtype\tA\nG\t1\n", `corner:1: the first cell is "x"`},
		{"dup sample", "\tS1\tS1\nsubtype\tA\tB\nG\t1\t2\n", `dup sample:1: column 3: sample name "S1" is also in column 2`},
		{"empty sample", "\tS1\t\nsubtype\tA\tB\nG\t1\t2\n", "empty sample:1: column 3: empty sample name"},
		{"no subtype line", "\tS1\n", "no subtype line: no subtype line"},
		{"not subtype", "\tS1\nG1\t1\nG2\t2\n", `not subtype:2: the first cell is "G1", want "subtype"`},
		{"no genes", "\tS1\nsubtype\tA\n", "no genes: no gene lines"},
		{"ragged", strings.Replace(smallPAM50, "\t4\n", "\n", 1), "ragged:4: row has 3 fields, want 4"},
		{"ragged CRLF", "\r\n" + strings.ReplaceAll(strings.Replace(smallPAM50, "\t4\n", "\t4\t5\n", 1), "\n", "\r\n"), "ragged CRLF:5: row has 5 fields, want 4"},
		{"ragged subtype", "\tS1\tS2\nsubtype\tA\nG\t1\t2\n", "ragged subtype:2: row has 2 fields, want 3"},
		{"not a number", strings.Replace(smallPAM50, "0\t3e-1", "0\tabc", 1), `not a number:4: column 3 (sample S2): "abc" is not a number`},
		{"inf", strings.Replace(smallPAM50, "0\t3e-1", "0\tInf", 1), `inf:4: column 3 (sample S2): "Inf" is not a finite number`},
		{"too large", strings.Replace(smallPAM50, "0\t3e-1", "0\t1e400", 1), `too large:4: column 3 (sample S2): "1e400" is out of the range`},
		{"dup gene", strings.Replace(smallPAM50, "G2", "G1", 1), `dup gene:4: gene "G1" already on line 3`},
		{"empty gene", strings.Replace(smallPAM50, "G2", " ", 1), "empty gene:4: empty gene symbol"},
		{"old Mac", strings.ReplaceAll(smallPAM50, "\n", "\r"), "old Mac:1: carriage return inside the line"},
		{"NaN", strings.Replace(smallPAM50, "\t\nG2", "\tNaN\nG2", 1), `NaN:3: column 4 (sample S3): "NaN" is not a number: leave a missing value empty or write NA`},
		{"Latin-1 sample", strings.Replace(smallPAM50, "S2", "caf\xe9", 1), `Latin-1 sample:1: column 3: sample name "caf\xe9" is not UTF-8 text; convert the file to UTF-8`},
		{"Latin-1 subtype", strings.Replace(smallPAM50, "LumA", "Lum\xc1", 1), `Latin-1 subtype:2: column 4: subtype "Lum\xc1" is not UTF-8 text`},
		{"bad gzip", "\x1f\x8b\x08garbage", "bad gzip: starts like gzip but is not a valid gzip stream"},
		{"truncated gzip", gz(t, smallPAM50)[:30], "damaged gzip data"},
	}
	for _, c := range cases {
		d, err := labelled.ReadPAM50(strings.NewReader(c.text), c.name)
		if err == nil {
			t.Errorf("%s: no error, got %+v", c.name, d)
			continue
		}
		if !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %q, want it to contain %q", c.name, err, c.want)
		}
	}
}

// A small CSV with names: an index column to drop, names, labels, two features.
const smallCSV = "index,sample,subtype,G1,G2\n1,a,Basal,1.5,0\n2,b,Unknown,-2,\n3,c,LumA,NA,4\n"

var smallOptions = labelled.CSVOptions{Header: "names", LabelColumn: "subtype", NameColumn: "sample", Ignore: []string{"index"}, Unknown: "Unknown"}

func TestReadCSVAccepts(t *testing.T) {
	want := &labelled.Data{
		Names:    []string{"a", "b", "c"},
		Features: []string{"G1", "G2"},
		X:        [][]float64{{1.5, 0}, {-2, nan}, {nan, 4}},
		Labels:   []string{"Basal", "", "LumA"},
		Missing:  2,
	}
	positions := labelled.CSVOptions{LabelColumn: "3", NameColumn: "2", Ignore: []string{"1"}, Unknown: "Unknown"}
	cases := []struct {
		name, text string
		o          labelled.CSVOptions
	}{
		{"LF", smallCSV, smallOptions},
		{"CRLF", strings.ReplaceAll(smallCSV, "\n", "\r\n"), smallOptions},
		{"BOM", "\ufeff" + smallCSV, smallOptions},
		{"gzip", gz(t, "\ufeff"+strings.ReplaceAll(smallCSV, "\n", "\r\n")), smallOptions},
		{"positions, default header", smallCSV, positions},
		{"ignored twice", smallCSV, labelled.CSVOptions{LabelColumn: "subtype", NameColumn: "sample", Ignore: []string{"index", "1"}, Unknown: "Unknown"}},
		{"quotes and spaces", "index, sample ,subtype,G1,G2\n1,\"a\",Basal, 1.5 ,0\n\n2,b,,-2,\"\"\n3,c,LumA,na,4", smallOptions},
		{"no final EOL", strings.TrimSuffix(smallCSV, "\n"), smallOptions},
	}
	for _, c := range cases {
		d, err := labelled.ReadCSV(strings.NewReader(c.text), c.name, c.o)
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		if !reflect.DeepEqual(d.Names, want.Names) || !reflect.DeepEqual(d.Features, want.Features) ||
			!reflect.DeepEqual(d.Labels, want.Labels) || d.Missing != want.Missing || !same(d.X, want.X) {
			t.Errorf("%s: got %+v\nwant %+v", c.name, d, want)
		}
	}

	// The label is the last column by default; no name column names items by row index; "none"
	// gives unlabelled data.
	d, err := labelled.ReadCSV(strings.NewReader("x,y,class\n1,2,A\n3,4,B\n"), "plain", labelled.CSVOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(d.Labels, []string{"A", "B"}) || !reflect.DeepEqual(d.Names, []string{"0", "1"}) || !reflect.DeepEqual(d.Features, []string{"x", "y"}) {
		t.Errorf("defaults: got %+v", d)
	}
	d, err = labelled.ReadCSV(strings.NewReader("1,2,3\n4,5,6\n"), "unlabelled", labelled.CSVOptions{Header: "none", LabelColumn: "none"})
	if err != nil {
		t.Fatal(err)
	}
	if d.Labels != nil || d.Features != nil || !same(d.X, [][]float64{{1, 2, 3}, {4, 5, 6}}) {
		t.Errorf("unlabelled: got %+v", d)
	}
	if got := d.LabelCounts(); !reflect.DeepEqual(got, map[string]int{"": 2}) {
		t.Errorf("unlabelled: LabelCounts %v, want all unknown", got)
	}

	// sklearn header: class indices name the classes; an empty label is unknown.
	d, err = labelled.ReadCSV(strings.NewReader("3,2,cat,dog\r\n1,2,0\r\n3,4,1\r\n5,6,\r\n"), "sk", labelled.CSVOptions{Header: "sklearn"})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(d.Labels, []string{"cat", "dog", ""}) || d.Features != nil || !same(d.X, [][]float64{{1, 2}, {3, 4}, {5, 6}}) {
		t.Errorf("sklearn: got %+v", d)
	}
}

func TestReadCSVErrors(t *testing.T) {
	cases := []struct {
		name, text string
		o          labelled.CSVOptions
		want       string
	}{
		{"empty", "", smallOptions, "empty: empty file"},
		{"BOM only", "\ufeff", smallOptions, "BOM only: empty file"},
		{"header only", "a,b\n", labelled.CSVOptions{}, "header only: no data rows"},
		{"ragged", smallCSV + "4,d,LumA,1\n", smallOptions, "ragged:5: row has 4 fields, want 5"},
		{"ragged CRLF after blank", strings.ReplaceAll("a,b\n\n1,2\n3\n", "\n", "\r\n"), labelled.CSVOptions{}, "ragged CRLF after blank:4: row has 1 field, want 2"},
		{"not a number", strings.Replace(smallCSV, "-2", "abc", 1), smallOptions, `not a number:3: column 4 (G1): "abc" is not a number`},
		{"not a number, no header", "1,2,A\n1,abc,B\n", labelled.CSVOptions{Header: "none"}, `not a number, no header:2: column 2: "abc" is not a number`},
		{"inf", strings.Replace(smallCSV, "-2", "-Inf", 1), smallOptions, `inf:3: column 4 (G1): "-Inf" is not a finite number`},
		{"NaN", strings.Replace(smallCSV, "-2", "NaN", 1), smallOptions, `NaN:3: column 4 (G1): "NaN" is not a number: leave a missing value empty or write NA`},
		{"nan, no header", "1,2,A\n1,nan,B\n", labelled.CSVOptions{Header: "none"}, `nan, no header:2: column 2: "nan" is not a number: leave a missing value empty or write NA`},
		{"Latin-1 name", strings.Replace(smallCSV, ",b,", ",caf\xe9,", 1), smallOptions, `Latin-1 name:3: column 2: item name "caf\xe9" is not UTF-8 text; convert the file to UTF-8`},
		{"Latin-1 label", strings.Replace(smallCSV, "Basal", "Bas\xe1l", 1), smallOptions, `Latin-1 label:2: column 3: label "Bas\xe1l" is not UTF-8 text`},
		{"dup name", strings.Replace(smallCSV, ",c,", ",a,", 1), smallOptions, `dup name:4: item name "a" already used on line 2`},
		{"empty name", strings.Replace(smallCSV, ",c,", ",,", 1), smallOptions, "empty name:4: column 2: empty item name"},
		{"dup column", "a,a,c\n1,2,3\n", labelled.CSVOptions{}, `dup column:1: columns 1 and 2 are both named "a"`},
		{"unknown label column", smallCSV, labelled.CSVOptions{LabelColumn: "class"}, `unknown label column:1: label column "class" is not in the header (columns: "index", "sample"`},
		{"unknown name column", smallCSV, labelled.CSVOptions{NameColumn: "id"}, `name column "id" is not in the header`},
		{"unknown ignored column", smallCSV, labelled.CSVOptions{LabelColumn: "subtype", Ignore: []string{"idx"}}, `ignored column "idx" is not in the header`},
		{"position out of range", smallCSV, labelled.CSVOptions{LabelColumn: "6"}, "label column 6 is out of range: the file has 5 columns"},
		{"name without header", "1,2\n", labelled.CSVOptions{Header: "none", LabelColumn: "class"}, `label column "class": the file has no header line`},
		{"label is name", smallCSV, labelled.CSVOptions{LabelColumn: "subtype", NameColumn: "3"}, "column 3 is both the label column and the name column"},
		{"ignore label", smallCSV, labelled.CSVOptions{Ignore: []string{"G2"}}, `ignored column "G2" is the label column (column 5)`},
		{"no features", "a,b\n1,2\n", labelled.CSVOptions{NameColumn: "a"}, "no feature columns"},
		{"bad header kind", smallCSV, labelled.CSVOptions{Header: "yes"}, `unknown header kind "yes"`},
		{"sklearn index out of range", "2,1,a,b\n1,0\n1,2\n", labelled.CSVOptions{Header: "sklearn"}, "sklearn index out of range:3: column 2: class index 2 is out of range: the header (line 1) names 2 classes, indices 0 to 1"},
		{"sklearn negative index", "2,1,a,b\n1,0\n1,-1\n", labelled.CSVOptions{Header: "sklearn"}, "class index -1 is out of range"},
		{"sklearn index not integer", "2,1,a,b\n1,0\n1,b\n", labelled.CSVOptions{Header: "sklearn"}, `sklearn index not integer:3: column 2: class index "b" is not an integer`},
		{"sklearn count", "3,1,a,b\n1,0\n1,1\n", labelled.CSVOptions{Header: "sklearn"}, "sklearn count:1: the sklearn header says 3 samples, the file has 2 rows"},
		{"sklearn width", "2,2,a,b\n1,0\n1,1\n", labelled.CSVOptions{Header: "sklearn"}, "sklearn width:2: row has 2 fields, want 3"},
		{"sklearn huge width", "1,2000000000000,a\n1,0\n", labelled.CSVOptions{Header: "sklearn"}, "huge width:2: row has 2 fields, want 2000000000001"},
		{"sklearn no rows", "1,1,a\n", labelled.CSVOptions{Header: "sklearn"}, "sklearn no rows: no data rows"},
		{"sklearn bad header", "n,2,a\n1,2,0\n", labelled.CSVOptions{Header: "sklearn"}, "sklearn bad header:1: sklearn header starts"},
		{"sklearn no classes", "1,1\n1,0\n", labelled.CSVOptions{Header: "sklearn"}, "lists no class names"},
		{"sklearn Latin-1 class", "1,1,a,\xe9t\xe9\n1,0\n", labelled.CSVOptions{Header: "sklearn"}, `sklearn Latin-1 class:1: column 4: class name "\xe9t\xe9" is not UTF-8 text`},
		{"bare quote", "a,b\n1,x\"y\n", labelled.CSVOptions{}, `bare quote:2:`},
		{"truncated gzip", gz(t, smallCSV)[:40], smallOptions, "damaged gzip data"},
	}
	for _, c := range cases {
		d, err := labelled.ReadCSV(strings.NewReader(c.text), c.name, c.o)
		if err == nil {
			t.Errorf("%s: no error, got %+v", c.name, d)
			continue
		}
		if !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %q, want it to contain %q", c.name, err, c.want)
		}
	}
}

func TestReadFile(t *testing.T) {
	dir := t.TempDir()
	csvPath := filepath.Join(dir, "small.csv.gz")
	tsvPath := filepath.Join(dir, "small.tsv")
	if err := os.WriteFile(csvPath, []byte(gz(t, smallCSV)), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(tsvPath, []byte(smallPAM50), 0o644); err != nil {
		t.Fatal(err)
	}
	d, err := labelled.ReadFile(csvPath, "csv", smallOptions)
	if err != nil || d.Len() != 3 || d.Missing != 2 {
		t.Errorf("gzip CSV: %v, %+v", err, d)
	}
	d, err = labelled.ReadFile(tsvPath, "pam50", labelled.CSVOptions{})
	if err != nil || d.Len() != 3 || d.Missing != 1 {
		t.Errorf("pam50: %v, %+v", err, d)
	}
	missing := filepath.Join(dir, "nope.csv")
	errs := []struct {
		path, format string
		o            labelled.CSVOptions
		want         string
	}{
		{missing, "csv", smallOptions, missing},
		{tsvPath, "tsv", labelled.CSVOptions{}, `unknown format "tsv"`},
		{tsvPath, "pam50", smallOptions, "do not apply to format pam50"},
	}
	for _, e := range errs {
		_, err := labelled.ReadFile(e.path, e.format, e.o)
		if err == nil || !strings.Contains(err.Error(), e.want) {
			t.Errorf("ReadFile(%s, %s): error %v, want it to contain %q", e.path, e.format, err, e.want)
		}
	}
	// Errors about the contents name the path and line.
	bad := filepath.Join(dir, "bad.csv")
	if err := os.WriteFile(bad, []byte("a,b,c\n1,2,A\n1,x,B\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = labelled.ReadFile(bad, "csv", labelled.CSVOptions{})
	if want := bad + `:3: column 2 (b): "x" is not a number`; err == nil || err.Error() != want {
		t.Errorf("error %v, want %q", err, want)
	}
}

func TestDataMethods(t *testing.T) {
	d, err := labelled.ReadCSV(strings.NewReader(smallCSV), "small", smallOptions)
	if err != nil {
		t.Fatal(err)
	}
	if got := d.LabelCounts(); !reflect.DeepEqual(got, map[string]int{"Basal": 1, "LumA": 1, "": 1}) {
		t.Errorf("LabelCounts %v", got)
	}
	s := d.Subset([]int{2, 0})
	if !reflect.DeepEqual(s.Names, []string{"c", "a"}) || !reflect.DeepEqual(s.Labels, []string{"LumA", "Basal"}) ||
		!same(s.X, [][]float64{{nan, 4}, {1.5, 0}}) || s.Missing != 1 || !reflect.DeepEqual(s.Features, d.Features) {
		t.Errorf("Subset([2 0]) = %+v", s)
	}
	// A copy: changing it leaves d alone.
	s.X[1][0], s.Names[0], s.Labels[0], s.Features[0] = 99, "z", "z", "z"
	if d.X[0][0] != 1.5 || d.Names[2] != "c" || d.Labels[2] != "LumA" || d.Features[0] != "G1" {
		t.Errorf("changing the subset changed the data: %+v", d)
	}
	d.FillMissing(-7)
	if !same(d.X, [][]float64{{1.5, 0}, {-2, -7}, {-7, 4}}) || d.Missing != 2 {
		t.Errorf("FillMissing(-7): %+v (Missing must stay 2)", d)
	}
	// Missing of a subset counts what the file lacked, even after FillMissing.
	if s := d.Subset([]int{1, 2}); s.Missing != 2 {
		t.Errorf("Subset after FillMissing: Missing = %d, want 2", s.Missing)
	}
	// Data built by hand: Subset counts NaNs.
	h := &labelled.Data{Names: []string{"p", "q"}, X: [][]float64{{nan, nan}, {1, nan}}}
	if s := h.Subset([]int{1}); s.Missing != 1 || s.Labels != nil || s.Features != nil {
		t.Errorf("hand-built Subset = %+v", s)
	}
	func() {
		defer func() {
			if recover() == nil {
				t.Error("Subset with a repeated index did not panic")
			}
		}()
		d.Subset([]int{1, 1})
	}()
}

// Synthetic checks of the sampling rules, where a broken redraw would show at once.
func TestStratifiedSynthetic(t *testing.T) {
	// Label A: rows 0 and 1 identical, row 2 distinct: a draw of two is row 2 and one of 0/1.
	// Label B: row 3 identical to row 2 (across labels), rows 4 and 5 distinct: always 4 and 5.
	// Unknown: row 6, and rows 7 and 8, identical with a NaN at the same place: 6 and one of 7/8.
	d := &labelled.Data{
		Names:  []string{"a0", "a1", "a2", "b3", "b4", "b5", "u6", "u7", "u8"},
		X:      [][]float64{{1, 1}, {1, 1}, {2, 2}, {2, 2}, {3, 3}, {3, 4}, {4, 4}, {nan, 5}, {nan, 5}},
		Labels: []string{"A", "A", "A", "B", "B", "B", "", "", ""},
	}
	zeroOrOne := 0
	for seed := range uint64(300) {
		rng := rand.New(rand.NewPCG(seed, 7))
		idx, err := labelled.Stratified(d, rng, 2, 2)
		if err != nil {
			t.Fatal(err)
		}
		if len(idx) != 6 || !slices.IsSorted(idx) || !slices.Contains(idx, 2) || slices.Contains(idx, 3) ||
			!slices.Contains(idx, 4) || !slices.Contains(idx, 5) || !slices.Contains(idx, 6) ||
			slices.Contains(idx, 7) == slices.Contains(idx, 8) || slices.Contains(idx, 0) == slices.Contains(idx, 1) {
			t.Fatalf("seed %d: %v, want {2, one of 0/1, 4, 5, 6, one of 7/8}", seed, idx)
		}
		if slices.Contains(idx, 0) {
			zeroOrOne++
		}
	}
	if zeroOrOne < 100 || zeroOrOne > 200 { // Binomial(300, 1/2): 150 ± 3σ ≈ 26
		t.Errorf("row 0 chosen over row 1 in %d of 300 draws, want about half", zeroOrOne)
	}
	// Too few distinct vectors, or items.
	if _, err := labelled.Stratified(d, rand.New(rand.NewPCG(1, 1)), 2, 3); err == nil || !strings.Contains(err.Error(), "the unknown label has 3 items but only 2") {
		t.Errorf("3 unknown of which 2 identical: error %v", err)
	}
	if _, err := labelled.Stratified(d, rand.New(rand.NewPCG(1, 1)), 3, 0); err == nil || !strings.Contains(err.Error(), `label "A" has 3 items but only 2`) {
		t.Errorf("3 per label, two of A identical: error %v", err)
	}
	if _, err := labelled.Stratified(d, rand.New(rand.NewPCG(1, 1)), 4, 0); err == nil || !strings.Contains(err.Error(), `label "A" has 3 items, fewer than the 4`) {
		t.Errorf("4 per label: error %v", err)
	}
	if _, err := labelled.Stratified(d, nil, 1, 1); err == nil {
		t.Error("nil rng: no error")
	}
	if _, err := labelled.Stratified(d, rand.New(rand.NewPCG(1, 1)), -1, 1); err == nil {
		t.Error("negative count: no error")
	}
	// Without labels every item is unknown.
	u := &labelled.Data{Names: []string{"0", "1", "2"}, X: [][]float64{{1}, {2}, {3}}}
	idx, err := labelled.Stratified(u, rand.New(rand.NewPCG(1, 1)), 5, 3)
	if err != nil || !slices.Equal(idx, []int{0, 1, 2}) {
		t.Errorf("unlabelled: %v, %v", idx, err)
	}
	idx, err = labelled.FirstPerLabel(d, 1, 2)
	if err != nil || !slices.Equal(idx, []int{0, 3, 6, 7}) {
		t.Errorf("FirstPerLabel(1, 2) = %v, %v; want [0 3 6 7]", idx, err)
	}
	if _, err := labelled.FirstPerLabel(d, 1, 4); err == nil {
		t.Error("FirstPerLabel with 4 unknown of 3: no error")
	}
	if _, err := labelled.FirstPerLabel(&labelled.Data{X: [][]float64{{1}}, Labels: []string{}}, 1, 0); err == nil {
		t.Error("FirstPerLabel with labels missing: no error")
	}
}

// TestReadReportsEveryBadRow: the bad rows of a CSV file and the bad gene lines of a pam50 file
// are reported together, each with its line, and good rows between them do not stop the reading.
func TestReadReportsEveryBadRow(t *testing.T) {
	csvText := "name,a,b,label\nr1,1,2,A\nr2,1,x,B\nr3,1\nr1,3,4,A\nr5,5,6,B\n"
	_, err := labelled.ReadCSV(strings.NewReader(csvText), "bad.csv", labelled.CSVOptions{NameColumn: "name"})
	want := []string{
		`bad.csv:3: column 3 (b): "x" is not a number`,
		`bad.csv:4: row has 2 fields, want 4`,
		`bad.csv:5: item name "r1" already used on line 2`,
	}
	if err == nil || err.Error() != strings.Join(want, "\n") {
		t.Errorf("CSV error:\n%v\nwant:\n%s", err, strings.Join(want, "\n"))
	}
	tsv := "\tS1\tS2\nsubtype\tA\tB\nG1\t1\tx\nG2\t1\t2\nG3\t1\nG2\t3\t4\n"
	_, err = labelled.ReadPAM50(strings.NewReader(tsv), "bad.tsv")
	want = []string{
		`bad.tsv:3: column 3 (sample S2): "x" is not a number`,
		`bad.tsv:5: row has 2 fields, want 3`,
		`bad.tsv:6: gene "G2" already on line 4`,
	}
	if err == nil || err.Error() != strings.Join(want, "\n") {
		t.Errorf("pam50 error:\n%v\nwant:\n%s", err, strings.Join(want, "\n"))
	}
}

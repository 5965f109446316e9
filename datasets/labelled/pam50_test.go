package labelled_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"

	"github.com/hcbench/hcbench/datasets/datadir/datatest"
	"github.com/hcbench/hcbench/datasets/labelled"
)

const (
	pam50TSV = "pam50/220arrays_nonUBCcommon+12normal_50g.txt"
	pam50CSV = "pam50/pam50_232x50_zerofilled.csv"
)

// zeroFilledOptions read the derived CSV (header index,sample,subtype,<50 genes>; pam50 README).
var zeroFilledOptions = labelled.CSVOptions{Header: "names", LabelColumn: "subtype", NameColumn: "sample", Ignore: []string{"index"}, Unknown: "Unknown"}

// readShared reads a file of ../shared/data; a missing file fails the test (the data are part of
// the project's setup, see the README, "Data").
func readShared(t *testing.T, rel, format string, o labelled.CSVOptions) *labelled.Data {
	t.Helper()
	p := datatest.Path(t, rel)
	d, err := labelled.ReadFile(p, format, o)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func readPAM50(t *testing.T) *labelled.Data {
	return readShared(t, pam50TSV, "pam50", labelled.CSVOptions{})
}

func feature(t *testing.T, d *labelled.Data, name string) int {
	t.Helper()
	k := slices.Index(d.Features, name)
	if k < 0 {
		t.Fatalf("no feature %q", name)
	}
	return k
}

// classMean is the mean of feature k over the items labelled l; with skipNaN the missing cells are
// left out, otherwise they count as 0 (the paper's zero fill).
func classMean(d *labelled.Data, k int, l string, skipNaN bool) float64 {
	s, n := 0.0, 0
	for i, row := range d.X {
		if d.Labels[i] != l {
			continue
		}
		if v := row[k]; !math.IsNaN(v) {
			s += v
			n++
		} else if !skipNaN {
			n++
		}
	}
	return s / float64(n)
}

// The facts of pam50.md §2 and the pam50 README, checked on the canonical TSV.
func TestPAM50File(t *testing.T) {
	d := readPAM50(t)
	if d.Len() != 232 || len(d.Names) != 232 || len(d.Labels) != 232 || len(d.Features) != 50 {
		t.Fatalf("got %d items (%d names, %d labels) × %d genes, want 232 × 50", d.Len(), len(d.Names), len(d.Labels), len(d.Features))
	}
	for i, row := range d.X {
		if len(row) != 50 {
			t.Fatalf("item %d has %d values, want 50", i, len(row))
		}
	}
	want := map[string]int{"Normal": 12, "Basal": 57, "Her2": 35, "LumA": 23, "LumB": 12, "": 93}
	if got := d.LabelCounts(); !reflect.DeepEqual(got, want) {
		t.Errorf("label counts %v, want %v", got, want)
	}
	// Contiguous blocks, 1-based columns: Normal 1–12, Basal 13–69, Her2 70–104, LumA 105–127,
	// LumB 128–139, unknown 140–232.
	blocks := []struct {
		label    string
		from, to int
	}{{"Normal", 1, 12}, {"Basal", 13, 69}, {"Her2", 70, 104}, {"LumA", 105, 127}, {"LumB", 128, 139}, {"", 140, 232}}
	for _, b := range blocks {
		for c := b.from; c <= b.to; c++ {
			if d.Labels[c-1] != b.label {
				t.Errorf("column %d (item %d) has label %q, want %q", c, c-1, d.Labels[c-1], b.label)
			}
		}
	}
	if d.Missing != 307 {
		t.Errorf("Missing = %d, want 307", d.Missing)
	}
	nan, zeros := 0, 0
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, row := range d.X {
		for _, v := range row {
			switch {
			case math.IsNaN(v):
				nan++
			case v == 0:
				zeros++
			}
			if !math.IsNaN(v) {
				lo, hi = min(lo, v), max(hi, v)
			}
		}
	}
	if nan != 307 || zeros != 7 {
		t.Errorf("%d NaN cells and %d real zeros, want 307 and 7 (README)", nan, zeros)
	}
	// README: values range from −5.56 to 6.93 (two decimals); the file's extremes are -5.56 and 6.932.
	if lo != -5.56 || math.Abs(hi-6.93) > 0.005 {
		t.Errorf("values range from %v to %v, want −5.56 to 6.93", lo, hi)
	}
	if d.Names[0] != "Normal-Breast-10" || d.Names[231] != "H1AUNC-1613-C" {
		t.Errorf("items 0 and 231 are %q and %q, want Normal-Breast-10 and H1AUNC-1613-C", d.Names[0], d.Names[231])
	}
	if d.Names[54] != "H1AUNC-1467-C" || d.Names[55] != "H1AUNC-1468-C" {
		t.Errorf("items 54 and 55 are %q and %q, want H1AUNC-1467-C and H1AUNC-1468-C", d.Names[54], d.Names[55])
	}
	if d.Features[0] != "ACTR3B" || d.Features[49] != "UBE2T" || !slices.Contains(d.Features, "CDCA1") || !slices.Contains(d.Features, "ORC6L") {
		t.Errorf("genes %v: want ACTR3B first, UBE2T last, and the old symbols CDCA1 and ORC6L", d.Features)
	}

	// The only pair of identical vectors is columns 55 and 56 (0-based 54 and 55).
	var dups [][2]int
	for i := range d.X {
		for j := i + 1; j < d.Len(); j++ {
			if slices.EqualFunc(d.X[i], d.X[j], func(a, b float64) bool { return a == b || math.IsNaN(a) && math.IsNaN(b) }) {
				dups = append(dups, [2]int{i, j})
			}
		}
	}
	if !reflect.DeepEqual(dups, [][2]int{{54, 55}}) {
		t.Errorf("identical vectors at %v, want only [54 55]", dups)
	}

	// pam50.md §2 sanity checks, to 0.01. The −2.90 for ESR1 in Basal is the zero-filled mean
	// (6 of the 57 Basal ESR1 cells are missing); over the 51 observed cells it is −3.246
	// (computed here, not from the note). The other three means have no missing cells.
	checks := []struct {
		gene, label string
		skipNaN     bool
		want        float64
	}{
		{"ESR1", "Basal", false, -2.90},
		{"ESR1", "Basal", true, -3.246},
		{"ESR1", "LumA", false, 3.36},
		{"ESR1", "LumA", true, 3.36},
		{"ERBB2", "Her2", true, 4.32},
		{"FOXC1", "Basal", true, 2.37},
	}
	for _, c := range checks {
		if got := classMean(d, feature(t, d, c.gene), c.label, c.skipNaN); math.Abs(got-c.want) > 0.01 {
			t.Errorf("mean %s in %s (skip missing: %v) = %.4f, want %.2f ± 0.01", c.gene, c.label, c.skipNaN, got, c.want)
		}
	}
}

// The derived zero-filled CSV equals the TSV after FillMissing(0) exactly: the README says its value
// strings are copied unchanged, so both parse to the same float64s, and a missing cell is 0 in both.
func TestZeroFilledCSVEqualsTSV(t *testing.T) {
	tsv := readPAM50(t)
	csv := readShared(t, pam50CSV, "csv", zeroFilledOptions)
	tsv.FillMissing(0)
	if tsv.Missing != 307 {
		t.Errorf("FillMissing changed Missing to %d, want 307 kept", tsv.Missing)
	}
	if csv.Missing != 0 {
		t.Errorf("zero-filled CSV: Missing = %d, want 0", csv.Missing)
	}
	if !reflect.DeepEqual(csv.Names, tsv.Names) {
		t.Errorf("names differ:\n csv %v\n tsv %v", csv.Names, tsv.Names)
	}
	if !reflect.DeepEqual(csv.Labels, tsv.Labels) {
		t.Errorf("labels differ:\n csv %v\n tsv %v", csv.Labels, tsv.Labels)
	}
	if !reflect.DeepEqual(csv.Features, tsv.Features) {
		t.Errorf("features differ:\n csv %v\n tsv %v", csv.Features, tsv.Features)
	}
	if csv.Len() != tsv.Len() {
		t.Fatalf("csv has %d items, tsv %d", csv.Len(), tsv.Len())
	}
	diffs := 0
	for i := range tsv.X {
		for k := range tsv.X[i] {
			if csv.X[i][k] != tsv.X[i][k] {
				if diffs++; diffs <= 5 {
					t.Errorf("item %d gene %s: csv %v, tsv %v", i, tsv.Features[k], csv.X[i][k], tsv.X[i][k])
				}
			}
		}
	}
	if diffs > 0 {
		t.Errorf("%d cells differ", diffs)
	}
}

func TestUCI(t *testing.T) {
	cases := []struct {
		file      string
		header    string
		n, d      int
		counts    map[string]int
		first     []float64 // the first row's features
		firstName string    // its label
	}{
		{"uci/iris.csv", "sklearn", 150, 4, map[string]int{"setosa": 50, "versicolor": 50, "virginica": 50}, []float64{5.1, 3.5, 1.4, 0.2}, "setosa"},
		{"uci/wine_data.csv", "sklearn", 178, 13, map[string]int{"class_0": 59, "class_1": 71, "class_2": 48}, []float64{14.23, 1.71, 2.43, 15.6, 127, 2.8, 3.06, 0.28, 2.29, 5.64, 1.04, 3.92, 1065}, "class_0"},
		{"uci/breast_cancer.csv", "sklearn", 569, 30, map[string]int{"malignant": 212, "benign": 357}, nil, "malignant"},
		{"uci/digits.csv.gz", "none", 1797, 64, map[string]int{"0": 178, "1": 182, "2": 177, "3": 183, "4": 181, "5": 182, "6": 181, "7": 179, "8": 174, "9": 180}, nil, "0"},
	}
	for _, c := range cases {
		t.Run(c.file, func(t *testing.T) {
			d := readShared(t, c.file, "csv", labelled.CSVOptions{Header: c.header})
			if d.Len() != c.n || len(d.X[0]) != c.d {
				t.Fatalf("%d × %d, want %d × %d", d.Len(), len(d.X[0]), c.n, c.d)
			}
			if got := d.LabelCounts(); !reflect.DeepEqual(got, c.counts) {
				t.Errorf("label counts %v, want %v", got, c.counts)
			}
			if d.Features != nil || d.Missing != 0 {
				t.Errorf("Features %v, Missing %d: want nil and 0", d.Features, d.Missing)
			}
			if d.Names[0] != "0" || d.Names[c.n-1] != fmt.Sprint(c.n-1) {
				t.Errorf("names %q … %q, want row indices", d.Names[0], d.Names[c.n-1])
			}
			if c.first != nil && !reflect.DeepEqual(d.X[0], c.first) {
				t.Errorf("first row %v, want %v", d.X[0], c.first)
			}
			if d.Labels[0] != c.firstName {
				t.Errorf("first label %q, want %q", d.Labels[0], c.firstName)
			}
			if c.header == "none" {
				for _, row := range d.X {
					for _, v := range row {
						if v < 0 || v > 16 || v != math.Trunc(v) {
							t.Fatalf("digits pixel %v, want an integer in 0..16", v)
						}
					}
				}
			}
		})
	}
}

func TestStratifiedPAM50(t *testing.T) {
	d := readPAM50(t)
	newRNG := func(seed uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, 0x9e3779b97f4a7c15)) }
	const seeds = 2000
	seen := map[string]bool{}
	count := make([]int, d.Len())
	for seed := range uint64(seeds) {
		idx, err := labelled.Stratified(d, newRNG(seed), 2, 2)
		if err != nil {
			t.Fatal(err)
		}
		if len(idx) != 12 || !slices.IsSorted(idx) {
			t.Fatalf("seed %d: %v, want 12 ascending indices", seed, idx)
		}
		sub := d.Subset(idx)
		want := map[string]int{"Normal": 2, "Basal": 2, "Her2": 2, "LumA": 2, "LumB": 2, "": 2}
		if got := sub.LabelCounts(); !reflect.DeepEqual(got, want) {
			t.Fatalf("seed %d: label counts %v, want 2 of each", seed, got)
		}
		if slices.Contains(idx, 54) && slices.Contains(idx, 55) {
			t.Fatalf("seed %d: both 54 and 55 (identical vectors) drawn: %v", seed, idx)
		}
		for _, i := range idx {
			count[i]++
		}
		again, _ := labelled.Stratified(d, newRNG(seed), 2, 2)
		if !slices.Equal(idx, again) {
			t.Fatalf("seed %d gave %v, then %v", seed, idx, again)
		}
		seen[fmt.Sprint(idx)] = true
	}
	// About 4.4e15 possible draws: 2000 seeds giving fewer than 2000 different ones means the rng
	// is not used (or badly).
	if len(seen) != seeds {
		t.Errorf("%d seeds gave only %d different draws", seeds, len(seen))
	}
	// Each of 54 and 55 is drawn alone about 2000·2/57 ≈ 70 times.
	if count[54] == 0 || count[55] == 0 {
		t.Errorf("item 54 drawn %d times, 55 %d times: want both to appear", count[54], count[55])
	}
	// Uniformity within a label: each of the 12 Normal items is expected 2000·2/12 ≈ 333 times,
	// standard deviation ≈ 16.7; allow ±5σ.
	for i := range 12 {
		if count[i] < 250 || count[i] > 416 {
			t.Errorf("Normal item %d drawn %d times in %d draws, want 333 ± 83", i, count[i], seeds)
		}
	}
	// Unknown items (rows 139–231): 93 of them, each expected 2000·2/93 ≈ 43 times; none should be
	// left out (P ≈ 93·e^−43).
	for i := 139; i < d.Len(); i++ {
		if count[i] == 0 {
			t.Errorf("unknown item %d never drawn in %d draws", i, seeds)
		}
	}

	if _, err := labelled.Stratified(d, newRNG(1), 13, 2); err == nil {
		t.Error("13 per label with only 12 LumB items: no error")
	}
	if _, err := labelled.Stratified(d, newRNG(1), 2, 94); err == nil {
		t.Error("94 unknown with only 93: no error")
	}
	// Basal alone: 57 items but only 56 distinct vectors (54 and 55 are rows 42 and 43 here).
	basal := make([]int, 0, 57)
	for i := 12; i < 69; i++ {
		basal = append(basal, i)
	}
	b := d.Subset(basal)
	if _, err := labelled.Stratified(b, newRNG(1), 57, 0); err == nil {
		t.Error("57 of 57 Basal items, two identical: no error")
	}
	for seed := range uint64(20) {
		idx, err := labelled.Stratified(b, newRNG(seed), 56, 0)
		if err != nil {
			t.Fatal(err)
		}
		if len(idx) != 56 || slices.Contains(idx, 42) == slices.Contains(idx, 43) {
			t.Fatalf("seed %d: 56 of 57 Basal items drew %d items, want 56 with exactly one of rows 42 and 43", seed, len(idx))
		}
	}
}

func TestFirstPerLabelPAM50(t *testing.T) {
	d := readPAM50(t)
	idx, err := labelled.FirstPerLabel(d, 2, 2)
	if err != nil {
		t.Fatal(err)
	}
	// pam50.md §6, 1-based columns 1,2 / 13,14 / 70,71 / 105,106 / 128,129 / 140,141.
	want := []int{0, 1, 12, 13, 69, 70, 104, 105, 127, 128, 139, 140}
	if !slices.Equal(idx, want) {
		t.Errorf("FirstPerLabel(2, 2) = %v, want %v", idx, want)
	}
	if _, err := labelled.FirstPerLabel(d, 13, 0); err == nil {
		t.Error("13 per label with only 12 Normal items: no error")
	}
}

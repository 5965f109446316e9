package significance

import (
	"bytes"
	"encoding/csv"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"testing"
)

// TestWriteFiles checks the headers (the columns of issue 21, in its order), empty cells for
// untested statistics and that every float parses back to the same float64.
func TestWriteFiles(t *testing.T) {
	res, err := Compare(formulaTable("nca", true, 40, 5, tiesValue, tiesOK), Options{Seed: 1, Resamples: 200, BayesSamples: 500})
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "comparison")
	if err := WriteFiles(dir, res); err != nil {
		t.Fatal(err)
	}
	read := func(name string) [][]string {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		rows, err := csv.NewReader(bytes.NewReader(b)).ReadAll()
		if err != nil {
			t.Fatal(err)
		}
		return rows
	}
	pairs := read("pairs.csv")
	if want := []string{"metric", "algorithm_a", "algorithm_b", "datasets", "wins", "ties", "losses",
		"wilcoxon_statistic", "p_value", "p_holm", "median_difference", "ci_low", "ci_high",
		"p_a_better", "p_equivalent", "p_b_better"}; !slices.Equal(pairs[0], want) {
		t.Errorf("pairs header %q, want %q", pairs[0], want)
	}
	if len(pairs) != 1+len(res.Pairs) {
		t.Fatalf("%d pair lines, want %d", len(pairs), 1+len(res.Pairs))
	}
	for i, p := range res.Pairs {
		row := pairs[1+i]
		floats := []float64{p.WilcoxonStatistic, p.P, p.PHolm, p.MedianDifference, p.CILow, p.CIHigh,
			p.PABetter, p.PEquivalent, p.PBBetter}
		if row[0] != "nca" || row[1] != p.A || row[2] != p.B || row[3] != strconv.Itoa(p.Datasets) ||
			row[4] != strconv.Itoa(p.Wins) || row[5] != strconv.Itoa(p.Ties) || row[6] != strconv.Itoa(p.Losses) {
			t.Errorf("pair line %q for %+v", row, p)
		}
		for j, want := range floats {
			cell := row[7+j]
			if math.IsNaN(want) {
				if cell != "" {
					t.Errorf("pair line %d column %s: %q, want empty for NaN", i, pairs[0][7+j], cell)
				}
				continue
			}
			if got, err := strconv.ParseFloat(cell, 64); err != nil || got != want {
				t.Errorf("pair line %d column %s: %q does not parse back to %v", i, pairs[0][7+j], cell, want)
			}
		}
	}
	ranks := read("ranks.csv")
	if want := []string{"metric", "algorithm", "datasets", "mean_rank", "friedman_statistic", "friedman_p"}; !slices.Equal(ranks[0], want) {
		t.Errorf("ranks header %q, want %q", ranks[0], want)
	}
	// 4 complete data sets: mean ranks given, Friedman empty.
	if got := ranks[1]; !slices.Equal(got, []string{"nca", "a0", "4", "3.25", "", ""}) {
		t.Errorf("first rank line %q", got)
	}
}

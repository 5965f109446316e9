package significance

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"
)

// TestBars checks the bars against a brute force over all ranges: a range is drawn when no pair
// inside it is significant and no strictly larger such range contains it.
func TestBars(t *testing.T) {
	for _, c := range []struct {
		k    int
		sig  [][2]int // significant pairs (i < j)
		want [][2]int
	}{
		{4, nil, [][2]int{{0, 3}}},
		{4, [][2]int{{0, 1}, {0, 2}, {0, 3}, {1, 2}, {1, 3}, {2, 3}}, nil},
		{5, [][2]int{{0, 3}, {0, 4}, {1, 4}}, [][2]int{{0, 2}, {1, 3}, {2, 4}}},
		{5, [][2]int{{0, 2}, {0, 3}, {0, 4}, {1, 3}, {1, 4}}, [][2]int{{0, 1}, {1, 2}, {2, 4}}},
		// 0 and 2 differ though both are close to 1: two overlapping bars.
		{3, [][2]int{{0, 2}}, [][2]int{{0, 1}, {1, 2}}},
	} {
		sig := func(i, j int) bool { return slices.Contains(c.sig, [2]int{i, j}) }
		if got := Bars(c.k, sig); !slices.Equal(got, c.want) {
			t.Errorf("k=%d significant %v: bars %v, want %v", c.k, c.sig, got, c.want)
		}
	}
	// Brute force on every significance pattern of 5 algorithms.
	const k = 5
	var pairs [][2]int
	for i := range k {
		for j := i + 1; j < k; j++ {
			pairs = append(pairs, [2]int{i, j})
		}
	}
	for mask := 0; mask < 1<<len(pairs); mask++ {
		sig := func(i, j int) bool { return mask&(1<<slices.Index(pairs, [2]int{i, j})) != 0 }
		clean := func(lo, hi int) bool {
			for i := lo; i <= hi; i++ {
				for j := i + 1; j <= hi; j++ {
					if sig(i, j) {
						return false
					}
				}
			}
			return true
		}
		var want [][2]int
		for lo := range k {
			for hi := lo + 1; hi < k; hi++ {
				if !clean(lo, hi) {
					continue
				}
				maximal := true
				for l2 := 0; l2 <= lo && maximal; l2++ {
					for h2 := hi; h2 < k; h2++ {
						if (l2 < lo || h2 > hi) && clean(l2, h2) {
							maximal = false
							break
						}
					}
				}
				if maximal {
					want = append(want, [2]int{lo, hi})
				}
			}
		}
		if got := Bars(k, sig); !slices.Equal(got, want) {
			t.Fatalf("mask %b: bars %v, brute force %v", mask, got, want)
		}
	}
}

func TestCriticalDifference(t *testing.T) {
	r := Result{
		Ranks: []Rank{
			{Metric: "m", Algorithm: "x", MeanRank: 2.5}, {Metric: "m", Algorithm: "y", MeanRank: 1.2},
			{Metric: "m", Algorithm: "z", MeanRank: 2.3}, {Metric: "other", Algorithm: "x", MeanRank: 9},
		},
		Pairs: []Pair{
			{Metric: "m", A: "x", B: "y", PHolm: 0.01}, // significant
			{Metric: "m", A: "x", B: "z", PHolm: 0.5},
			{Metric: "m", A: "y", B: "z", PHolm: math.NaN()}, // untested: joined
			{Metric: "other", A: "x", B: "y", PHolm: 0.5},
		},
	}
	cd, err := CriticalDifference(r, "m", Alpha)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(cd.Algorithms, []string{"y", "z", "x"}) || !slices.Equal(cd.MeanRanks, []float64{1.2, 2.3, 2.5}) ||
		!slices.Equal(cd.Bars, [][2]int{{0, 1}, {1, 2}}) {
		t.Errorf("CD %+v, want y z x with bars [0 1] [1 2]", cd)
	}
	r.Pairs = r.Pairs[:2]
	if _, err := CriticalDifference(r, "m", Alpha); err == nil || !strings.Contains(err.Error(), "no pair row for y and z") {
		t.Errorf("missing pair: error %v", err)
	}
	if _, err := CriticalDifference(r, "none", Alpha); err == nil {
		t.Error("unknown metric: no error")
	}
}

// TestCriticalDifferenceOfComparison draws the CD of a comparison in which algorithm a2 is far
// better than the others on 20 data sets, and a0, a1 are alike: one bar, a0–a1, a2 alone.
func TestCriticalDifferenceOfComparison(t *testing.T) {
	g := make([][]float64, 20)
	for p := range g {
		noise := float64((p*7)%5) / 100
		g[p] = []float64{0.5 + noise, 0.5 + float64((p*3)%5)/100, 0.9 + noise}
	}
	res, err := Compare(gridTable(Metric{Name: "ari", HigherBetter: true}, g), Options{Resamples: 100, BayesSamples: 100})
	if err != nil {
		t.Fatal(err)
	}
	cd, err := CriticalDifference(res, "ari", Alpha)
	if err != nil {
		t.Fatal(err)
	}
	if cd.Algorithms[0] != "a2" || !slices.Equal(cd.Bars, [][2]int{{1, 2}}) {
		t.Errorf("CD %+v (pairs %s), want a2 first and one bar over the other two", cd, fmt.Sprint(res.Pairs))
	}
}

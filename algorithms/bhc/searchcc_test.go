package bhc_test

import (
	"context"
	"math"
	"slices"
	"testing"

	"github.com/hcbench/hcbench/algorithms/bhc"
	"github.com/hcbench/hcbench/algorithms/conjugate"
)

// TestSearchCCAsBioconductor runs Bioconductor BHC's cc search (conjugate.SearchCC) with BHC
// (α = 0.001, the Beta-Bernoulli model of Bioconductor's recipe) on a 30 × 12 binary data set and
// compares it with the package itself. The data were drawn in R 4.2.2 (set.seed(7); 3 classes
// of 10 items, feature probabilities rbeta(36, 0.5, 0.5), rbinom draws); the reference is
// Bioconductor BHC 1.27.0 (git commit 52a5f409b74bfd4394cc5614e7518c22c17b3d87, built with
// R CMD INSTALL) running bhc(x) with its RunBhcWrapper wrapped to log each cc and log evidence.
// The package computes lgamma by table interpolation (fast_gammaln) and we exactly, so the
// evidence agrees only to about 1e-2 (bayesian.md §5.3), but every comparison of the search goes
// the same way: the same cc are tried, bit for bit, and the same cc is chosen.
func TestSearchCCAsBioconductor(t *testing.T) {
	rows := []string{"010001000011", "100010001100", "110010010111", "010001001000", "100010001100",
		"100011010111", "011000001010", "100110001101", "110000010111", "010000001111",
		"100010001100", "100010110111", "011001000011", "100010001100", "100010110111",
		"011010001010", "100010001100", "110010110111", "011001000010", "100110001000",
		"101000010111", "010001000011", "100010001100", "001000010111", "011001001100",
		"100010001100", "110000110111", "010000001000", "100110001000", "110010010111"}
	x := make([][]float64, len(rows))
	for i, r := range rows {
		for _, c := range r {
			x[i] = append(x[i], float64(c-'0'))
		}
	}
	// Every cc the package evaluated, with its log evidence: 1, the halving, the doubling, Brent
	// (optimize), then optimize's $objective and bhc's final run, both at the result.
	wantCC := []float64{1, 0.5, 0.25, 2, 0.91844051968768392, 1.3315594803123159, 0.58510717266852041}
	wantEv := []float64{-185.31938900223838, -184.92048951576027, -188.95947097998092, -191.1439767244529,
		-184.98898621359075, -187.0430976563008, -184.58049238896467}
	var tried, ev []float64
	cc, best, err := conjugate.SearchCC(func(cc float64) (float64, error) {
		a, b := conjugate.BernoulliFromData(x, cc)
		m, err := conjugate.NewBernoulli(x, a, b)
		if err != nil {
			return 0, err
		}
		h, err := bhc.Run(context.Background(), m, bhc.Prior{Alpha: 0.001})
		if err != nil {
			return 0, err
		}
		tried, ev = append(tried, cc), append(ev, h.LogEvidence())
		return h.LogEvidence(), nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(tried, wantCC) || cc != wantCC[len(wantCC)-1] {
		t.Fatalf("tried %v and chose %v, Bioconductor tried %v and chose the last", tried, cc, wantCC)
	}
	for i := range ev {
		if math.Abs(ev[i]-wantEv[i]) > 1e-2 {
			t.Errorf("cc %v: log evidence %v, Bioconductor %v", tried[i], ev[i], wantEv[i])
		}
	}
	if best != ev[len(ev)-1] {
		t.Errorf("returned evidence %v, evaluated %v", best, ev[len(ev)-1])
	}
}

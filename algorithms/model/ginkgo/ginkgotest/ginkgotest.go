// Package ginkgotest supplies the Ginkgo jets and models that the tests of the search algorithms
// share: random jets of a given size, the public ClusterTrellis jets, and their likelihoods.
package ginkgotest

import (
	"math/rand/v2"
	"testing"

	"github.com/hcbench/hcbench/algorithms/model/ginkgo"
	"github.com/hcbench/hcbench/datasets/datadir/datatest"
	"github.com/hcbench/hcbench/datasets/jets"
	gen "github.com/hcbench/hcbench/generators/ginkgo"
)

// Model returns the split likelihood of a jet's leaves under the jet's own λ, λ_root and t_cut.
func Model(tb testing.TB, j jets.Jet, v ginkgo.Version) *ginkgo.Model {
	tb.Helper()
	m, err := ginkgo.New(j.Leaves, ginkgo.Params{Lambda: j.Lambda, LambdaRoot: j.RootLambdaOrDefault(), TCut: j.TCut, Version: v})
	if err != nil {
		tb.Fatal(err)
	}
	return m
}

// RandomJet draws a QCD jet with exactly n leaves, choosing t_cut so that n is common
// (ginkgo.md §9: mean n is 7.6 at t_cut 16, 12.5 at 4 and 19.1 at 1.21; about 31 at 0.3 in the
// jets of configs/ginkgo-large.yaml).
func RandomJet(tb testing.TB, rng *rand.Rand, n int) jets.Jet {
	tb.Helper()
	tc := 16.0
	switch {
	case n > 24:
		tc = 0.3
	case n > 16:
		tc = 1.21
	case n > 9:
		tc = 4
	}
	p, _ := gen.Preset(gen.QCD, tc)
	j, _, err := gen.Conditioned(tb.Context(), rng, p, n, n, 1_000_000)
	if err != nil {
		tb.Fatal(err)
	}
	return j
}

// PublicJets returns the 30 public ClusterTrellis jets (truth_4, truth_5 and truth_9 in
// ../shared/data/clustertrellis) by id.
func PublicJets(tb testing.TB) map[string]jets.Jet {
	tb.Helper()
	out := map[string]jets.Jet{}
	for _, f := range []string{"truth_4", "truth_5", "truth_9"} {
		path := datatest.Path(tb, "clustertrellis/"+f+".jsonl")
		js, err := jets.ReadFile(path)
		if err != nil {
			tb.Fatal(err)
		}
		for _, j := range js {
			out[string(j.ID)] = j
		}
	}
	return out
}

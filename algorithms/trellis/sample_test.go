package trellis

import (
	"context"
	"errors"
	"math"
	"math/bits"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/hcbench/hcbench/algorithms/model/modeltest"
)

func TestPick(t *testing.T) {
	// Cumulative weights of five splits, the second and the last of zero weight. u selects the
	// split whose interval [cum[i−1], cum[i]) holds it; u = total, which f·total with f < 1 can
	// round to, selects the last split of positive weight (index 3), never the last one.
	cum := []float64{0.25, 0.25, 0.5, 1, 1}
	for _, c := range []struct {
		u    float64
		want int
	}{{0, 0}, {0.2, 0}, {0.25, 2}, {0.4999, 2}, {0.5, 3}, {math.Nextafter(1, 0), 3}, {1, 3}} {
		if got := pick(cum, c.u); got != c.want {
			t.Errorf("u = %v: split %d, want %d", c.u, got, c.want)
		}
	}
	// A subnormal total, where f·total does round to total for f = 1 − 2^−53, the largest
	// rand.Float64.
	tiny := math.SmallestNonzeroFloat64 * 3
	f := math.Nextafter(1, 0)
	if u := f * tiny; u != tiny {
		t.Fatalf("%v·%v = %v: expected it to round to the total", f, tiny, u)
	}
	if got := pick([]float64{tiny, tiny}, f*tiny); got != 0 {
		t.Errorf("subnormal total: split %d, want 0", got)
	}
	// A NaN u (or total) picks a split that exists.
	if got := pick(cum, math.NaN()); got < 0 || got >= len(cum) {
		t.Errorf("u = NaN: split %d of %d", got, len(cum))
	}
}

// TestSampleNaNSplit: a model with a NaN split (log ψ undefined) is sampled as the bottom-up pass
// treats it, as an impossible split: every sampled tree is valid and avoids it. The old sampler
// picked past the end of the splits and recursed forever.
func TestSampleNaNSplit(t *testing.T) {
	m := modeltest.Func{N: 4, Psi: func(l, r uint32) float64 {
		if l == 0b0001 && r == 0b0010 || l == 0b0010 && r == 0b0001 {
			return math.NaN()
		}
		return -float64(bits.OnesCount32(l|r)) / 4
	}}
	tr := build(t, m, Options{})
	if math.IsNaN(tr.LogZ()) || math.IsInf(tr.LogZ(), 0) {
		t.Fatalf("log Z = %v", tr.LogZ())
	}
	ss, err := tr.Sample(context.Background(), rand.New(rand.NewPCG(1, 2)), 200)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range ss {
		if err := s.Tree.Validate(4); err != nil || strings.Contains(s.Tree.Canonical().Newick(nil), "(0,1)") || math.IsNaN(s.LogLikelihood) {
			t.Fatalf("sampled %s (%v), log-likelihood %v", s.Tree.Newick(nil), err, s.LogLikelihood)
		}
	}
}

func TestDeposit(t *testing.T) {
	// deposit(i, mask) for i = 0, 1, … must give the submasks of mask in increasing order, each
	// once: the order in which cumWeights lists the splits.
	for _, mask := range []uint32{0, 1, 0b1011_0100, 0xF0F0_0001} {
		prev := uint32(0)
		for i := range uint32(1) << bits.OnesCount32(mask) {
			d := deposit(i, mask)
			if d&^mask != 0 || (i > 0 && d <= prev) {
				t.Fatalf("mask %#x: deposit(%d) = %#x after %#x", mask, i, d, prev)
			}
			prev = d
		}
		if prev != mask {
			t.Errorf("mask %#x: the last submask is %#x", mask, prev)
		}
	}
}

func TestSampleCacheBudget(t *testing.T) {
	// The cache holds split distributions only while they fit in its budget, and changes no
	// draw: with any budget, the same seed gives the same trees.
	m := modeltest.Random(9, 2, 0.1)
	tr := build(t, m, Options{})
	var ref []Sample
	for _, budget := range []int64{0, 1 << 10, sampleCacheBytes << 9, 1 << 30} {
		got, err := tr.sample(context.Background(), rand.New(rand.NewPCG(7, 7)), 300, budget)
		if err != nil {
			t.Fatal(err)
		}
		if ref == nil {
			ref = got
			continue
		}
		for i := range got {
			if got[i].Tree.Newick(nil) != ref[i].Tree.Newick(nil) || got[i].LogLikelihood != ref[i].LogLikelihood {
				t.Fatalf("budget %d: sample %d is %s, without a cache %s", budget, i, got[i].Tree.Newick(nil), ref[i].Tree.Newick(nil))
			}
		}
	}
	// The bytes kept stay within the budget; a budget of 0 keeps nothing, the default one keeps
	// at least the root's distribution (2^(N−1) − 1 splits).
	psi, err := tr.subsetScorer(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	for _, budget := range []int64{0, 1 << 10, sampleCacheBytes << 9} {
		s := &sampler{ctx: t.Context(), t: tr, psi: psi, cache: map[uint32][]float64{}, budget: budget}
		rng := rand.New(rand.NewPCG(3, 3))
		var walk func(v uint32)
		walk = func(v uint32) {
			if bits.OnesCount32(v) >= 2 {
				l, _ := s.draw(rng, v)
				walk(l)
				walk(v ^ l)
			}
		}
		for range 300 {
			walk(tr.full)
		}
		used := int64(0)
		for _, cum := range s.cache {
			used += 8*int64(len(cum)) + sampleCacheOverhead
		}
		if used != s.used || used > budget || (budget == 0) != (len(s.cache) == 0) {
			t.Errorf("budget %d: %d clusters cached in %d bytes (counted %d)", budget, len(s.cache), used, s.used)
		}
		if _, ok := s.cache[tr.full]; budget == sampleCacheBytes<<9 && !ok {
			t.Errorf("budget %d: the root's distribution is not cached", budget)
		}
	}
}

func TestSampleErrors(t *testing.T) {
	tr := build(t, modeltest.Random(6, 1, 0), Options{})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := tr.Sample(ctx, rand.New(rand.NewPCG(1, 1)), 10); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: got %v, want context.Canceled", err)
	}
	if _, err := tr.Sample(context.Background(), rand.New(rand.NewPCG(1, 1)), -1); err == nil {
		t.Error("k = −1: no error")
	}
	if s, err := tr.Sample(context.Background(), rand.New(rand.NewPCG(1, 1)), 0); err != nil || len(s) != 0 {
		t.Errorf("k = 0: %v, %v", s, err)
	}
	mo := build(t, modeltest.Random(6, 1, 0), Options{MAPOnly: true})
	if _, err := mo.Sample(context.Background(), rand.New(rand.NewPCG(1, 1)), 1); !errors.Is(err, ErrNoLogZ) {
		t.Errorf("MAP-only: got %v, want ErrNoLogZ", err)
	}
}

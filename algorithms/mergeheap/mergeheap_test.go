package mergeheap

import (
	"math"
	"math/rand/v2"
	"runtime"
	"testing"
)

func TestNewOrdersPair(t *testing.T) {
	if c := New(1, 7, 3); c.A != 3 || c.B != 7 || c.Score != 1 {
		t.Fatalf("New(1, 7, 3) = %+v", c)
	}
}

// tieScore gives a pair one of 8 scores, −Inf and +Inf among them: many exact ties.
func tieScore(a, b int) float64 {
	h := uint64(a)*0x9e3779b97f4a7c15 ^ uint64(b)*0xc2b2ae3d27d4eb4f
	switch s := float64(h >> 61); s {
	case 0:
		return math.Inf(-1)
	case 7:
		return math.Inf(1)
	default:
		return s
	}
}

// TestForest checks a forest against a brute-force scan of all live pairs under Better, through
// whole agglomerations with scattered root ids (so ids and slots differ), many exact ties and
// ±Inf scores: the best pair at every step, and AppendWithin's set at tolerances 0, 1.5 and +Inf.
// The merged pair is sometimes the best and sometimes a random live pair, so that rows go stale
// in every way a merge can make them (best partner merged away, moved into the lower slot, or
// rescored).
func TestForest(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for trial := range 20 {
		roots := rng.Perm(300)[:2+rng.IntN(60)]
		f, err := NewForest(t.Context(), roots, tieScore)
		if err != nil {
			t.Fatal(err)
		}
		live := map[int]bool{}
		for _, r := range roots {
			live[r] = true
		}
		next := 1000
		for f.Len() > 1 {
			var all []Candidate
			for a := range live {
				for b := range live {
					if a < b {
						all = append(all, New(tieScore(a, b), a, b))
					}
				}
			}
			want := all[0]
			for _, c := range all {
				if Better(c, want) {
					want = c
				}
			}
			got, ok := f.Best()
			if !ok || got != want {
				t.Fatalf("trial %d: best %+v, brute force %+v", trial, got, want)
			}
			for _, tol := range []float64{0, 1.5, math.Inf(1)} {
				within, err := f.AppendWithin(t.Context(), nil, tol)
				if err != nil {
					t.Fatal(err)
				}
				set := map[Candidate]bool{}
				for _, c := range within {
					if set[c] {
						t.Fatalf("trial %d tol %v: %+v twice", trial, tol, c)
					}
					set[c] = true
				}
				least := want.Score - tol
				if tol == math.Inf(1) {
					least = math.Inf(-1) // every pair, also when the best is +Inf
				}
				n := 0
				for _, c := range all {
					if c.Score >= least {
						n++
						if !set[c] {
							t.Fatalf("trial %d tol %v: %+v missing (best %v)", trial, tol, c, want.Score)
						}
					}
				}
				if n != len(within) {
					t.Fatalf("trial %d tol %v: %d pairs, want %d", trial, tol, len(within), n)
				}
			}
			m := got
			if rng.IntN(3) == 0 {
				m = all[rng.IntN(len(all))]
			}
			if err := f.Replace(t.Context(), int(m.A), int(m.B), next); err != nil {
				t.Fatal(err)
			}
			delete(live, int(m.A))
			delete(live, int(m.B))
			live[next] = true
			next += 1 + rng.IntN(3)
			r := f.Roots()
			if len(r) != len(live) {
				t.Fatalf("%d roots, want %d", len(r), len(live))
			}
			for _, id := range r {
				if !live[id] {
					t.Fatalf("root %d is not live", id)
				}
			}
		}
		if _, ok := f.Best(); ok {
			t.Error("a one-cluster forest has a pair")
		}
		if w, _ := f.AppendWithin(t.Context(), nil, 1); len(w) != 0 {
			t.Errorf("a one-cluster forest has pairs within 1: %v", w)
		}
	}
}

// TestForestMemory checks that a whole search over r = 1500 clusters allocates at most
// 4r² + 200r bytes: the r(r−1)/2 scores of 8 bytes and O(r) bookkeeping. A heap of every pair
// (16 bytes or more per pair, and room for dead pairs) takes 12r² bytes and more.
func TestForestMemory(t *testing.T) {
	const r = 1500
	roots := make([]int, r)
	for i := range roots {
		roots[i] = i
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	f, err := NewForest(t.Context(), roots, tieScore)
	if err != nil {
		t.Fatal(err)
	}
	for next := r; f.Len() > 1; next++ {
		c, _ := f.Best()
		if err := f.Replace(t.Context(), int(c.A), int(c.B), next); err != nil {
			t.Fatal(err)
		}
	}
	runtime.ReadMemStats(&after)
	if got, limit := after.TotalAlloc-before.TotalAlloc, uint64(4*r*r+200*r); got > limit {
		t.Errorf("a search over %d clusters allocated %d bytes, want at most %d", r, got, limit)
	}
}

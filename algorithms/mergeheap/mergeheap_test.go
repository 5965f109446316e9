package mergeheap

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestOrder checks Pop against sorting: pushing and Init-ing random candidates (with many exact
// score ties and ±Inf) must pop them in the order of slices.SortFunc under Better.
func TestOrder(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	scores := []float64{math.Inf(-1), -1, 0, 0.5, math.Inf(1)}
	for trial := range 50 {
		var all []Candidate
		var h Heap
		for i := range 200 {
			c := New(scores[rng.IntN(len(scores))], rng.IntN(30), 30+rng.IntN(30), float64(i))
			all = append(all, c)
			if trial%2 == 0 {
				h.Push(c)
			} else {
				h = append(h, c)
			}
		}
		if trial%2 == 1 {
			h.Init()
		}
		slices.SortStableFunc(all, func(x, y Candidate) int {
			switch {
			case Better(x, y):
				return -1
			case Better(y, x):
				return 1
			}
			return 0
		})
		for i, want := range all {
			if p := h.Peek(); p.Score != want.Score || p.A != want.A || p.B != want.B {
				t.Fatalf("trial %d pop %d: peek %+v, want %+v", trial, i, p, want)
			}
			got := h.Pop()
			if got.Score != want.Score || got.A != want.A || got.B != want.B {
				t.Fatalf("trial %d pop %d: got %+v, want %+v", trial, i, got, want)
			}
		}
		if len(h) != 0 {
			t.Fatalf("%d left", len(h))
		}
	}
}

func TestNewOrdersPair(t *testing.T) {
	if c := New(1, 7, 3, 2); c.A != 3 || c.B != 7 || c.LogML != 2 {
		t.Fatalf("New(1, 7, 3, 2) = %+v", c)
	}
}

// TestForest checks a forest's pops against a brute-force scan of all live pairs under Better,
// through a whole agglomeration with scattered root ids (so local numbering is exercised), many
// exact ties, pushed-back pairs and bulk compaction.
func TestForest(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	score := func(a, b int) Candidate {
		h := uint64(a)*0x9e3779b97f4a7c15 ^ uint64(b)*0xc2b2ae3d27d4eb4f
		return New(float64(h>>61), a, b, float64(a+b)) // 8 distinct scores: many ties
	}
	roots := rng.Perm(300)[:60]
	f, err := NewForest(t.Context(), roots, score)
	if err != nil {
		t.Fatal(err)
	}
	live := map[int]bool{}
	for _, r := range roots {
		live[r] = true
	}
	next := 1000
	for f.Len() > 1 {
		var want Candidate
		found := false
		for a := range live {
			for b := range live {
				if a < b {
					if c := score(a, b); !found || Better(c, want) {
						want, found = c, true
					}
				}
			}
		}
		got := f.Pop()
		if got != want {
			t.Fatalf("pop %+v, brute force %+v", got, want)
		}
		if rng.IntN(3) == 0 { // put it back and pop again: the same pair must return
			f.Push(got)
			if again := f.Pop(); again != got {
				t.Fatalf("after push-back: %+v, want %+v", again, got)
			}
		}
		if err := f.Replace(t.Context(), int(got.A), int(got.B), next); err != nil {
			t.Fatal(err)
		}
		f.Push(got) // dead now: must be ignored
		delete(live, int(got.A))
		delete(live, int(got.B))
		live[next] = true
		next += 1 + rng.IntN(3)
		if r := f.Roots(); len(r) != len(live) {
			t.Fatalf("%d roots, want %d", len(r), len(live))
		}
	}
	if _, ok := f.Peek(); ok {
		t.Error("a one-cluster forest has a pair")
	}
}

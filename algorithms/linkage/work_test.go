package linkage

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// spreading returns n points on a line whose gaps grow fourfold, 0, 1, 5, 21, …, in dims
// coordinates (the others 0): every linkage merges them left to right, the cluster of the first
// k points always nearer to point k than point k to point k + 1.
func spreading(n, dims int) [][]float64 {
	x := make([][]float64, n)
	p, gap := 0.0, 1.0
	for i := range x {
		x[i] = make([]float64, dims)
		x[i][0] = p
		p += gap
		gap *= 4
	}
	return x
}

// TestWorkClosedForm checks the work counts against their closed forms. Lance–Williams updates
// of the nearest-neighbour chain: at the merge that leaves m clusters, one per other remaining
// cluster, m − 1, so Σ_{m=1}^{n−2} m = (n−1)(n−2)/2 for any data; Prim's tree: n − 1 steps, each
// updating the distance of every point outside the tree, n(n−1)/2. On spreading points the chain
// scans twice per merge, from the lowest remaining slot (which holds the cluster of the points
// on the left) to its nearest point and back, 2(n−1) in all; the generic algorithm (centroid,
// median) searches the nearest higher slot of each of the n − 1 lower slots, then, after each
// merge but the last, of the merged cluster: 2n − 3, and updates nothing (no live slot lies below
// a merged one).
func TestWorkClosedForm(t *testing.T) {
	rng := rand.New(rand.NewPCG(12, 1))
	for _, n := range []int{2, 3, 20, 300} {
		n64 := int64(n)
		x := points(rng, n, 3, 0)
		for _, m := range methods {
			var w Work
			d := euclidean(t, x)
			if _, _, err := RunWork(t.Context(), n, d, m, &w); err != nil {
				t.Fatal(err)
			}
			want := (n64 - 1) * (n64 - 2) / 2
			if m == Single {
				want = n64 * (n64 - 1) / 2
				if w.NeighbourScans != n64-1 {
					t.Errorf("single, n = %d: %d scans, want n − 1 = %d", n, w.NeighbourScans, n-1)
				}
			}
			if w.DistanceUpdates != want {
				t.Errorf("%v, n = %d: %d distance updates, want %d", m, n, w.DistanceUpdates, want)
			}
		}
		var w Work
		if _, _, err := VectorsWork(t.Context(), x, Single, &w); err != nil {
			t.Fatal(err)
		}
		if w != (Work{DistanceUpdates: n64 * (n64 - 1) / 2, NeighbourScans: n64 - 1}) {
			t.Errorf("single of vectors, n = %d: %+v, want n(n−1)/2 updates and n − 1 scans", n, w)
		}
	}
	const n = 20
	for _, dims := range []int{1, 2} {
		for _, m := range methods {
			if m == Single {
				continue
			}
			var w Work
			if _, _, err := RunWork(t.Context(), n, euclidean(t, spreading(n, dims)), m, &w); err != nil {
				t.Fatal(err)
			}
			if w.NeighbourScans != 2*(n-1) {
				t.Errorf("%v, %d-D spreading points: %d scans, want 2(n−1) = %d", m, dims, w.NeighbourScans, 2*(n-1))
			}
		}
		for _, m := range []Method{Ward, Centroid, Median} {
			var w Work
			if _, _, err := VectorsWork(t.Context(), spreading(n, dims), m, &w); err != nil {
				t.Fatal(err)
			}
			want := Work{NeighbourScans: 2 * (n - 1)}
			if m != Ward {
				want = Work{NeighbourScans: 2*n - 3}
			}
			if w != want {
				t.Errorf("%v of %d-D spreading vectors: %+v, want %+v", m, dims, w, want)
			}
		}
	}
}

// TestWorkGenericRecount recounts the generic algorithm's distance updates from the merges it
// returns, in the order made: slot s first holds item s, a merge's cluster goes to the higher of
// its two slots and retires the lower, and the merge updates the distance of every live slot
// below the higher one.
func TestWorkGenericRecount(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 1))
	for _, m := range []Method{Centroid, Median} {
		for _, n := range []int{5, 50, 400} {
			x := points(rng, n, 2, 0)
			if n == 50 {
				x = spreading(n, 2) // reversed: merges into the highest slot, updating all below
				slices.Reverse(x)
			}
			var w Work
			tr, _, err := VectorsWork(t.Context(), x, m, &w)
			if err != nil {
				t.Fatal(err)
			}
			slot := make([]int, 2*n-1) // node → the slot that holds it
			live := make([]bool, n)
			for i := range n {
				slot[i], live[i] = i, true
			}
			var want int64
			for k := range n - 1 {
				ch := tr.Nodes[n+k].Children
				a, b := min(slot[ch[0]], slot[ch[1]]), max(slot[ch[0]], slot[ch[1]])
				live[a] = false
				for s := range b {
					if live[s] {
						want++
					}
				}
				slot[n+k] = b
			}
			if w.DistanceUpdates != want {
				t.Errorf("%v, n = %d: %d distance updates, %d recounted from the merges", m, n, w.DistanceUpdates, want)
			}
			if n == 50 && want != int64(n-1)*int64(n-2)/2 {
				t.Errorf("%v on reversed spreading points: %d updates recounted, want (n−1)(n−2)/2", m, want)
			}
		}
	}
}

package linkage

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/hcbench/hcbench/algorithms/tree"
)

var methods = []Method{Average, Single, Complete}

func run(t *testing.T, d [][]float64, m Method) (*tree.Tree, []float64) {
	t.Helper()
	tr, h, err := Run(context.Background(), d, m)
	if err != nil {
		t.Fatal(err)
	}
	if err := tr.Validate(len(d)); err != nil {
		t.Fatalf("invalid tree %s: %v", tr.Newick(nil), err)
	}
	if len(h) != len(d)-1 {
		t.Fatalf("%d heights for %d items", len(h), len(d))
	}
	return tr, h
}

// merges reads the merge sequence back from a tree built by tree.FromMerges.
func merges(tr *tree.Tree, n int) [][2]int {
	var ms [][2]int
	for _, nd := range tr.Nodes[n:] {
		ms = append(ms, [2]int{nd.Children[0], nd.Children[1]})
	}
	return ms
}

// naive is the O(n³) reference: at every step it recomputes the linkage distance of every pair
// of current clusters from the original matrix (average: the sum of the item distances in item
// order, divided by the product of the sizes) and merges the first pair of minimal distance in
// the order (min id, max id). Current clusters are kept in id order, merged ones appended.
func naive(d [][]float64, m Method) ([][2]int, []float64) {
	type cluster struct {
		id    int
		items []int
	}
	n := len(d)
	cs := make([]cluster, n)
	for i := range cs {
		cs[i] = cluster{i, []int{i}}
	}
	link := func(a, b cluster) float64 {
		v := 0.0
		switch m {
		case Single:
			v = math.Inf(1)
		case Complete:
			v = math.Inf(-1)
		}
		for _, i := range a.items {
			for _, j := range b.items {
				switch m {
				case Average:
					v += d[i][j]
				case Single:
					v = min(v, d[i][j])
				case Complete:
					v = max(v, d[i][j])
				}
			}
		}
		if m == Average {
			v /= float64(len(a.items) * len(b.items))
		}
		return v
	}
	var ms [][2]int
	var hs []float64
	for len(cs) > 1 {
		bi, bj, bd := -1, -1, math.Inf(1)
		for i := range cs {
			for j := i + 1; j < len(cs); j++ {
				if v := link(cs[i], cs[j]); bi < 0 || v < bd {
					bi, bj, bd = i, j, v
				}
			}
		}
		ms = append(ms, [2]int{cs[bi].id, cs[bj].id})
		hs = append(hs, bd)
		c := cluster{n + len(ms) - 1, append(slices.Clone(cs[bi].items), cs[bj].items...)}
		cs = append(slices.Delete(cs, bj, bj+1), c) // bj > bi: delete it first
		cs = slices.Delete(cs, bi, bi+1)
	}
	return ms, hs
}

// randomMatrix returns a symmetric n×n matrix whose entries d[i][j] = d[j][i] (j < i) are
// gen(i, j), and NaN on the diagonal (which Run must ignore).
func randomMatrix(n int, gen func(i, j int) float64) [][]float64 {
	d := make([][]float64, n)
	for i := range d {
		d[i] = make([]float64, n)
		d[i][i] = math.NaN()
		for j := range i {
			v := gen(i, j)
			d[i][j], d[j][i] = v, v
		}
	}
	return d
}

func TestAgainstNaive(t *testing.T) {
	// Identical merges, and heights within 1e-12 relative: the naive reference sums average
	// linkage distances in another order, which changes the last bits only. Integer matrices
	// with few distinct values have many exact ties, which exercise the tie rule; their sums
	// are exact, so there the heights must agree exactly.
	rng := rand.New(rand.NewPCG(1, 2))
	//
	// "star" has d[i][j] = min(i,j) + 1 (+ noise): every cluster's nearest neighbour of smaller
	// id is the smallest surviving one, merged away one after another, so clusters are repaired
	// many times and the heap path of Run is exercised.
	kinds := []struct {
		name  string
		exact bool
		gen   func(i, j int) float64
	}{
		{"uniform", false, func(int, int) float64 { return rng.Float64() }},
		{"signed", false, func(int, int) float64 { return 10 * rng.NormFloat64() }},
		{"ints0to3", true, func(int, int) float64 { return float64(rng.IntN(4)) }},
		{"ints-5to5", true, func(int, int) float64 { return float64(rng.IntN(11) - 5) }},
		{"constant", true, func(int, int) float64 { return 2 }},
		{"star", true, func(_, j int) float64 { return float64(j + 1) }},
		{"star+noise", false, func(_, j int) float64 { return float64(j+1) + 0.5*rng.Float64() }},
		{"star+ints", true, func(_, j int) float64 { return float64(j + 1 + rng.IntN(2)) }},
	}
	for _, k := range kinds {
		for rep := range 60 {
			n := 1 + rng.IntN(40)
			if rep < 5 {
				n = rep + 1
			}
			d := randomMatrix(n, k.gen)
			for _, m := range methods {
				tr, h := run(t, d, m)
				wantM, wantH := naive(d, m)
				if got := merges(tr, n); !slices.Equal(got, wantM) {
					t.Fatalf("%s n=%d %v: merges\n%v\nwant\n%v", k.name, n, m, got, wantM)
				}
				for i := range h {
					if k.exact && h[i] != wantH[i] || math.Abs(h[i]-wantH[i]) > 1e-12*math.Abs(wantH[i]) {
						t.Fatalf("%s n=%d %v: height %d = %v, want %v", k.name, n, m, i, h[i], wantH[i])
					}
				}
			}
		}
	}
	// Euclidean distances of points in the plane.
	for range 40 {
		n := 2 + rng.IntN(39)
		x := make([][]float64, n)
		for i := range x {
			x[i] = []float64{rng.NormFloat64(), rng.NormFloat64()}
		}
		d := euclidean(t, x)
		for _, m := range methods {
			tr, h := run(t, d, m)
			wantM, wantH := naive(d, m)
			if got := merges(tr, n); !slices.Equal(got, wantM) {
				t.Fatalf("euclidean n=%d %v: merges\n%v\nwant\n%v", n, m, got, wantM)
			}
			for i := range h {
				if math.Abs(h[i]-wantH[i]) > 1e-12*math.Abs(wantH[i]) {
					t.Fatalf("euclidean n=%d %v: height %d = %v, want %v", n, m, i, h[i], wantH[i])
				}
			}
		}
	}
}

// wiki is the five-item matrix (5S ribosomal RNA of a, b, c, d, e) used by the English Wikipedia
// articles "UPGMA", "Single-linkage clustering" and "Complete-linkage clustering".
var wiki = [][]float64{
	//   a   b   c   d   e
	{0, 17, 21, 31, 23}, // a
	{17, 0, 30, 34, 21}, // b
	{21, 30, 0, 28, 39}, // c
	{31, 34, 28, 0, 43}, // d
	{23, 21, 39, 43, 0}, // e
}

func TestWikipedia(t *testing.T) {
	names := []string{"a", "b", "c", "d", "e"}
	cases := []struct {
		m       Method
		newick  string
		heights []float64
	}{
		// a,b join at 17 (node 5). Then (ab,c) = (21+30)/2 = 25.5, (ab,d) = (31+34)/2 = 32.5,
		// (ab,e) = (23+21)/2 = 22 is the smallest: e joins at 22 (node 6). Then (abe,c) =
		// (21+30+39)/3 = 30, (abe,d) = (31+34+43)/3 = 36, (c,d) = 28: c,d join at 28 (node 7).
		// Root: (21+31+30+34+39+43)/6 = 198/6 = 33.
		{Average, "((e,(a,b)),(c,d));", []float64{17, 22, 28, 33}},
		// a,b at 17. (ab,c) = max(21,30) = 30, (ab,d) = 34, (ab,e) = max(23,21) = 23: e joins at
		// 23. (abe,c) = 39, (abe,d) = 43, (c,d) = 28: c,d at 28. Root: max(39, 43) = 43.
		{Complete, "((e,(a,b)),(c,d));", []float64{17, 23, 28, 43}},
		// a,b at 17 (node 5). (ab,c) = 21 and (ab,e) = 21 tie; (c,d) = 28, (c,e) = 39, (d,e) = 43.
		// The tie rule takes (2,5) = (c,ab) before (4,5) = (e,ab): node 6 at 21. Then (abc,e) =
		// min(23,21,39) = 21 and (abc,d) = 28: e joins at 21, d at 28.
		{Single, "(d,(e,(c,(a,b))));", []float64{17, 21, 21, 28}},
	}
	for _, c := range cases {
		tr, h := run(t, wiki, c.m)
		if got := tr.Newick(names); got != c.newick {
			t.Errorf("%v: tree %s, want %s", c.m, got, c.newick)
		}
		if !slices.Equal(h, c.heights) {
			t.Errorf("%v: heights %v, want %v", c.m, h, c.heights)
		}
	}
}

func TestTieRule(t *testing.T) {
	// All distances equal: every step ties. By (min id, max id): (0,1) → 5; then (2,3) → 6
	// among 2,3,4,5,6; then (4,5) → 7; then (6,7) → 8.
	const n = 5
	d := randomMatrix(n, func(int, int) float64 { return 1 })
	for _, m := range methods {
		tr, h := run(t, d, m)
		if got, want := tr.Newick(nil), "((2,3),(4,(0,1)));"; got != want {
			t.Errorf("%v, equal distances: tree %s, want %s", m, got, want)
		}
		if !slices.Equal(h, []float64{1, 1, 1, 1}) {
			t.Errorf("%v, equal distances: heights %v", m, h)
		}
	}

	// (0,1) join first at 1 (node 5). Then (2,5) and (3,4) tie at 2 under every method, since
	// d(0,2) = d(1,2) = 2. The rule compares min ids first, 2 < 3, so (2,5) wins although its max
	// id 5 is the larger; a rule on (max id, min id) would take (3,4).
	d = [][]float64{
		{0, 1, 2, 9, 9},
		{1, 0, 2, 9, 9},
		{2, 2, 0, 9, 9},
		{9, 9, 9, 0, 2},
		{9, 9, 9, 2, 0},
	}
	for _, m := range methods {
		tr, h := run(t, d, m)
		if got, want := merges(tr, n), [][2]int{{0, 1}, {2, 5}, {3, 4}, {6, 7}}; !slices.Equal(got, want) {
			t.Errorf("%v: merges %v, want %v", m, got, want)
		}
		if !slices.Equal(h, []float64{1, 2, 2, 9}) {
			t.Errorf("%v: heights %v, want [1 2 2 9]", m, h)
		}
	}

	// Two leaf pairs tie at the minimum: (0,3) comes before (1,2).
	d = [][]float64{
		{0, 5, 5, 1},
		{5, 0, 1, 5},
		{5, 1, 0, 5},
		{1, 5, 5, 0},
	}
	for _, m := range methods {
		tr, _ := run(t, d, m)
		if got, want := merges(tr, 4), [][2]int{{0, 3}, {1, 2}, {4, 5}}; !slices.Equal(got, want) {
			t.Errorf("%v: merges %v, want %v", m, got, want)
		}
	}
}

func TestMonotone(t *testing.T) {
	// Single and complete heights are input entries and must be non-decreasing exactly. Average
	// heights are non-decreasing in exact arithmetic; rounding of the sums may lower one by a
	// few ulps, so a relative 1e-13 is allowed.
	rng := rand.New(rand.NewPCG(3, 4))
	for rep := range 20 {
		n := 50 + rng.IntN(200)
		var d [][]float64
		if rep%2 == 0 {
			d = randomMatrix(n, func(int, int) float64 { return rng.Float64() })
		} else {
			x := make([][]float64, n)
			for i := range x {
				x[i] = []float64{rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64()}
			}
			d = euclidean(t, x)
		}
		for _, m := range methods {
			_, h := run(t, d, m)
			tol := 0.0
			if m == Average {
				tol = 1e-13
			}
			for i := 1; i < len(h); i++ {
				if h[i] < h[i-1]-tol*math.Abs(h[i-1]) {
					t.Fatalf("%v n=%d: height %d = %v after %v", m, n, i, h[i], h[i-1])
				}
			}
		}
	}
}

func TestOverflowScaling(t *testing.T) {
	// Average linkage sums distances. With entries near 1e307 the sums would overflow, so Run
	// scales by a power of two; the result must be the one of the small matrix, times 1e307
	// (heights to 1e-12 relative).
	rng := rand.New(rand.NewPCG(5, 6))
	n := 30
	small := randomMatrix(n, func(int, int) float64 { return 1 + rng.Float64() })
	big := make([][]float64, n)
	for i := range big {
		big[i] = make([]float64, n)
		for j := range big[i] {
			big[i][j] = small[i][j] * 1e307
		}
	}
	ts, hs := run(t, small, Average)
	tb, hb := run(t, big, Average)
	if ts.Newick(nil) != tb.Newick(nil) {
		t.Errorf("scaled tree %s, want %s", tb.Newick(nil), ts.Newick(nil))
	}
	for i := range hs {
		if want := hs[i] * 1e307; math.IsInf(hb[i], 0) || math.Abs(hb[i]-want) > 1e-12*want {
			t.Errorf("height %d = %v, want %v", i, hb[i], want)
		}
	}
}

// countdown is a context whose Err reports cancellation after a number of calls.
type countdown struct {
	context.Context
	left int
}

func (c *countdown) Err() error {
	c.left--
	if c.left < 0 {
		return context.Canceled
	}
	return nil
}

func TestCancel(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	d := randomMatrix(50, func(int, int) float64 { return rng.Float64() })
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, _, err := Run(ctx, d, Average); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled context: err = %v, want context.Canceled", err)
	}
	// Cancellation in the middle of the merges: the setup polls Err 51 times at n = 50 (once on
	// entry, once per 64 rows copied, once per row of the first scan), then once per merge and
	// every 16 repairs.
	ctx2 := &countdown{Context: context.Background(), left: 60}
	if _, _, err := Run(ctx2, d, Single); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled after 60 polls: err = %v, want context.Canceled", err)
	}
}

func TestErrors(t *testing.T) {
	cases := map[string][][]float64{
		"empty":      {},
		"not square": {{0, 1}, {1, 0}, {2, 2}},
		"ragged":     {{0, 1}, {1}},
		"asymmetric": {{0, 1, 2}, {1, 0, 3}, {2, 3.5, 0}},
		"NaN":        {{0, math.NaN()}, {math.NaN(), 0}},
		"+Inf":       {{0, math.Inf(1)}, {math.Inf(1), 0}},
		"-Inf":       {{0, 1, math.Inf(-1)}, {1, 0, 1}, {math.Inf(-1), 1, 0}},
	}
	for name, d := range cases {
		for _, m := range methods {
			if _, _, err := Run(context.Background(), d, m); err == nil {
				t.Errorf("%s, %v: no error", name, m)
			}
		}
	}
	if _, _, err := Run(context.Background(), wiki, Method(7)); err == nil {
		t.Error("unknown method: no error")
	}
	// One item: a leaf, no heights; the diagonal is ignored even when NaN.
	tr, h, err := Run(context.Background(), [][]float64{{math.NaN()}}, Single)
	if err != nil || tr.Newick(nil) != "0;" || len(h) != 0 {
		t.Errorf("one item: %v %v %v", tr, h, err)
	}
}

func TestEuclidean(t *testing.T) {
	// A 3-4-5 triangle.
	d := euclidean(t, [][]float64{{0, 0}, {3, 0}, {0, 4}})
	want := [][]float64{{0, 3, 4}, {3, 0, 5}, {4, 5, 0}}
	for i := range want {
		if !slices.Equal(d[i], want[i]) {
			t.Errorf("row %d = %v, want %v", i, d[i], want[i])
		}
	}
}

func TestMethodString(t *testing.T) {
	for m, want := range map[Method]string{Average: "average", Single: "single", Complete: "complete", 9: "Method(9)"} {
		if got := m.String(); got != want {
			t.Errorf("%d: %q, want %q", int(m), got, want)
		}
	}
}

func benchmarkRun(b *testing.B, n int) {
	rng := rand.New(rand.NewPCG(9, 10))
	x := make([][]float64, n)
	for i := range x {
		x[i] = make([]float64, 10)
		for k := range x[i] {
			x[i][k] = rng.NormFloat64()
		}
	}
	d := euclidean(b, x)
	for _, m := range methods {
		b.Run(m.String(), func(b *testing.B) {
			for b.Loop() {
				if _, _, err := Run(context.Background(), d, m); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// Random Gaussian points in 10 dimensions, Euclidean distances.
func BenchmarkRun1000(b *testing.B) { benchmarkRun(b, 1000) }
func BenchmarkRun2000(b *testing.B) { benchmarkRun(b, 2000) }

// The star matrix d[i][j] = min(i,j) + 1 + noise of TestAgainstNaive at n = 2000: the worst case
// of pointer repairs, O(n³) with rescans alone.
func BenchmarkRunStar2000(b *testing.B) {
	rng := rand.New(rand.NewPCG(11, 12))
	d := randomMatrix(2000, func(_, j int) float64 { return float64(j+1) + 0.5*rng.Float64() })
	for _, m := range methods {
		b.Run(m.String(), func(b *testing.B) {
			for b.Loop() {
				if _, _, err := Run(context.Background(), d, m); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// euclidean is Euclidean under the test's context, failing the test on an error.
func euclidean(tb testing.TB, x [][]float64) [][]float64 {
	tb.Helper()
	d, err := Euclidean(tb.Context(), x)
	if err != nil {
		tb.Fatal(err)
	}
	return d
}

package linkage

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/hcbench/hcbench/algorithms/tree"
)

var methods = []Method{Average, Single, Complete, Ward}

// condense returns the condensed array of the symmetric matrix d (its upper triangle).
func condense(d [][]float64) []float64 {
	var c []float64
	for i, row := range d {
		c = append(c, row[i+1:]...)
	}
	return c
}

// run runs Run on a copy of the condensed array d of n items and checks the tree's shape.
func run(t *testing.T, n int, d []float64, m Method) (*tree.Tree, []float64) {
	t.Helper()
	tr, h, err := Run(context.Background(), n, slices.Clone(d), m)
	if err != nil {
		t.Fatal(err)
	}
	if err := tr.Validate(n); err != nil {
		t.Fatalf("invalid tree %s: %v", tr.Newick(nil), err)
	}
	if len(h) != n-1 {
		t.Fatalf("%d heights for %d items", len(h), n)
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

// sameTree fails the test unless merges and heights are the wanted ones, heights within tol
// relative (0: bit for bit).
func sameTree(t *testing.T, what string, gotM [][2]int, gotH []float64, wantM [][2]int, wantH []float64, tol float64) {
	t.Helper()
	for k := range wantM {
		if k >= len(gotM) || gotM[k] != wantM[k] {
			t.Fatalf("%s: merge %d: %v, want %v\n got %v\nwant %v", what, k, gotM[min(k, len(gotM)-1)], wantM[k], gotM, wantM)
		}
		if d := math.Abs(gotH[k] - wantH[k]); d > tol*math.Abs(wantH[k]) || tol == 0 && gotH[k] != wantH[k] {
			t.Fatalf("%s: height %d = %v, want %v (relative difference %.2g)", what, k, gotH[k], wantH[k], d/math.Abs(wantH[k]))
		}
	}
}

// points draws n points of dims coordinates: integers in [0, grid) when grid > 0 (duplicates and
// exact ties), standard normal otherwise.
func points(rng *rand.Rand, n, dims, grid int) [][]float64 {
	x := make([][]float64, n)
	for i := range x {
		x[i] = make([]float64, dims)
		for k := range x[i] {
			if grid > 0 {
				x[i][k] = float64(rng.IntN(grid))
			} else {
				x[i][k] = rng.NormFloat64()
			}
		}
	}
	return x
}

func euclidean(tb testing.TB, x [][]float64) []float64 {
	tb.Helper()
	d, err := Euclidean(tb.Context(), x)
	if err != nil {
		tb.Fatal(err)
	}
	return d
}

// TestScipyReference compares with the trees scipy 1.10.1 wrote to testdata/scipy_*.json
// (testdata/scipy_reference.py): points on small integer grids, with duplicates and ties
// everywhere, Gaussian points without ties, and independent integer distances that are not
// Euclidean. Merges must be scipy's, heights within 1e-12 relative; single linkage also by
// SingleEuclidean.
func TestScipyReference(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "scipy_*.json"))
	if err != nil || len(files) < 6 {
		t.Fatalf("reference files %v: %v", files, err)
	}
	for _, f := range files {
		var ref struct {
			Source    string
			Points    [][]float64
			N         int
			Distances []float64
			Linkage   map[string]struct {
				Merges  [][2]int
				Heights []float64
			}
		}
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(b, &ref); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		n, d := ref.N, ref.Distances
		if ref.Points != nil {
			n, d = len(ref.Points), euclidean(t, ref.Points)
		}
		for _, m := range methods {
			want, ok := ref.Linkage[m.String()]
			if !ok {
				continue
			}
			tr, h := run(t, n, d, m)
			sameTree(t, f+" "+m.String(), merges(tr, n), h, want.Merges, want.Heights, 1e-12)
			if m == Single && ref.Points != nil {
				tr, h, err := SingleEuclidean(t.Context(), ref.Points)
				if err != nil {
					t.Fatal(err)
				}
				sameTree(t, f+" SingleEuclidean", merges(tr, n), h, want.Merges, want.Heights, 1e-12)
			}
		}
	}
}

// scipyLinkage is scipy's nn_chain and mst_single_linkage (scipy/cluster/_hierarchy.pyx), then
// its stable sort by height and labelling, written down as plainly as possible on a full matrix:
// O(n³) worst case, no compaction, no lists of the remaining clusters. It defines the tie rule
// that Run must follow bit for bit.
func scipyLinkage(d [][]float64, m Method) ([][2]int, []float64) {
	n := len(d)
	D := make([][]float64, n)
	for i := range D {
		D[i] = slices.Clone(d[i])
	}
	type row struct {
		x, y int
		h    float64
	}
	var Z []row
	if m == Single {
		merged := make([]bool, n)
		dist := make([]float64, n)
		for i := range dist {
			dist[i] = math.Inf(1)
		}
		x, y := 0, 0
		for range n - 1 {
			cur := math.Inf(1)
			merged[x] = true
			for i := range n {
				if merged[i] {
					continue
				}
				if dist[i] > D[x][i] {
					dist[i] = D[x][i]
				}
				if dist[i] < cur {
					y, cur = i, dist[i]
				}
			}
			Z = append(Z, row{x, y, cur})
			x = y
		}
	} else {
		size := make([]int, n)
		for i := range size {
			size[i] = 1
		}
		var chain []int
		for range n - 1 {
			if len(chain) == 0 {
				for i := range n {
					if size[i] > 0 {
						chain = append(chain, i)
						break
					}
				}
			}
			var x, y int
			var cur float64
			for {
				x = chain[len(chain)-1]
				if len(chain) > 1 {
					y = chain[len(chain)-2]
					cur = D[x][y]
				} else {
					cur = math.Inf(1)
				}
				for i := range n {
					if size[i] == 0 || i == x {
						continue
					}
					if D[x][i] < cur {
						cur, y = D[x][i], i
					}
				}
				if len(chain) > 1 && y == chain[len(chain)-2] {
					break
				}
				chain = append(chain, y)
			}
			chain = chain[:len(chain)-2]
			x, y = min(x, y), max(x, y)
			nx, ny := size[x], size[y]
			Z = append(Z, row{x, y, cur})
			size[x], size[y] = 0, nx+ny
			for i := range n {
				ni := size[i]
				if ni == 0 || i == y {
					continue
				}
				dxi, dyi := D[i][x], D[i][y]
				var v float64
				fx, fy, fi := float64(nx), float64(ny), float64(ni)
				switch m {
				case Average:
					v = (float64(fx*dxi) + float64(fy*dyi)) / float64(nx+ny)
				case Complete:
					v = max(dxi, dyi)
				case Ward:
					tt := 1.0 / float64(nx+ny+ni)
					v = math.Sqrt(max(0, float64(float64(float64((fi+fx)*tt)*dxi)*dxi)+
						float64(float64(float64((fi+fy)*tt)*dyi)*dyi)-
						float64(float64(float64(fi*tt)*cur)*cur)))
				}
				D[i][y], D[y][i] = v, v
			}
		}
	}
	slices.SortStableFunc(Z, func(a, b row) int { return cmp.Compare(a.h, b.h) })
	parent := make([]int, 2*n-1)
	for i := range parent {
		parent[i] = i
	}
	find := func(x int) int {
		for parent[x] != x {
			x = parent[x]
		}
		return x
	}
	var ms [][2]int
	var hs []float64
	for k, z := range Z {
		a, b := find(z.x), find(z.y)
		parent[a], parent[b] = n+k, n+k
		ms = append(ms, [2]int{min(a, b), max(a, b)})
		hs = append(hs, z.h)
	}
	return ms, hs
}

// matrix returns the symmetric n×n matrix with entries gen(i, j) for i < j.
func matrix(n int, gen func(i, j int) float64) [][]float64 {
	d := make([][]float64, n)
	for i := range d {
		d[i] = make([]float64, n)
	}
	for i := range n {
		for j := i + 1; j < n; j++ {
			d[i][j] = gen(i, j)
			d[j][i] = d[i][j]
		}
	}
	return d
}

// square returns the matrix of the condensed array d of n items.
func square(n int, d []float64) [][]float64 {
	return matrix(n, func(i, j int) float64 { return d[index(n, i, j)] })
}

// TestAgainstScipyTranscription compares Run, bit for bit, with scipyLinkage on random inputs
// full of exact ties: integer distances with few values, integer points on small grids, and
// sizes past 128, where the chain compacts its array.
func TestAgainstScipyTranscription(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for rep := range 150 {
		n := 1 + rng.IntN(60)
		if rep%10 == 0 {
			n = 130 + rng.IntN(200)
		}
		var d []float64
		kind := rep % 3
		switch kind {
		case 0: // integers 0..3
			d = condense(matrix(n, func(int, int) float64 { return float64(rng.IntN(4)) }))
		case 1: // a star: d(i, j) = min(i, j) + 1, chains of many links
			d = condense(matrix(n, func(i, _ int) float64 { return float64(i + 1) }))
		case 2: // grid points
			d = euclidean(t, points(rng, n, 1+rng.IntN(3), 2+rng.IntN(4)))
		}
		for _, m := range methods {
			if n == 1 {
				continue
			}
			tr, h := run(t, n, d, m)
			wantM, wantH := scipyLinkage(square(n, d), m)
			sameTree(t, m.String(), merges(tr, n), h, wantM, wantH, 0)
		}
	}
}

// bruteForce is the textbook O(n³) agglomerative algorithm: merge the closest pair of current
// clusters, the first in (position, position) order of a list in which merged clusters are
// appended, and update distances by Lance–Williams, Ward in its usual form on squared
// distances (centroid and median too, the merges then in the order made, not sorted). Without
// ties it must give Run's and Vectors' trees, heights within rounding.
func bruteForce(d [][]float64, m Method) ([][2]int, []float64) {
	n := len(d)
	type cluster struct{ id, size int }
	cs := make([]cluster, n)
	D := make([][]float64, n, 2*n-1) // by position in cs
	for i := range cs {
		cs[i] = cluster{i, 1}
		D[i] = slices.Clone(d[i])
		if m == Ward || m == Centroid || m == Median {
			for j := range D[i] {
				D[i][j] *= D[i][j]
			}
		}
	}
	var ms [][2]int
	var hs []float64
	for len(cs) > 1 {
		bi, bj := 0, 1
		for i := range cs {
			for j := i + 1; j < len(cs); j++ {
				if D[i][j] < D[bi][bj] {
					bi, bj = i, j
				}
			}
		}
		a, b, dab := cs[bi], cs[bj], D[bi][bj]
		h := dab
		if m == Ward || m == Centroid || m == Median {
			h = math.Sqrt(dab)
		}
		ms = append(ms, [2]int{min(a.id, b.id), max(a.id, b.id)})
		hs = append(hs, h)
		row := make([]float64, 0, len(cs)-1)
		for k, c := range cs {
			if k == bi || k == bj {
				continue
			}
			da, db := D[bi][k], D[bj][k]
			na, nb, nc := float64(a.size), float64(b.size), float64(c.size)
			var v float64
			switch m {
			case Average:
				v = (na*da + nb*db) / (na + nb)
			case Single:
				v = min(da, db)
			case Complete:
				v = max(da, db)
			case Ward:
				v = ((na+nc)*da + (nb+nc)*db - nc*dab) / (na + nb + nc)
			case Centroid:
				v = (na*da+nb*db)/(na+nb) - na*nb*dab/((na+nb)*(na+nb))
			case Median:
				v = da/2 + db/2 - dab/4
			}
			row = append(row, v)
		}
		// Drop positions bi < bj, append the merged cluster.
		keep := func(k int) bool { return k != bi && k != bj }
		var next [][]float64
		var nextCs []cluster
		r := 0
		for k := range cs {
			if !keep(k) {
				continue
			}
			var nr []float64
			for l := range cs {
				if keep(l) {
					nr = append(nr, D[k][l])
				}
			}
			next = append(next, append(nr, row[r]))
			nextCs = append(nextCs, cs[k])
			r++
		}
		next = append(next, append(row, 0))
		D, cs = next, append(nextCs, cluster{n + len(ms) - 1, a.size + b.size})
	}
	return ms, hs
}

// TestAgainstBruteForce compares every method with the textbook algorithm on random inputs
// without ties: uniform distances (not Euclidean; not for Ward) and Gaussian points. Merges must
// agree; heights within 1e-12 relative, as the two evaluate the updates differently.
func TestAgainstBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for rep := range 200 {
		n := 2 + rng.IntN(40)
		var d []float64
		vectors := rep%2 == 0
		if vectors {
			d = euclidean(t, points(rng, n, 1+rng.IntN(4), 0))
		} else {
			d = condense(matrix(n, func(int, int) float64 { return rng.Float64() }))
		}
		for _, m := range methods {
			if m == Ward && !vectors {
				continue
			}
			tr, h := run(t, n, d, m)
			wantM, wantH := bruteForce(square(n, d), m)
			sameTree(t, m.String(), merges(tr, n), h, wantM, wantH, 1e-12)
		}
	}
}

// linkageOf is the linkage distance of clusters a and b from its definition: over the items'
// distances d for single, complete and average linkage, and for Ward linkage
// √(2|a||b|/(|a|+|b|))·‖c_a − c_b‖ over the points x.
func linkageOf(m Method, d [][]float64, x [][]float64, a, b []int) float64 {
	switch m {
	case Centroid:
		return math.Sqrt(sqDist(centroid(x, a), centroid(x, b)))
	case Ward:
		ca, cb := centroid(x, a), centroid(x, b)
		na, nb := float64(len(a)), float64(len(b))
		return math.Sqrt(2*na*nb/(na+nb)) * math.Sqrt(sqDist(ca, cb))
	case Single:
		v := math.Inf(1)
		for _, i := range a {
			for _, j := range b {
				v = min(v, d[i][j])
			}
		}
		return v
	case Complete:
		v := math.Inf(-1)
		for _, i := range a {
			for _, j := range b {
				v = max(v, d[i][j])
			}
		}
		return v
	}
	v := 0.0
	for _, i := range a {
		for _, j := range b {
			v += d[i][j]
		}
	}
	return v / float64(len(a)*len(b))
}

func centroid(x [][]float64, a []int) []float64 {
	c := make([]float64, len(x[0]))
	for _, i := range a {
		for k, v := range x[i] {
			c[k] += v
		}
	}
	for k := range c {
		c[k] /= float64(len(a))
	}
	return c
}

// TestLinkageProperties checks Run's trees on random inputs with ties against the definitions
// of the linkages, not against an algorithm: replaying the merges in order, each joins two
// current clusters at a height equal to their linkage distance, and no pair of current
// clusters is closer (both within 1e-9 relative, far above rounding, far below the gaps of the
// integer data); the heights are non-decreasing (exactly for single and complete linkage).
func TestLinkageProperties(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for rep := range 120 {
		n := 2 + rng.IntN(30)
		x := points(rng, n, 1+rng.IntN(3), []int{0, 2, 3, 5}[rep%4])
		d := square(n, euclidean(t, x))
		if rep%3 == 2 { // not Euclidean, with ties
			x, d = nil, matrix(n, func(int, int) float64 { return float64(rng.IntN(5)) })
		}
		for _, m := range methods {
			if m == Ward && x == nil {
				continue
			}
			tr, h := run(t, n, condense(d), m)
			checkLinkage(t, m, d, x, tr, h)
		}
	}
}

// TestSingleEuclidean checks that single linkage without a distance array is Run's single
// linkage on the Euclidean distances, bit for bit, with and without ties, in 1 to 7 dimensions
// and past the sizes where it compacts its arrays.
func TestSingleEuclidean(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for rep := range 100 {
		n := 1 + rng.IntN(300)
		x := points(rng, n, []int{1, 2, 2, 3, 7}[rep%5], []int{0, 3, 10}[rep%3])
		tr, h, err := SingleEuclidean(t.Context(), x)
		if err != nil {
			t.Fatal(err)
		}
		if n == 1 {
			if tr.Newick(nil) != "0;" || len(h) != 0 {
				t.Fatalf("one point: %s %v", tr.Newick(nil), h)
			}
			continue
		}
		wantT, wantH := run(t, n, euclidean(t, x), Single)
		sameTree(t, "SingleEuclidean", merges(tr, n), h, merges(wantT, n), wantH, 0)
	}
}

// TestSingleEuclideanRootTies builds two points on opposite sides of the first, at squared
// distances from it that differ by an ulp and have the same rounded root, the later point nearer
// by square. scipy compares the roots, so Prim's tree takes the earlier point first, and the two
// merges at that root come in that order, as in Run.
func TestSingleEuclideanRootTies(t *testing.T) {
	rng := rand.New(rand.NewPCG(17, 18))
	found := 0
	for found < 20 {
		a, b := 1+rng.Float64(), rng.Float64()
		b2 := math.Nextafter(b, 0)
		sq, sp := float64(a*a)+float64(b*b), float64(a*a)+float64(b2*b2)
		if !(sp < sq && math.Sqrt(sp) == math.Sqrt(sq)) {
			continue
		}
		found++
		x := [][]float64{{0, 0}, {a, b}, {-a, -b2}, {9, 0}}
		tr, h, err := SingleEuclidean(t.Context(), x)
		if err != nil {
			t.Fatal(err)
		}
		wantT, wantH := run(t, 4, euclidean(t, x), Single)
		sameTree(t, "root tie", merges(tr, 4), h, merges(wantT, 4), wantH, 0)
		if got := merges(tr, 4)[0]; got != [2]int{0, 1} {
			t.Fatalf("first merge %v, want [0 1]: point 1 comes first at the same root", got)
		}
	}
}

// TestSqrtClassStart checks the threshold that lets SingleEuclidean compare squares as scipy
// compares their roots: it has the same root, and the float below it a smaller root.
func TestSqrtClassStart(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	for range 100000 {
		s := math.Ldexp(rng.Float64(), rng.IntN(200)-100)
		lo := sqrtClassStart(s)
		if lo > s || math.Sqrt(lo) != math.Sqrt(s) {
			t.Fatalf("sqrtClassStart(%v) = %v: root %v, want %v", s, lo, math.Sqrt(lo), math.Sqrt(s))
		}
		if below := math.Nextafter(lo, 0); math.Sqrt(below) >= math.Sqrt(s) {
			t.Fatalf("sqrtClassStart(%v) = %v, but %v has the same root", s, lo, below)
		}
	}
	if sqrtClassStart(0) != 0 {
		t.Error("sqrtClassStart(0) ≠ 0")
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
		// Prim from a: b at 17; then c and e are both at 21 from {a, b}, and c, the first in
		// index order, joins first; then e at 21 and d at 28 (min(28, 31, 34, 43)).
		{Single, "(d,(e,(c,(a,b))));", []float64{17, 21, 21, 28}},
		// a,b at 17. Ward's update from {a, b} to e is √((2·23² + 2·21² − 17²)/3) = √(1651/3)
		// = 23.459…, to c √(2393/3) = 28.24…, to d √(3945/3) = 36.26…: e joins first, then c,d
		// at 28 (the update keeps pairs of single items at their distance). The heights are
		// scipy 1.10.1's on this matrix.
		{Ward, "((e,(a,b)),(c,d));", []float64{17, 23.45918441321721, 28, 43.87558166755932}},
	}
	for _, c := range cases {
		tr, h := run(t, 5, condense(wiki), c.m)
		if got := tr.Newick(names); got != c.newick {
			t.Errorf("%v: tree %s, want %s", c.m, got, c.newick)
		}
		for k := range h {
			if math.Abs(h[k]-c.heights[k]) > 1e-12*c.heights[k] {
				t.Errorf("%v: heights %v, want %v", c.m, h, c.heights)
				break
			}
		}
	}
}

func TestTieRule(t *testing.T) {
	// All distances equal: every step ties. The chain starts at item 0, whose nearest is the
	// first other item, 1: node 5 takes slot 1. The next chain starts at slot 1 (node 5) and
	// meets 2 first: node 6 in slot 2, and so on, a caterpillar. Prim's tree from 0 adds 1, 2,
	// 3, 4 in order, the same tree. (The rule of (min id, max id) would pair (2,3) second.)
	const n = 5
	d := condense(matrix(n, func(int, int) float64 { return 1 }))
	for _, m := range methods {
		tr, h := run(t, n, d, m)
		if got, want := merges(tr, n), [][2]int{{0, 1}, {2, 5}, {3, 6}, {4, 7}}; !slices.Equal(got, want) {
			t.Errorf("%v, equal distances: merges %v, want %v", m, got, want)
		}
		if !slices.Equal(h, []float64{1, 1, 1, 1}) {
			t.Errorf("%v, equal distances: heights %v", m, h)
		}
	}

	// (0,1) join first at 1 (node 5), then (2,5) and (3,4) tie at 2. The chain restarts at slot
	// 1 (node 5), whose nearest is 2: (2,5) merges before (3,4), and the stable sort keeps that
	// order. Under Ward's update (2,5) is at √(((1+1)·4 + (1+1)·4 − 1)/3) = √5 instead, after
	// (3,4) at 2 (scipy 1.10.1: merges (0,1), (3,4), (2,5), (6,7)).
	d = condense([][]float64{
		{0, 1, 2, 9, 9},
		{1, 0, 2, 9, 9},
		{2, 2, 0, 9, 9},
		{9, 9, 9, 0, 2},
		{9, 9, 9, 2, 0},
	})
	for _, m := range methods {
		tr, h := run(t, n, d, m)
		wantM, wantH := [][2]int{{0, 1}, {2, 5}, {3, 4}, {6, 7}}, []float64{1, 2, 2, 9}
		if m == Ward {
			wantM, wantH = [][2]int{{0, 1}, {3, 4}, {2, 5}, {6, 7}}, []float64{1, 2, math.Sqrt(5), 13.769531582446806}
		}
		sameTree(t, m.String(), merges(tr, n), h, wantM, wantH, 1e-15)
	}
}

func TestMonotone(t *testing.T) {
	// Single and complete heights are input entries and must be non-decreasing exactly. Average
	// and Ward heights are non-decreasing in exact arithmetic; rounding may lower one by a few
	// ulps, so 1e-13 relative is allowed.
	rng := rand.New(rand.NewPCG(11, 12))
	for rep := range 20 {
		n := 50 + rng.IntN(250)
		var d []float64
		vectors := rep%2 == 1
		if vectors {
			d = euclidean(t, points(rng, n, 3, 0))
		} else {
			d = condense(matrix(n, func(int, int) float64 { return rng.Float64() }))
		}
		for _, m := range methods {
			if m == Ward && !vectors {
				continue
			}
			_, h := run(t, n, d, m)
			tol := 1e-13
			if m == Single || m == Complete {
				tol = 0
			}
			for i := 1; i < len(h); i++ {
				if h[i] < h[i-1]-tol*math.Abs(h[i-1]) {
					t.Fatalf("%v n=%d: height %d = %v after %v", m, n, i, h[i], h[i-1])
				}
			}
		}
	}
}

func TestInversionOrder(t *testing.T) {
	// Merges found by the chain, by slot: (0,1) at 2, then (1,2) at 1.9999999999999998, a
	// rounding inversion below its child. Sorted by height alone the second would come first
	// and the labels would join item 1 twice; dendrogram orders it after its child.
	ms := []merge{{0, 1, 2}, {1, 2, math.Nextafter(2, 0)}}
	tr, h, err := dendrogram(3, ms, true)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := merges(tr, 3), [][2]int{{0, 1}, {2, 3}}; !slices.Equal(got, want) || h[0] != 2 || h[1] != ms[1].h {
		t.Errorf("merges %v heights %v, want %v [2 %v]", got, h, want, ms[1].h)
	}
}

func TestOverflowScaling(t *testing.T) {
	// Average linkage sums distances and Ward linkage squares them. With distances near 1e300
	// they would overflow, so Run scales by a power of two; the result must be the one of the
	// small input, times 1e300 (heights to 1e-12 relative: 1e300 itself is rounded).
	rng := rand.New(rand.NewPCG(13, 14))
	const n = 30
	small := euclidean(t, points(rng, n, 2, 0))
	big := slices.Clone(small)
	for k := range big {
		big[k] *= 1e300
	}
	for _, m := range methods {
		ts, hs := run(t, n, small, m)
		tb, hb := run(t, n, big, m)
		if ts.Newick(nil) != tb.Newick(nil) {
			t.Errorf("%v: scaled tree %s, want %s", m, tb.Newick(nil), ts.Newick(nil))
		}
		for i := range hs {
			if want := hs[i] * 1e300; math.IsInf(hb[i], 0) || math.Abs(hb[i]-want) > 1e-12*want {
				t.Errorf("%v: height %d = %v, want %v", m, i, hb[i], want)
			}
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
	rng := rand.New(rand.NewPCG(15, 16))
	x := points(rng, 50, 2, 0)
	d := euclidean(t, x)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for _, m := range methods {
		if _, _, err := Run(ctx, 50, slices.Clone(d), m); !errors.Is(err, context.Canceled) {
			t.Errorf("%v, cancelled context: err = %v, want context.Canceled", m, err)
		}
		// In the middle: Run polls once on entry, then once per chain link or tree edge.
		if _, _, err := Run(&countdown{Context: context.Background(), left: 30}, 50, slices.Clone(d), m); !errors.Is(err, context.Canceled) {
			t.Errorf("%v, cancelled after 30 polls: err = %v, want context.Canceled", m, err)
		}
	}
	if _, _, err := SingleEuclidean(&countdown{Context: context.Background(), left: 30}, x); !errors.Is(err, context.Canceled) {
		t.Errorf("SingleEuclidean, cancelled after 30 polls: err = %v, want context.Canceled", err)
	}
	if _, err := Euclidean(&countdown{Context: context.Background(), left: 30}, x); !errors.Is(err, context.Canceled) {
		t.Errorf("Euclidean, cancelled after 30 polls: err = %v, want context.Canceled", err)
	}
}

func TestErrors(t *testing.T) {
	cases := map[string]struct {
		n int
		d []float64
	}{
		"no items":       {0, nil},
		"too few":        {3, []float64{1, 2}},
		"too many":       {2, []float64{1, 2}},
		"NaN":            {2, []float64{math.NaN()}},
		"+Inf":           {3, []float64{1, math.Inf(1), 1}},
		"-Inf":           {3, []float64{1, 1, math.Inf(-1)}},
		"negative, Ward": {3, []float64{1, -1, 1}},
	}
	for name, c := range cases {
		for _, m := range methods {
			_, _, err := Run(context.Background(), c.n, c.d, m)
			if (err == nil) != (name == "negative, Ward" && m != Ward) {
				t.Errorf("%s, %v: err = %v", name, m, err)
			}
		}
	}
	if _, _, err := Run(context.Background(), 5, condense(wiki), Method(7)); err == nil {
		t.Error("unknown method: no error")
	}
	// The message names the pair. Single linkage finds it in Prim's tree as it reads the entry:
	// (1,3) down column 3, item 3 having joined first, at 0.5 from item 0; (2,3) along row 2.
	for _, m := range methods {
		if _, _, err := Run(context.Background(), 4, []float64{1, 1, 0.5, 1, math.NaN(), 1}, m); err == nil || err.Error() != "linkage: the distance of items 1 and 3 is NaN" {
			t.Errorf("%v, NaN at (1,3): %v", m, err)
		}
		if _, _, err := Run(context.Background(), 4, []float64{1, 2, 3, 1, 1, math.Inf(-1)}, m); err == nil || err.Error() != "linkage: the distance of items 2 and 3 is -Inf" {
			t.Errorf("%v, -Inf at (2,3): %v", m, err)
		}
	}
	// One item: a leaf, no heights.
	tr, h, err := Run(context.Background(), 1, nil, Single)
	if err != nil || tr.Newick(nil) != "0;" || len(h) != 0 {
		t.Errorf("one item: %v %v %v", tr, h, err)
	}
	for name, x := range map[string][][]float64{"no rows": {}, "ragged": {{0, 1}, {1}}, "NaN": {{0}, {math.NaN()}}, "Inf": {{0}, {math.Inf(1)}}} {
		if _, err := Euclidean(context.Background(), x); err == nil {
			t.Errorf("Euclidean, %s: no error", name)
		}
		if _, _, err := SingleEuclidean(context.Background(), x); err == nil {
			t.Errorf("SingleEuclidean, %s: no error", name)
		}
	}
}

func TestEuclidean(t *testing.T) {
	// A 3-4-5 triangle, and a point in 3 dimensions (the general path).
	d := euclidean(t, [][]float64{{0, 0}, {3, 0}, {0, 4}})
	if want := []float64{3, 4, 5}; !slices.Equal(d, want) {
		t.Errorf("2-D: %v, want %v", d, want)
	}
	d = euclidean(t, [][]float64{{0, 0, 0}, {1, 2, 2}, {1, 2, 2}})
	if want := []float64{3, 3, 0}; !slices.Equal(d, want) {
		t.Errorf("3-D: %v, want %v", d, want)
	}
}

func TestIndex(t *testing.T) {
	const n = 7
	k := 0
	for i := range n {
		for j := i + 1; j < n; j++ {
			if index(n, i, j) != k {
				t.Fatalf("index(%d, %d, %d) = %d, want %d", n, i, j, index(n, i, j), k)
			}
			if a, b := pairOf(n, k); a != i || b != j {
				t.Fatalf("pairOf(%d, %d) = %d, %d, want %d, %d", n, k, a, b, i, j)
			}
			k++
		}
	}
}

func TestMethodString(t *testing.T) {
	for m, want := range map[Method]string{Average: "average", Single: "single", Complete: "complete", Ward: "ward", 9: "Method(9)"} {
		if got := m.String(); got != want {
			t.Errorf("%d: %q, want %q", int(m), got, want)
		}
	}
}

// TestRescan runs the nearest-neighbour chain as nnChain does and, wherever rescan answers for a
// link from its earlier scan, checks the answer against a full scan, on inputs with many exact
// ties and sizes past compaction. It also checks that rescan answers for a good share of the
// links it is asked about, so that the shortcut is in use.
func TestRescan(t *testing.T) {
	rng := rand.New(rand.NewPCG(19, 20))
	asked, answered := 0, 0
	for rep := range 60 {
		n := 2 + rng.IntN(200)
		var d []float64
		if rep%2 == 0 {
			d = condense(matrix(n, func(int, int) float64 { return float64(rng.IntN(4)) }))
		} else {
			d = euclidean(t, points(rng, n, 2, 4))
		}
		m := []Method{Average, Complete, Ward}[rep%3]
		c := newChainState(n, d, m)
		var chain []int
		var scans []scan
		for range n - 1 {
			if len(chain) == 0 {
				chain, scans = append(chain, int(c.act[0])), append(scans, scan{})
			}
			var x, y int
			var dxy float64
			for {
				x = chain[len(chain)-1]
				prev := -1
				if len(chain) > 1 {
					prev = chain[len(chain)-2]
				}
				sc := &scans[len(scans)-1]
				ok := false
				if sc.valid {
					asked++
					if y, dxy, ok = c.rescan(x, prev, sc); ok {
						answered++
						var fresh scan
						if fy, fd := c.nearest(x, prev, &fresh); y != fy || dxy != fd {
							t.Fatalf("rep %d (%v, n = %d): rescan of slot %d gives %d at %v, a full scan %d at %v", rep, m, n, x, y, dxy, fy, fd)
						}
					}
				}
				if !ok {
					y, dxy = c.nearest(x, prev, sc)
				}
				if y == prev {
					break
				}
				chain, scans = append(chain, y), append(scans, scan{})
			}
			chain, scans = chain[:len(chain)-2], scans[:len(scans)-2]
			x, y = min(x, y), max(x, y)
			c.merge(x, y, dxy, m)
			if len(c.act) >= 64 && 2*len(c.act) <= c.m {
				c.compact(chain)
				for i := range scans {
					scans[i].valid = false
				}
			}
		}
	}
	t.Logf("rescan answered for %d of %d links", answered, asked)
	if answered < asked/2 {
		t.Errorf("rescan answered %d of %d links", answered, asked)
	}
}

// checkLinkage checks the tree tr and heights h of linkage m against the definition of the
// linkage (linkageOf on the distances d or the points x): replaying the merges in order, each
// joins two current clusters at a height equal to their linkage distance, and no pair of current
// clusters is closer (both within 1e-9 relative); the heights are non-decreasing (exactly for
// single and complete linkage), except centroid linkage's, which may decrease.
func checkLinkage(t *testing.T, m Method, d, x [][]float64, tr *tree.Tree, h []float64) {
	t.Helper()
	n := len(d)
	items := make([][]int, 2*n-1)
	for i := range n {
		items[i] = []int{i}
	}
	current := map[int]bool{}
	for i := range n {
		current[i] = true
	}
	near := func(a, b float64) bool { return math.Abs(a-b) <= 1e-9*max(1, math.Abs(b)) }
	for k, mg := range merges(tr, n) {
		a, b := mg[0], mg[1]
		if !current[a] || !current[b] {
			t.Fatalf("%v: merge %d joins %d and %d, not both current", m, k, a, b)
		}
		if v := linkageOf(m, d, x, items[a], items[b]); !near(h[k], v) {
			t.Fatalf("%v: merge %d at %v, but the linkage of its clusters is %v", m, k, h[k], v)
		}
		for c := range current {
			for e := range current {
				if c < e && linkageOf(m, d, x, items[c], items[e]) < h[k] && !near(h[k], linkageOf(m, d, x, items[c], items[e])) {
					t.Fatalf("%v: merge %d at %v, but clusters %d and %d are at %v", m, k, h[k], c, e, linkageOf(m, d, x, items[c], items[e]))
				}
			}
		}
		if k > 0 && m != Centroid && h[k] < h[k-1] && (m == Single || m == Complete || !near(h[k], h[k-1])) {
			t.Fatalf("%v: height %d = %v after %v", m, k, h[k], h[k-1])
		}
		delete(current, a)
		delete(current, b)
		current[n+k] = true
		items[n+k] = append(slices.Clone(items[a]), items[b]...)
	}
}

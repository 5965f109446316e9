// Package mergeheap is the store of candidate merges that greedy agglomerative searches (BHC,
// Bayesian rose trees) keep: every pair of current clusters with its score, best first, with
// exact ties broken by the smallest (A, B) pair of cluster ids.
//
// A Forest holds each pair's score once, in a condensed upper triangle of float64 (4n² bytes for
// n clusters: 400 MB at n = 10 000), and finds the best pair through the best pair of each row,
// kept in a heap of rows. This is the generic algorithm of Müllner ("Modern hierarchical,
// agglomerative clustering algorithms", 2011, §3.1) with this package's tie order: after a
// merge, a row whose best partner was merged away keeps its old key, an upper bound on its
// pairs, and is rescanned only when that bound reaches the top. Searches therefore score every
// pair once, as with a heap of all pairs, but hold no dead pairs and make the same choices.
package mergeheap

import (
	"context"
	"math"
	"slices"
)

// Candidate is a possible merge of the clusters A < B.
type Candidate struct {
	Score float64
	A, B  int32
}

// New returns a candidate for the clusters a and b in either order.
func New(score float64, a, b int) Candidate {
	if a > b {
		a, b = b, a
	}
	return Candidate{Score: score, A: int32(a), B: int32(b)}
}

// Better reports whether x comes before y: a higher score, or an equal score and a smaller
// (A, B). NaN scores have no place in the order; a Forest's scores must not be NaN.
func Better(x, y Candidate) bool {
	if x.Score != y.Score {
		return x.Score > y.Score
	}
	if x.A != y.A {
		return x.A < y.A
	}
	return x.B < y.B
}

// checkEvery is how many pairs the forest scores between two looks at its context: a score is at
// least one marginal likelihood (0.1 µs and up), so a look costs well under 1% of them, and 16
// of them stay far below a millisecond.
const checkEvery = 16

// Forest is the state of a greedy agglomerative search: the live clusters and the score of
// every pair of them.
//
// Each cluster occupies a slot, 0..r−1 for the r clusters the search starts with; a merge puts
// the new cluster in the lower slot of the two it replaces and frees the other. Row i of the
// triangle holds the pairs (i, j) of slots j > i, and keeps its best pair under Better as its key
// in a heap of rows. A key is exact unless the row is stale: a merge that removes a row's best
// partner, or lowers that pair's score, leaves the old key, which still bounds every pair of the
// row from above; the row is rescanned when it reaches the top. The best pair overall is thus the
// key of the first row that is not stale. Cluster ids are the search's own (for example node ids
// of a hierarchy under construction); a search over a few clusters with large ids costs memory for
// those few only.
type Forest struct {
	r      int       // slots
	d      []float64 // pair (i < j) of slots at d[off[i]+j]
	off    []int     // row offsets into d
	ids    []int     // every id the forest has seen, increasing
	slot   []int32   // by position in ids: the cluster's slot, −1 once merged away
	id     []int     // slot → id of the cluster in it
	active []int32   // live slots, increasing
	key    []Candidate
	best   []int32 // slot → slot of the row's best partner (valid unless stale)
	stale  []bool
	heap   []int32 // rows (slots) with at least one pair, by key under Better
	pos    []int32 // slot → index in heap, −1 when not in it
	score  func(a, b int) float64
}

// NewForest starts a search over the clusters roots (distinct ids ≥ 0), scoring every pair with
// score(a, b), a < b, which must not return NaN. Pairs are scored once each, row by row in
// increasing id order. It returns ctx.Err() once ctx is done (looked at every 16 scores).
func NewForest(ctx context.Context, roots []int, score func(a, b int) float64) (*Forest, error) {
	r := len(roots)
	f := &Forest{
		r:      r,
		d:      make([]float64, r*(r-1)/2),
		off:    make([]int, r),
		ids:    make([]int, r, 2*r),
		slot:   make([]int32, r, 2*r),
		id:     make([]int, r),
		active: make([]int32, r),
		key:    make([]Candidate, r),
		best:   make([]int32, r),
		stale:  make([]bool, r),
		heap:   make([]int32, 0, r),
		pos:    make([]int32, r),
		score:  score,
	}
	copy(f.ids, roots)
	slices.Sort(f.ids)
	copy(f.id, f.ids)
	for i := range r {
		f.slot[i], f.active[i], f.pos[i] = int32(i), int32(i), -1
		// Pair (i, j) at i·r − i(i+1)/2 + (j − i − 1).
		f.off[i] = i*r - i*(i+1)/2 - i - 1
	}
	k := 0
	for i := range r {
		row := f.d[f.off[i]+i+1 : f.off[i]+r]
		a := f.ids[i]
		for j := range row {
			if k++; k%checkEvery == 0 {
				if err := ctx.Err(); err != nil {
					return nil, err
				}
			}
			row[j] = score(a, f.ids[i+1+j])
		}
		f.scan(int32(i))
	}
	return f, nil
}

// candidate returns the pair of slots i < j as a candidate in the search's ids.
func (f *Forest) candidate(i, j int32) Candidate {
	return New(f.d[f.off[i]+int(j)], f.id[i], f.id[j])
}

// scan sets row i's key to its best live pair and files the row in the heap, or takes it out of
// the heap when it has no pair left.
func (f *Forest) scan(i int32) {
	k, _ := slices.BinarySearch(f.active, i)
	rest := f.active[k+1:]
	if k == len(f.active) || f.active[k] != i || len(rest) == 0 {
		f.remove(i)
		return
	}
	o := f.off[i]
	bj := rest[0]
	bs := f.d[o+int(bj)]
	for _, j := range rest[1:] {
		if s := f.d[o+int(j)]; s > bs || (s == bs && f.idLess(i, j, bj)) {
			bj, bs = j, s
		}
	}
	f.stale[i] = false
	f.best[i] = bj
	f.setKey(i, f.candidate(i, bj))
}

// idLess reports whether, with equal scores, the pair of slots (i, j) comes before (i, k) in
// Better's order of ids.
func (f *Forest) idLess(i, j, k int32) bool {
	x, y := New(0, f.id[i], f.id[j]), New(0, f.id[i], f.id[k])
	return Better(x, y)
}

// setKey gives row i the key c and restores the heap, adding the row if it is not in it.
func (f *Forest) setKey(i int32, c Candidate) {
	p := f.pos[i]
	if p < 0 {
		f.key[i] = c
		f.pos[i] = int32(len(f.heap))
		f.heap = append(f.heap, i)
		f.up(int(f.pos[i]))
		return
	}
	old := f.key[i]
	f.key[i] = c
	if Better(c, old) {
		f.up(int(p))
	} else {
		f.down(int(p))
	}
}

// remove takes row i out of the heap, if it is there.
func (f *Forest) remove(i int32) {
	p := int(f.pos[i])
	if p < 0 {
		return
	}
	f.pos[i] = -1
	last := len(f.heap) - 1
	if p != last {
		m := f.heap[last]
		f.heap[p], f.pos[m] = m, int32(p)
		f.heap = f.heap[:last]
		f.down(p)
		f.up(int(f.pos[m]))
		return
	}
	f.heap = f.heap[:last]
}

func (f *Forest) before(p, q int) bool { return Better(f.key[f.heap[p]], f.key[f.heap[q]]) }

func (f *Forest) swap(p, q int) {
	f.heap[p], f.heap[q] = f.heap[q], f.heap[p]
	f.pos[f.heap[p]], f.pos[f.heap[q]] = int32(p), int32(q)
}

func (f *Forest) up(p int) {
	for p > 0 {
		q := (p - 1) / 2
		if !f.before(p, q) {
			return
		}
		f.swap(p, q)
		p = q
	}
}

func (f *Forest) down(p int) {
	n := len(f.heap)
	for {
		l := 2*p + 1
		if l >= n {
			return
		}
		c := l
		if r := l + 1; r < n && f.before(r, l) {
			c = r
		}
		if !f.before(c, p) {
			return
		}
		f.swap(p, c)
		p = c
	}
}

// local returns the slot of the cluster id, which must be live in the forest.
func (f *Forest) local(id int) int32 {
	k, ok := slices.BinarySearch(f.ids, id)
	if !ok || f.slot[k] < 0 {
		panic("mergeheap: not a live cluster")
	}
	return f.slot[k]
}

// Len returns the number of live clusters.
func (f *Forest) Len() int { return len(f.active) }

// Roots returns the live clusters' ids, increasing.
func (f *Forest) Roots() []int {
	out := make([]int, len(f.active))
	for k, i := range f.active {
		out[k] = f.id[i]
	}
	slices.Sort(out)
	return out
}

// Best returns the best live pair; ok is false when there is none. Rows that reach the top
// stale are rescanned, O(r) each.
func (f *Forest) Best() (c Candidate, ok bool) {
	for len(f.heap) > 0 {
		i := f.heap[0]
		if !f.stale[i] {
			return f.key[i], true
		}
		f.scan(i)
	}
	return Candidate{}, false
}

// AppendWithin appends to dst every live pair whose score is at least the best pair's minus
// tol ≥ 0 (every pair when the best is −Inf or tol is +Inf), in no particular order, and returns
// it; dst is unchanged when there is no pair. It returns ctx.Err() once ctx is done (looked at
// every 64 rows it scans).
func (f *Forest) AppendWithin(ctx context.Context, dst []Candidate, tol float64) ([]Candidate, error) {
	top, ok := f.Best()
	if !ok {
		return dst, nil
	}
	t := top.Score - tol
	if math.IsNaN(t) { // +Inf − +Inf: every pair is within an infinite tolerance
		t = math.Inf(-1)
	}
	// The rows whose key reaches t form a subtree at the heap's top, since a row's key is at
	// least its children's; stale keys bound their rows from above, so the subtree holds every
	// row with a pair at t or above.
	stack := []int{0}
	rows := 0
	for len(stack) > 0 {
		p := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		i := f.heap[p]
		if !(f.key[i].Score >= t) {
			continue
		}
		if rows++; rows%64 == 0 {
			if err := ctx.Err(); err != nil {
				return dst, err
			}
		}
		k, _ := slices.BinarySearch(f.active, i)
		o := f.off[i]
		for _, j := range f.active[k+1:] {
			if f.d[o+int(j)] >= t {
				dst = append(dst, f.candidate(i, j))
			}
		}
		for _, q := range []int{2*p + 1, 2*p + 2} {
			if q < len(f.heap) {
				stack = append(stack, q)
			}
		}
	}
	return dst, nil
}

// Replace records that the live clusters a and b were merged into the new cluster k, which must
// be larger than every id the forest has seen: a and b die, and k is scored against every other
// live cluster, score(c, k) for each, in increasing slot order. It returns ctx.Err() once ctx is
// done (looked at every 16 scores); the forest must not be used after an error.
func (f *Forest) Replace(ctx context.Context, a, b, k int) error {
	if k <= f.ids[len(f.ids)-1] {
		panic("mergeheap: new cluster ids must increase")
	}
	pa, pb := f.local(a), f.local(b)
	p, q := min(pa, pb), max(pa, pb)
	for _, id := range []int{a, b} {
		n, _ := slices.BinarySearch(f.ids, id)
		f.slot[n] = -1
	}
	f.ids = append(f.ids, k)
	f.slot = append(f.slot, p)
	f.id[p] = k
	f.remove(q)
	if n, _ := slices.BinarySearch(f.active, q); n < len(f.active) {
		f.active = slices.Delete(f.active, n, n+1)
	}
	for n, i := range f.active {
		if i == p {
			continue
		}
		if n%checkEvery == checkEvery-1 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		s := f.score(f.id[i], k)
		if i > p {
			f.d[f.off[p]+int(i)] = s // row p is rescanned below
			if i < q && f.best[i] == q {
				f.stale[i] = true
			}
			continue
		}
		f.d[f.off[i]+int(p)] = s
		switch c := New(s, f.id[i], k); {
		case f.pos[i] < 0 || Better(c, f.key[i]):
			// Above the row's key (exact or a bound), the pair is the row's best.
			f.stale[i], f.best[i] = false, p
			f.setKey(i, c)
		case f.best[i] == p || f.best[i] == q:
			f.stale[i] = true
		}
	}
	f.scan(p)
	return nil
}

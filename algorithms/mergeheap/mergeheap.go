// Package mergeheap is the priority queue of candidate merges that greedy agglomerative searches
// (BHC, Bayesian rose trees) keep: every pair of current clusters with its score, best first, with
// exact ties broken by the smallest (A, B) pair of cluster ids. Searches invalidate candidates
// lazily: when a cluster is merged away they do not remove its pairs, but skip them when popped.
package mergeheap

import (
	"context"
	"slices"
)

// Candidate is a possible merge of the clusters A < B.
type Candidate struct {
	Score float64
	A, B  int32
	// LogML is log p(D_A ∪ D_B|H1), kept so that the search need not recompute it.
	LogML float64
}

// New returns a candidate for the clusters a and b in either order.
func New(score float64, a, b int, logML float64) Candidate {
	if a > b {
		a, b = b, a
	}
	return Candidate{Score: score, A: int32(a), B: int32(b), LogML: logML}
}

// Better reports whether x comes before y: a higher score, or an equal score and a smaller
// (A, B). NaN scores must not be pushed; they have no place in the order.
func Better(x, y Candidate) bool {
	if x.Score != y.Score {
		return x.Score > y.Score
	}
	if x.A != y.A {
		return x.A < y.A
	}
	return x.B < y.B
}

// Heap is a binary heap under Better, written out rather than through container/heap so that
// the n² pushes and pops of a search make no interface calls.
type Heap []Candidate

// Init orders h after its elements were appended directly; it costs O(len(h)).
func (h Heap) Init() {
	for i := len(h)/2 - 1; i >= 0; i-- {
		h.down(i)
	}
}

// checkEvery is how many pairs the forest scores between two looks at its context: a score is at
// least one marginal likelihood (0.1 µs and up), so a look costs well under 1% of them, and 16
// of them stay far below a millisecond.
const checkEvery = 16

// initContext is Init that returns ctx.Err(), leaving h unordered, once ctx is done. It looks at
// ctx every 1<<14 sifts (each O(log len(h)) at most).
func (h Heap) initContext(ctx context.Context) error {
	for i := len(h)/2 - 1; i >= 0; i-- {
		if i&(1<<14-1) == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		h.down(i)
	}
	return nil
}

// Push adds c.
func (h *Heap) Push(c Candidate) {
	*h = append(*h, c)
	s := *h
	i := len(s) - 1
	for i > 0 {
		p := (i - 1) / 2
		if !Better(s[i], s[p]) {
			break
		}
		s[i], s[p] = s[p], s[i]
		i = p
	}
}

// Pop removes and returns the best candidate. Precondition: len(h) > 0.
func (h *Heap) Pop() Candidate {
	s := *h
	top := s[0]
	last := len(s) - 1
	s[0] = s[last]
	*h = s[:last]
	h.down(0)
	return top
}

// Peek returns the best candidate without removing it. Precondition: len(h) > 0.
func (h Heap) Peek() Candidate { return h[0] }

func (h Heap) down(i int) {
	n := len(h)
	for {
		l := 2*i + 1
		if l >= n {
			return
		}
		best := l
		if r := l + 1; r < n && Better(h[r], h[l]) {
			best = r
		}
		if !Better(h[best], h[i]) {
			return
		}
		h[i], h[best] = h[best], h[i]
		i = best
	}
}

// Forest is the state of a greedy agglomerative search: the live clusters, and a heap that holds
// every pair of live clusters once, scored by the search's function, together with pairs that
// died when one of their clusters was merged away. Dead pairs are skipped when they reach the top
// and dropped in bulk once they outnumber the live ones, so that pops do not wade through them;
// that costs O(n²) in all.
//
// Cluster ids are the search's own (for example node ids of a hierarchy under construction).
// Inside, the forest numbers its clusters 0, 1, … in increasing id order, so that a search over a
// few clusters with large ids costs memory for those few only; the tie order by (A, B) is the
// same under both numberings.
type Forest struct {
	h      Heap    // candidates over local numbers
	ids    []int   // local number → cluster id, increasing
	alive  []bool  // by local number
	active []int32 // live local numbers
	score  func(a, b int) Candidate
}

// NewForest starts a search over the clusters roots (distinct ids ≥ 0), scoring every pair with
// score, which must not return a NaN score. It returns ctx.Err() once ctx is done (looked at every
// 16 scores, and while the heap is ordered).
func NewForest(ctx context.Context, roots []int, score func(a, b int) Candidate) (*Forest, error) {
	r := len(roots)
	// The heap starts with r(r−1)/2 pairs and grows to r(r−1) + O(r) before dead pairs are
	// dropped (see Replace). Room for all of them up front spares the copies that append would
	// make as it grows: each of the whole heap, seconds at a few thousand clusters, with nothing
	// to look at ctx in between. Pages of the room are only touched as the heap grows into it.
	f := &Forest{h: make(Heap, 0, r*(r-1)+r+64), ids: make([]int, r, 2*r), alive: make([]bool, r, 2*r), score: score}
	copy(f.ids, roots)
	slices.Sort(f.ids)
	k := 0
	for i := range r {
		f.alive[i] = true
		f.active = append(f.active, int32(i))
		for j := i + 1; j < r; j++ {
			if k++; k%checkEvery == 0 {
				if err := ctx.Err(); err != nil {
					return nil, err
				}
			}
			f.h = append(f.h, f.local(score(f.ids[i], f.ids[j]), i, j))
		}
	}
	if err := f.h.initContext(ctx); err != nil {
		return nil, err
	}
	return f, nil
}

// local renumbers a candidate for the clusters with local numbers i < j.
func (f *Forest) local(c Candidate, i, j int) Candidate {
	c.A, c.B = int32(i), int32(j)
	return c
}

// global gives a candidate in the search's ids.
func (f *Forest) global(c Candidate) Candidate {
	c.A, c.B = int32(f.ids[c.A]), int32(f.ids[c.B])
	return c
}

// number returns the local number of the cluster id, which must be one of the forest's.
func (f *Forest) number(id int) int {
	i, ok := slices.BinarySearch(f.ids, id)
	if !ok {
		panic("mergeheap: unknown cluster id")
	}
	return i
}

func (f *Forest) live(c Candidate) bool {
	return f.alive[c.A] && f.alive[c.B]
}

// Len returns the number of live clusters.
func (f *Forest) Len() int { return len(f.active) }

// Roots returns the live clusters' ids.
func (f *Forest) Roots() []int {
	out := make([]int, len(f.active))
	for i, v := range f.active {
		out[i] = f.ids[v]
	}
	return out
}

// Peek returns the best live pair without removing it; ok is false when there is none.
func (f *Forest) Peek() (c Candidate, ok bool) {
	for len(f.h) > 0 {
		if c := f.h.Peek(); f.live(c) {
			return f.global(c), true
		}
		f.h.Pop()
	}
	return Candidate{}, false
}

// Pop removes and returns the best live pair. Precondition: Len() ≥ 2.
func (f *Forest) Pop() Candidate {
	c, ok := f.Peek()
	if !ok {
		panic("mergeheap: Pop on a forest with fewer than two clusters")
	}
	f.h.Pop()
	return c
}

// Push returns a popped pair to the heap if both its clusters are still live.
func (f *Forest) Push(c Candidate) {
	if l := f.local(c, f.number(int(c.A)), f.number(int(c.B))); f.live(l) {
		f.h.Push(l)
	}
}

// Replace records that the live clusters a and b were merged into the new cluster k, which must
// be larger than every id the forest has seen: a and b die, and k is scored against every other
// live cluster. It returns ctx.Err() once ctx is done (looked at every 16 scores, and through the
// bulk drop of dead pairs, which costs O(n²) when it comes); the forest must not be used after an
// error.
func (f *Forest) Replace(ctx context.Context, a, b, k int) error {
	if k <= f.ids[len(f.ids)-1] {
		panic("mergeheap: new cluster ids must increase")
	}
	la, lb, lk := int32(f.number(a)), int32(f.number(b)), len(f.ids)
	f.alive[la], f.alive[lb] = false, false
	f.ids = append(f.ids, k)
	f.alive = append(f.alive, true)
	j := 0
	for _, v := range f.active {
		if v != la && v != lb {
			if j%checkEvery == checkEvery-1 {
				if err := ctx.Err(); err != nil {
					return err
				}
			}
			f.active[j] = v
			j++
			f.h.Push(f.local(f.score(f.ids[v], k), int(v), lk))
		}
	}
	f.active = append(f.active[:j], int32(lk))
	if r := len(f.active); len(f.h) > r*(r-1)+64 {
		j := 0
		for i, c := range f.h {
			if i&(1<<16-1) == 0 {
				if err := ctx.Err(); err != nil {
					return err
				}
			}
			if f.live(c) {
				f.h[j] = c
				j++
			}
		}
		f.h = f.h[:j]
		return f.h.initContext(ctx)
	}
	return nil
}

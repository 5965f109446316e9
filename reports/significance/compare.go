package significance

import (
	"errors"
	"fmt"
	"hash/fnv"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"sync"

	"golang.org/x/sync/errgroup"
)

// MinDatasets is the fewest paired data sets on which a pair is tested, and the fewest complete
// data sets on which the Friedman test is run. With fewer, the exact two-sided Wilcoxon p-value
// cannot go below 2/2^5 = 0.0625, and the rows say so rather than test.
const MinDatasets = 6

// Defaults of Options.
const (
	// DefaultResamples is the number of bootstrap resamples: the bootstrap CDF at an
	// interval's end is then estimated with a standard error of 0.0016, and the comparison of
	// 69 data sets × 8 algorithms × 4 metrics fits the 5 s on 2 cores
	// (BenchmarkCompareAll).
	DefaultResamples = 10000
	// DefaultBayesSamples is the number of posterior samples of the Bayesian signed-rank test,
	// baycomp's default: a probability's Monte-Carlo standard error is at most 0.0023.
	DefaultBayesSamples = 50000
	// Level is the confidence level of the bootstrap interval.
	Level = 0.95
)

// Metric names one metric and how to read it.
type Metric struct {
	Name string
	// HigherBetter is the metric's direction: true when a higher value is better.
	HigherBetter bool
	// ROPE is the half-width of the region of practical equivalence of the Bayesian test, in
	// the metric's unit: differences within ±ROPE count as equivalent. 0 means none.
	ROPE float64
}

// Cell is one algorithm's value on one problem (data set). OK false marks a failed run; a
// (problem, algorithm) with no cell is missing. Both are counted, never imputed.
type Cell struct {
	Problem, Algorithm string
	Value              float64
	OK                 bool
}

// Table is one metric's results: the cells of algorithms on problems.
type Table struct {
	Metric Metric
	// Algorithms and Problems fix the order of the rows and the set compared; nil takes the
	// names the cells use, sorted. Every cell must name a listed algorithm and problem, and no
	// (problem, algorithm) may have two cells.
	Algorithms, Problems []string
	Cells                []Cell
}

// Options sets the Monte-Carlo parts of a comparison. Zero fields take the defaults.
type Options struct {
	// Seed seeds the bootstrap and the Bayesian test. A pair's bootstrap draws from a generator
	// seeded from (Seed, metric, algorithm A, algorithm B), a table's Bayesian weights from one
	// seeded from (Seed, metric) (see sampleBayes), so results do not depend on GOMAXPROCS, on
	// the order of the tables or on the other tables compared.
	Seed uint64
	// Resamples is the number of bootstrap resamples (DefaultResamples).
	Resamples int
	// BayesSamples is the number of posterior samples of the Bayesian test
	// (DefaultBayesSamples).
	BayesSamples int
	// Prior is the strength of the Bayesian test's pseudo-observation at 0 (DefaultPrior).
	Prior float64
}

// Pair is a row of comparison/pairs.csv: algorithm A against algorithm B on one metric, over
// the Datasets problems both completed. Inferential fields are NaN when Datasets < MinDatasets.
type Pair struct {
	Metric, A, B string
	// Datasets is the number of problems both completed. Wins, Ties and Losses count those on
	// which A is better than B in the metric's direction, equal, or worse.
	Datasets, Wins, Ties, Losses int
	// MissingA and MissingB count the problems on which A (B) failed or has no cell.
	MissingA, MissingB int
	// WilcoxonStatistic and P are the two-sided Wilcoxon signed-rank test of the differences
	// A − B (see Wilcoxon); PHolm is P adjusted by Holm over all tested pairs of the metric.
	WilcoxonStatistic, P, PHolm float64
	// MedianDifference is the median of A − B (raw, not turned by the direction) and
	// CILow, CIHigh its 95 % percentile bootstrap interval. MedianDifference is given whenever
	// Datasets > 0: it describes, it does not test.
	MedianDifference, CILow, CIHigh float64
	// PABetter, PEquivalent and PBBetter are the Bayesian signed-rank test's posterior
	// probabilities that A is better by more than the ROPE, that they are equivalent, and that
	// B is better.
	PABetter, PEquivalent, PBBetter float64
}

// Rank is a row of comparison/ranks.csv: one algorithm's mean rank on one metric over the
// Datasets problems that every algorithm completed, and the metric's Friedman test (the same
// in every row of the metric; NaN with fewer than MinDatasets complete problems or fewer than
// three algorithms). MeanRank is NaN when no problem is complete.
type Rank struct {
	Metric, Algorithm string
	Datasets          int
	MeanRank          float64
	FriedmanStatistic float64
	FriedmanP         float64
}

// Result is the outcome of a comparison: its rows and notes, one line each, saying what was
// not tested and what was left out, for the report to show.
type Result struct {
	Pairs []Pair
	Ranks []Rank
	Notes []string
}

// grid is a validated table: algorithm a on problem p has a cell when has[p][a], completed when
// ok[p][a], with value[p][a].
type grid struct {
	metric     Metric
	algorithms []string
	problems   []string
	value      [][]float64
	has, ok    [][]bool
}

// Compare compares the algorithms of one table. See CompareAll.
func Compare(t Table, opt Options) (Result, error) {
	return CompareAll([]Table{t}, opt)
}

// CompareAll compares the algorithms of each table (one per metric; metric names must differ):
// every pair A, B (A before B in the table's order) and the ranks of every algorithm. Pairs run
// in parallel on GOMAXPROCS goroutines; the result does not depend on it.
//
// Errors, before any work: a table with an empty or duplicated metric name, a negative or
// non-finite ROPE, fewer than two algorithms, duplicate algorithm or problem names, a cell
// naming an unlisted algorithm or problem, two cells for one (problem, algorithm), an OK cell
// with a non-finite value, or negative Options.
func CompareAll(tables []Table, opt Options) (Result, error) {
	opt, err := opt.withDefaults()
	if err != nil {
		return Result{}, err
	}
	grids := make([]grid, len(tables))
	seen := map[string]bool{}
	for i, t := range tables {
		if grids[i], err = newGrid(t); err != nil {
			return Result{}, err
		}
		if seen[t.Metric.Name] {
			return Result{}, fmt.Errorf("significance: metric %q has two tables", t.Metric.Name)
		}
		seen[t.Metric.Name] = true
	}
	var res Result
	type job struct {
		g    *grid
		a, b int
	}
	var jobs []job
	first := make([]int, len(grids)+1) // the pairs of grids[i] are res.Pairs[first[i]:first[i+1]]
	for gi := range grids {
		first[gi] = len(jobs)
		for a := range grids[gi].algorithms {
			for b := a + 1; b < len(grids[gi].algorithms); b++ {
				jobs = append(jobs, job{&grids[gi], a, b})
			}
		}
	}
	first[len(grids)] = len(jobs)
	res.Pairs = make([]Pair, len(jobs))
	tests := make([]*signedRank, len(jobs)) // the Bayesian tests, nil for an untested pair
	var eg errgroup.Group
	eg.SetLimit(runtime.GOMAXPROCS(0))
	for i, j := range jobs {
		eg.Go(func() error {
			var err error
			res.Pairs[i], tests[i], err = comparePair(j.g, j.a, j.b, opt)
			return err
		})
	}
	if err := eg.Wait(); err != nil {
		return Result{}, err
	}
	for gi := range grids {
		g := &grids[gi]
		pairs := res.Pairs[first[gi]:first[gi+1]]
		sampleBayes(g, tests[first[gi]:first[gi+1]], opt)
		for i, t := range tests[first[gi]:first[gi+1]] {
			if t != nil {
				post := t.result()
				pairs[i].PABetter, pairs[i].PEquivalent, pairs[i].PBBetter = post.Positive, post.Equivalent, post.Negative
			}
		}
		p := make([]float64, len(pairs))
		for i, pr := range pairs {
			p[i] = pr.P
		}
		for i, adj := range Holm(p) {
			pairs[i].PHolm = adj
		}
		res.Notes = append(res.Notes, pairNotes(g, pairs)...)
		ranks, notes, err := g.ranks()
		if err != nil {
			return Result{}, err
		}
		res.Ranks = append(res.Ranks, ranks...)
		res.Notes = append(res.Notes, notes...)
	}
	return res, nil
}

func (o Options) withDefaults() (Options, error) {
	if o.Resamples < 0 || o.BayesSamples < 0 || o.Prior < 0 || math.IsNaN(o.Prior) || math.IsInf(o.Prior, 0) {
		return o, fmt.Errorf("significance: options %+v: resamples, samples and prior must be ≥ 0 and finite", o)
	}
	if o.Resamples == 0 {
		o.Resamples = DefaultResamples
	}
	if o.BayesSamples == 0 {
		o.BayesSamples = DefaultBayesSamples
	}
	if o.Prior == 0 {
		o.Prior = DefaultPrior
	}
	return o, nil
}

func newGrid(t Table) (grid, error) {
	m := t.Metric
	if m.Name == "" {
		return grid{}, errors.New("significance: a table without a metric name")
	}
	if !(m.ROPE >= 0) || math.IsInf(m.ROPE, 0) {
		return grid{}, fmt.Errorf("significance: metric %q: rope %v, need a finite value ≥ 0", m.Name, m.ROPE)
	}
	algorithms, problems := t.Algorithms, t.Problems
	if algorithms == nil {
		algorithms = sortedNames(t.Cells, func(c Cell) string { return c.Algorithm })
	}
	if problems == nil {
		problems = sortedNames(t.Cells, func(c Cell) string { return c.Problem })
	}
	if len(algorithms) < 2 {
		return grid{}, fmt.Errorf("significance: metric %q: %d algorithms, need at least 2 to compare", m.Name, len(algorithms))
	}
	ai, err := indexOf(m.Name, "algorithm", algorithms)
	if err != nil {
		return grid{}, err
	}
	pi, err := indexOf(m.Name, "problem", problems)
	if err != nil {
		return grid{}, err
	}
	g := grid{metric: m, algorithms: algorithms, problems: problems,
		value: make([][]float64, len(problems)), has: make([][]bool, len(problems)), ok: make([][]bool, len(problems))}
	for p := range problems {
		g.value[p] = make([]float64, len(algorithms))
		g.has[p] = make([]bool, len(algorithms))
		g.ok[p] = make([]bool, len(algorithms))
	}
	for _, c := range t.Cells {
		a, okA := ai[c.Algorithm]
		p, okP := pi[c.Problem]
		switch {
		case !okA:
			return grid{}, fmt.Errorf("significance: metric %q: cell of unlisted algorithm %q", m.Name, c.Algorithm)
		case !okP:
			return grid{}, fmt.Errorf("significance: metric %q: cell of unlisted problem %q", m.Name, c.Problem)
		case g.has[p][a]:
			return grid{}, fmt.Errorf("significance: metric %q: two cells for %s on %s", m.Name, c.Algorithm, c.Problem)
		case c.OK && (math.IsNaN(c.Value) || math.IsInf(c.Value, 0)):
			return grid{}, fmt.Errorf("significance: metric %q: %s on %s is marked OK with value %v", m.Name, c.Algorithm, c.Problem, c.Value)
		}
		g.has[p][a] = true
		g.value[p][a], g.ok[p][a] = c.Value, c.OK
	}
	return g, nil
}

func sortedNames(cells []Cell, name func(Cell) string) []string {
	var s []string
	for _, c := range cells {
		s = append(s, name(c))
	}
	slices.Sort(s)
	return slices.Compact(s)
}

func indexOf(metric, what string, names []string) (map[string]int, error) {
	idx := make(map[string]int, len(names))
	for i, s := range names {
		if _, dup := idx[s]; dup {
			return nil, fmt.Errorf("significance: metric %q: %s %q listed twice", metric, what, s)
		}
		idx[s] = i
	}
	return idx, nil
}

// seeds derives generator seeds from the comparison's seed and names alone, so that a pair's
// draws do not depend on which other pairs or tables are compared.
func seeds(seed uint64, names ...string) (uint64, uint64) {
	h := fnv.New64a()
	for _, s := range names {
		h.Write([]byte(s))
		h.Write([]byte{0}) // so that ("ab", "c") and ("a", "bc") differ
	}
	return seed, h.Sum64()
}

// comparePair computes the pair's row but for the Bayesian columns, and returns the pair's
// Bayesian test ready to sample (nil when the pair is not tested).
func comparePair(g *grid, a, b int, opt Options) (Pair, *signedRank, error) {
	pr := Pair{Metric: g.metric.Name, A: g.algorithms[a], B: g.algorithms[b]}
	var diff, better []float64 // A − B, and the same turned so that positive means A is better
	var col []int              // the problems' columns in the Bayesian draws
	for p := range g.problems {
		okA, okB := g.ok[p][a], g.ok[p][b]
		if !okA {
			pr.MissingA++
		}
		if !okB {
			pr.MissingB++
		}
		if !okA || !okB {
			continue
		}
		d := g.value[p][a] - g.value[p][b]
		if !g.metric.HigherBetter {
			d = g.value[p][b] - g.value[p][a]
		}
		switch {
		case d > 0:
			pr.Wins++
		case d < 0:
			pr.Losses++
		default:
			pr.Ties++
		}
		better = append(better, d)
		diff = append(diff, g.value[p][a]-g.value[p][b])
		col = append(col, p+1)
	}
	pr.Datasets = len(diff)
	nan := math.NaN()
	pr.WilcoxonStatistic, pr.P, pr.PHolm = nan, nan, nan
	pr.MedianDifference, pr.CILow, pr.CIHigh = nan, nan, nan
	pr.PABetter, pr.PEquivalent, pr.PBBetter = nan, nan, nan
	if pr.Datasets > 0 {
		pr.MedianDifference = median(diff)
	}
	if pr.Datasets < MinDatasets {
		return pr, nil, nil
	}
	w, err := Wilcoxon(diff)
	if err != nil {
		return Pair{}, nil, err
	}
	pr.WilcoxonStatistic, pr.P = w.Statistic, w.P
	boot := rand.New(rand.NewPCG(seeds(opt.Seed, "bootstrap", pr.Metric, pr.A, pr.B)))
	if pr.CILow, pr.CIHigh, err = BootstrapMedianCI(diff, opt.Resamples, Level, boot); err != nil {
		return Pair{}, nil, err
	}
	t, err := newSignedRank(better, col, g.metric.ROPE)
	return pr, t, err
}

// sampleBayes draws the posterior samples of the Bayesian tests of one table's pairs. The pairs
// share the draws: a sample is one Gamma(prior) weight for the pseudo-observation and one
// Exp(1) weight per data set, and each pair uses the weights of the data sets it was compared
// on, which are Dirichlet weights of its own posterior (independent Gamma variates normalised,
// whatever subset). Estimates of different pairs are then correlated, each one is the same as
// with draws of its own, and drawing once per table rather than once per pair makes the
// comparison several times faster (the draws dominate). The stream is seeded from the seed and
// the metric's name.
func sampleBayes(g *grid, tests []*signedRank, opt Options) {
	if !slices.ContainsFunc(tests, func(t *signedRank) bool { return t != nil }) {
		return
	}
	width := len(g.problems) + 1
	rng := rand.New(rand.NewPCG(seeds(opt.Seed, "bayes", g.metric.Name)))
	draws := make([]float64, min(opt.BayesSamples, drawChunk)*width)
	for done := 0; done < opt.BayesSamples; done += drawChunk {
		rows := draws[:min(opt.BayesSamples-done, drawChunk)*width]
		drawWeights(rows, width, opt.Prior, rng)
		var wg sync.WaitGroup
		sem := make(chan struct{}, runtime.GOMAXPROCS(0))
		for _, t := range tests {
			if t == nil {
				continue
			}
			wg.Add(1)
			sem <- struct{}{}
			go func() {
				defer wg.Done()
				t.add(rows, width)
				<-sem
			}()
		}
		wg.Wait()
	}
}

func pairNotes(g *grid, pairs []Pair) []string {
	var notes []string
	for _, pr := range pairs {
		if pr.Datasets < MinDatasets {
			notes = append(notes, fmt.Sprintf("%s: %s vs %s: %d paired data sets (fewer than %d): not tested",
				g.metric.Name, pr.A, pr.B, pr.Datasets, MinDatasets))
		}
	}
	for a, name := range g.algorithms {
		failed, missing := 0, 0
		for p := range g.problems {
			switch {
			case !g.has[p][a]:
				missing++
			case !g.ok[p][a]:
				failed++
			}
		}
		if failed+missing > 0 {
			notes = append(notes, fmt.Sprintf("%s: %s: %d of %d data sets failed, %d missing (left out of its pairs, never imputed)",
				g.metric.Name, name, failed, len(g.problems), missing))
		}
	}
	return notes
}

// ranks computes the metric's rows of ranks.csv over the complete problems.
func (g *grid) ranks() ([]Rank, []string, error) {
	var blocks [][]float64
	for p := range g.problems {
		if !slices.Contains(g.ok[p], false) {
			blocks = append(blocks, g.value[p])
		}
	}
	var notes []string
	if left := len(g.problems) - len(blocks); left > 0 {
		notes = append(notes, fmt.Sprintf("%s: ranks and Friedman over the %d of %d data sets every algorithm completed; %d with a failed or missing cell left out",
			g.metric.Name, len(blocks), len(g.problems), left))
	}
	rows := make([]Rank, len(g.algorithms))
	nan := math.NaN()
	for a, name := range g.algorithms {
		rows[a] = Rank{Metric: g.metric.Name, Algorithm: name, Datasets: len(blocks),
			MeanRank: nan, FriedmanStatistic: nan, FriedmanP: nan}
	}
	if len(blocks) == 0 {
		return rows, append(notes, fmt.Sprintf("%s: no data set that every algorithm completed: no ranks", g.metric.Name)), nil
	}
	f, err := Friedman(blocks, g.metric.HigherBetter)
	if err != nil {
		return nil, nil, err
	}
	tested := len(blocks) >= MinDatasets && len(g.algorithms) >= 3
	switch {
	case len(blocks) < MinDatasets:
		notes = append(notes, fmt.Sprintf("%s: %d complete data sets (fewer than %d): Friedman not tested", g.metric.Name, len(blocks), MinDatasets))
	case len(g.algorithms) < 3:
		notes = append(notes, fmt.Sprintf("%s: %d algorithms: Friedman needs 3 or more (the pair's Wilcoxon test stands)", g.metric.Name, len(g.algorithms)))
	}
	for a := range rows {
		rows[a].MeanRank = f.MeanRanks[a]
		if tested {
			rows[a].FriedmanStatistic, rows[a].FriedmanP = f.Statistic, f.P
		}
	}
	return rows, notes, nil
}

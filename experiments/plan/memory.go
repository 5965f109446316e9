package plan

import (
	"fmt"
	"math"
	"os"
	"slices"
	"strings"

	"hcbench/algorithms/bhc"
	"hcbench/algorithms/model"
	"hcbench/algorithms/trellis"
	"hcbench/experiments/config"
	"hcbench/experiments/inputs"
	"hcbench/experiments/memory"
	"hcbench/experiments/results"
)

// The memory estimates: what a plan, its items, its records and its tasks hold, in bytes, so
// that a config that would exhaust the memory is refused, with the estimate, before anything
// large is allocated. The constants were measured on linux/amd64 with Go 1.26 (peak resident
// memory of `hcbench run` over sizes, /usr/bin/time -v) and rounded up; they bound the common
// case, not every corner: an estimate says whether a run can fit, not what it will take to the
// byte.
const (
	// planTaskBytes and planItemBytes: a task of the plan (its key and Task) and an item id (80,000
	// one-task jets: 24 → 47 MB for validate).
	planTaskBytes = 400
	planItemBytes = 100
	// A generated or read jet held in memory (its leaves, truth tree, content and model), and a
	// record (its maps, Newick and fields): 10 KB a jet at N ≈ 7 and 25 KB at N ≈ 35 with one
	// record each.
	jetItemBytes, jetLeafBytes       = 3 << 10, 500
	recordBytes, recordLeafBytes     = 3 << 10, 60
	vectorItemBytes, vectorLeafBytes = 2 << 10, 64 // plus 8 a feature, 8·N² with the weights
	// pairBytes is what BHC and BRT hold per pair of items (their candidate heaps: 736 MB at
	// n = 4000, 45 bytes per n²); linkage holds two n×n float64 matrices.
	pairBytes        = 48
	linkagePairBytes = 16
	// processBytes is the Go runtime and the binary.
	processBytes = 32 << 20
	// fileFactor bounds the memory of a data file's parsed contents by its size: a CSV cell of
	// two bytes ("1,") becomes a float64, a short row a slice and a label (24 bytes of memory per
	// byte of file at worst); a jets line a Jet a few times its text.
	csvFileFactor, jetsFileFactor = 24, 8
)

// subsetBytes is the model's subset scorer's memory per subset (model.SubsetModel.SubsetBytes).
func subsetBytes(s inputs.Size) int {
	if s.Jets {
		return 8
	}
	return 16
}

// itemBytes estimates one materialised item of a data set with n leaves.
func itemBytes(s inputs.Size, n int) int64 {
	nn := int64(n)
	if s.Jets {
		return jetItemBytes + jetLeafBytes*nn
	}
	b := vectorItemBytes + vectorLeafBytes*nn + 8*nn*int64(s.Dims)
	if s.Weights {
		b += 8 * nn * nn
	}
	return b
}

// typicalLeaves is the leaf count the estimates of a data set use: its bound where it has one,
// else a count Ginkgo jets seldom exceed at the cuts configs use (ginkgo's leaf counts have a
// long tail, but the mean is 19 at t_cut = 1.21).
func typicalLeaves(s inputs.Size) int {
	if s.MaxLeaves > 0 {
		return s.MaxLeaves
	}
	return max(s.MinLeaves, 40)
}

// taskBytes estimates the working memory of algorithm a on an item of n leaves of a data set of
// size s, beyond the item and the record: the trellis's tables, BHC's pairs, linkage's matrices.
func taskBytes(a config.Algorithm, s inputs.Size, n int) int64 {
	nn := int64(n)
	sq := func(k int64) int64 { return k * k }
	switch p := a.Params.(type) {
	case *config.TrellisParams:
		if n > model.MaxSubsetItems {
			return 0 // refused before it allocates (see feasibility)
		}
		o := trellis.Options{MAPOnly: p.Mode == "map", NoCount: !p.CountTrees, Marginals: p.Marginals > 0, Samples: p.Samples > 0, MAPTies: p.CountMAPTrees}
		return trellis.MemoryFor(n, subsetBytes(s), o)
	case *config.BHCExactParams:
		if n > bhc.MaxExactItems {
			return 0
		}
		return 20 << n
	case *config.BHCParams, *config.BRTParams:
		return pairBytes * sq(nn)
	case *config.RBHCParams:
		m := int64(p.M)
		if m < 2 || m >= nn {
			return pairBytes * sq(nn)
		}
		return pairBytes*sq(m) + 512*nn
	case *config.EMBHCParams:
		m := int64(max(p.M, p.ResolveM))
		if p.M < 2 || int64(p.M) >= nn || p.ResolveM == 0 {
			return pairBytes * sq(nn)
		}
		return pairBytes*sq(min(m, nn)) + 512*nn
	case *config.LinkageParams:
		return linkagePairBytes * sq(nn)
	case *config.BeamParams:
		return 32*int64(p.BeamSize.Of(n))*nn + 8*sq(nn)
	case *config.SparseTrellisParams:
		return 400*int64(p.MaxClusters) + 32*int64(p.BeamSize.Of(n))*nn
	}
	return 64 * nn // truth, greedy: a few slices of n
}

// Estimate is a memory estimate and what makes it up, largest part first.
type Estimate struct {
	Bytes int64
	Parts []Part
}

// Part is one part of an Estimate: "items of data set q (20000 jets)".
type Part struct {
	What  string
	Bytes int64
}

func (e *Estimate) add(what string, b int64) {
	if b <= 0 {
		return
	}
	e.Bytes = satAdd(e.Bytes, b)
	e.Parts = append(e.Parts, Part{what, b})
}

// satAdd adds without overflowing: estimates of absurd configs (jets: 1e12) saturate.
func satAdd(a, b int64) int64 {
	if a > math.MaxInt64-b {
		return math.MaxInt64
	}
	return a + b
}

// satMul multiplies without overflowing.
func satMul(a, b int64) int64 {
	if a != 0 && b > math.MaxInt64/a {
		return math.MaxInt64
	}
	return a * b
}

// String lists the parts: "items of data set q: 2.0 GiB; records: 1.1 GiB; …".
func (e Estimate) String() string {
	parts := slices.Clone(e.Parts)
	slices.SortStableFunc(parts, func(a, b Part) int {
		switch {
		case a.Bytes > b.Bytes:
			return -1
		case a.Bytes < b.Bytes:
			return 1
		}
		return 0
	})
	var s []string
	for _, p := range parts {
		s = append(s, p.What+": "+memory.Format(p.Bytes))
	}
	return strings.Join(s, "; ")
}

// tooLarge is the error of an estimate over the limit: the estimate, its parts, the limit and
// what to change.
func tooLarge(what string, e Estimate, change string) error {
	return fmt.Errorf("%s would take about %s (%s), more than the %s this process may use; %s",
		what, memory.Format(e.Bytes), e, memory.Describe(), change)
}

// preEstimate bounds the memory that opening cfg's data sets and listing its tasks takes, from
// the config alone (generated data sets' counts, data files' sizes), so that an impossible count
// (jets: 1e12) is refused before anything is allocated.
func preEstimate(cfg *config.Config) Estimate {
	var e Estimate
	for _, ds := range cfg.Datasets {
		if s, ok := inputs.GeneratedSize(ds); ok {
			items := int64(s.Items)
			algs := int64(len(cfg.Algorithms))
			e.add(fmt.Sprintf("the plan of data set %s (%d items × %d %s)", ds.Name, items, algs, results.Plural(int(algs), "algorithm", "algorithms")),
				satMul(items, satAdd(planItemBytes, satMul(algs, planTaskBytes))))
			continue
		}
		if v, ok := ds.Source.(interface{ Vectors() config.VectorData }); ok && v.Vectors().Subsamples > 0 {
			items, algs := int64(v.Vectors().Subsamples), int64(len(cfg.Algorithms))
			e.add(fmt.Sprintf("the plan of data set %s (%d subsamples × %d %s)", ds.Name, items, algs, results.Plural(int(algs), "algorithm", "algorithms")),
				satMul(items, satAdd(planItemBytes, satMul(algs, planTaskBytes))))
		}
		path := cfg.Resolve(config.SourcePath(ds.Source))
		st, err := os.Stat(path)
		if err != nil || !st.Mode().IsRegular() {
			continue // missing files are reported by validation; streams by the readers' limits
		}
		factor := int64(csvFileFactor)
		if _, ok := ds.Source.(*config.JetsFile); ok {
			factor = jetsFileFactor
		}
		e.add(fmt.Sprintf("reading data set %s (%s, %s)", ds.Name, config.SourcePath(ds.Source), memory.Format(st.Size())), satMul(st.Size(), factor))
	}
	return e
}

// Memory estimates what running the tasks of shard (nil: all) with workers at once takes: the
// plan, the items the tasks need (a run holds them all), the records, and the working memory of
// the largest tasks that can run at once (the trellis's tables within their shared budget).
func (p *Plan) Memory(workers int, inShard func(k int) bool) Estimate {
	var e Estimate
	e.add("the Go runtime", processBytes)
	e.add("the plan", satMul(int64(len(p.Tasks)), planTaskBytes))
	needs := map[*inputs.Dataset]map[int]bool{}
	var records, work []int64
	var trellisMax int64
	for k, t := range p.Tasks {
		if inShard != nil && !inShard(k) {
			continue
		}
		if needs[t.Dataset] == nil {
			needs[t.Dataset] = map[int]bool{}
		}
		needs[t.Dataset][t.Item] = true
		s := t.Dataset.Size()
		n := typicalLeaves(s)
		records = append(records, recordBytes+recordLeafBytes*int64(n))
		b := taskBytes(t.Algorithm, s, n)
		if _, ok := t.Algorithm.Params.(*config.TrellisParams); ok {
			trellisMax = max(trellisMax, b)
			continue
		}
		work = append(work, b)
	}
	for _, d := range p.Datasets {
		if k := len(needs[d]); k > 0 {
			s := d.Size()
			e.add(fmt.Sprintf("the %d items of data set %s", k, d.Name), satMul(int64(k), itemBytes(s, typicalLeaves(s))))
		}
	}
	var rec int64
	for _, r := range records {
		rec = satAdd(rec, r)
	}
	e.add(fmt.Sprintf("%d records", len(records)), rec)
	// The largest working memories, one per worker.
	slices.Sort(work)
	var w int64
	for i := len(work) - 1; i >= 0 && i >= len(work)-workers; i-- {
		w = satAdd(w, work[i])
	}
	e.add(fmt.Sprintf("the working memory of the largest tasks on %d workers", workers), w)
	e.add("the trellis tables (within their shared budget)", min(trellisMax, memory.Budget()))
	return e
}

// CheckMemory refuses a run of the tasks of shard on workers whose estimate exceeds what the
// process may use.
func (p *Plan) CheckMemory(workers int, inShard func(k int) bool) error {
	e := p.Memory(workers, inShard)
	if e.Bytes <= memory.Limit() {
		return nil
	}
	return tooLarge("the run", e, "run fewer or smaller items (jets, points, items, subsamples), fewer workers (-workers), or one shard at a time (-shard I/N)")
}

// feasibility checks every algorithm against the leaf counts of the data sets it runs on: an
// algorithm that can run on no item of a data set (the trellis over 30 leaves or over its memory
// limit, bhc_exact over 20, any algorithm whose working memory exceeds what the process may use)
// is a problem at the algorithm's line; one that fails on some items only (generated jets without
// max_leaves) is a warning.
func feasibility(cfg *config.Config, ds []*inputs.Dataset) (problems []error, warnings []string) {
	for _, a := range cfg.Algorithms {
		for _, d := range ds {
			if len(a.Datasets) > 0 && !slices.Contains(a.Datasets, d.Name) {
				continue
			}
			s := d.Size()
			if s.Items == 0 {
				continue
			}
			why := func(n int) string { return cannotRun(a, s, n) }
			switch {
			case why(s.MinLeaves) != "":
				problems = append(problems, config.Problem{File: cfg.Path, Line: a.Line, Msg: fmt.Sprintf("algorithms[%d] (%s) cannot run on data set %s: %s",
					a.Index, a.Label, d.Name, why(s.MinLeaves))})
			case s.MaxLeaves == 0 && why(model.MaxSubsetItems+1) != "" && isTrellis(a):
				warnings = append(warnings, fmt.Sprintf("%s:%d: algorithms[%d] (%s) fails on the jets of data set %s with more than %d leaves (or over its memory limit); max_leaves bounds them",
					cfg.Path, a.Line, a.Index, a.Label, d.Name, largestRunnable(a, s)))
			case s.MaxLeaves > 0 && why(s.MaxLeaves) != "":
				warnings = append(warnings, fmt.Sprintf("%s:%d: algorithms[%d] (%s) fails on the items of data set %s with more than %d leaves: %s",
					cfg.Path, a.Line, a.Index, a.Label, d.Name, largestRunnable(a, s), why(s.MaxLeaves)))
			}
		}
	}
	return problems, warnings
}

func isTrellis(a config.Algorithm) bool {
	_, ok := a.Params.(*config.TrellisParams)
	return ok
}

// largestRunnable returns the largest leaf count algorithm a can run on (searched up to 10^7).
func largestRunnable(a config.Algorithm, s inputs.Size) int {
	lo, hi := 1, 10_000_000
	for lo < hi {
		mid := (lo + hi + 1) / 2
		if cannotRun(a, s, mid) == "" {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	return lo
}

// cannotRun says why algorithm a cannot run on an item of n leaves of a data set of size s, or "".
func cannotRun(a config.Algorithm, s inputs.Size, n int) string {
	switch p := a.Params.(type) {
	case *config.TrellisParams:
		if n > model.MaxSubsetItems {
			return fmt.Sprintf("the exact trellis handles at most %d items, and its items have %d", model.MaxSubsetItems, n)
		}
		limit := int64(p.MemoryLimit)
		if limit == 0 {
			limit = memory.Budget()
		}
		if need := taskBytes(a, s, n); need > limit {
			return fmt.Sprintf("N = %d needs about %s for its tables, over its memory_limit of %s (raise memory_limit, up to what the process may use, %s, or use an approximate algorithm)",
				n, memory.Format(need), memory.Format(limit), memory.Describe())
		}
	case *config.BHCExactParams:
		if n > bhc.MaxExactItems {
			return fmt.Sprintf("bhc_exact handles at most %d items, and its items have %d", bhc.MaxExactItems, n)
		}
	}
	if need := satAdd(taskBytes(a, s, n), itemBytes(s, n)); need > memory.Limit() {
		hint := "use smaller items (points, rows, subsamples) or an algorithm that needs less"
		if s.Weights {
			hint = fmt.Sprintf("the correlation-clustering weights alone take %s; use smaller items (points, rows, subsamples), or split_model: none, which the Bayesian algorithms and euclidean linkage run without",
				memory.Format(satMul(8*int64(n), int64(n))))
		}
		return fmt.Sprintf("an item of %d leaves needs about %s, more than the %s this process may use; %s", n, memory.Format(need), memory.Describe(), hint)
	}
	return ""
}

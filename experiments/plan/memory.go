package plan

import (
	"encoding/binary"
	"fmt"
	"math"
	"os"
	"slices"
	"strings"

	"hcbench/algorithms/bhc"
	"hcbench/algorithms/model"
	"hcbench/algorithms/trellis"
	"hcbench/datasets/jets"
	"hcbench/experiments/config"
	"hcbench/experiments/inputs"
	"hcbench/experiments/item"
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
	// fileFactor bounds the memory of a data file's parsed contents by its size (see
	// inputs.CSVBytesPerByte).
	csvFileFactor, jetsFileFactor = inputs.CSVBytesPerByte, inputs.JetsBytesPerByte
)

// subsetBytes is the model's subset scorer's memory per subset (model.SubsetModel.SubsetBytes).
func subsetBytes(s item.Size) int {
	if s.Jets {
		return 8
	}
	return 16
}

// itemBytes estimates one materialised item of a data set with n leaves.
func itemBytes(s item.Size, n int) int64 {
	nn := int64(n)
	if s.Jets {
		return satAdd(jetItemBytes, satMul(jetLeafBytes, nn))
	}
	b := satAdd(vectorItemBytes+satMul(vectorLeafBytes, nn), satMul(8*nn, int64(s.Dims)))
	if s.Weights {
		b = satAdd(b, satMul(8*nn, nn))
	}
	return b
}

// typicalLeaves is the leaf count the estimates of a data set use: its bound where it has one,
// else a count Ginkgo jets seldom exceed at the cuts configs use (ginkgo's leaf counts have a
// long tail, but the mean is 19 at t_cut = 1.21).
func typicalLeaves(s item.Size) int {
	if s.MaxLeaves > 0 {
		return s.MaxLeaves
	}
	return max(s.MinLeaves, 40)
}

// taskBytes estimates the working memory of algorithm a on an item of n leaves of a data set of
// size s, beyond the item and the record: the trellis's tables, BHC's pairs, linkage's matrices.
func taskBytes(a config.Algorithm, s item.Size, n int) int64 {
	nn := int64(n)
	// Saturating arithmetic: absurd parameters (beam_size: 2^59) must not wrap to small estimates.
	sq := func(k int64) int64 { return satMul(k, k) }
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
		return satMul(pairBytes, sq(nn))
	case *config.RBHCParams:
		m := int64(p.M)
		if m < 2 || m >= nn {
			return satMul(pairBytes, sq(nn))
		}
		return satAdd(satMul(pairBytes, sq(m)), satMul(512, nn))
	case *config.EMBHCParams:
		m := int64(max(p.M, p.ResolveM))
		if p.M < 2 || int64(p.M) >= nn || p.ResolveM == 0 {
			return satMul(pairBytes, sq(nn))
		}
		return satAdd(satMul(pairBytes, sq(min(m, nn))), satMul(512, nn))
	case *config.LinkageParams:
		return satMul(linkagePairBytes, sq(nn))
	case *config.BeamParams:
		return satAdd(satMul(satMul(32, int64(p.BeamSize.Of(n))), nn), satMul(8, sq(nn)))
	case *config.SparseTrellisParams:
		return satAdd(satMul(400, int64(p.MaxClusters)), satMul(satMul(32, int64(p.BeamSize.Of(n))), nn))
	}
	return satMul(64, nn) // truth, greedy: a few slices of n
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
// (jets: 1e12) is refused before anything is allocated. It adds what a run of one of shards shards
// will hold at least of the items and records of its generated data sets and subsamples (Memory,
// checked once the plan is made, counts them exactly), so that a count whose plan fits but whose
// run does not (jets: 2e7) is refused before the plan is made, not after.
//
// A data file whose parsed contents would take more than memory.Budget, the half of the memory
// that reading a data file may take (the readers stop a stream or compressed data there too:
// inputs.MaxText), is a problem at its data set's file line.
func preEstimate(cfg *config.Config, shards int) (Estimate, []error) {
	var e Estimate
	var problems []error
	perShard := func(k int64) int64 { return (k + int64(shards) - 1) / int64(shards) }
	for _, ds := range cfg.Datasets {
		algs := int64(len(cfg.Algorithms))
		if s, ok := inputs.GeneratedSize(ds); ok {
			items := int64(s.Items)
			e.add(fmt.Sprintf("the plan of data set %s (%d items × %d %s)", ds.Name, items, algs, results.Plural(int(algs), "algorithm", "algorithms")),
				satMul(items, satAdd(planItemBytes, satMul(algs, planTaskBytes))))
			n, runs := typicalLeaves(s), int64(runsOn(cfg, ds, s.Jets))
			// An item that alone exceeds the limit is left to feasibility, which names the
			// algorithms that cannot run on it, at their lines, and what to change.
			if k := perShard(items); runs > 0 && itemBytes(s, n) <= memory.Limit() {
				e.add(fmt.Sprintf("the %d %s of data set %s", k, results.Plural(int(k), "item", "items"), ds.Name), satMul(k, itemBytes(s, n)))
				e.add(fmt.Sprintf("the records of data set %s", ds.Name), satMul(perShard(satMul(items, runs)), recordBytes+recordLeafBytes*int64(n)))
			}
			continue
		}
		if v, ok := ds.Source.(interface{ Vectors() config.VectorData }); ok && v.Vectors().Subsamples > 0 {
			items := int64(v.Vectors().Subsamples)
			e.add(fmt.Sprintf("the plan of data set %s (%d subsamples × %d %s)", ds.Name, items, algs, results.Plural(int(algs), "algorithm", "algorithms")),
				satMul(items, satAdd(planItemBytes, satMul(algs, planTaskBytes))))
			if k, runs := perShard(items), int64(runsOn(cfg, ds, false)); runs > 0 {
				// Their leaves are not known before the file is read: the least an item and a
				// record take.
				e.add(fmt.Sprintf("the %d %s of data set %s", k, results.Plural(int(k), "item", "items"), ds.Name), satMul(k, vectorItemBytes))
				e.add(fmt.Sprintf("the records of data set %s", ds.Name), satMul(perShard(satMul(items, runs)), recordBytes))
			}
		}
		path := cfg.Resolve(config.SourcePath(ds.Source))
		st, err := os.Stat(path)
		if err != nil || !st.Mode().IsRegular() {
			continue // missing files are reported by validation; streams by the readers' limits
		}
		factor, size, limited := int64(csvFileFactor), st.Size(), false
		if j, ok := ds.Source.(*config.JetsFile); ok {
			factor = jetsFileFactor
			if j.Limit > 0 {
				// Only the first limit jets are read, each of at most one line; their size is not
				// known before, and the reader stops at inputs.MaxText.
				size = min(size, satMul(int64(j.Limit), jets.MaxLine))
				limited = true
			}
		} else {
			size = textSize(path, size)
		}
		need := satMul(size, factor)
		if limited {
			need = min(need, memory.Budget())
		}
		if need > memory.Budget() {
			change := "read a smaller file (or a part of its rows)"
			if factor == jetsFileFactor {
				change = "read the first jets only (limit), or a smaller file"
			}
			problems = append(problems, cfg.Problem(&ds, "file", "%s holds %s of text, whose parsed contents would take about %s, more than %s, the half of the %s that reading a data file may take; %s",
				path, memory.Format(size), memory.Format(need), memory.Format(memory.Budget()), memory.Describe(), change))
			continue
		}
		e.add(fmt.Sprintf("reading data set %s (%s, %s)", ds.Name, config.SourcePath(ds.Source), memory.Format(st.Size())), need)
	}
	return e, problems
}

// textSize returns the size of the text of a data file of size bytes: size, or for gzip data
// the larger size that its trailer states (ISIZE: the uncompressed size modulo 2^32, which is
// exact for what the readers accept, at most 1 GiB; the readers bound what a false one lets in).
func textSize(path string, size int64) int64 {
	f, err := os.Open(path)
	if err != nil || size < 18 {
		return size
	}
	defer f.Close()
	var head [2]byte
	var tail [4]byte
	if _, err := f.ReadAt(head[:], 0); err != nil || head != [2]byte{0x1f, 0x8b} {
		return size
	}
	if _, err := f.ReadAt(tail[:], size-4); err != nil {
		return size
	}
	return max(size, int64(binary.LittleEndian.Uint32(tail[:])))
}

// runsOn counts the algorithm variants that get a task on every item of data set ds: those not
// restricted to other data sets, truth only where every item has a generating tree (truth).
func runsOn(cfg *config.Config, ds config.Dataset, truth bool) int {
	n := 0
	for _, a := range cfg.Algorithms {
		if len(a.Datasets) > 0 && !slices.Contains(a.Datasets, ds.Name) || a.Name == "truth" && !truth {
			continue
		}
		n++
	}
	return n
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
func largestRunnable(a config.Algorithm, s item.Size) int {
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
func cannotRun(a config.Algorithm, s item.Size, n int) string {
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
		switch a.Params.(type) {
		case *config.BeamParams:
			hint = "lower beam_size, or use smaller items (points, rows, subsamples)"
		case *config.SparseTrellisParams:
			hint = "lower max_clusters or beam_size, or use smaller items (points, rows, subsamples)"
		}
		if s.Weights && satMul(8*int64(n), int64(n)) > memory.Limit()/2 {
			hint = fmt.Sprintf("the correlation-clustering weights alone take %s; use smaller items (points, rows, subsamples), or split_model: none, which the Bayesian algorithms and euclidean linkage run without",
				memory.Format(satMul(8*int64(n), int64(n))))
		}
		return fmt.Sprintf("an item of %d leaves needs about %s, more than the %s this process may use; %s", n, memory.Format(need), memory.Describe(), hint)
	}
	return ""
}

package plan

import (
	"encoding/binary"
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/hcbench/hcbench/experiments/config"
	"github.com/hcbench/hcbench/experiments/inputs"
	"github.com/hcbench/hcbench/experiments/item"
	"github.com/hcbench/hcbench/experiments/memory"
	"github.com/hcbench/hcbench/experiments/registry"
	"github.com/hcbench/hcbench/experiments/results"
	"github.com/hcbench/hcbench/internal/english"
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
	// processBytes is the Go runtime and the binary.
	processBytes = 32 << 20
)

// itemBytes estimates one materialised item of a data set with n leaves.
func itemBytes(s item.Size, n int) int64 {
	nn := int64(n)
	if s.Jets {
		return memory.Add(jetItemBytes, memory.Mul(jetLeafBytes, nn))
	}
	b := memory.Add(vectorItemBytes+memory.Mul(vectorLeafBytes, nn), memory.Mul(8*nn, int64(s.Dims)))
	if s.Weights {
		b = memory.Add(b, memory.Mul(8*nn, nn))
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
// size s, beyond the item and the record (its entry's Memory; a few slices of n without one).
func taskBytes(a config.Algorithm, s item.Size, n int) int64 {
	if alg, ok := registry.LookupAlgorithm(a.Name); ok && alg.Memory != nil {
		return alg.Memory(a.Params, s, n)
	}
	return memory.Mul(64, int64(n))
}

// recordExtraBytes bounds what a record of a holds beyond the common fields (its entry's
// RecordBytes).
func recordExtraBytes(a config.Algorithm) int64 {
	if alg, ok := registry.LookupAlgorithm(a.Name); ok && alg.RecordBytes != nil {
		return alg.RecordBytes(a.Params)
	}
	return 0
}

// budgeted reports whether a's working memory comes from the run's shared budget (the trellis).
func budgeted(a config.Algorithm) bool {
	alg, ok := registry.LookupAlgorithm(a.Name)
	return ok && alg.Budgeted
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
	e.Bytes = memory.Add(e.Bytes, b)
	e.Parts = append(e.Parts, Part{what, b})
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
				memory.Mul(items, memory.Add(planItemBytes, memory.Mul(algs, planTaskBytes))))
			n, runs := typicalLeaves(s), int64(runsOn(cfg, ds, s.Jets))
			// An item that alone exceeds the limit is left to feasibility, which names the
			// algorithms that cannot run on it, at their lines, and what to change.
			if k := perShard(items); runs > 0 && itemBytes(s, n) <= memory.Limit() {
				e.add(fmt.Sprintf("the %d %s of data set %s", k, results.Plural(int(k), "item", "items"), ds.Name), memory.Mul(k, itemBytes(s, n)))
				e.add(fmt.Sprintf("the records of data set %s", ds.Name), memory.Mul(perShard(memory.Mul(items, runs)), recordBytes+recordLeafBytes*int64(n)))
			}
			continue
		}
		src, _ := registry.LookupSource(ds.Kind)
		if src == nil {
			continue
		}
		if src.Listed != nil && src.Listed(ds.Source) > 0 {
			items := int64(src.Listed(ds.Source))
			e.add(fmt.Sprintf("the plan of data set %s (%d subsamples × %d %s)", ds.Name, items, algs, results.Plural(int(algs), "algorithm", "algorithms")),
				memory.Mul(items, memory.Add(planItemBytes, memory.Mul(algs, planTaskBytes))))
			if k, runs := perShard(items), int64(runsOn(cfg, ds, false)); runs > 0 {
				// Their leaves are not known before the file is read: the least an item and a
				// record take.
				e.add(fmt.Sprintf("the %d %s of data set %s", k, results.Plural(int(k), "item", "items"), ds.Name), memory.Mul(k, vectorItemBytes))
				e.add(fmt.Sprintf("the records of data set %s", ds.Name), memory.Mul(perShard(memory.Mul(items, runs)), recordBytes))
			}
		}
		path := cfg.Resolve(config.SourcePath(ds.Source))
		st, err := os.Stat(path)
		if err != nil || !st.Mode().IsRegular() {
			continue // missing files are reported by validation; streams by the readers' limits
		}
		factor, size := src.BytesPerByte, textSize(path, st.Size())
		need := memory.Mul(size, factor)
		if src.ReadBytes != nil {
			// The reader stops at registry.MaxText too: at most the budget.
			need = min(memory.Mul(src.ReadBytes(ds.Source, st.Size()), factor), memory.Budget())
		}
		if need > memory.Budget() {
			problems = append(problems, cfg.Problem(&ds, "file", "%s holds %s of text, whose parsed contents would take about %s, more than %s, the half of the %s that reading a data file may take; %s",
				path, memory.Format(size), memory.Format(need), memory.Format(memory.Budget()), memory.Describe(), src.TooLargeHint))
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
		if len(a.Datasets) > 0 && !slices.Contains(a.Datasets, ds.Name) || a.Name == registry.Truth && !truth {
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
	e.add("the plan", memory.Mul(int64(len(p.Tasks)), planTaskBytes))
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
		records = append(records, recordBytes+recordLeafBytes*int64(n)+recordExtraBytes(t.Algorithm))
		b := taskBytes(t.Algorithm, s, n)
		if budgeted(t.Algorithm) {
			trellisMax = max(trellisMax, b)
			continue
		}
		work = append(work, b)
	}
	for _, d := range p.Datasets {
		if k := len(needs[d]); k > 0 {
			s := d.Size()
			e.add(fmt.Sprintf("the %s of data set %s", english.Count(k, "item", "items"), d.Name), memory.Mul(int64(k), itemBytes(s, typicalLeaves(s))))
		}
	}
	var rec int64
	for _, r := range records {
		rec = memory.Add(rec, r)
	}
	e.add(english.Count(len(records), "record", "records"), rec)
	// The largest working memories, one per worker.
	slices.Sort(work)
	var w int64
	for i := len(work) - 1; i >= 0 && i >= len(work)-workers; i-- {
		w = memory.Add(w, work[i])
	}
	on := fmt.Sprintf("%d workers", workers)
	if workers == 1 {
		on = "1 worker"
	}
	e.add("the working memory of the largest tasks on "+on, w)
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
			case s.MaxLeaves == 0 && why(unboundedLeaves) != "":
				warnings = append(warnings, fmt.Sprintf("%s:%d: algorithms[%d] (%s) fails on the items of data set %s with more than %d leaves (or over its memory limit); max_leaves bounds them",
					cfg.Path, a.Line, a.Index, a.Label, d.Name, largestRunnable(a, s)))
			case s.MaxLeaves > 0 && why(s.MaxLeaves) != "":
				warnings = append(warnings, fmt.Sprintf("%s:%d: algorithms[%d] (%s) fails on the items of data set %s with more than %d leaves: %s",
					cfg.Path, a.Line, a.Index, a.Label, d.Name, largestRunnable(a, s), why(s.MaxLeaves)))
			}
		}
	}
	return problems, warnings
}

// unboundedLeaves is the leaf count at which feasibility warns about data sets whose items have
// no bound (generated jets without max_leaves): more than Ginkgo jets have at the cuts configs use.
const unboundedLeaves = 100

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

// cannotRun says why algorithm a cannot run on an item of n leaves of a data set of size s, or
// "": its entry's own reason (registry.Algorithm.CannotRun), or an item and working memory
// beyond what the process may use.
func cannotRun(a config.Algorithm, s item.Size, n int) string {
	alg, ok := registry.LookupAlgorithm(a.Name)
	if !ok {
		return ""
	}
	if alg.CannotRun != nil {
		if why := alg.CannotRun(a.Params, s, n, registry.Run{}); why != "" {
			return why
		}
	}
	if need := memory.Add(taskBytes(a, s, n), itemBytes(s, n)); need > memory.Limit() {
		hint := alg.MemoryHint
		if hint == "" {
			hint = "use smaller items (points, rows, subsamples) or an algorithm that needs less"
		}
		if s.Weights && memory.Mul(8*int64(n), int64(n)) > memory.Limit()/2 {
			hint = fmt.Sprintf("the correlation-clustering weights alone take %s; use smaller items (points, rows, subsamples), or split_model: none, which the Bayesian algorithms and euclidean linkage run without",
				memory.Format(memory.Mul(8*int64(n), int64(n))))
		}
		return fmt.Sprintf("an item of %d leaves needs about %s, more than the %s this process may use; %s", n, memory.Format(need), memory.Describe(), hint)
	}
	return ""
}

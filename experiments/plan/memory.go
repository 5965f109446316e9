package plan

import (
	"cmp"
	"encoding/binary"
	"fmt"
	"math"
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
	"github.com/hcbench/hcbench/reports"
)

// The memory estimates: what a run holds, in bytes, so that a config that would exhaust the
// memory is refused, with the estimate, before anything large is allocated, and so that `plan`
// can say what to ask a batch system for. An estimate is the process's own resident memory
// (processBytes) and what is live on the Go heap at the run's peak, times the room the garbage
// collector lets the heap grow into (memory.HeapGrowth, 2 at the default GOGC=100) and the heap's
// own overhead (heapOverhead): a bound on the peak resident memory, not on what is live. The
// live sizes were measured on linux/amd64 with Go 1.26 (the live heap at each collection with
// GOGC=5, and the peak resident memory of `hcbench run`), as means: the growth factor, not a
// rounding up of each part, is the estimate's margin. TestPeakWithinEstimate checks each
// algorithm at three sizes against the peak of a run, and TestShippedConfigsPeak (run by
// .ci/memory) every shipped config.
const (
	// planTaskBytes and planItemBytes: a task of the plan (its key and Task) and an item id
	// (199 bytes a task over the 25 000 of ginkgo510; the 216 of ginkgo-large, with their data
	// sets, 358).
	planTaskBytes = 200
	planItemBytes = 100
	// A generated or read jet held in memory (its leaves, truth tree, content and model): 3.4 KB
	// at 7.5 leaves, 25 KB at 81.
	jetItemBytes, jetLeafBytes       = 1200, 300
	vectorItemBytes, vectorLeafBytes = 2 << 10, 64 // plus 8 a feature, 8·N² with the weights
	// A record (its maps, Newick and fields), as read back from results.jsonl: 2.5 KB at 7.5
	// leaves of a jet; a vector item's leaves have labels, and names where the file has them
	// (14 KB at 130 digits leaves, with BHC's merges; 5.2 KB at 12 named pam50 leaves).
	recordBytes, jetRecordLeafBytes, vectorRecordLeafBytes = 2100, 60, 120
	// reportRecordBytes is what the reports build per record beside it (the summary's and the
	// gaps' tables, bench.txt): 37 MB live over 25 000 records.
	reportRecordBytes = 1500
	// dataTextBytes is what a data file's parsed contents take per byte of its text: 8-byte
	// numbers of two or three characters each, and each row's slice and label. (A file of very
	// short rows takes up to registry.CSVBytesPerByte, which the check of a file before it is
	// read assumes.)
	dataTextBytes = 8
	// processBytes is the process beside its heap: the binary's resident pages (15 MiB), the
	// runtime and goroutine stacks; programBytes is what the program itself keeps live on the
	// heap whatever the config (its tables, the config, the run's state). A run of small tasks
	// peaks at 22 to 30 MiB, as it makes more or less garbage.
	processBytes, programBytes = 18 << 20, 5 << 20
	// heapOverhead is the heap's own overhead beyond what is live and the collector's room: size
	// classes, partly used spans, free pages not yet returned (average linkage of 5000 points on
	// two items, 100 MB live, peaked at 2.01 times that above the process's own).
	heapOverhead = 1.1
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

// recordSize estimates one record of an item of n leaves.
func recordSize(s item.Size, n int) int64 {
	leaf := int64(vectorRecordLeafBytes)
	if s.Jets {
		leaf = jetRecordLeafBytes
	}
	return memory.Add(recordBytes, memory.Mul(leaf, int64(n)))
}

// typicalLeaves is the leaf count of a data set's largest items, which the working memory of
// its tasks is estimated at: its bound where it has one, else a count Ginkgo jets seldom exceed
// at the cuts configs use (ginkgo's leaf counts have a long tail, but the mean is 19 at t_cut =
// 1.21).
func typicalLeaves(s item.Size) int {
	if s.MaxLeaves > 0 {
		return s.MaxLeaves
	}
	return max(s.MinLeaves, 40)
}

// meanLeaves is the leaf count that the items and records of a data set are estimated at, as
// many are held: midway between its bounds (Ginkgo jets between bounds lean to the smaller), else
// typicalLeaves.
func meanLeaves(s item.Size) int {
	if s.MaxLeaves > 0 {
		return s.MinLeaves + (s.MaxLeaves-s.MinLeaves+1)/2
	}
	return typicalLeaves(s)
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
	// Bytes bounds the peak resident memory: the process, what is live on its heap and the room
	// the garbage collector lets the heap grow into. A batch system's memory limit (Slurm's
	// --mem) of Bytes holds the run.
	Bytes int64
	// Live is what must fit in memory: the process and the live heap. A run whose Live fits but
	// whose Bytes does not still completes: where a cgroup's limit or RLIMIT_AS binds, hcbench sets
	// the Go runtime's soft memory limit to it (memory.LimitRuntime), and the collector runs more
	// often instead of letting the heap grow past the limit.
	Live  int64
	Parts []Part
}

// resident returns the estimate of the peak resident memory of a process whose live heap is
// heap: the process, heap's parts, and the garbage collector's room (see Estimate).
func resident(heap Estimate) Estimate {
	heap.add("the program's own data", programBytes)
	e := Estimate{}
	e.add("the process (binary, runtime, stacks)", processBytes)
	for _, p := range heap.Parts {
		e.add(p.What, p.Bytes)
	}
	growth := memory.HeapGrowth()
	e.add(fmt.Sprintf("the garbage collector's room (the heap grows to %.3g× what is live before a collection)", growth), scale(heap.Bytes, growth*heapOverhead-1))
	e.Live = memory.Add(processBytes, scale(heap.Bytes, heapOverhead))
	return e
}

// scale returns b·f for f ≥ 0, saturating as memory.Add does.
func scale(b int64, f float64) int64 {
	if x := float64(b) * f; x < math.MaxInt64 {
		return int64(x)
	}
	return math.MaxInt64
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

// tooLarge is the error of an estimate whose live part is over the limit: the estimate, its
// parts, the limit and what to change.
func tooLarge(what string, e Estimate, change string) error {
	return fmt.Errorf("%s would take about %s (%s), %s of it live, more than the %s this process may use; %s",
		what, memory.Format(e.Bytes), e, memory.Format(e.Live), memory.Describe(), change)
}

// fits reports whether what the estimate says must be live fits in what the process may use.
func (e Estimate) fits() bool { return e.Live <= memory.Limit() }

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
			n, runs := meanLeaves(s), int64(runsOn(cfg, ds, s.Jets))
			// An item that alone exceeds the limit is left to feasibility, which names the
			// algorithms that cannot run on it, at their lines, and what to change.
			if k := perShard(items); runs > 0 && itemBytes(s, typicalLeaves(s)) <= memory.Limit() {
				e.add(fmt.Sprintf("the %d %s of data set %s", k, results.Plural(int(k), "item", "items"), ds.Name), memory.Mul(k, itemBytes(s, n)))
				e.add(fmt.Sprintf("the records of data set %s", ds.Name), memory.Mul(perShard(memory.Mul(items, runs)), recordSize(s, n)))
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
		if !a.RunsOnDataset(ds.Name) || results.RoleOf(a.Name) == results.Truth && !truth {
			continue
		}
		n++
	}
	return n
}

// Memory estimates what running the tasks of shard (nil: all) with workers at once takes: the
// plan, the data files' contents, the items the tasks need (a run holds them all), the records,
// and the larger of the working memory of the largest tasks that can run at once (the trellis's
// tables within their shared budget) and what the reports build once the tasks are done; then
// the process and the garbage collector's room (see Estimate).
func (p *Plan) Memory(workers int, inShard func(k int) bool) Estimate {
	var heap Estimate
	heap.add("the plan", memory.Mul(int64(len(p.Tasks)), planTaskBytes))
	for _, d := range p.Datasets {
		if f := d.File(); f != nil {
			size := textSize(p.Config.Resolve(config.SourcePath(d.Config.Source)), f.Bytes)
			heap.add(fmt.Sprintf("the contents of data file %s", f.File), memory.Mul(size, dataTextBytes))
		}
	}
	needs := map[*inputs.Dataset]map[int]bool{}
	var records, work []int64
	var trellisMax int64
	// The leaves a task's working memory is estimated at, by variant and data set: the data
	// set's largest items, or where the variant cannot run on them (its tasks on those items
	// fail before they allocate: CannotRun), the largest it can run on.
	type variantOn struct {
		a int
		d *inputs.Dataset
	}
	leaves := map[variantOn]int{}
	for k, t := range p.Tasks {
		if inShard != nil && !inShard(k) {
			continue
		}
		if needs[t.Dataset] == nil {
			needs[t.Dataset] = map[int]bool{}
		}
		needs[t.Dataset][t.Item] = true
		s := t.Dataset.Size()
		mean := meanLeaves(s)
		key := variantOn{t.Algorithm.Index, t.Dataset}
		n, ok := leaves[key]
		if !ok {
			n = typicalLeaves(s)
			if s.MaxLeaves > 0 && cannotRun(t.Algorithm, s, n) != "" {
				n = min(n, largestRunnable(t.Algorithm, s))
			}
			leaves[key] = n
		}
		// An item whose size its source knows (a ClustBench data set) is costed at that size,
		// not at the data set's largest: 65 small items beside three of 100,000 points.
		if known := t.Dataset.Leaves(t.Item); known > 0 {
			n, mean = known, known
		}
		records = append(records, memory.Add(recordSize(s, mean), recordExtraBytes(t.Algorithm)))
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
			b := memory.Mul(int64(k), itemBytes(s, meanLeaves(s)))
			if d.Leaves(0) > 0 {
				b = 0
				for i := range needs[d] {
					b = memory.Add(b, itemBytes(s, d.Leaves(i)))
				}
			}
			heap.add(fmt.Sprintf("the %s of data set %s", english.Count(k, "item", "items"), d.Name), b)
		}
	}
	var rec int64
	for _, r := range records {
		rec = memory.Add(rec, r)
	}
	heap.add(english.Count(len(records), "record", "records"), rec)
	// The largest working memories, one per worker, and the trellis tables beside them.
	slices.Sort(work)
	var w int64
	for i := len(work) - 1; i >= 0 && i >= len(work)-workers; i-- {
		w = memory.Add(w, work[i])
	}
	trellis := min(trellisMax, memory.Budget())
	// A figure's image is allocated at once and collected once written (see reports.saveFigure),
	// so that the collector's room applies to a part of it only: two thirds count as live
	// (bhc-digits, bhc-purity and brt-evidence, whose dendrograms dominate, peak 5.1 to 6.2 bytes
	// a pixel of their largest figure above the process's own, the other parts included; this
	// counts 6.5 with the room).
	figure := reports.FigureBytes(p.Config.Reports, p.layouts()) / 3 * 2
	rep := memory.Add(memory.Mul(int64(len(records)), reportRecordBytes), figure)
	if memory.Add(w, trellis) >= rep {
		on := fmt.Sprintf("%d workers", workers)
		if workers == 1 {
			on = "1 worker"
		}
		heap.add("the working memory of the largest tasks on "+on, w)
		heap.add("the trellis tables (within their shared budget)", trellis)
	} else {
		heap.add("the reports, once the tasks are done (their tables and largest figure)", rep)
	}
	return resident(heap)
}

// layouts describes the plan's data sets for the reports' estimate (reports.FigureBytes).
func (p *Plan) layouts() []reports.Layout {
	var out []reports.Layout
	for _, d := range p.Datasets {
		s := d.Size()
		l := reports.Layout{Leaves: typicalLeaves(s), Labelled: !s.Jets}
		for _, a := range p.Config.Algorithms {
			if !a.RunsOnDataset(d.Name) || results.RoleOf(a.Name) == results.Truth {
				continue
			}
			l.Trees++
			if tp, ok := a.Params.(*registry.TrellisParams); ok && tp.Mode == "full" {
				l.LogZ = true
			}
		}
		out = append(out, l)
	}
	return out
}

// CheckMemory returns the estimate of a run of the tasks of shard on workers, and refuses the run
// when what the estimate says must be live exceeds what the process may use.
func (p *Plan) CheckMemory(workers int, inShard func(k int) bool) (Estimate, error) {
	e := p.Memory(workers, inShard)
	if e.fits() {
		return e, nil
	}
	return e, tooLarge("the run", e, "run fewer or smaller items (jets, points, items, subsamples), fewer workers (-workers), or one shard at a time (-shard I/N)")
}

// feasibility checks every algorithm against the leaf counts of the data sets it runs on: an
// algorithm that can run on no item of a data set (the trellis over 30 leaves or over its memory
// limit, bhc_exact over 20, any algorithm whose working memory exceeds what the process may use)
// is a problem at the algorithm's line; one that fails on some items only (generated jets without
// max_leaves) is a warning.
func feasibility(cfg *config.Config, ds []*inputs.Dataset) (problems []error, warnings []string) {
	for _, a := range cfg.Algorithms {
		for _, d := range ds {
			if !a.RunsOnDataset(d.Name) {
				continue
			}
			s := d.Size()
			if s.Items == 0 {
				continue
			}
			if d.Leaves(0) > 0 {
				problem, warning := itemsLeftOut(cfg, a, d)
				if problem != "" {
					problems = append(problems, config.Problem{File: cfg.Path, Line: a.Line, Msg: problem})
				}
				if warning != "" {
					warnings = append(warnings, warning)
				}
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

// leftOut says why variant a gets no task on item i of data set d, whose size its source knows
// before loading it: more leaves than its max_leaves, or than it can run on (cannotRun); ""
// when it runs, or when the size is known only once the item is loaded.
func leftOut(a config.Algorithm, d *inputs.Dataset, i int) string {
	n := d.Leaves(i)
	switch {
	case n == 0:
		return ""
	case a.MaxLeaves > 0 && n > a.MaxLeaves:
		return fmt.Sprintf("%d leaves, more than its max_leaves %d", n, a.MaxLeaves)
	}
	return cannotRun(a, d.Size(), n)
}

// itemsLeftOut is feasibility for a data set whose items' sizes are known before loading: a
// problem when variant a runs on none of its items, a warning naming those it leaves out.
func itemsLeftOut(cfg *config.Config, a config.Algorithm, d *inputs.Dataset) (problem, warning string) {
	var out []string
	first := ""
	for i := range d.Len() {
		if why := leftOut(a, d, i); why != "" {
			out = append(out, fmt.Sprintf("%s (%d leaves)", d.ID(i), d.Leaves(i)))
			first = cmp.Or(first, why)
		}
	}
	switch {
	case len(out) == 0:
		return "", ""
	case len(out) == d.Len():
		return fmt.Sprintf("algorithms[%d] (%s) runs on no item of data set %s: %s", a.Index, a.Label, d.Name, first), ""
	}
	return "", fmt.Sprintf("%s:%d: algorithms[%d] (%s) gets no task on %d of the %d items of data set %s: %s; the first: %s",
		cfg.Path, a.Line, a.Index, a.Label, len(out), d.Len(), d.Name, firstItems(out, 5), first)
}

// firstItems lists the first max of names, and how many more there are.
func firstItems(names []string, max int) string {
	if len(names) <= max {
		return strings.Join(names, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(names[:max], ", "), len(names)-max)
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

// CannotRun says why task t cannot run on its item, of n leaves, or "": cannotRun on the item's
// own leaf count. The runner asks it before it solves, so that a task on an item that the plan
// warned about (the largest items of a data set whose items differ in size) fails at once with
// that reason as its error, before anything large is allocated, and the run goes on.
func (p *Plan) CannotRun(t Task, n int) string {
	s := t.Dataset.Size()
	s.Items, s.MinLeaves, s.MaxLeaves = 1, n, n
	return cannotRun(t.Algorithm, s, n)
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
	var heap Estimate
	heap.add("", memory.Add(taskBytes(a, s, n), itemBytes(s, n)))
	if need := resident(heap).Live; need > memory.Limit() {
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

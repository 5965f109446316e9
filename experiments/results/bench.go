package results

import (
	"bufio"
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// UnitTime is the unit of task times in bench.txt. The quality metrics have theirs in package
// metric's table (metric.Metric.BenchUnit); all are exact measurements: an algorithm gives the
// same value on the same item every run (a run checks it, repeat by repeat), so the mean over a
// row's items is exact too.
const UnitTime = "sec/op"

// WriteBench writes the task times and work counters of a run in the Go benchmark format
// (bench.txt), so that benchstat compares the times of two runs with its default settings, and
// shows any change of a counter; WriteBenchQuality writes their quality metrics beside it.
//
// The file starts with file-level configuration lines (experiment, commit — the revision, with
// "+modified" for a build from a modified tree, or "unknown"; the builds of all sessions joined
// by commas should a run mix builds —, goos, goarch, config-hash), then the unit metadata
// (golang/go#43744): "Unit sec/op better=lower assume=nothing" and one line per counter of
// counters (better= its direction, assume=exact). Then comes one line per run of the algorithm
// on an item — K lines for a task that ran K times (repeat, -count), one before repeats
// existed — of every successful task (a failed task has no numbers; hcbench compare reports
// it), named after the task's data set and algorithm label:
//
//	BenchmarkHcbench/dataset=jets/algorithm=beam 1 0.0123 sec/op
//
// and, after a row's time lines, one line with the total of each counter over the row's
// successful tasks that report it (a row without counters has none):
//
//	BenchmarkHcbench/dataset=jets/algorithm=beam 1 48210 states-expanded 1960 states-kept
//
// A counter is written once per row, not per task: benchstat's assume=exact warns when a row's
// sample holds different values, and the items of a row differ. Its total is the same on every
// run of a build, so benchstat shows any difference as a change (no significance test, no "~")
// and an equal total as "0.00%"; which items changed is hcbench compare's to say.
//
// The lines of a benchmark follow the items in numeric order, the K runs of an item together in
// run order; the benchmarks follow the manifest's config order, data sets first.
//
// The item is not in the name: benchstat's default row is the full name, so each row is one
// algorithm on one data set, and its n samples are every run on every item of the data set
// (items × K). The median is then over the data set's items, which is what the row measures:
// how long the algorithm takes on this data set. The items of two runs of one config are the
// same (each item's random stream derives from the seed and its key), so the two samples of a
// row are drawn over one and the same mixture of items, and benchstat's Mann-Whitney test
// compares like with like; as the spread between items is the same in both runs rather than
// random, the test is conservative (two runs of one build are called different less often than
// its nominal 5%), and a change confined to a few items of a row weighs in proportion to them.
// Items whose times spread over orders of magnitude (the trellis from 5 to 12 leaves) need a
// larger change to be called: in a simulation of configs/nightly.yaml's records with K = 5 and
// 10% noise, a uniform 1.5× slowdown was significant on all 40 rows (p ≤ 0.031), and
// identical runs on none. A machine's load is another matter: it moves every time of a run
// together, which the test cannot tell from a slowdown (two real runs of that config on a shared
// machine whose load rose from 6 to 15 differed on 11 of the 40 rows), so times compare between
// runs on one quiet machine. A row per item would make
// hundreds of rows of K samples each for a nightly suite, and a row per number of leaves still
// about a hundred; a row per data set and algorithm makes tens (configs/nightly.yaml: 40).
// Times per item are in results.jsonl (seconds and times), and per number of leaves in the
// runtime report.
//
// Name parts that benchfmt would misparse are percent-escaped: white space, '/', '%' and
// control characters anywhere, and the '-' of a name ending in -digits (which benchfmt reads
// as GOMAXPROCS).
//
// Compare two runs with
//
//	benchstat old/bench.txt new/bench.txt
//
// and runs of two builds or configs with -ignore commit,config-hash,experiment (the keys that
// differ between the runs would otherwise split the tables).
//
// A cancelled ctx stops the writing within a few thousand records, with ctx's error (the lines
// written by then are flushed).
func WriteBench(ctx context.Context, w io.Writer, m Manifest, recs []Record, counters []BenchCounter) error {
	bw := bufio.NewWriter(w)
	benchHeader(bw, m)
	fmt.Fprintf(bw, "Unit %s better=lower assume=nothing\n", UnitTime)
	for _, c := range counters {
		fmt.Fprintf(bw, "Unit %s better=%s assume=exact\n", c.Unit, c.Better)
	}
	ok, err := benchOrder(ctx, m, recs)
	if err != nil {
		return errors.Join(err, bw.Flush())
	}
	return benchRows(ctx, bw, ok, func(row []*Record) {
		name := BenchName(row[0].Dataset, row[0].Algorithm)
		for _, r := range row {
			for _, t := range r.Timings() {
				bw.WriteString(name + " 1 " + benchFloat(t) + " " + UnitTime + "\n")
			}
		}
		var line strings.Builder
		for _, c := range counters {
			var sum int64
			n := 0
			for _, r := range row {
				if v, has := c.Value(r); has {
					sum += v
					n++
				}
			}
			if n > 0 {
				line.WriteString(" " + strconv.FormatInt(sum, 10) + " " + c.Unit)
			}
		}
		if line.Len() > 0 {
			bw.WriteString(name + " 1" + line.String() + "\n")
		}
	})
}

// BenchCounter is a work counter as bench.txt writes it: its unit, its better= ("lower" or
// "higher") and its value on a successful record (ok false where the record has none). Package
// metric's table makes them (metric.BenchCounters).
type BenchCounter struct {
	Unit, Better string
	Value        func(r *Record) (v int64, ok bool)
}

// benchRows calls row with each row of ok, the records of one data set and algorithm label in
// benchOrder, and flushes bw; a cancelled ctx stops it between rows, within checkEvery records.
func benchRows(ctx context.Context, bw *bufio.Writer, ok []*Record, row func([]*Record)) error {
	for i, next := 0, 0; i < len(ok); {
		if i >= next {
			if ctx.Err() != nil {
				return errors.Join(context.Cause(ctx), bw.Flush())
			}
			next = i + checkEvery
		}
		j := i
		for j < len(ok) && ok[j].Dataset == ok[i].Dataset && ok[j].Algorithm == ok[i].Algorithm {
			j++
		}
		row(ok[i:j])
		i = j
	}
	return bw.Flush()
}

// checkEvery is how many records the loops over a run's records handle between two looks at
// their context: a few milliseconds' work.
const checkEvery = 1024

// BenchColumn is a quality metric as bench-quality.txt writes it: its unit, its better= ("lower"
// or "higher"), the sign it is written with, and its value of a successful record (ok false
// where the record has none). Package metric's table makes them (metric.BenchColumns).
type BenchColumn struct {
	Unit, Better string
	Sign         float64
	Value        func(r *Record) (v float64, ok bool)
}

// WriteBenchQuality writes the quality metrics cols of a run in the Go benchmark format
// (bench-quality.txt): the file-level configuration lines of WriteBench, the unit metadata of the
// metrics (better= and assume=exact), and one line per data set and algorithm label with a
// metric, named as in WriteBench, holding the mean of each metric (times its sign) over the
// row's successful tasks that have it:
//
//	BenchmarkHcbench/dataset=jets/algorithm=beam 1 21.5 neg-loglik 0.25 exact-gap 0.9 purity
//
// These are the means hcbench compare shows. Each mean is exact for the run, so benchstat calls
// any difference a change ("~" only where the means are equal); which items changed, and by how
// much against the thresholds, is hcbench compare's to say.
//
// The metrics are a file of their own because benchstat prints a table per unit: beside the
// times, the quality tables would triple the default output of bench.txt.
//
// A cancelled ctx stops the writing as it stops WriteBench.
func WriteBenchQuality(ctx context.Context, w io.Writer, m Manifest, recs []Record, cols []BenchColumn) error {
	bw := bufio.NewWriter(w)
	benchHeader(bw, m)
	for _, mt := range cols {
		fmt.Fprintf(bw, "Unit %s better=%s assume=exact\n", mt.Unit, mt.Better)
	}
	ok, err := benchOrder(ctx, m, recs)
	if err != nil {
		return errors.Join(err, bw.Flush())
	}
	return benchRows(ctx, bw, ok, func(row []*Record) {
		var line strings.Builder
		for _, mt := range cols {
			sum, n := 0.0, 0
			for _, r := range row {
				if v, has := mt.Value(r); has {
					sum += mt.Sign * v
					n++
				}
			}
			if n > 0 {
				line.WriteString(" " + benchFloat(sum/float64(n)) + " " + mt.Unit)
			}
		}
		if line.Len() > 0 {
			bw.WriteString(BenchName(row[0].Dataset, row[0].Algorithm) + " 1" + line.String() + "\n")
		}
	})
}

// benchHeader writes the file-level configuration lines of WriteBench.
func benchHeader(bw *bufio.Writer, m Manifest) {
	builds := m.Builds()
	if len(builds) == 0 {
		builds = []Build{m.Build()}
	}
	var commits []string
	for _, b := range builds {
		if c := b.Commit(); !slices.Contains(commits, c) {
			commits = append(commits, c)
		}
	}
	configLine(bw, "experiment", m.Experiment)
	configLine(bw, "commit", strings.Join(commits, ","))
	configLine(bw, "goos", m.OS)
	configLine(bw, "goarch", m.Arch)
	configLine(bw, "config-hash", m.ConfigHash)
}

// benchOrder returns the successful records in the order of the benchmark files: by data set and
// algorithm label in the manifest's config order, then by item (CompareItems), as a stable sort
// would order them. A cancelled ctx stops it with ctx's error.
func benchOrder(ctx context.Context, m Manifest, recs []Record) ([]*Record, error) {
	var ok []*Record
	for i := range recs {
		if recs[i].Error == "" {
			ok = append(ok, &recs[i])
		}
	}
	keys, err := orderKeys(ctx, ok, m.Datasets, m.Algorithms)
	if err != nil {
		return nil, err
	}
	slices.SortFunc(keys, func(a, b orderKey) int {
		if c := cmp.Compare(a.dataset, b.dataset); c != 0 {
			return c
		}
		if c := cmp.Compare(a.algorithm, b.algorithm); c != 0 {
			return c
		}
		if c := compareItemIDs(a.item, b.item); c != 0 {
			return c
		}
		return cmp.Compare(a.i, b.i)
	})
	out := make([]*Record, len(ok))
	for j, k := range keys {
		out[j] = ok[k.i]
	}
	return out, nil
}

// An orderKey is what the orders of records compare, computed once per record: the ranks of its
// data set and algorithm label in config order (ConfigRank), its item id parsed, and its index
// among the records sorted, which makes the sort stable. Comparing these rather than the
// records' names (a map lookup and two integer parses per comparison, and records of half a
// kilobyte moved) sorts 80,000 records in milliseconds instead of seconds.
type orderKey struct {
	dataset, algorithm int
	item               itemID
	i                  int
}

// orderKeys returns the order keys of recs, with the ranks of datasets and algorithms as
// ConfigRank orders them; a cancelled ctx stops it with ctx's error.
func orderKeys(ctx context.Context, recs []*Record, datasets, algorithms []string) ([]orderKey, error) {
	dr, ar := ranks(recs, datasets, func(r *Record) string { return r.Dataset }), ranks(recs, algorithms, func(r *Record) string { return r.Algorithm })
	keys := make([]orderKey, len(recs))
	for i, r := range recs {
		if i%checkEvery == 0 && ctx.Err() != nil {
			return nil, context.Cause(ctx)
		}
		keys[i] = orderKey{dataset: dr[r.Dataset], algorithm: ar[r.Algorithm], item: parseItemID(r.Item), i: i}
	}
	return keys, nil
}

// ranks numbers the names of recs (name(r)) in the order ConfigRank(order) gives them.
func ranks(recs []*Record, order []string, name func(*Record) string) map[string]int {
	seen := map[string]bool{}
	var names []string
	for _, r := range recs {
		if n := name(r); !seen[n] {
			seen[n] = true
			names = append(names, n)
		}
	}
	slices.SortFunc(names, ConfigRank(order))
	rank := make(map[string]int, len(names))
	for i, n := range names {
		rank[n] = i
	}
	return rank
}

// configLine writes a file-level configuration line; an empty value is left out (benchfmt reads
// "key:" as deleting the key), and line breaks would end the value, so they become spaces.
func configLine(w *bufio.Writer, key, value string) {
	value = strings.TrimSpace(strings.Map(func(r rune) rune {
		if r == '\n' || r == '\r' {
			return ' '
		}
		return r
	}, value))
	if value != "" {
		fmt.Fprintf(w, "%s: %s\n", key, value)
	}
}

// benchFloat formats a value so that benchfmt reads it back exactly.
func benchFloat(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }

// BenchName is the benchmark name of an algorithm label on a data set:
// BenchmarkHcbench/dataset=…/algorithm=…, each value escaped as WriteBench describes.
func BenchName(dataset, label string) string {
	name := "BenchmarkHcbench/dataset=" + escapeNamePart(dataset) + "/algorithm=" + escapeNamePart(label)
	// benchfmt takes a trailing -digits as the GOMAXPROCS suffix.
	i := len(name)
	for i > 0 && '0' <= name[i-1] && name[i-1] <= '9' {
		i--
	}
	if i < len(name) && i > 0 && name[i-1] == '-' {
		name = name[:i-1] + "%2D" + name[i:]
	}
	return name
}

// escapeNamePart percent-escapes the bytes of s that cannot stand in a benchmark name part.
func escapeNamePart(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == '/' || r == '%' || unicode.IsSpace(r) || unicode.IsControl(r) || r == utf8.RuneError && n == 1 {
			for _, c := range []byte(s[i : i+n]) {
				fmt.Fprintf(&b, "%%%02X", c)
			}
		} else {
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String()
}

// ItemKey names a data set item.
type ItemKey struct{ Dataset, Item string }

// ExactMAP returns, for every item with a successful record of the exact algorithm (RoleOf Exact:
// the trellis) with a finite log-likelihood, the exact MAP log-likelihood (the largest such,
// should several variants of it have run).
func ExactMAP(recs []Record) map[ItemKey]float64 {
	ptrs := make([]*Record, len(recs))
	for i := range recs {
		ptrs[i] = &recs[i]
	}
	return exactMAP(ptrs)
}

// exactMAP is ExactMAP over pointers to the records.
func exactMAP(recs []*Record) map[ItemKey]float64 {
	out := map[ItemKey]float64{}
	for _, r := range recs {
		if r.Error != "" || !r.HasRole(Exact) || r.LogLikelihood == nil {
			continue
		}
		v := r.LogLikelihood.Value()
		if math.IsInf(v, 0) || math.IsNaN(v) {
			continue
		}
		k := ItemKey{r.Dataset, r.Item}
		if old, ok := out[k]; !ok || v > old {
			out[k] = v
		}
	}
	return out
}

// SortPlanOrder sorts records into plan order: by data set in the order of datasets, then item
// (CompareItems), then algorithm label in the order of algorithms. Names missing from the lists
// follow the listed ones in sorted order. The sort is stable.
func SortPlanOrder(recs []Record, datasets, algorithms []string) {
	ptrs := make([]*Record, len(recs))
	for i := range recs {
		ptrs[i] = &recs[i]
	}
	keys, _ := orderKeys(context.Background(), ptrs, datasets, algorithms)
	slices.SortFunc(keys, func(a, b orderKey) int {
		if c := cmp.Compare(a.dataset, b.dataset); c != 0 {
			return c
		}
		if c := compareItemIDs(a.item, b.item); c != 0 {
			return c
		}
		if c := cmp.Compare(a.algorithm, b.algorithm); c != 0 {
			return c
		}
		return cmp.Compare(a.i, b.i)
	})
	sorted := make([]Record, len(recs))
	for j, k := range keys {
		sorted[j] = recs[k.i]
	}
	copy(recs, sorted)
}

// ConfigRank returns a comparison of names by their position in order; names not in order come
// after those that are, sorted.
func ConfigRank(order []string) func(a, b string) int {
	pos := map[string]int{}
	for i, n := range order {
		if _, dup := pos[n]; !dup {
			pos[n] = i
		}
	}
	return func(a, b string) int {
		pa, okA := pos[a]
		pb, okB := pos[b]
		switch {
		case okA && okB:
			return pa - pb
		case okA:
			return -1
		case okB:
			return 1
		}
		return strings.Compare(a, b)
	}
}

// CompareItems orders item ids: integers first, by value (then by spelling, "07" before "7"),
// then the others as strings. It is a total order, so that a sort by it never depends on the
// order of its input, even when a data file mixes integer and string ids.
func CompareItems(a, b string) int {
	return compareItemIDs(parseItemID(a), parseItemID(b))
}

// An itemID is an item id parsed for CompareItems.
type itemID struct {
	s     string
	n     int
	isInt bool
}

func parseItemID(s string) itemID {
	n, err := strconv.Atoi(s)
	return itemID{s: s, n: n, isInt: err == nil}
}

// compareItemIDs is CompareItems on parsed ids.
func compareItemIDs(a, b itemID) int {
	switch {
	case a.isInt && b.isInt:
		if c := cmp.Compare(a.n, b.n); c != 0 {
			return c
		}
	case a.isInt:
		return -1
	case b.isInt:
		return 1
	}
	return strings.Compare(a.s, b.s)
}

// Median returns the median of xs (the mean of the two middle values for an even count); xs is
// not changed.
func Median(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

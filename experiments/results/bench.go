package results

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// ExactAlgorithm is the algorithm_name of the exact algorithm: its log-likelihood is the MAP, the
// reference of the exact-gap metric.
const ExactAlgorithm = "trellis"

// Benchmark-format units of the quality metrics (time is sec/op). All are exact measurements:
// an algorithm gives the same value on the same item every run.
//
// The log-likelihood and the log evidence are written negated: benchstat's text tables show a
// change as new/old − 1 and ignore better=, so a drop of a negative log-likelihood from −52.88
// to −52.93 would read "+0.09%", as if it had risen. Negated, the value is positive (for every
// shipped data set; a density above 1 can make it negative) and rises when it gets worse, as
// sec/op and exact-gap do.
const (
	UnitNegLogLikelihood = "neg-loglik"
	UnitExactGap         = "exact-gap"
	UnitNegLogEvidence   = "neg-log-evidence"
	UnitPurity           = "purity"
	UnitTime             = "sec/op"
)

// WriteBench writes the run's records in the Go benchmark format, so that benchstat compares two runs unchanged.
//
// The file starts with file-level configuration lines (experiment, commit — the revision, with
// "+modified" for a build from a modified tree, or "unknown"; the builds of all sessions joined
// by commas should a run mix builds —, goos, goarch, config-hash) and the unit metadata of the
// quality metrics (all assume=exact). Then comes one line per successful task (a failed task has
// no numbers; hcbench compare reports it), in plan order (data sets and algorithms in the
// manifest's config order, items in numeric order), named after its key:
//
//	BenchmarkHcbench/dataset=jets/item=3/algorithm=beam 1 0.0123 sec/op 21.5 neg-loglik 0.25 exact-gap 0.9 purity
//
// Only the metrics the record has are written: neg-loglik (minus the log-likelihood) where the
// log-likelihood is finite (a −Inf tree has none), exact-gap where the same item has a
// successful trellis record with a finite MAP (never on the trellis's own line),
// neg-log-evidence (minus the log evidence) for the Bayesian algorithms and purity (leaf-weighted
// dendrogram purity) where the item has labels.
//
// The item is part of the name because the quality metrics are exact per item: with the items
// as samples of one name, benchstat's assume=exact would summarise them by their mode and warn.
// Name parts that benchfmt would misparse are percent-escaped: white space, '/', '%' and
// control characters anywhere, and the '-' of a name ending in -digits (which benchfmt reads
// as GOMAXPROCS).
//
// Compare two runs with
//
//	benchstat -ignore commit,config-hash,experiment old/bench.txt new/bench.txt
//
// (columns by file; the ignored keys may differ between the runs and would otherwise split the
// tables). Every line has n = 1, so the sec/op table says little but its geomean; for a time
// test per algorithm over the items (Mann-Whitney, as hcbench compare) use
//
//	benchstat -ignore commit,config-hash,experiment,/item -row /dataset,/algorithm -filter .unit:sec/op old/bench.txt new/bench.txt
func WriteBench(w io.Writer, m Manifest, recs []Record) error {
	bw := bufio.NewWriter(w)
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
	commit := strings.Join(commits, ",")
	configLine(bw, "experiment", m.Experiment)
	configLine(bw, "commit", commit)
	configLine(bw, "goos", m.OS)
	configLine(bw, "goarch", m.Arch)
	configLine(bw, "config-hash", m.ConfigHash)
	for _, m := range Metrics {
		fmt.Fprintf(bw, "Unit %s better=%s assume=exact\n", m.BenchUnit, m.BenchBetter)
	}

	var ok []Record
	for _, r := range recs {
		if r.Error == "" {
			ok = append(ok, r)
		}
	}
	SortPlanOrder(ok, m.Datasets, m.Algorithms)
	exact := ExactMAP(ok)
	for _, r := range ok {
		bw.WriteString(BenchName(r.Dataset, r.Item, r.Algorithm))
		bw.WriteString(" 1 ")
		bw.WriteString(benchFloat(r.Seconds))
		bw.WriteString(" " + UnitTime)
		for _, m := range Metrics {
			if v, ok := m.Value(&r, exact); ok {
				bw.WriteString(" " + benchFloat(m.BenchSign*v) + " " + m.BenchUnit)
			}
		}
		bw.WriteByte('\n')
	}
	return bw.Flush()
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

// BenchName is the benchmark name of a task: BenchmarkHcbench/dataset=…/item=…/algorithm=…, each
// value escaped as WriteBench describes.
func BenchName(dataset, item, label string) string {
	name := "BenchmarkHcbench/dataset=" + escapeNamePart(dataset) + "/item=" + escapeNamePart(item) + "/algorithm=" + escapeNamePart(label)
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

// ExactMAP returns, for every item with a successful trellis record with a finite log-likelihood,
// the exact MAP log-likelihood (the largest such, should several trellis variants have run).
func ExactMAP(recs []Record) map[ItemKey]float64 {
	out := map[ItemKey]float64{}
	for _, r := range recs {
		if r.Error != "" || r.AlgorithmName != ExactAlgorithm || r.LogLikelihood == nil {
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
	dr, ar := ConfigRank(datasets), ConfigRank(algorithms)
	slices.SortStableFunc(recs, func(a, b Record) int {
		if c := dr(a.Dataset, b.Dataset); c != 0 {
			return c
		}
		if c := CompareItems(a.Item, b.Item); c != 0 {
			return c
		}
		return ar(a.Algorithm, b.Algorithm)
	})
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
	na, ea := strconv.Atoi(a)
	nb, eb := strconv.Atoi(b)
	switch {
	case ea == nil && eb == nil:
		if na != nb {
			if na < nb {
				return -1
			}
			return 1
		}
		return strings.Compare(a, b)
	case ea == nil:
		return -1
	case eb == nil:
		return 1
	}
	return strings.Compare(a, b)
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

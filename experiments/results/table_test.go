package results

import (
	"context"
	"io"
	"math"
	"slices"
	"strings"
)

// The metric table is package metric's, which imports results, so results' own tests cannot read
// it: they use the roles and the bench-quality columns below, which are the table's built-in
// ones. metric's TestBenchColumns checks that the table gives these units, signs and directions.
func init() {
	SetRole("trellis", Exact)
	SetRole("truth", Truth)
	SetRole("greedy", Baseline)
}

// Units of the built-in bench-quality columns.
const (
	UnitNegLogLikelihood = "neg-loglik"
	UnitExactGap         = "exact-gap"
	UnitNegLogEvidence   = "neg-log-evidence"
	UnitPurity           = "purity"
)

// qualityColumns are the table's bench-quality columns for recs.
func qualityColumns(recs []Record) []BenchColumn {
	exact := ExactMAP(recs)
	finiteLog := func(l *LogProb) (float64, bool) {
		v := l.Value()
		return v, l != nil && !math.IsInf(v, 0) && !math.IsNaN(v)
	}
	return []BenchColumn{
		{UnitNegLogLikelihood, "lower", -1, func(r *Record) (float64, bool) { return finiteLog(r.LogLikelihood) }},
		{UnitExactGap, "lower", 1, func(r *Record) (float64, bool) {
			e, has := exact[ItemKey{r.Dataset, r.Item}]
			ll, ok := finiteLog(r.LogLikelihood)
			return e - ll, has && ok && !r.HasRole(Exact)
		}},
		{UnitNegLogEvidence, "lower", -1, func(r *Record) (float64, bool) { return finiteLog(r.LogEvidence) }},
		{UnitPurity, "higher", 1, func(r *Record) (float64, bool) { return r.Metric("dendrogram_purity") }},
	}
}

// benchCounters are the table's bench.txt counters for recs (metric.BenchCounters): one per key
// any record holds, sorted, '-' for '_', lower is better, over successful records.
func benchCounters(recs []Record) []BenchCounter {
	var keys []string
	for _, r := range recs {
		for k := range r.Counters {
			if !slices.Contains(keys, k) {
				keys = append(keys, k)
			}
		}
	}
	slices.Sort(keys)
	var out []BenchCounter
	for _, k := range keys {
		out = append(out, BenchCounter{strings.ReplaceAll(k, "_", "-"), "lower", func(r *Record) (int64, bool) {
			v, ok := r.Counters[k]
			return v, ok && r.Error == ""
		}})
	}
	return out
}

// writeBench is WriteBench with benchCounters.
func writeBench(ctx context.Context, w io.Writer, m Manifest, recs []Record) error {
	return WriteBench(ctx, w, m, recs, benchCounters(recs))
}

// writeBenchQuality is WriteBenchQuality with qualityColumns.
func writeBenchQuality(ctx context.Context, w io.Writer, m Manifest, recs []Record) error {
	return WriteBenchQuality(ctx, w, m, recs, qualityColumns(recs))
}

package registry

import (
	"context"
	"fmt"
	"math"

	"github.com/hcbench/hcbench/algorithms/model"
	"github.com/hcbench/hcbench/algorithms/trellis"
	"github.com/hcbench/hcbench/experiments/item"
	"github.com/hcbench/hcbench/experiments/memory"
	"github.com/hcbench/hcbench/experiments/results"
	"github.com/hcbench/hcbench/reports/metrics"
)

func init() {
	RegisterAlgorithm(Algorithm{
		Name:      "trellis",
		Role:      results.Exact,
		Help:      "the exact cluster trellis (AISTATS 2021): log Z over all (2N−3)!! trees, the MAP tree, the number of finite-likelihood trees, marginals and exact posterior samples; O(3^N) time, O(2^N) memory, practical to N ≈ 22",
		NewParams: func() Params { return &TrellisParams{} },
		Start:     Simple(solveTrellis),
		Memory:    func(p Params, s item.Size, n int) int64 { return p.(*TrellisParams).tables(s, n) },
		CannotRun: func(p Params, s item.Size, n int, run Run) string { return p.(*TrellisParams).cannotRun(s, n, run) },
		Budgeted:  true,
		Cost:      func(p Params, n int) float64 { return p.(*TrellisParams).seconds(n) },
		Counters: []Counter{
			{"subsets", "subsets of two or more leaves whose splits the pass took: 2^N − N − 1, less those the model rules out whole (Ginkgo: below t_cut)"},
			{"splits", "unordered splits of those subsets, 2^(k−1) − 1 for k leaves, all visited: (3^N − 2^(N+1) + 1)/2 when every subset is taken"},
			{"energies", "splits whose log ψ the pass computed: every split in mode full; in mode map, those that passed the bounds which need no log ψ"},
			{"splits_pruned", "splits that mode map's bounds on the MAP ruled out before computing their log ψ (splits − energies; 0 in mode full)"},
		},
	})
}

// TrellisParams: `trellis` is the exact cluster trellis (log Z, MAP tree, tree count, marginals,
// posterior samples) over all 2^N subsets.
type TrellisParams struct {
	Mode          string   `yaml:"mode" default:"full" help:"full: log Z, the MAP tree and the tree count in one pass; map: the MAP tree alone, faster (no log Z, marginals or samples)"`
	CountTrees    bool     `yaml:"count_trees" default:"true" help:"count the trees with finite likelihood (n_trees: exact below 2^53, else a float with n_trees_exact false)"`
	CountMAPTrees bool     `yaml:"count_map_trees" default:"false" help:"count the trees that reach the MAP (every split within 1e-9 of its cluster's best; map_trees) and, on labelled data, the least and greatest pair-weighted dendrogram purity among them; a second pass over the trellis, for models whose MAP is heavily tied (the correlation-clustering energy)"`
	Marginals     int      `yaml:"marginals" default:"0" help:"report the posterior marginal of every MAP cluster and of the k most probable clusters, k = this value; 0: none (the marginals take a second pass, twice as long as the first)"`
	Samples       int      `yaml:"samples" default:"0" help:"draw this many trees from the exact posterior, reproducible from the task seed"`
	MemoryLimit   ByteSize `yaml:"memory_limit" default:"0" help:"most memory one task's tables may take: bytes, or a number with KiB, MiB or GiB; 0: half of the memory the process may use (RAM, or its cgroup's limit or what ulimit -v leaves when lower), a budget that the trellis tasks running at once share (a task waits for its share). A larger N fails before allocating, with a message naming N, the estimate and the limit; a limit above what the process may use is refused. It changes no result, so a resume may change it (lower it after a run was killed for memory)"`
	Threads       int      `yaml:"threads" default:"0" help:"goroutines for one pass; 0: all cores. Results are identical for any value"`
}

// The trellis lists its samples and top clusters in every record, so their numbers are bounded to
// keep results.jsonl readable.
const (
	maxTrellisSamples   = 100_000
	maxTrellisMarginals = 10_000
)

// Check checks the trellis's parameters.
func (p *TrellisParams) Check(c Checker) {
	OneOf(c, "mode", p.Mode, "full", "map")
	if p.Marginals < 0 {
		c.Bad("marginals", "must be 0 (none) or positive, got %d", p.Marginals)
	} else if p.Marginals > maxTrellisMarginals {
		c.Bad("marginals", "at most %d (each cluster is listed in the record), got %d", maxTrellisMarginals, p.Marginals)
	}
	if p.Samples < 0 {
		c.Bad("samples", "must be 0 (none) or positive, got %d", p.Samples)
	} else if p.Samples > maxTrellisSamples {
		c.Bad("samples", "at most %d (each sample is a tree in the record), got %d", maxTrellisSamples, p.Samples)
	}
	if p.Mode == "map" && p.Marginals > 0 {
		c.Bad("marginals", "need log Z, which mode: map skips; use mode: full")
	}
	if p.Mode == "map" && p.Samples > 0 {
		c.Bad("samples", "need log Z, which mode: map skips; use mode: full")
	}
	if p.Threads < 0 {
		c.Bad("threads", "must be 0 (all cores) or positive, got %d", p.Threads)
	}
	if p.MemoryLimit > 0 && int64(p.MemoryLimit) > memory.Limit() {
		c.Bad("memory_limit", "%s is more than this process may use, %s; a task that took it would be killed (lower it: it bounds the tables of one task, 0 means half of what the process may use)",
			memory.Format(int64(p.MemoryLimit)), memory.Describe())
	}
}

// options are the trellis options of the parameters (without the memory limit).
func (p *TrellisParams) options() trellis.Options {
	return trellis.Options{
		Workers:   p.Threads,
		MAPOnly:   p.Mode == "map",
		NoCount:   !p.CountTrees,
		Marginals: p.Marginals > 0,
		Samples:   p.Samples > 0,
		MAPTies:   p.CountMAPTrees,
	}
}

// limit is the memory limit of a task: memory_limit, or the run's budget.
func (p *TrellisParams) limit(run Run) int64 {
	if p.MemoryLimit > 0 {
		return int64(p.MemoryLimit)
	}
	if run.Budget != nil {
		return run.Budget.Total()
	}
	return memory.Budget()
}

// seconds estimates a trellis task on n leaves (Algorithm.Cost), a pass on every core: every
// subset's own work (its model's values, its row of the tables), 1.2e-6 s·2^n, which is most of
// the time to 13 leaves, and every split of every subset, 2.3e-9 s·3^n from 16 to 20 leaves;
// mode map 0.9e-6 s·2^n and 0.5e-9 s·3^n. The marginals take a second pass twice as long,
// count_map_trees another. Fitted to the trellis tasks of the shipped configs, 5 to 20 leaves
// (docs/experiments.md, plan.task-times): within a factor of 1.5 at every leaf count but 19
// and 20 in mode map, where the splits outgrow the caches unevenly.
func (p *TrellisParams) seconds(n int) float64 {
	perSubset, perSplit, passes := 1.2e-6, 2.3e-9, 1.0
	if p.Mode == "map" {
		perSubset, perSplit = 0.9e-6, 0.5e-9
	}
	if p.Marginals > 0 {
		passes += 2
	}
	if p.CountMAPTrees {
		passes++
	}
	return passes * (perSubset*math.Pow(2, float64(n)) + perSplit*math.Pow(3, float64(n)))
}

// tables estimates the trellis's tables for n leaves (trellis.MemoryFor, with the subset memory
// of the data set's model).
func (p *TrellisParams) tables(s item.Size, n int) int64 {
	if n > model.MaxSubsetItems {
		return 0 // refused before it allocates (cannotRun)
	}
	subset := 16 // the correlation-clustering energy's subset sums
	if s.Jets {
		subset = 8 // the Ginkgo model's invariant masses
	}
	return trellis.MemoryFor(n, subset, p.options())
}

func (p *TrellisParams) cannotRun(s item.Size, n int, run Run) string {
	if n > model.MaxSubsetItems {
		return fmt.Sprintf("the exact trellis handles at most %d items, and its items have %d", model.MaxSubsetItems, n)
	}
	limit := p.limit(run)
	if need := p.tables(s, n); need > limit {
		return fmt.Sprintf("N = %d needs about %s for its tables, over its memory_limit of %s (raise memory_limit, up to what the process may use, %s, or use an approximate algorithm)",
			n, memory.Format(need), memory.Format(limit), memory.Describe())
	}
	return ""
}

// mapTieTolerance is how far below its subset's best (in log-likelihood) a split of a tree may be
// for the tree to count as reaching the MAP: far above float noise (~1e−14 on the pam50 energies)
// and, over the N − 1 splits of a tree, within the 1e−6 by which the reports call a tree the MAP.
const mapTieTolerance = 1e-9

// solveTrellis builds the trellis of the item and reads off the MAP tree, log Z, the count, and
// what the parameters ask for. A task within its limit takes its tables' memory from the run's
// budget first (one over it fails in Build, before allocating, with N, the estimate and the
// limit).
func solveTrellis(ctx context.Context, p *TrellisParams, t Task, run Run) (Solution, error) {
	it := t.Item
	if _, err := NeedModel("trellis", it); err != nil {
		return Solution{}, err
	}
	opts := p.options()
	opts.MemoryLimit = p.limit(run)
	if sm, ok := it.Model.(model.SubsetModel); ok && run.Budget != nil {
		if need := trellis.MemoryNeeded(sm, opts); need <= opts.MemoryLimit {
			release, err := run.Budget.Acquire(ctx, need)
			if err != nil {
				return Solution{}, err
			}
			defer release()
		}
	}
	tr, err := trellis.Build(ctx, it.Model, opts)
	if err != nil {
		return Solution{}, err
	}
	c := tr.Counters()
	sol := Solution{Tree: tr.MAPTree(), LogLikelihood: tr.MAPValue(), Counters: map[string]int64{
		"subsets": c.Subsets, "splits": c.Splits, "energies": c.Energies, "splits_pruned": c.Pruned,
	}}
	// A model may forbid every tree (log Z = −Inf): there is then no posterior to take marginals
	// of or to sample, which the record says instead of failing the task.
	nMarginals, nSamples := p.Marginals, p.Samples
	if (nMarginals > 0 || nSamples > 0) && math.IsInf(tr.LogZ(), -1) {
		sol.Warnings = append(sol.Warnings, "every tree is impossible (log Z = −Inf), so there are no marginals or samples")
		nMarginals, nSamples = 0, 0
	}
	if nMarginals > 0 {
		if err := tr.Marginals(ctx); err != nil {
			return Solution{}, err
		}
		top, err := tr.TopClusters(ctx, nMarginals)
		if err != nil {
			return Solution{}, err
		}
		sol.Marginals = &results.Marginals{MAPClusters: clusterMarginals(tr.MAPClusterMarginals()), TopClusters: clusterMarginals(top)}
	}
	if nSamples > 0 {
		ss, err := tr.Sample(ctx, t.RNG, nSamples)
		if err != nil {
			return Solution{}, err
		}
		for _, s := range ss {
			sol.Samples = append(sol.Samples, Sample{Tree: s.Tree, LogLikelihood: s.LogLikelihood})
		}
	}
	// Some models (the correlation-clustering energy) tie very many trees at the MAP, and the one
	// MAPTree returns is then chosen by the trellis's tie rule, not the model; count them, and on
	// labelled data bound the purity the MAP tree could have had.
	var ties *trellis.Ties
	if p.CountMAPTrees {
		var score func(l, r uint32) float64
		if it.Labels != nil {
			score = metrics.PairPuritySplits(it.Labels)
		}
		tt, err := tr.MAPTies(ctx, mapTieTolerance, score)
		if err != nil {
			return Solution{}, err
		}
		ties = &tt
	}
	sol.Fill = func(r *results.Record) {
		if p.Mode != "map" {
			r.LogZ = results.Log(tr.LogZ())
		}
		if c, exact := tr.Count(); p.CountTrees {
			r.NTrees, r.NTreesExact = &c, &exact
		}
		if ties != nil {
			r.Params["map_tie_tolerance"] = mapTieTolerance
			r.MAPTrees = &ties.Trees
			if !math.IsNaN(ties.Min) {
				r.MAPPurityPairMin, r.MAPPurityPairMax = &ties.Min, &ties.Max
			}
		}
	}
	return sol, nil
}

func clusterMarginals(cs []trellis.ClusterProb) []results.ClusterMarginal {
	out := make([]results.ClusterMarginal, len(cs))
	for i, c := range cs {
		out[i] = results.ClusterMarginal{Cluster: c.Items, P: c.P}
	}
	return out
}

package runner

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"hcbench/algorithms/beam"
	"hcbench/algorithms/greedy"
	"hcbench/algorithms/linkage"
	"hcbench/algorithms/model"
	"hcbench/algorithms/model/correlation"
	"hcbench/algorithms/sparsetrellis"
	"hcbench/algorithms/tree"
	"hcbench/algorithms/trellis"
	"hcbench/experiments/config"
	"hcbench/experiments/item"
	"hcbench/experiments/memory"
	"hcbench/experiments/results"
	"hcbench/reports/metrics"

	"golang.org/x/sync/semaphore"
)

// solution is what an algorithm returns for a record.
type solution struct {
	tree *tree.Tree
	// logLikelihood is the tree's log-likelihood under the item's split model; NaN when there is
	// none (split_model: none, or a rose tree), and the record then has no log_likelihood.
	logLikelihood float64
	warnings      []string
	// clusters is the algorithm's flat clustering (lists of items), where it has one.
	clusters [][]int
	// fill adds algorithm-specific fields (log Z, marginals, …) to the record.
	fill func(*results.Record)
}

// taskEnv is what a task needs to know of the run around it.
type taskEnv struct {
	// memory is the run's budget of trellis table memory, memory.Budget() bytes: a
	// trellis task takes what it will allocate before it builds, waiting while others hold it,
	// so that trellis tasks running at once stay within the limit together, and whether a task
	// fits never depends on the number of workers.
	memory      *semaphore.Weighted
	memoryTotal int64
}

// newTaskEnv returns the environment of one run's tasks.
func newTaskEnv() taskEnv {
	total := memory.Budget()
	return taskEnv{memory: semaphore.NewWeighted(total), memoryTotal: total}
}

// solve runs one algorithm variant on an item. rng is the task's own stream.
func solve(ctx context.Context, a config.Algorithm, it *item.Item, rng *rand.Rand, env taskEnv) (solution, error) {
	switch a.Params.(type) {
	case *config.BHCParams, *config.RBHCParams, *config.EMBHCParams, *config.BHCExactParams, *config.BRTParams:
		return solveBayes(ctx, a.Params, it, rng)
	case *config.LinkageParams:
	default:
		if it.Model == nil {
			return solution{}, fmt.Errorf("%s needs a split model, and this data set has split_model: none", a.Name)
		}
	}
	switch p := a.Params.(type) {
	case *config.TruthParams:
		if it.Truth == nil {
			return solution{}, errors.New("the item has no generating tree")
		}
		return solution{tree: it.Truth, logLikelihood: it.TruthLogLikelihood}, nil
	case *config.GreedyParams:
		r, err := greedy.Run(ctx, it.Model)
		if err != nil {
			return solution{}, err
		}
		return solution{tree: r.Tree, logLikelihood: r.LogLikelihood}, nil
	case *config.TrellisParams:
		return solveTrellis(ctx, p, it, rng, env)
	case *config.SparseTrellisParams:
		return solveSparse(ctx, p, it, rng)
	case *config.LinkageParams:
		return solveLinkage(ctx, p, it)
	case *config.BeamParams:
		size := p.BeamSize.Of(it.Leaves())
		r, err := beam.Run(ctx, it.Model, beam.Options{Size: size, Dedup: beamDedup(p.Dedup)})
		if err != nil {
			return solution{}, err
		}
		return solution{tree: r.Tree, logLikelihood: r.LogLikelihood, fill: func(rec *results.Record) {
			rec.Params["beam_size_used"] = size
		}}, nil
	}
	return solution{}, fmt.Errorf("algorithm %q is not implemented by the runner", a.Name)
}

func solveTrellis(ctx context.Context, p *config.TrellisParams, it *item.Item, rng *rand.Rand, env taskEnv) (solution, error) {
	opts := trellis.Options{
		Workers:     p.Threads,
		MAPOnly:     p.Mode == "map",
		NoCount:     !p.CountTrees,
		MemoryLimit: int64(p.MemoryLimit),
		Marginals:   p.Marginals > 0,
		Samples:     p.Samples > 0,
		MAPTies:     p.CountMAPTrees,
	}
	if opts.MemoryLimit == 0 {
		opts.MemoryLimit = env.memoryTotal
	}
	// A task within its limit takes its memory from the run's budget first (a larger one fails
	// in Build, before allocating, with N, the estimate and the limit).
	if sm, ok := it.Model.(model.SubsetModel); ok && env.memory != nil {
		if need := trellis.MemoryNeeded(sm, opts); need <= opts.MemoryLimit {
			need = min(need, env.memoryTotal)
			if err := env.memory.Acquire(ctx, need); err != nil {
				return solution{}, err
			}
			defer env.memory.Release(need)
		}
	}
	tr, err := trellis.Build(ctx, it.Model, opts)
	if err != nil {
		return solution{}, err
	}
	sol := solution{tree: tr.MAPTree(), logLikelihood: tr.MAPValue()}
	// A model may forbid every tree (log Z = −Inf): there is then no posterior to take marginals
	// of or to sample, which the record says instead of failing the task.
	nMarginals, nSamples := p.Marginals, p.Samples
	if (nMarginals > 0 || nSamples > 0) && math.IsInf(tr.LogZ(), -1) {
		sol.warnings = append(sol.warnings, "every tree is impossible (log Z = −Inf), so there are no marginals or samples")
		nMarginals, nSamples = 0, 0
	}
	var marg *results.Marginals
	if nMarginals > 0 {
		if err := tr.Marginals(ctx); err != nil {
			return solution{}, err
		}
		top, err := tr.TopClusters(ctx, nMarginals)
		if err != nil {
			return solution{}, err
		}
		marg = &results.Marginals{MAPClusters: clusterMarginals(tr.MAPClusterMarginals()), TopClusters: clusterMarginals(top)}
	}
	var samples []results.TreeSample
	if nSamples > 0 {
		ss, err := tr.Sample(ctx, rng, nSamples)
		if err != nil {
			return solution{}, err
		}
		for _, s := range ss {
			samples = append(samples, results.TreeSample{Newick: s.Tree.Newick(it.Names), LogLikelihood: results.LogProb(s.LogLikelihood)})
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
			return solution{}, err
		}
		ties = &tt
	}
	sol.fill = func(r *results.Record) {
		if p.Mode != "map" {
			r.LogZ = results.Log(tr.LogZ())
		}
		if c, exact := tr.Count(); p.CountTrees {
			r.NTrees, r.NTreesExact = &c, &exact
		}
		r.Marginals, r.Samples = marg, samples
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

// mapTieTolerance is how far below its subset's best (in log-likelihood) a split of a tree may be
// for the tree to count as reaching the MAP: far above float noise (~1e−14 on the pam50 energies)
// and, over the N − 1 splits of a tree, within the 1e−6 by which the reports call a tree the MAP.
const mapTieTolerance = 1e-9

func clusterMarginals(cs []trellis.ClusterProb) []results.ClusterMarginal {
	out := make([]results.ClusterMarginal, len(cs))
	for i, c := range cs {
		out[i] = results.ClusterMarginal{Cluster: c.Items, P: c.P}
	}
	return out
}

// beamDedup is the beam rule a config's dedup value names (validated: structure or float).
func beamDedup(name string) beam.Dedup {
	if name == "float" {
		return beam.Float
	}
	return beam.Structure
}

// solveSparse seeds the sparse trellis with greedy and the final beam of a beam search, and records
// the beam size it used beside the config's parameters.
func solveSparse(ctx context.Context, p *config.SparseTrellisParams, it *item.Item, rng *rand.Rand) (solution, error) {
	var seeds []*tree.Tree
	used := map[string]any{}
	for _, s := range p.Seeds {
		switch s {
		case "greedy":
			g, err := greedy.Run(ctx, it.Model)
			if err != nil {
				return solution{}, err
			}
			seeds = append(seeds, g.Tree)
		case "beam":
			opts := beam.Options{Size: p.BeamSize.Of(it.Leaves()), Dedup: beamDedup(p.BeamDedup), All: true}
			b, err := beam.Run(ctx, it.Model, opts)
			if err != nil {
				return solution{}, err
			}
			seeds = append(seeds, b.Trees...)
			used["beam_size_used"] = opts.Size
		}
	}
	r, err := sparsetrellis.Run(ctx, it.Model, rng, sparsetrellis.Options{
		Seeds: seeds, AllPairsMaxSize: p.AllPairsMaxSize, SplitsTried: p.SplitsTried, SplitsKept: p.SplitsKept, MaxClusters: p.MaxClusters,
	})
	if err != nil {
		return solution{}, err
	}
	// r.LogLikelihood is the MAP tree re-scored by model.TreeLogLikelihood, as greedy and beam
	// report theirs, not the dynamic program's sum.
	return solution{tree: r.Tree, logLikelihood: r.LogLikelihood, fill: func(rec *results.Record) {
		rec.SparseClusters, rec.SparseSplits = r.Clusters, r.Splits
		for k, v := range used {
			rec.Params[k] = v
		}
	}}, nil
}

func solveLinkage(ctx context.Context, p *config.LinkageParams, it *item.Item) (solution, error) {
	var d [][]float64
	var err error
	switch p.Distance {
	case "euclidean":
		if it.Vectors == nil {
			return solution{}, errors.New("linkage needs feature vectors, which this data set does not have")
		}
		for _, row := range it.Vectors {
			if slices.ContainsFunc(row, math.IsNaN) {
				return solution{}, errors.New("euclidean linkage needs complete vectors; use missing: zero")
			}
		}
		if d, err = linkage.Euclidean(ctx, it.Vectors); err != nil {
			return solution{}, err
		}
	case "weights":
		cm, ok := it.Model.(*correlation.Model)
		if !ok {
			return solution{}, errors.New("distance: weights needs the correlation-clustering model of a vector data set")
		}
		if d, err = weightDistances(ctx, cm.Weights()); err != nil {
			return solution{}, err
		}
	}
	method := map[string]linkage.Method{"average": linkage.Average, "single": linkage.Single, "complete": linkage.Complete}[p.Method]
	t, _, err := linkage.Run(ctx, d, method)
	if err != nil {
		return solution{}, err
	}
	ll := math.NaN()
	if it.Model != nil {
		if ll, err = model.TreeLogLikelihood(it.Model, t); err != nil {
			return solution{}, err
		}
	}
	return solution{tree: t, logLikelihood: ll}, nil
}

// weightDistances turns correlation-clustering weights into distances, d_ij = max(w) − w_ij
// (AstarTrellis Tree.execute_search), with a zero diagonal. It looks at ctx once per row.
func weightDistances(ctx context.Context, w [][]float64) ([][]float64, error) {
	top := math.Inf(-1)
	for i, row := range w {
		for j, v := range row {
			if i != j {
				top = max(top, v)
			}
		}
	}
	d := make([][]float64, len(w))
	for i, row := range w {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		d[i] = make([]float64, len(row))
		for j, v := range row {
			if i != j {
				d[i][j] = top - v
			}
		}
	}
	return d, nil
}

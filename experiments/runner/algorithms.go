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
	"hcbench/experiments/inputs"
	"hcbench/experiments/results"
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

// solve runs one algorithm variant on an item. rng is the task's own stream.
func solve(ctx context.Context, a config.Algorithm, it *inputs.Item, rng *rand.Rand) (solution, error) {
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
		return solveTrellis(ctx, p, it, rng)
	case *config.SparseTrellisParams:
		return solveSparse(ctx, p, it, rng)
	case *config.LinkageParams:
		return solveLinkage(ctx, p, it)
	case *config.BeamParams:
		size := p.BeamSize.Of(it.Leaves())
		dedup := beam.Structure
		if p.Dedup == "float" {
			dedup = beam.Float
		}
		r, err := beam.Run(ctx, it.Model, beam.Options{Size: size, Dedup: dedup})
		if err != nil {
			return solution{}, err
		}
		return solution{tree: r.Tree, logLikelihood: r.LogLikelihood, fill: func(rec *results.Record) {
			rec.Params["beam_size_used"] = size
		}}, nil
	}
	return solution{}, fmt.Errorf("algorithm %q is not implemented by the runner", a.Name)
}

func solveTrellis(ctx context.Context, p *config.TrellisParams, it *inputs.Item, rng *rand.Rand) (solution, error) {
	tr, err := trellis.Build(ctx, it.Model, trellis.Options{
		Workers:     p.Threads,
		MAPOnly:     p.Mode == "map",
		NoCount:     !p.CountTrees,
		MemoryLimit: int64(p.MemoryLimit),
	})
	if err != nil {
		return solution{}, err
	}
	sol := solution{tree: tr.MAPTree(), logLikelihood: tr.MAPValue()}
	var marg *results.Marginals
	if p.Marginals > 0 {
		if err := tr.Marginals(ctx); err != nil {
			return solution{}, err
		}
		marg = &results.Marginals{MAPClusters: clusterMarginals(tr.MAPClusterMarginals()), TopClusters: clusterMarginals(tr.TopClusters(p.Marginals))}
	}
	var samples []results.TreeSample
	if p.Samples > 0 {
		ss, err := tr.Sample(rng, p.Samples)
		if err != nil {
			return solution{}, err
		}
		for _, s := range ss {
			samples = append(samples, results.TreeSample{Newick: s.Tree.Newick(it.Names), LogLikelihood: results.LogProb(s.LogLikelihood)})
		}
	}
	sol.fill = func(r *results.Record) {
		if p.Mode != "map" {
			r.LogZ = results.Log(tr.LogZ())
		}
		if c, _ := tr.Count(); p.CountTrees {
			r.NTrees = &c
		}
		r.Marginals, r.Samples = marg, samples
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

func solveSparse(ctx context.Context, p *config.SparseTrellisParams, it *inputs.Item, rng *rand.Rand) (solution, error) {
	var seeds []*tree.Tree
	for _, s := range p.Seeds {
		switch s {
		case "greedy":
			g, err := greedy.Run(ctx, it.Model)
			if err != nil {
				return solution{}, err
			}
			seeds = append(seeds, g.Tree)
		case "beam":
			b, err := beam.Run(ctx, it.Model, beam.Options{Size: p.BeamSize.Of(it.Leaves()), All: true})
			if err != nil {
				return solution{}, err
			}
			seeds = append(seeds, b.Trees...)
		}
	}
	r, err := sparsetrellis.Run(ctx, it.Model, rng, sparsetrellis.Options{
		Seeds: seeds, AllPairsMaxSize: p.AllPairsMaxSize, SplitsTried: p.SplitsTried, SplitsKept: p.SplitsKept, MaxClusters: p.MaxClusters,
	})
	if err != nil {
		return solution{}, err
	}
	return solution{tree: r.Tree, logLikelihood: r.LogLikelihood, fill: func(rec *results.Record) {
		rec.SparseClusters, rec.SparseSplits = r.Clusters, r.Splits
	}}, nil
}

func solveLinkage(ctx context.Context, p *config.LinkageParams, it *inputs.Item) (solution, error) {
	var d [][]float64
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
		d = linkage.Euclidean(it.Vectors)
	case "weights":
		cm, ok := it.Model.(*correlation.Model)
		if !ok {
			return solution{}, errors.New("distance: weights needs the correlation-clustering model of a vector data set")
		}
		d = weightDistances(cm.Weights())
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
// (AstarTrellis Tree.execute_search), with a zero diagonal.
func weightDistances(w [][]float64) [][]float64 {
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
		d[i] = make([]float64, len(row))
		for j, v := range row {
			if i != j {
				d[i][j] = top - v
			}
		}
	}
	return d
}

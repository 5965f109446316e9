package runner

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"hcbench/algorithms/bhc"
	"hcbench/algorithms/brt"
	"hcbench/algorithms/conjugate"
	"hcbench/algorithms/model"
	"hcbench/algorithms/tree"
	"hcbench/experiments/config"
	"hcbench/experiments/item"
	"hcbench/experiments/results"
)

// bayesOutcome is what one run of a Bayesian algorithm yields.
type bayesOutcome struct {
	tree       *tree.Tree
	evidence   float64
	lowerBound *float64
	clusters   [][]int
	merges     []results.Merge
}

// solveBayes runs bhc, rbhc, embhc, bhc_exact or brt on the item's feature vectors. With cc:
// optimise, the algorithm runs once per cc the search tries, each time with the same random
// stream, and the record is that of the cc the search returns (conjugate.SearchCC, Bioconductor's
// choice, which need not be the best cc tried).
func solveBayes(ctx context.Context, params any, it *item.Item, rng *rand.Rand) (solution, error) {
	x, err := completeVectors(it)
	if err != nil {
		return solution{}, err
	}
	var cm config.ClusterModel
	switch p := params.(type) {
	case *config.BHCParams:
		cm = p.ClusterModel
	case *config.RBHCParams:
		cm = p.ClusterModel
	case *config.EMBHCParams:
		cm = p.ClusterModel
	case *config.BHCExactParams:
		cm = p.ClusterModel
	case *config.BRTParams:
		cm = p.ClusterModel
	}
	if cm.Model == "auto" {
		cm.Model = "bernoulli"
		for _, row := range x {
			if slices.ContainsFunc(row, func(v float64) bool { return v != 0 && v != 1 }) {
				cm.Model = "niw"
				break
			}
		}
	}
	var seed [32]byte
	for i := range seed {
		seed[i] = byte(rng.Uint32())
	}
	run := func(cc float64) (bayesOutcome, error) {
		m, err := clusterModel(cm, x, cc)
		if err != nil {
			return bayesOutcome{}, err
		}
		return runBayes(ctx, params, m, x, rand.New(rand.NewChaCha8(seed)))
	}
	cc := cm.CC.Value
	if cm.Model != "niw" && cm.CC.Optimise {
		if cc, _, err = conjugate.SearchCC(func(cc float64) (float64, error) {
			o, err := run(cc)
			return o.evidence, err
		}); err != nil {
			return solution{}, err
		}
	}
	o, err := run(cc)
	if err != nil {
		return solution{}, err
	}
	sol := solution{tree: o.tree, clusters: o.clusters, logLikelihood: math.NaN()}
	if it.Model != nil && o.tree.IsBinary() {
		if sol.logLikelihood, err = model.TreeLogLikelihood(it.Model, o.tree); err != nil {
			return solution{}, err
		}
	}
	sol.fill = func(r *results.Record) {
		r.LogEvidence = results.Log(o.evidence)
		if o.lowerBound != nil {
			r.LowerBound = results.Log(*o.lowerBound)
		}
		r.Merges = o.merges
		r.Params["model_used"] = cm.Model
		if cm.Model != "niw" {
			r.Params["cc_used"] = cc
		}
		r.Params["tie_rule"] = bayesTieRule(params)
		dropUnusedBayesParams(r.Params, cm.Model)
	}
	return sol, nil
}

// bayesTieRule states the tie rule of the algorithm params runs, which bayesian.md asks every
// result to carry.
func bayesTieRule(params any) string {
	switch params.(type) {
	case *config.BHCExactParams:
		return bhc.ExactTieRule
	case *config.BRTParams:
		return brt.TieRule
	}
	return bhc.TieRule
}

// dropUnusedBayesParams removes from a record's params the keys that did not shape the result: the
// prior the variant does not use, and the hyperparameters of the cluster models it did not score
// with, so that a record never suggests a setting mattered.
func dropUnusedBayesParams(rp map[string]any, modelUsed string) {
	switch rp["prior"] { // bhc, rbhc and embhc choose a prior; bhc_exact and brt have none
	case "dp":
		delete(rp, "pi")
	case "fixed":
		delete(rp, "alpha")
	}
	if modelUsed == "niw" {
		delete(rp, "cc")
	} else {
		delete(rp, "niw")
	}
}

// completeVectors returns the item's feature vectors, which the conjugate models need complete.
func completeVectors(it *item.Item) ([][]float64, error) {
	if it.Vectors == nil {
		return nil, errors.New("the Bayesian algorithms cluster feature vectors, which this data set does not have")
	}
	for i, row := range it.Vectors {
		if slices.ContainsFunc(row, math.IsNaN) {
			return nil, fmt.Errorf("item %d has missing values, which the cluster models cannot score; use missing: zero", i)
		}
	}
	return it.Vectors, nil
}

// clusterModel builds the conjugate model of x that cm names; cc scales the discrete recipes.
func clusterModel(cm config.ClusterModel, x [][]float64, cc float64) (conjugate.Model, error) {
	switch cm.Model {
	case "niw":
		n := cm.NIW
		var p conjugate.NIWParams
		if n.Recipe == "explicit" {
			p = conjugate.NIWParams{Kappa0: n.Kappa0, Nu0: n.Nu0, Mu0: n.Mu0, Lambda0: n.Lambda0}
		} else {
			var err error
			if p, err = conjugate.NIWFromData(x, n.G, n.Kappa0); err != nil {
				return nil, err
			}
		}
		return conjugate.NewNIW(x, p)
	case "bernoulli":
		a, b := conjugate.BernoulliFromData(x, cc)
		return conjugate.NewBernoulli(x, a, b)
	case "categorical":
		return conjugate.NewCategorical(x, conjugate.CategoricalFromData(x, cc))
	}
	return nil, fmt.Errorf("unknown cluster model %q", cm.Model)
}

// runBayes runs one Bayesian algorithm with the cluster model m.
func runBayes(ctx context.Context, params any, m conjugate.Model, x [][]float64, rng *rand.Rand) (bayesOutcome, error) {
	prior := func(p *config.BHCParams) bhc.Prior {
		if p.Prior == "fixed" {
			return bhc.Prior{Fixed: true, Pi: p.Pi}
		}
		return bhc.Prior{Alpha: p.Alpha}
	}
	var (
		h   *bhc.Hierarchy
		err error
		cut string
		rec bool
	)
	switch p := params.(type) {
	case *config.BHCParams:
		h, err = bhc.Run(ctx, m, prior(p))
		cut, rec = p.Cut, p.Merges
	case *config.RBHCParams:
		filter := bhc.FilterNote
		if p.Filter == "logodds" {
			filter = bhc.FilterLogOdds
		}
		h, err = bhc.Randomized(ctx, m, prior(&p.BHCParams), rng, bhc.RandomizedOptions{M: p.M, Filter: filter})
		cut, rec = p.Cut, p.Merges
	case *config.EMBHCParams:
		h, err = bhc.EM(ctx, m, x, prior(&p.BHCParams), rng, bhc.EMOptions{M: p.M, Steps: p.Steps, ResolveM: p.ResolveM})
		cut, rec = p.Cut, p.Merges
	case *config.BHCExactParams:
		h, err = bhc.ExactFixed(ctx, m, p.Pi)
		cut, rec = p.Cut, p.Merges
	case *config.BRTParams:
		r, err := brt.Run(ctx, m, brt.Options{Gamma: p.Gamma, JoinOnly: p.JoinOnly})
		if err != nil {
			return bayesOutcome{}, err
		}
		return bayesOutcome{tree: r.Tree(), evidence: r.LogEvidence(), clusters: r.Clusters()}, nil
	default:
		return bayesOutcome{}, fmt.Errorf("parameters %T are not those of a Bayesian algorithm", params)
	}
	if err != nil {
		return bayesOutcome{}, err
	}
	o := bayesOutcome{tree: h.Tree(), evidence: h.LogEvidence()}
	if lb, ok := h.LowerBound(); ok {
		o.lowerBound = &lb
	}
	c := bhc.TopDown
	if cut == "cut_every" {
		c = bhc.CutEvery
	}
	o.clusters = h.Clusters(c)
	if rec {
		for k := h.Items(); k < len(h.Nodes); k++ {
			nd := &h.Nodes[k]
			o.merges = append(o.merges, results.Merge{Node: k, Children: [2]int{nd.Left, nd.Right}, Size: nd.Size,
				LogML: results.LogProb(nd.LogML), LogPi: results.LogProb(nd.LogPi), LogR: results.LogProb(nd.LogR()), LogP: results.LogProb(nd.LogP)})
		}
	}
	return o, nil
}

package registry

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"

	"go.yaml.in/yaml/v3"

	"github.com/hcbench/hcbench/algorithms/bhc"
	"github.com/hcbench/hcbench/algorithms/conjugate"
	"github.com/hcbench/hcbench/algorithms/model"
	"github.com/hcbench/hcbench/algorithms/tree"
	"github.com/hcbench/hcbench/experiments/item"
	"github.com/hcbench/hcbench/experiments/memory"
	"github.com/hcbench/hcbench/experiments/results"
)

// What the Bayesian algorithms (bhc, rbhc, embhc, bhc_exact, brt) share: the cluster model they
// score with (bayesian.md §5), its checks, and the steps around the algorithm itself: complete
// vectors, the model (auto picks it per item), the cc search, scoring the tree under the data
// set's split model, and the record's evidence and parameters.

// bhcPairSeconds is BHC's time per pair of points (Algorithm.Cost n², its merges scored once and
// kept in a heap): 4e-7 s, the middle of the shipped configs' tasks, which range from 2e-7 on
// 4-D points to 9e-7 on 64 binary features and 1.7e-6 on 13-D points (wine), the marginal
// likelihood's cost growing with the features.
const bhcPairSeconds = 4e-7

// ccSearchRuns is how many times cc: optimise runs its algorithm: the halvings and doublings of
// its bracket, then Brent's steps (9 to 10 times the time of cc: 1 on the digits of bhc-digits).
const ccSearchRuns = 9

// runs is the number of times the algorithm runs on an item under m: once, or the cc search's.
func (m ClusterModel) runs() float64 {
	if m.CC.Optimise {
		return ccSearchRuns
	}
	return 1
}

// ClusterModel chooses p(D|H1), the conjugate marginal likelihood of a cluster that the Bayesian
// algorithms score with (bayesian.md §5).
type ClusterModel struct {
	Model string   `yaml:"model" default:"niw" help:"cluster marginal likelihood: niw (Normal-Inverse-Wishart; real features), bernoulli (Beta-Bernoulli; features 0 or 1), categorical (Dirichlet-categorical; features coded 0, 1, …, V−1), or auto (bernoulli for an item whose features are all 0 or 1, else niw; records say which in params.model_used)"`
	NIW   NIWPrior `yaml:"niw" help:"Normal-Inverse-Wishart hyperparameters (model niw)"`
	CC    CC       `yaml:"cc" default:"1" help:"models bernoulli and categorical, Bioconductor BHC's recipe A_vj = cc·(count of value v in feature j + 1)/(n + 1): a positive number, or optimise (as Bioconductor BHC: halve cc from 1, then double it, up to 11 times each, while the evidence of the algorithm's tree does not fall, then run R's optimize, Brent's method with tolerance 1 on cc, on the bracket between the last values tried, and use its result)"`
}

// NIWPrior are the Normal-Inverse-Wishart hyperparameters: explicit, or the data-driven recipe.
type NIWPrior struct {
	Recipe  string      `yaml:"recipe" help:"data (μ0 = column means, Λ0 = sample covariance / g, ν0 = d + 1: caponetto's NormalInverseWishart.create) or explicit (kappa0, nu0, mu0 and lambda0 as given); default: explicit when nu0, mu0 or lambda0 is given, else data"`
	G       float64     `yaml:"g" help:"recipe data: Λ0 = sample covariance / g, g in [1e-40, 1e6]; default 20 for the BHC family and 10 for brt (caponetto's examples)"`
	Kappa0  float64     `yaml:"kappa0" default:"0.001" help:"κ0 in (0, 1e100], the prior's pseudo-count for the mean"`
	Nu0     float64     `yaml:"nu0" default:"0" help:"explicit: d − 1 < ν0 ≤ 1e6, the prior's degrees of freedom"`
	Mu0     []float64   `yaml:"mu0" default:"[]" help:"explicit: the prior mean μ0, d numbers"`
	Lambda0 [][]float64 `yaml:"lambda0" default:"[]" help:"explicit: the prior scale matrix Λ0, d rows of d numbers, symmetric positive definite"`
}

// CC is the Dirichlet hyperparameter scale of Bioconductor's recipe: a number, or Optimise.
type CC struct {
	Value    float64 // > 0 unless Optimise
	Optimise bool
}

func (c CC) String() string {
	if c.Optimise {
		return "optimise"
	}
	return strconv.FormatFloat(c.Value, 'g', -1, 64)
}

// DecodeYAML reads optimise or a positive number.
func (c *CC) DecodeYAML(n *yaml.Node) error {
	if n.Kind == yaml.ScalarNode && n.Value == "optimise" {
		*c = CC{Optimise: true}
		return nil
	}
	var x float64
	if !IsNumber(n, "!!int", "!!float") || n.Decode(&x) != nil || !(x > 0) || x > 1e300 {
		return fmt.Errorf("want a positive number or optimise, got %s%s", Describe(n), QuotedNumber(n))
	}
	*c = CC{Value: x}
	return nil
}

// MarshalYAML writes cc as it is written in a config.
func (c CC) MarshalYAML() (any, error) {
	if c.Optimise {
		return "optimise", nil
	}
	return c.Value, nil
}

// MarshalJSON writes cc as a number or "optimise", for result records.
func (c CC) MarshalJSON() ([]byte, error) {
	if c.Optimise {
		return json.Marshal("optimise")
	}
	return json.Marshal(c.Value)
}

// check checks the cluster model's keys and fills the defaults that depend on others: the NIW
// recipe (explicit when nu0, mu0 or lambda0 is given, else data) and g (defaultG, which differs
// between the BHC family and BRT, as caponetto's examples).
func (c *ClusterModel) check(v Checker, defaultG float64) {
	switch c.Model {
	case "niw", "bernoulli", "categorical", "auto":
	default:
		v.Bad("model", "must be niw, bernoulli, categorical or auto, got %q", c.Model)
	}
	n := &c.NIW
	if v.Failed("niw") {
		return // the hyperparameters are checked together, and one of them could not be decoded
	}
	explicit := n.Nu0 != 0 || len(n.Mu0) > 0 || len(n.Lambda0) > 0
	if n.Recipe == "" {
		n.Recipe = "data"
		if explicit {
			n.Recipe = "explicit"
		}
	}
	if n.G == 0 {
		n.G = defaultG
	}
	if !(n.Kappa0 > 0) {
		v.Bad("niw", "kappa0 must be positive, got %v", n.Kappa0)
	} else if n.Kappa0 > conjugate.MaxKappa0 {
		v.Bad("niw", "kappa0 must be at most %g (κ0·n must stay finite), got %v", float64(conjugate.MaxKappa0), n.Kappa0)
	}
	switch n.Recipe {
	case "data":
		if !(n.G > 0) {
			v.Bad("niw", "g must be positive, got %v", n.G)
		} else if n.G < conjugate.MinG || n.G > conjugate.MaxG {
			v.Bad("niw", "g must lie in [%g, %g] (Λ0, the sample covariance divided by g, must neither overflow nor drown in the rounding of the clusters' scatter, which would make log p NaN), got %v", conjugate.MinG, conjugate.MaxG, n.G)
		}
		if explicit {
			v.Bad("niw", "nu0, mu0 and lambda0 are for recipe: explicit; recipe data derives them from the data")
		}
	case "explicit":
		d := len(n.Mu0)
		switch {
		case d == 0 || len(n.Lambda0) != d:
			v.Bad("niw", "recipe explicit needs mu0 (d numbers) and lambda0 (d rows), got %d and %d", d, len(n.Lambda0))
		case !(n.Nu0 > float64(d-1)):
			v.Bad("niw", "nu0 must exceed d − 1 = %d, got %v", d-1, n.Nu0)
		case n.Nu0 > conjugate.MaxNu0:
			v.Bad("niw", "nu0 must be at most %g (log p(D) is a difference of terms of size ν0, which loses ν0·1e-16 to rounding), got %v", float64(conjugate.MaxNu0), n.Nu0)
		}
		for i, x := range n.Mu0 {
			if math.Abs(x) > conjugate.MaxValue {
				v.Bad("niw", "mu0[%d] is %v, beyond ±%g, where squares overflow", i, x, float64(conjugate.MaxValue))
				break
			}
		}
	rows:
		for i, row := range n.Lambda0 {
			for _, x := range row {
				if math.Abs(x) > conjugate.MaxScale {
					v.Bad("niw", "lambda0 row %d has %v, beyond ±%g, where sums of the scatter matrices overflow", i+1, x, float64(conjugate.MaxScale))
					break rows
				}
			}
		}
		for i, row := range n.Lambda0 {
			if len(row) != d {
				v.Bad("niw", "lambda0 row %d has %d numbers, want %d", i+1, len(row), d)
				break
			}
		}
	default:
		v.Bad("niw", "recipe must be data or explicit, got %q", n.Recipe)
	}
}

// checkPrior checks a BHC prior: dp with alpha > 0, or fixed with π in (0, 1).
func checkPrior(v Checker, prior string, alpha, pi float64) {
	switch prior {
	case "dp":
		if !(alpha > 0) {
			v.Bad("alpha", "must be positive, got %v", alpha)
		}
	case "fixed":
		checkPi(v, pi)
	default:
		v.Bad("prior", "must be dp or fixed, got %q", prior)
	}
}

// checkPi checks a fixed merge prior π.
func checkPi(v Checker, pi float64) {
	if !(pi > 0 && pi < 1) {
		v.Bad("pi", "must lie in (0, 1), got %v", pi)
	}
}

// bhcPrior is the BHC prior of the config's keys.
func bhcPrior(prior string, alpha, pi float64) bhc.Prior {
	if prior == "fixed" {
		return bhc.Prior{Fixed: true, Pi: pi}
	}
	return bhc.Prior{Alpha: alpha}
}

// keepPrior removes from a record's params the prior's parameter that did not shape the result
// (pi under the dp prior, alpha under a fixed one).
func keepPrior(rp map[string]any) {
	switch rp["prior"] {
	case "dp":
		delete(rp, "pi")
	case "fixed":
		delete(rp, "alpha")
	}
}

// pairMemory is greedy BHC's and BRT's live memory on n points of a data set of size s under cm: one
// float64 score per pair in mergeheap.Forest (4n² bytes), the cluster model's statistics of up
// to 2n clusters, and what each point adds (nodes, merges, the tree; bayesPointBytes). Measured
// on linux/amd64: 17.0 MB live at n = 2000, 4 features (this gives 17.2 MB).
func pairMemory(cm ClusterModel, s item.Size, n int) int64 {
	nn := int64(n)
	perPoint := memory.Add(bayesPointBytes, memory.Mul(2, cm.clusterBytes(s)))
	return memory.Add(memory.Mul(4, memory.Mul(nn, nn)), memory.Mul(perPoint, nn))
}

// rbhcBytes and rbhcPointBytes, and embhcPointBytes, are what RBHC's recursion (and EMBHC's EM
// and its clusters' RBHC) keep beside greedy BHC on their smallest sets: the subsets and the
// sides points are filtered to, level by level. Measured on linux/amd64 with 4 features: RBHC
// 3.1, 5.3, 9.3 and 14.7 MB live at n = 1000, 5000, 10 000 and 20 000; EMBHC 3.0, 9.7 and
// 20.3 MB at 5000, 10 000 and 20 000.
const rbhcBytes, rbhcPointBytes, embhcPointBytes = 2 << 20, 620, 800

// bayesPointBytes is what a Bayesian algorithm keeps per point beside its pairs and cluster
// statistics: its hierarchy's nodes and merges, the tree, the model's copy of the point.
const bayesPointBytes = 600

// clusterBytes is the memory of one cluster's statistics in the model's store on items of a data
// set of size s: the Beta-Bernoulli's counts (bernoulli, or auto on binary features), else the
// NIW's mean and scatter (d + d(d+1)/2 float64), which also bounds the categorical's counts of a
// few values.
func (c ClusterModel) clusterBytes(s item.Size) int64 {
	d := int64(s.Dims)
	if c.Model == "bernoulli" || c.Model == "auto" && s.Binary {
		return memory.Mul(8, d)
	}
	return memory.Mul(8, memory.Add(d, memory.Mul(d, d+1)/2))
}

// bayesOutcome is what one run of a Bayesian algorithm yields.
type bayesOutcome struct {
	tree       *tree.Tree
	evidence   float64
	lowerBound *float64
	clusters   [][]int
	merges     []results.Merge
	// counters are the run's work counters, every one the algorithm declares.
	counters map[string]int64
}

// The work counters of the Bayesian algorithms (Algorithm.Counters), which solveBayes sums over
// the runs of the cc search. Each algorithm declares those its steps have; the keys are shared.
var (
	mergesScoredCounter   = Counter{Key: "merges_scored", Help: "candidate merges of two trees scored: every pair of the starting trees, then each new tree with every remaining one, summed over the runs of cc: optimise"}
	pointsFilteredCounter = Counter{Key: "points_filtered", Help: "points sent to one side of a subsample tree's top split, summed over the runs of cc: optimise"}
)

// mlCounter is the counter of marginal likelihoods, its help saying (what) which ones an algorithm
// computes.
func mlCounter(what string) Counter {
	return Counter{Key: "marginal_likelihoods", Help: "marginal likelihoods of a cluster's data under one component computed: " + what + ", summed over the runs of cc: optimise"}
}

// workCounters returns the counters cs declared, read by key from values, which holds the value
// of every counter an algorithm family counts.
func workCounters(cs []Counter, values map[string]int64) map[string]int64 {
	out := make(map[string]int64, len(cs))
	for _, c := range cs {
		v, ok := values[c.Key]
		if !ok {
			panic("registry: no value for the declared counter " + c.Key) // the tables disagree
		}
		out[c.Key] = v
	}
	return out
}

// bayesRunner runs one Bayesian algorithm with the cluster model m on the vectors x.
type bayesRunner func(ctx context.Context, m conjugate.Model, x [][]float64, rng *rand.Rand) (bayesOutcome, error)

// solveBayes runs a Bayesian algorithm (run) on the item's feature vectors under the cluster
// model cm. With cc: optimise, the algorithm runs once per cc the search tries, each time with
// the same random stream, and the record is that of the cc the search returns
// (conjugate.SearchCC, Bioconductor's choice, which need not be the best cc tried). The record
// states tieRule, the cluster model used and its cc, and keeps of the cluster model's keys only
// those that shaped the result; keep removes the algorithm's own unused keys.
func solveBayes(ctx context.Context, cm ClusterModel, tieRule string, run bayesRunner, t Task, keep func(map[string]any)) (Solution, error) {
	x, err := completeVectors(t.Item)
	if err != nil {
		return Solution{}, err
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
		seed[i] = byte(t.RNG.Uint32())
	}
	// The work of every run counts, the cc search's included.
	work := map[string]int64{}
	once := func(cc float64) (bayesOutcome, error) {
		m, err := cm.build(x, cc)
		if err != nil {
			return bayesOutcome{}, err
		}
		o, err := run(ctx, m, x, rand.New(rand.NewChaCha8(seed)))
		for k, v := range o.counters {
			work[k] += v
		}
		return o, err
	}
	cc := cm.CC.Value
	if cm.Model != "niw" && cm.CC.Optimise {
		if cc, _, err = conjugate.SearchCC(func(cc float64) (float64, error) {
			o, err := once(cc)
			return o.evidence, err
		}); err != nil {
			return Solution{}, err
		}
	}
	o, err := once(cc)
	if err != nil {
		return Solution{}, err
	}
	sol := Solution{Tree: o.tree, Clusters: o.clusters, Merges: o.merges, LogLikelihood: math.NaN(), Counters: work}
	if t.Item.Model != nil && o.tree.IsBinary() {
		if sol.LogLikelihood, err = model.TreeLogLikelihood(t.Item.Model, o.tree); err != nil {
			return Solution{}, err
		}
	}
	sol.Fill = func(r *results.Record) {
		r.LogEvidence = results.Log(o.evidence)
		if o.lowerBound != nil {
			r.LowerBound = results.Log(*o.lowerBound)
		}
		r.Params["model_used"] = cm.Model
		if cm.Model != "niw" {
			r.Params["cc_used"] = cc
			delete(r.Params, "niw")
		} else {
			delete(r.Params, "cc")
		}
		r.Params["tie_rule"] = tieRule
		if keep != nil {
			keep(r.Params)
		}
	}
	return sol, nil
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

// build makes the conjugate model of x that c names; cc scales the discrete recipes.
func (c ClusterModel) build(x [][]float64, cc float64) (conjugate.Model, error) {
	switch c.Model {
	case "niw":
		n := c.NIW
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
	return nil, fmt.Errorf("unknown cluster model %q", c.Model)
}

// hierarchyOutcome reads a BHC hierarchy's tree, evidence, lower bound, flat clusters (cut),
// the work counters cs and, with merges, every merge's quantities.
func hierarchyOutcome(h *bhc.Hierarchy, cut string, merges bool, cs []Counter) bayesOutcome {
	w := h.Work
	o := bayesOutcome{tree: h.Tree(), evidence: h.LogEvidence(), counters: workCounters(cs, map[string]int64{
		"marginal_likelihoods": w.MarginalLikelihoods, "merges_scored": w.MergesScored, "points_filtered": w.PointsFiltered,
		"predictive_densities": w.Predictives, "splits": w.Splits,
	})}
	if lb, ok := h.LowerBound(); ok {
		o.lowerBound = &lb
	}
	c := bhc.TopDown
	if cut == "cut_every" {
		c = bhc.CutEvery
	}
	o.clusters = h.Clusters(c)
	if merges {
		for k := h.Items(); k < len(h.Nodes); k++ {
			nd := &h.Nodes[k]
			o.merges = append(o.merges, results.Merge{Node: k, Children: [2]int{nd.Left, nd.Right}, Size: nd.Size,
				LogML: results.LogProb(nd.LogML), LogPi: results.LogProb(nd.LogPi), LogR: results.LogProb(nd.LogR()), LogP: results.LogProb(nd.LogP)})
		}
	}
	return o
}

// checkCut checks a flat cut's name.
func checkCut(v Checker, c string) {
	OneOf(v, "cut", c, "top_down", "cut_every")
}

// YAMLType names the value's syntax for help.
func (*CC) YAMLType() string { return "number or optimise" }

package config

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"

	"go.yaml.in/yaml/v3"

	"hcbench/algorithms/conjugate"
)

// The parameters of the Bayesian algorithms (../shared/design/bayesian.md).

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

func (c *CC) decodeNode(n *yaml.Node) error {
	if n.Kind == yaml.ScalarNode && n.Value == "optimise" {
		*c = CC{Optimise: true}
		return nil
	}
	var x float64
	if !isNumber(n, "!!int", "!!float") || n.Decode(&x) != nil || !(x > 0) || x > 1e300 {
		return fmt.Errorf("want a positive number or optimise, got %s%s", describe(n), quotedNumber(n))
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

// BHCParams: `bhc` is greedy Bayesian hierarchical clustering (Heller & Ghahramani 2005).
type BHCParams struct {
	Prior        string  `yaml:"prior" default:"dp" help:"merge prior π_k: dp (the Dirichlet-process prior, with alpha) or fixed (π_k = pi for every merge)"`
	Alpha        float64 `yaml:"alpha" default:"1" help:"prior dp: the concentration α > 0 (Bioconductor BHC hard-codes 0.001)"`
	Pi           float64 `yaml:"pi" default:"0.5" help:"prior fixed: π in (0, 1)"`
	ClusterModel `yaml:",inline"`
	Cut          string `yaml:"cut" default:"top_down" help:"flat clusters from r_k < 0.5: top_down (from the root, split while r < 0.5; Bioconductor) or cut_every (remove every edge below a merge with r < 0.5; samvoisin's prune_tree)"`
	Merges       bool   `yaml:"merges" default:"false" help:"record every merge's size, log p(D_k|H1), log π_k, log r_k and log p(D_k|T_k)"`
}

// RBHCParams: `rbhc` is randomized BHC (Heller & Ghahramani's 2005 note, Fig. 3).
type RBHCParams struct {
	BHCParams `yaml:",inline"`
	M         int    `yaml:"m" default:"50" help:"subsample size; with m < 2 or m ≥ n, rbhc is bhc"`
	Filter    string `yaml:"filter" default:"note" help:"how points outside the subsample pick a side: note (π_L p(x|D_L) > π_R p(x|D_R), the note's Fig. 4) or logodds (the log-odds of merging x with each side, Bioconductor); ties go right"`
}

// EMBHCParams: `embhc` is BHC on clusters refined by hard EM (the 2005 note, Fig. 5).
type EMBHCParams struct {
	BHCParams `yaml:",inline"`
	M         int `yaml:"m" default:"50" help:"number of clusters; with m < 2 or m ≥ n, embhc is bhc"`
	Steps     int `yaml:"steps" default:"10" help:"hard-EM steps k (≥ 0); EM stops early when no point moves"`
	ResolveM  int `yaml:"resolve_m" default:"100" help:"each cluster becomes a subtree by RBHC with this subsample size (greedy BHC for clusters of at most this many points; 0: always greedy BHC, which costs Σ n_c²)"`
}

// BHCExactParams: `bhc_exact` is the best binary tree under a fixed π, by dynamic programming.
type BHCExactParams struct {
	Pi           float64 `yaml:"pi" default:"0.5" help:"the fixed merge prior π in (0, 1)"`
	ClusterModel `yaml:",inline"`
	Cut          string `yaml:"cut" default:"top_down" help:"flat clusters from r_k < 0.5, as for bhc"`
	Merges       bool   `yaml:"merges" default:"false" help:"record every merge's quantities, as for bhc"`
}

// BRTParams: `brt` is greedy Bayesian rose trees (Blundell, Teh & Heller 2010).
type BRTParams struct {
	Gamma        float64 `yaml:"gamma" default:"0.5" help:"γ in (0, 1): a node with c children has π = 1 − (1−γ)^(c−1)"`
	ClusterModel `yaml:",inline"`
	JoinOnly     bool `yaml:"join_only" default:"false" help:"allow joins only (no absorb or collapse): fixed-π BHC with π = γ"`
}

func (v entryCheck) clusterModel(c *ClusterModel, defaultG float64) {
	switch c.Model {
	case "niw", "bernoulli", "categorical", "auto":
	default:
		v.bad("model", "must be niw, bernoulli, categorical or auto, got %q", c.Model)
	}
	n := &c.NIW
	if v.failed("niw") {
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
		v.bad("niw", "kappa0 must be positive, got %v", n.Kappa0)
	} else if n.Kappa0 > conjugate.MaxKappa0 {
		v.bad("niw", "kappa0 must be at most %g (κ0·n must stay finite), got %v", float64(conjugate.MaxKappa0), n.Kappa0)
	}
	switch n.Recipe {
	case "data":
		if !(n.G > 0) {
			v.bad("niw", "g must be positive, got %v", n.G)
		} else if n.G < conjugate.MinG || n.G > conjugate.MaxG {
			v.bad("niw", "g must lie in [%g, %g] (Λ0, the sample covariance divided by g, must neither overflow nor drown in the rounding of the clusters' scatter, which would make log p NaN), got %v", conjugate.MinG, conjugate.MaxG, n.G)
		}
		if explicit {
			v.bad("niw", "nu0, mu0 and lambda0 are for recipe: explicit; recipe data derives them from the data")
		}
	case "explicit":
		d := len(n.Mu0)
		switch {
		case d == 0 || len(n.Lambda0) != d:
			v.bad("niw", "recipe explicit needs mu0 (d numbers) and lambda0 (d rows), got %d and %d", d, len(n.Lambda0))
		case !(n.Nu0 > float64(d-1)):
			v.bad("niw", "nu0 must exceed d − 1 = %d, got %v", d-1, n.Nu0)
		case n.Nu0 > conjugate.MaxNu0:
			v.bad("niw", "nu0 must be at most %g (log p(D) is a difference of terms of size ν0, which loses ν0·1e-16 to rounding), got %v", float64(conjugate.MaxNu0), n.Nu0)
		}
		for i, x := range n.Mu0 {
			if math.Abs(x) > conjugate.MaxValue {
				v.bad("niw", "mu0[%d] is %v, beyond ±%g, where squares overflow", i, x, float64(conjugate.MaxValue))
				break
			}
		}
	rows:
		for i, row := range n.Lambda0 {
			for _, x := range row {
				if math.Abs(x) > conjugate.MaxScale {
					v.bad("niw", "lambda0 row %d has %v, beyond ±%g, where sums of the scatter matrices overflow", i+1, x, float64(conjugate.MaxScale))
					break rows
				}
			}
		}
		for i, row := range n.Lambda0 {
			if len(row) != d {
				v.bad("niw", "lambda0 row %d has %d numbers, want %d", i+1, len(row), d)
				break
			}
		}
	default:
		v.bad("niw", "recipe must be data or explicit, got %q", n.Recipe)
	}
}

func (v entryCheck) bhc(p *BHCParams) {
	switch p.Prior {
	case "dp":
		if !(p.Alpha > 0) {
			v.bad("alpha", "must be positive, got %v", p.Alpha)
		}
	case "fixed":
		if !(p.Pi > 0 && p.Pi < 1) {
			v.bad("pi", "must lie in (0, 1), got %v", p.Pi)
		}
	default:
		v.bad("prior", "must be dp or fixed, got %q", p.Prior)
	}
	v.clusterModel(&p.ClusterModel, 20)
	v.cut(p.Cut)
}

func (v entryCheck) cut(c string) {
	if c != "top_down" && c != "cut_every" {
		v.bad("cut", "must be top_down or cut_every, got %q", c)
	}
}

func (v entryCheck) bayesian(params any) {
	switch p := params.(type) {
	case *BHCParams:
		v.bhc(p)
	case *RBHCParams:
		v.bhc(&p.BHCParams)
		if p.Filter != "note" && p.Filter != "logodds" {
			v.bad("filter", "must be note or logodds, got %q", p.Filter)
		}
		if p.M < 0 {
			v.bad("m", "must be 0 or positive, got %d", p.M)
		}
	case *EMBHCParams:
		v.bhc(&p.BHCParams)
		if p.M < 0 {
			v.bad("m", "must be 0 or positive, got %d", p.M)
		}
		if p.Steps < 0 {
			v.bad("steps", "must be 0 or positive, got %d", p.Steps)
		}
		if p.ResolveM < 0 {
			v.bad("resolve_m", "must be 0 or positive, got %d", p.ResolveM)
		}
	case *BHCExactParams:
		if !(p.Pi > 0 && p.Pi < 1) {
			v.bad("pi", "must lie in (0, 1), got %v", p.Pi)
		}
		v.clusterModel(&p.ClusterModel, 20)
		v.cut(p.Cut)
	case *BRTParams:
		if !(p.Gamma > 0 && p.Gamma < 1) {
			v.bad("gamma", "must lie in (0, 1), got %v", p.Gamma)
		}
		v.clusterModel(&p.ClusterModel, 10)
	}
}

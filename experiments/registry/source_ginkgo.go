package registry

import (
	"context"
	"fmt"
	"maps"

	"github.com/hcbench/hcbench/algorithms/model"
	likelihood "github.com/hcbench/hcbench/algorithms/model/ginkgo"
	"github.com/hcbench/hcbench/datasets/jets"
	"github.com/hcbench/hcbench/experiments/item"
	"github.com/hcbench/hcbench/experiments/seeds"
	"github.com/hcbench/hcbench/generators/ginkgo"
)

func init() {
	RegisterSource(Source{
		Name:      "ginkgo",
		Help:      "toy particle jets from the 2020 Ginkgo shower, with their generating trees",
		NewParams: func() Params { return &GinkgoSource{} },
		Defaults:  ginkgoDefaults,
		Generated: func(p Params) item.Size {
			g := p.(*GinkgoSource)
			return item.Size{Items: g.Jets, MinLeaves: g.MinLeaves, MaxLeaves: g.MaxLeaves, Jets: true}
		},
		Open: func(_ context.Context, p Params, env SourceEnv) (*Data, error) {
			g := p.(*GinkgoSource)
			ids := IndexIDs(g.Jets)
			return &Data{
				IDs:      ids,
				HasTruth: func(int) bool { return true },
				Load: func(ctx context.Context, i int) (*item.Item, error) {
					return generateJet(ctx, env.Seed, env.Name, ids[i], i, g, env.Params)
				},
				Size: item.Size{Items: g.Jets, MinLeaves: g.MinLeaves, MaxLeaves: g.MaxLeaves, Jets: true},
			}, nil
		},
	})
}

// JetLikelihood chooses the split likelihood for jet data (see ../shared/design/ginkgo.md §5–6).
type JetLikelihood struct {
	Likelihood string `yaml:"likelihood" default:"ginkgo2020" help:"split likelihood: ginkgo2020 (the trellis papers' formula) or ginkgo2021 (the exact density of the later generator)"`
	RootLambda string `yaml:"root_lambda" default:"generative" help:"rate of the root split: generative (λ_root for the split of all leaves, λ elsewhere, as the generator) or uniform (λ everywhere, as ClusterTrellis ab931e8)"`
}

// GinkgoSource is `generator: ginkgo`: toy jets from the 2020 Ginkgo shower.
type GinkgoSource struct {
	Jets          int     `yaml:"jets" required:"true" help:"number of jets"`
	JetType       string  `yaml:"jet_type" default:"qcd" help:"qcd (mass 30, lambda_root = lambda) or w (mass 80, lambda_root 3.0); sets mass and lambda_root unless they are given"`
	Mass          float64 `yaml:"mass" help:"root invariant mass M (Δ0 = M²), at most 1e50; default from jet_type"`
	Lambda        float64 `yaml:"lambda" default:"1.5" help:"rate λ of the exponential mass draws of every split but the root's, in [1e-40, 1e40]"`
	LambdaRoot    float64 `yaml:"lambda_root" help:"rate λ_root of the root split, in [1e-40, 1e40]; default from jet_type"`
	TCut          float64 `yaml:"t_cut" required:"true" help:"mass² cut: a node with t ≤ t_cut is a leaf (Ginkgo's pt_cut), in [1e-40, 1e200]"`
	MinLeaves     int     `yaml:"min_leaves" default:"2" help:"fewest leaves a jet may have (inclusive); jets are drawn by rejection"`
	MaxLeaves     int     `yaml:"max_leaves" default:"0" help:"most leaves a jet may have (inclusive; Ginkgo's exclusive maxLeaves is this + 1); 0 means no maximum"`
	MaxTries      int     `yaml:"max_tries" default:"20000" help:"rejection-sampling tries per jet; when they run out the data set fails loudly"`
	FlipChildren  bool    `yaml:"flip_children" default:"false" help:"swap the children of each split with probability ½, as Ginkgo does since June 2021 (changes only the stored order)"`
	JetLikelihood `yaml:",inline"`
}

// ginkgoDefaults takes mass and lambda_root from the jet type unless they are given; where the
// type (or, for QCD, λ) could not be decoded, they are skipped rather than checked.
func ginkgoDefaults(p Params, d Defaults) {
	s := p.(*GinkgoSource)
	preset, err := ginkgo.Preset(s.JetType, s.TCut)
	typeOK := err == nil && !d.Failed("jet_type")
	if !d.Has("mass") {
		if typeOK {
			s.Mass = preset.Mass
		} else {
			d.Skip("mass")
		}
	}
	if !d.Has("lambda_root") {
		switch {
		case !typeOK, s.JetType == ginkgo.QCD && d.Failed("lambda"):
			d.Skip("lambda_root")
		case s.JetType == ginkgo.QCD:
			s.LambdaRoot = s.Lambda
		default:
			s.LambdaRoot = preset.LambdaRoot
		}
	}
}

// Check checks the generator's keys.
func (g *GinkgoSource) Check(v Checker) {
	if g.Jets < 1 {
		v.Bad("jets", "must be at least 1, got %d", g.Jets)
	}
	OneOf(v, "jet_type", g.JetType, "qcd", "w")
	switch {
	case !(g.Mass > 0):
		v.Bad("mass", "must be positive, got %v", g.Mass)
	case g.Mass > ginkgo.MaxMass:
		v.Bad("mass", "must be at most %g, got %v (the shower squares masses², which would overflow and make NaN momenta)", float64(ginkgo.MaxMass), g.Mass)
	}
	if !(g.Lambda > 0) {
		v.Bad("lambda", "must be positive, got %v", g.Lambda)
	} else {
		inRange(v, "lambda", g.Lambda, likelihood.MinRate, likelihood.MaxRate, likelihoodRange)
	}
	if !(g.LambdaRoot > 0) {
		v.Bad("lambda_root", "must be positive, got %v", g.LambdaRoot)
	} else {
		inRange(v, "lambda_root", g.LambdaRoot, likelihood.MinRate, likelihood.MaxRate, likelihoodRange)
	}
	switch {
	case !(g.TCut > 0):
		v.Bad("t_cut", "must be positive, got %v (it is a cut on the mass², t ≤ t_cut makes a leaf)", g.TCut)
	case g.TCut < likelihood.MinTCut || g.TCut > likelihood.MaxTCut:
		inRange(v, "t_cut", g.TCut, likelihood.MinTCut, likelihood.MaxTCut, likelihoodRange)
	case g.Mass > 0 && g.TCut >= g.Mass*g.Mass:
		v.Bad("t_cut", "%v is not below the root mass² %v, so every jet would be a single leaf", g.TCut, g.Mass*g.Mass)
	}
	if g.MinLeaves < 2 {
		v.Bad("min_leaves", "must be at least 2, got %d", g.MinLeaves)
	}
	switch {
	case g.MaxLeaves < 0:
		v.Bad("max_leaves", "must be 0 (no maximum) or positive, got %d", g.MaxLeaves)
	case g.MaxLeaves > 0 && g.MinLeaves > g.MaxLeaves:
		v.Bad("min_leaves", "%d is greater than max_leaves %d (both are inclusive)", g.MinLeaves, g.MaxLeaves)
	}
	if g.MaxTries < 1 {
		v.Bad("max_tries", "must be at least 1, got %d", g.MaxTries)
	}
	OneOf(v, "likelihood", g.Likelihood, "ginkgo2020", "ginkgo2021")
	OneOf(v, "root_lambda", g.RootLambda, "generative", "uniform")
}

// likelihoodRange says why λ and t_cut are bounded.
const likelihoodRange = "the range in which the Ginkgo likelihood is computed without overflow or underflow"

func inRange(v Checker, key string, x, lo, hi float64, why string) {
	if !(x >= lo && x <= hi) {
		v.Bad(key, "must lie in [%g, %g], %s; got %v", lo, hi, why, x)
	}
}

// generateJet draws item index (id) of a Ginkgo data set from its stream (SeedKey), by rejection
// until its leaf count is in range.
func generateJet(ctx context.Context, master uint64, dataset, id string, index int, src *GinkgoSource, params map[string]any) (*item.Item, error) {
	p := ginkgo.Params{
		Mass:         src.Mass,
		Momentum:     ginkgo.DefaultMomentum,
		Lambda:       src.Lambda,
		LambdaRoot:   src.LambdaRoot,
		TCut:         src.TCut,
		FlipChildren: src.FlipChildren,
	}
	key := SeedKey(dataset, id)
	j, tries, err := ginkgo.Conditioned(ctx, seeds.Stream(master, key), p, src.MinLeaves, src.MaxLeaves, src.MaxTries)
	if err != nil {
		return nil, err
	}
	j.ID = jets.ID(id)
	j.Schema = jets.Schema
	j.Generator = "ginkgo2020"
	j.JetType = src.JetType
	j.SeedKey = key
	j.MinLeaves, j.MaxLeaves, j.Tries = src.MinLeaves, src.MaxLeaves, tries
	j.Likelihood, j.RootLambda, j.FlipChildren = src.Likelihood, src.RootLambda, src.FlipChildren
	return jetItem(dataset, id, index, &j, src.JetLikelihood, params)
}

// JetModel builds the likelihood model of a jet under the chosen likelihood keys (resolved: no
// stored).
func JetModel(j *jets.Jet, lk JetLikelihood) (*likelihood.Model, error) {
	p := likelihood.Params{Lambda: j.Lambda, LambdaRoot: j.RootLambdaOrDefault(), TCut: j.TCut}
	switch lk.Likelihood {
	case "ginkgo2020":
		p.Version = likelihood.Version2020
	case "ginkgo2021":
		p.Version = likelihood.Version2021
	default:
		return nil, fmt.Errorf("unknown likelihood %q", lk.Likelihood)
	}
	switch lk.RootLambda {
	case "generative":
		p.RootLambda = likelihood.RootLambdaGenerative
	case "uniform":
		p.RootLambda = likelihood.RootLambdaUniform
	default:
		return nil, fmt.Errorf("unknown root_lambda %q", lk.RootLambda)
	}
	return likelihood.New(j.Leaves, p)
}

// jetItem makes the item of a jet. Its data params are the data set's with the jet's own λ,
// λ_root and t_cut, which a jets file holds per jet.
func jetItem(dataset, id string, index int, j *jets.Jet, lk JetLikelihood, params map[string]any) (*item.Item, error) {
	m, err := JetModel(j, lk)
	if err != nil {
		return nil, err
	}
	own := maps.Clone(params)
	own["lambda"], own["lambda_root"], own["t_cut"] = j.Lambda, j.RootLambdaOrDefault(), j.TCut
	it := &item.Item{Dataset: dataset, Index: index, ID: id, Model: m, Jet: j, DataParams: own}
	it.Warnings = m.Warnings()
	if j.HasTruth() {
		t, err := j.TruthTree()
		if err != nil {
			return nil, err
		}
		ll, err := model.TreeLogLikelihood(m, t)
		if err != nil {
			return nil, fmt.Errorf("truth tree: %w", err)
		}
		it.Truth, it.TruthLogLikelihood = t, ll
	}
	return it, nil
}

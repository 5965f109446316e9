package registry

import (
	"context"

	"github.com/hcbench/hcbench/experiments/item"
	"github.com/hcbench/hcbench/experiments/seeds"
	"github.com/hcbench/hcbench/generators/mixture"
)

func init() {
	RegisterSource(Source{
		Name:      "mixture",
		Help:      "labelled points from a mixture of Gaussians or of independent Bernoulli features, for the Bayesian clustering experiments",
		NewParams: func() Params { return &MixtureSource{} },
		Generated: func(p Params) item.Size { return p.(*MixtureSource).size() },
		Open: func(_ context.Context, p Params, env SourceEnv) (*Data, error) {
			m := p.(*MixtureSource)
			ids := IndexIDs(m.Items)
			return &Data{
				IDs:      ids,
				HasTruth: func(int) bool { return false },
				Load: func(ctx context.Context, i int) (*item.Item, error) {
					return generateMixture(ctx, env.Seed, env.Name, ids[i], i, m, env.Params)
				},
				Size: m.size(),
			}, nil
		},
	})
}

// MixtureSource is `generator: mixture`: labelled points from a mixture of Gaussians or of
// independent Bernoulli features, for the Bayesian clustering experiments.
type MixtureSource struct {
	Items      int     `yaml:"items" default:"1" help:"number of data sets drawn (items), each from its own random stream"`
	Kind       string  `yaml:"kind" default:"gaussian" help:"gaussian (spherical components with means uniform in a cube of side separation·√components) or bernoulli (each feature's probability per component from Beta(1/separation, 1/separation))"`
	Components int     `yaml:"components" default:"4" help:"number of components (classes)"`
	Points     int     `yaml:"points" required:"true" help:"points per data set, split evenly over the components (the first ones take the remainder)"`
	Dims       int     `yaml:"dims" default:"2" help:"features per point"`
	Separation float64 `yaml:"separation" default:"3" help:"how far apart the components are (see kind), in [1e-50, 1e50]"`
	Spread     float64 `yaml:"spread" default:"1" help:"gaussian: the components' standard deviation, at most 1e50"`
	SplitModel `yaml:",inline"`
}

func (m *MixtureSource) size() item.Size {
	return item.Size{Items: m.Items, MinLeaves: m.Points, MaxLeaves: m.Points, Dims: m.Dims, Weights: m.SplitModel.Model == "correlation", Binary: m.Kind == "bernoulli"}
}

// Check checks the generator's keys.
func (m *MixtureSource) Check(v Checker) {
	OneOf(v, "kind", m.Kind, "gaussian", "bernoulli")
	if m.Items < 1 {
		v.Bad("items", "must be at least 1, got %d", m.Items)
	}
	if m.Components < 1 {
		v.Bad("components", "must be at least 1, got %d", m.Components)
	}
	if m.Points < m.Components {
		v.Bad("points", "must be at least components (%d), got %d", m.Components, m.Points)
	}
	if m.Dims < 1 {
		v.Bad("dims", "must be at least 1, got %d", m.Dims)
	}
	if !(m.Separation > 0) {
		v.Bad("separation", "must be positive, got %v", m.Separation)
	} else {
		inRange(v, "separation", m.Separation, mixture.MinSeparation, mixture.MaxSeparation, "so that the points stay far below 1e100, the largest value the cluster models take, and 1/separation (bernoulli) is finite")
	}
	if !(m.Spread > 0) {
		v.Bad("spread", "must be positive, got %v", m.Spread)
	} else if m.Spread > mixture.MaxSpread {
		v.Bad("spread", "must be at most %g, so that the points stay far below 1e100, the largest value the cluster models take; got %v", float64(mixture.MaxSpread), m.Spread)
	}
	m.SplitModel.Check(v)
}

// generateMixture draws one labelled mixture data set from the item's stream.
func generateMixture(ctx context.Context, master uint64, dataset, id string, index int, src *MixtureSource, params map[string]any) (*item.Item, error) {
	kind := mixture.Gaussian
	if src.Kind == "bernoulli" {
		kind = mixture.Bernoulli
	}
	data, err := mixture.Draw(ctx, seeds.Stream(master, SeedKey(dataset, id)), mixture.Params{
		Kind: kind, Components: src.Components, Points: src.Points, Dims: src.Dims,
		Separation: src.Separation, Spread: src.Spread,
	})
	if err != nil {
		return nil, err
	}
	none := 0
	it := &item.Item{Dataset: dataset, Index: index, ID: id, Labels: data.Labels, Vectors: data.X, MissingCells: &none, DataParams: params}
	return it, setSplitModel(ctx, it, src.SplitModel, false)
}

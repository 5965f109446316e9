// Package mixture draws labelled synthetic data for the Bayesian clustering experiments: points
// from a mixture of Gaussians (the BHC paper's "Synthetic" set: 4 classes, 2 attributes) or of
// independent Bernoulli features, each point labelled by its component.
package mixture

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"

	"github.com/hcbench/hcbench/internal/english"
)

// Kind selects the component distribution.
type Kind int

const (
	// Gaussian components: means drawn uniformly in a cube of side Separation·√Components, unit
	// spherical covariance scaled by Spread.
	Gaussian Kind = iota
	// Bernoulli components: each feature's probability drawn from Beta(1/Separation, 1/Separation),
	// so a larger Separation pushes the probabilities towards 0 and 1 and the components apart.
	Bernoulli
)

// Params describe a mixture.
type Params struct {
	Kind       Kind
	Components int     // ≥ 1
	Points     int     // ≥ Components; split as evenly as possible, the first components taking the rest
	Dims       int     // ≥ 1
	Separation float64 // > 0
	Spread     float64 // Gaussian component standard deviation; > 0
}

// Data are the drawn points (rows) and their component labels ("0", "1", …).
type Data struct {
	X      [][]float64
	Labels []string
}

// The ranges of Separation and Spread. Gaussian coordinates are at most about
// separation·√components/2 + 40·spread; below 1e50 each they stay far under 1e100, the largest
// value the conjugate models take (squares and sums of squares of the data must stay finite:
// conjugate.MaxValue), where 1e300 would give infinite scatter matrices and NaN log evidence.
// Bernoulli components draw Beta(1/separation, 1/separation): 1/separation must be finite, and
// the Gamma draws keep their digits for shapes in [1e-50, 1e50].
const (
	MinSeparation = 1e-50
	MaxSeparation = 1e50
	MaxSpread     = 1e50
)

// Draw draws one data set; the same rng state gives the same data. It returns ctx.Err() once ctx
// is done (looked at every 2^14 values drawn).
func Draw(ctx context.Context, rng *rand.Rand, p Params) (*Data, error) {
	switch {
	case p.Components < 1:
		return nil, fmt.Errorf("mixture: components must be at least 1, got %d", p.Components)
	case p.Points < p.Components:
		return nil, fmt.Errorf("mixture: %s for %s", english.Count(p.Points, "point", "points"), english.Count(p.Components, "component", "components"))
	case p.Dims < 1:
		return nil, fmt.Errorf("mixture: dims must be at least 1, got %d", p.Dims)
	case !(p.Separation > 0) || math.IsInf(p.Separation, 0):
		return nil, fmt.Errorf("mixture: separation must be positive, got %v", p.Separation)
	case p.Kind == Gaussian && (!(p.Spread > 0) || math.IsInf(p.Spread, 0)):
		return nil, fmt.Errorf("mixture: spread must be positive, got %v", p.Spread)
	case p.Kind != Gaussian && p.Kind != Bernoulli:
		return nil, errors.New("mixture: unknown kind")
	case p.Separation < MinSeparation || p.Separation > MaxSeparation:
		return nil, fmt.Errorf("mixture: separation must lie in [%g, %g], got %v", MinSeparation, MaxSeparation, p.Separation)
	case p.Kind == Gaussian && p.Spread > MaxSpread:
		return nil, fmt.Errorf("mixture: spread must be at most %g, got %v", MaxSpread, p.Spread)
	}
	// Component parameters first, then the points, component by component.
	centre := make([][]float64, p.Components)
	side := p.Separation * math.Sqrt(float64(p.Components))
	drawn := 0 // values drawn since ctx was last looked at
	tick := func() error {
		if drawn += p.Dims; drawn < 1<<14 {
			return nil
		}
		drawn = 0
		return ctx.Err()
	}
	for c := range centre {
		if err := tick(); err != nil {
			return nil, err
		}
		centre[c] = make([]float64, p.Dims)
		for k := range centre[c] {
			if p.Kind == Gaussian {
				centre[c][k] = (rng.Float64() - 0.5) * side
			} else {
				centre[c][k] = betaDraw(rng, 1/p.Separation, 1/p.Separation)
			}
		}
	}
	d := &Data{}
	for c := range p.Components {
		count := p.Points / p.Components
		if c < p.Points%p.Components {
			count++
		}
		for range count {
			if err := tick(); err != nil {
				return nil, err
			}
			x := make([]float64, p.Dims)
			for k := range x {
				if p.Kind == Gaussian {
					x[k] = centre[c][k] + p.Spread*rng.NormFloat64()
				} else if rng.Float64() < centre[c][k] {
					x[k] = 1
				}
			}
			d.X = append(d.X, x)
			d.Labels = append(d.Labels, strconv.Itoa(c))
		}
	}
	return d, nil
}

// betaDraw draws from Beta(a, b) as X/(X+Y) of two Gamma draws. For small shapes both draws can
// underflow (Gamma(1e-4) is below 1e-308 with probability above 0.9), where X/(X+Y) would be 0/0
// (formerly taken as ½, the opposite of Beta(a, a)'s mass near 0 and 1); the ratio then comes
// from their logs, 1/(1 + e^{log Y − log X}).
func betaDraw(rng *rand.Rand, a, b float64) float64 {
	x, lx := gammaDraw(rng, a)
	y, ly := gammaDraw(rng, b)
	if x+y >= 0x1p-1022 { // a normal sum: the quotient keeps its digits
		return x / (x + y)
	}
	if lx == ly { // both −Inf (a uniform draw of exactly 0 in each), or a tie
		return 0.5
	}
	return 1 / (1 + math.Exp(ly-lx))
}

// gammaDraw draws from Gamma(a, 1) by Marsaglia and Tsang's method, boosted for a < 1, and
// returns the draw and its log, the log computed from the parts so that it survives the draw's
// underflow.
func gammaDraw(rng *rand.Rand, a float64) (float64, float64) {
	if a < 1 {
		g, lg := gammaDraw(rng, a+1)
		u := rng.Float64()
		return g * math.Pow(u, 1/a), lg + math.Log(u)/a
	}
	d := a - 1.0/3
	c := 1 / math.Sqrt(9*d)
	for {
		x := rng.NormFloat64()
		v := 1 + c*x
		if v <= 0 {
			continue
		}
		v = v * v * v
		u := rng.Float64()
		if u < 1-0.0331*x*x*x*x || math.Log(u) < 0.5*x*x+d*(1-v+math.Log(v)) {
			return d * v, math.Log(d * v)
		}
	}
}

// Package mixture draws labelled synthetic data for the Bayesian clustering experiments: points
// from a mixture of Gaussians (the BHC paper's "Synthetic" set: 4 classes, 2 attributes) or of
// independent Bernoulli features, each point labelled by its component.
package mixture

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
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

// Draw draws one data set; the same rng state gives the same data.
func Draw(rng *rand.Rand, p Params) (*Data, error) {
	switch {
	case p.Components < 1:
		return nil, fmt.Errorf("mixture: components must be at least 1, got %d", p.Components)
	case p.Points < p.Components:
		return nil, fmt.Errorf("mixture: %d points for %d components", p.Points, p.Components)
	case p.Dims < 1:
		return nil, fmt.Errorf("mixture: dims must be at least 1, got %d", p.Dims)
	case !(p.Separation > 0) || math.IsInf(p.Separation, 0):
		return nil, fmt.Errorf("mixture: separation must be positive, got %v", p.Separation)
	case p.Kind == Gaussian && (!(p.Spread > 0) || math.IsInf(p.Spread, 0)):
		return nil, fmt.Errorf("mixture: spread must be positive, got %v", p.Spread)
	case p.Kind != Gaussian && p.Kind != Bernoulli:
		return nil, errors.New("mixture: unknown kind")
	}
	// Component parameters first, then the points, component by component.
	centre := make([][]float64, p.Components)
	side := p.Separation * math.Sqrt(float64(p.Components))
	for c := range centre {
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

// betaDraw draws from Beta(a, b) as X/(X+Y) of two Gamma draws.
func betaDraw(rng *rand.Rand, a, b float64) float64 {
	x, y := gammaDraw(rng, a), gammaDraw(rng, b)
	if x+y == 0 {
		return 0.5
	}
	return x / (x + y)
}

// gammaDraw draws from Gamma(a, 1) by Marsaglia and Tsang's method, boosted for a < 1.
func gammaDraw(rng *rand.Rand, a float64) float64 {
	if a < 1 {
		return gammaDraw(rng, a+1) * math.Pow(rng.Float64(), 1/a)
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
			return d * v
		}
	}
}

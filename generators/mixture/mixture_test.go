package mixture

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/stat"
)

func TestGaussian(t *testing.T) {
	d, err := Draw(t.Context(), rand.New(rand.NewPCG(1, 2)), Params{Kind: Gaussian, Components: 4, Points: 202, Dims: 2, Separation: 3, Spread: 1})
	if err != nil {
		t.Fatal(err)
	}
	count := map[string]int{}
	for _, l := range d.Labels {
		count[l]++
	}
	// 202 points over 4 components: 51, 51, 50, 50.
	if len(d.X) != 202 || count["0"] != 51 || count["1"] != 51 || count["2"] != 50 || count["3"] != 50 {
		t.Errorf("%d points, counts %v", len(d.X), count)
	}
	// Within a component the spread is 1: the sample std of each coordinate lies within 5 standard
	// errors (σ/√(2(n−1)) ≈ 0.1) of 1.
	var xs []float64
	for i, l := range d.Labels {
		if l == "0" {
			xs = append(xs, d.X[i][0])
		}
	}
	if _, sd := stat.MeanStdDev(xs, nil); math.Abs(sd-1) > 0.5 {
		t.Errorf("component 0 std %v, want about 1", sd)
	}
	again, _ := Draw(t.Context(), rand.New(rand.NewPCG(1, 2)), Params{Kind: Gaussian, Components: 4, Points: 202, Dims: 2, Separation: 3, Spread: 1})
	if again.X[101][1] != d.X[101][1] {
		t.Error("the same seed gave other data")
	}
}

func TestBernoulli(t *testing.T) {
	d, err := Draw(t.Context(), rand.New(rand.NewPCG(3, 4)), Params{Kind: Bernoulli, Components: 3, Points: 300, Dims: 20, Separation: 4})
	if err != nil {
		t.Fatal(err)
	}
	ones := 0
	for _, x := range d.X {
		for _, v := range x {
			if v != 0 && v != 1 {
				t.Fatalf("value %v", v)
			}
			ones += int(v)
		}
	}
	// Beta(1/4, 1/4) probabilities have mean 1/2: about half of the 6000 values are 1 (loosely,
	// since only 60 probabilities are drawn).
	if ones < 1500 || ones > 4500 {
		t.Errorf("%d ones of 6000", ones)
	}
}

func TestErrors(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	for _, p := range []Params{
		{Kind: Gaussian, Components: 0, Points: 5, Dims: 2, Separation: 1, Spread: 1},
		{Kind: Gaussian, Components: 3, Points: 2, Dims: 2, Separation: 1, Spread: 1},
		{Kind: Gaussian, Components: 2, Points: 5, Dims: 0, Separation: 1, Spread: 1},
		{Kind: Gaussian, Components: 2, Points: 5, Dims: 2, Separation: 0, Spread: 1},
		{Kind: Gaussian, Components: 2, Points: 5, Dims: 2, Separation: 1, Spread: -1},
	} {
		if _, err := Draw(t.Context(), rng, p); err == nil {
			t.Errorf("%+v accepted", p)
		}
	}
}

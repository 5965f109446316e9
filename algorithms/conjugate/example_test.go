package conjugate_test

import (
	"fmt"
	"log"
	"math"

	"github.com/hcbench/hcbench/algorithms/conjugate"
)

// One point at μ0 under κ0 = 1, ν0 = 1, Λ0 = 1/2 in one dimension: the Student-t of bayesian.md
// §5.1 has ν0 − d + 1 = 1 degree of freedom and scale² Λ0(κ0+1)/(κ0·1) = 1, the standard Cauchy,
// whose density at its centre is 1/π (log 1/π = −1.144730). For all three points x̄ = 0, S = 2,
// κn = νn = 4 and Λn = 2.5, so log p(D) = −(3/2) log π + ½ log(1/4) + ½ log ½ − 2 log 2.5
// + lgamma(2) − lgamma(½) = −5.161762, which the chain rule reaches through LogPredictive.
func ExampleNewNIW() {
	x := [][]float64{{0}, {1}, {-1}}
	m, err := conjugate.NewNIW(x, conjugate.NIWParams{Kappa0: 1, Nu0: 1, Mu0: []float64{0}, Lambda0: [][]float64{{0.5}}})
	if err != nil {
		log.Fatal(err)
	}
	s := m.NewStore()
	fmt.Printf("log p(x0) = %.6f, log(1/π) = %.6f\n", s.LogML(0), -math.Log(math.Pi))
	c := s.Merge(0, 1)
	all := s.Merge(c, 2)
	fmt.Printf("log p(x0, x1) + log p(x2 | x0, x1) = %.6f\n", s.LogML(c)+s.LogPredictive(c, x[2]))
	fmt.Printf("log p(x0, x1, x2)                  = %.6f (%d points)\n", s.LogML(all), s.Size(all))
	// Output:
	// log p(x0) = -1.144730, log(1/π) = -1.144730
	// log p(x0, x1) + log p(x2 | x0, x1) = -5.161762
	// log p(x0, x1, x2)                  = -5.161762 (3 points)
}

// Three items with one binary feature, values 1, 1, 0, under Beta(1, 1):
// p(D) = B(1+2, 1+1)/B(1, 1) = Γ(3)Γ(2)/Γ(5) = 2/24 = 1/12, log 1/12 = −2.484907.
// The predictive probability of a 1 after two 1s is Laplace's (2+1)/(2+2) = 3/4.
func ExampleNewBernoulli() {
	x := [][]float64{{1}, {1}, {0}}
	m, err := conjugate.NewBernoulli(x, []float64{1}, []float64{1})
	if err != nil {
		log.Fatal(err)
	}
	s := m.NewStore()
	ones := s.Merge(0, 1)
	fmt.Printf("log p(D) = %.6f, log 1/12 = %.6f\n", s.LogML(s.Merge(ones, 2)), math.Log(1.0/12))
	fmt.Printf("p(1 | 1, 1) = %.4f\n", math.Exp(s.LogPredictive(ones, []float64{1})))
	// Output:
	// log p(D) = -2.484907, log 1/12 = -2.484907
	// p(1 | 1, 1) = 0.7500
}

// One feature with three values and Dirichlet(1, 1, 1); items 0, 0, 2. The Pólya urn gives
// p(D) = 1/3 · 2/4 · 1/5 = 1/30 (log −3.401197), in any order.
func ExampleNewCategorical() {
	x := [][]float64{{0}, {0}, {2}}
	m, err := conjugate.NewCategorical(x, [][]float64{{1}, {1}, {1}})
	if err != nil {
		log.Fatal(err)
	}
	s := m.NewStore()
	fmt.Printf("log p(D) = %.6f, log 1/30 = %.6f\n", s.LogML(s.Cluster([]int{2, 0, 1})), math.Log(1.0/30))
	// Output:
	// log p(D) = -3.401197, log 1/30 = -3.401197
}

// The data-driven NIW hyperparameters (caponetto's NormalInverseWishart.create): column means,
// sample covariance over g, ν0 = d + 1.
func ExampleNIWFromData() {
	p, err := conjugate.NIWFromData([][]float64{{1, 2}, {3, 4}, {5, 9}}, 2, 0.001)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("μ0 =", p.Mu0, "Λ0 =", p.Lambda0, "κ0 =", p.Kappa0, "ν0 =", p.Nu0)
	// Output:
	// μ0 = [3 5] Λ0 = [[2 3.5] [3.5 6.5]] κ0 = 0.001 ν0 = 3
}

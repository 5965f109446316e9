package ginkgo_test

import (
	"context"
	"fmt"
	"log"
	"math"
	"math/rand/v2"

	"github.com/hcbench/hcbench/generators/ginkgo"
)

// The QCD preset is the configuration of the trellis data (ginkgo.md §2): M = 30,
// λ_root = λ = 1.5, |p⃗| = 400 along (1,1,1)/√3, so the root energy is √(400² + 30²).
func ExamplePreset() {
	p, err := ginkgo.Preset(ginkgo.QCD, 16)
	if err != nil {
		log.Fatal(err)
	}
	pm := math.Sqrt(p.Momentum[0]*p.Momentum[0] + p.Momentum[1]*p.Momentum[1] + p.Momentum[2]*p.Momentum[2])
	fmt.Printf("M = %v, λ_root = %v, λ = %v, t_cut = %v\n", p.Mass, p.LambdaRoot, p.Lambda, p.TCut)
	fmt.Printf("|p| = %.4f, E = %.7f\n", pm, math.Sqrt(pm*pm+p.Mass*p.Mass))
	// Output:
	// M = 30, λ_root = 1.5, λ = 1.5, t_cut = 16
	// |p| = 400.0000, E = 401.1234224
}

// Conditioned draws a jet with a leaf count in a range (here the 5 to 9 leaves of the Ginkgo510-like
// data). Whatever the random stream, the jet is a full binary tree of 2n−1 nodes whose root has the
// preset's mass.
func ExampleConditioned() {
	p, err := ginkgo.Preset(ginkgo.QCD, 16)
	if err != nil {
		log.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	j, tries, err := ginkgo.Conditioned(context.Background(), rng, p, 5, 9, 1000)
	if err != nil {
		log.Fatal(err)
	}
	n := len(j.Leaves)
	root := j.Content[j.RootID]
	m2 := root[0]*root[0] - root[1]*root[1] - root[2]*root[2] - root[3]*root[3]
	fmt.Println("5 ≤ n ≤ 9:", 5 <= n && n <= 9)
	fmt.Println("nodes = 2n − 1:", len(j.Tree) == 2*n-1)
	fmt.Println("tries ≥ 1:", tries >= 1)
	fmt.Printf("root mass² = %.6f\n", m2)
	// Output:
	// 5 ≤ n ≤ 9: true
	// nodes = 2n − 1: true
	// tries ≥ 1: true
	// root mass² = 900.000000
}

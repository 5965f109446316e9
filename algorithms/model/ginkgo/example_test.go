package ginkgo_test

import (
	"fmt"
	"log"

	"github.com/hcbench/hcbench/algorithms/model/ginkgo"
)

// A jet of two massless leaves, back to back in the rest frame of a parent of mass 30
// (t_P = M² = 900): the 2-leaf constant of ginkgo.md §8,
// 2·[log(1 − e^{−λ_root·t_cut/M²}) − log(1 − e^{−λ_root})] − log 4π = −9.30135 for QCD at t_cut 16.
// The 2021 likelihood normalises with 1 − e^{−0.999·λ} instead (ginkgo.md §6), which gives
// 2·[log(1 − e^{−λ_root·t_cut/M²}) − log(1 − e^{−0.999·λ_root})] − log 4π = −9.30049.
func ExampleModel_Split() {
	pL := [4]float64{15, 0, 0, 15}
	pR := [4]float64{15, 0, 0, -15}
	for _, v := range []ginkgo.Version{ginkgo.Version2020, ginkgo.Version2021} {
		m, err := ginkgo.New([][4]float64{pL, pR}, ginkgo.Params{Lambda: 1.5, LambdaRoot: 1.5, TCut: 16, Version: v})
		if err != nil {
			log.Fatal(err)
		}
		// Leaves have t = 0 (the trellis convention of the 2020 likelihood; the 2021 one takes t
		// from the momenta, also 0 here). This is the root split, so λ_root applies.
		fmt.Printf("%v: %.5f\n", v, m.Split(pL, pR, 0, 0, true))
	}
	// Output:
	// ginkgo2020: -9.30135
	// ginkgo2021: -9.30049
}

package ginkgo

import (
	"math"
	"testing"
)

// TestZeroBoundNotNaN: a child's upper bound T = 0 (reachable only below New's bounds, or through
// Split with arbitrary momenta) is taken at its limits: no room for an internal child (−Inf), and
// certainty for a leaf, never the ∞ − ∞ or 0/0 of the formulas as written.
func TestZeroBoundNotNaN(t *testing.T) {
	for _, v := range []Version{Version2020, Version2021} {
		m, err := New([][4]float64{{1, 0, 0, 0}}, Params{Lambda: 1.5, LambdaRoot: 1.5, TCut: 16, Version: v})
		if err != nil {
			t.Fatal(err)
		}
		for _, tc := range []struct {
			name  string
			f     func(T, t float64, r int) float64
			leafT float64 // a leaf's t in the formula's convention
		}{{"f2020", m.f2020, 0}, {"g2021", m.g2021, 1}} {
			internal, leaf := tc.f(0, 100, 0), tc.f(0, tc.leafT, 0)
			if !math.IsInf(internal, -1) {
				t.Errorf("%v %s: internal child with T = 0 gives %v, want −Inf", v, tc.name, internal)
			}
			if math.IsNaN(leaf) || math.IsInf(leaf, 0) {
				t.Errorf("%v %s: leaf child with T = 0 gives %v, want a number", v, tc.name, leaf)
			}
		}
	}
}

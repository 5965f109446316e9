package config

import (
	"testing"
)

// TestExtremeValuesRefused: finite values that the generators or models cannot use without
// overflow, underflow into NaN or a run that never ends (a rate of 1e-300) are refused at their
// line with the range and the reason; every problem of a config is reported at once.
func TestExtremeValuesRefused(t *testing.T) {
	src := `version: 1
name: extreme
datasets:
  - name: jets
    generator: ginkgo
    jets: 2
    mass: 1e300
    lambda: 1e-300
    lambda_root: 1e300
    t_cut: 1e-300
  - name: mix
    generator: mixture
    points: 8
    separation: 1e300
    spread: 1e300
    beta: 1e300
  - name: mix2
    generator: mixture
    kind: bernoulli
    points: 8
    separation: 1e-300
algorithms:
  - {name: bhc, niw: {recipe: data, g: 1e300, kappa0: 1e300}}
  - {name: brt, label: brt-nu, niw: {recipe: explicit, nu0: 1e300, mu0: [0], lambda0: [[1]]}}
  - {name: brt, label: brt-mu, niw: {recipe: explicit, nu0: 2, mu0: [1e300], lambda0: [[1]]}}
  - {name: brt, label: brt-lam, niw: {recipe: explicit, nu0: 2, mu0: [0], lambda0: [[1e300]]}}
`
	checkExact(t, problemsOf(t, src), []string{
		"bad.yaml:7: datasets[0].mass: must be at most 1e+50, got 1e+300 (the shower squares masses², which would overflow and make NaN momenta)",
		"bad.yaml:8: datasets[0].lambda: must lie in [1e-40, 1e+40], the range in which the Ginkgo likelihood is computed without overflow or underflow; got 1e-300",
		"bad.yaml:9: datasets[0].lambda_root: must lie in [1e-40, 1e+40], the range in which the Ginkgo likelihood is computed without overflow or underflow; got 1e+300",
		"bad.yaml:10: datasets[0].t_cut: must lie in [1e-40, 1e+200], the range in which the Ginkgo likelihood is computed without overflow or underflow; got 1e-300",
		"bad.yaml:14: datasets[1].separation: must lie in [1e-50, 1e+50], so that the points stay far below 1e100, the largest value the cluster models take, and 1/separation (bernoulli) is finite; got 1e+300",
		"bad.yaml:15: datasets[1].spread: must be at most 1e+50, so that the points stay far below 1e100, the largest value the cluster models take; got 1e+300",
		"bad.yaml:16: datasets[1].beta: must be at most 1e+100 (β times a split's energy must stay finite), got 1e+300",
		"bad.yaml:21: datasets[2].separation: must lie in [1e-50, 1e+50], so that the points stay far below 1e100, the largest value the cluster models take, and 1/separation (bernoulli) is finite; got 1e-300",
		"bad.yaml:23: algorithms[0].niw: kappa0 must be at most 1e+100 (κ0·n must stay finite), got 1e+300",
		"bad.yaml:24: algorithms[1].niw: nu0 must be at most 1e+06 (log p(D) is a difference of terms of size ν0, which loses ν0·1e-16 to rounding), got 1e+300",
		"bad.yaml:25: algorithms[2].niw: mu0[0] is 1e+300, beyond ±1e+100, where squares overflow",
		"bad.yaml:26: algorithms[3].niw: lambda0 row 1 has 1e+300, beyond ±1e+250, where sums of the scatter matrices overflow",
	})
	// One problem per key: g is reported once kappa0 is fine.
	checkExact(t, problemsOf(t, `version: 1
name: g
datasets:
  - {name: mix, generator: mixture, points: 8}
algorithms:
  - {name: bhc, niw: {recipe: data, g: 1e300}}
`), []string{
		"bad.yaml:6: algorithms[0].niw: g must lie in [1e-40, 1e+06] (Λ0, the sample covariance divided by g, must neither overflow nor drown in the rounding of the clusters' scatter, which would make log p NaN), got 1e+300",
	})
}

// TestExtremeValuesAccepted: the ends of the ranges are accepted.
func TestExtremeValuesAccepted(t *testing.T) {
	src := `version: 1
name: edges
datasets:
  - {name: big, generator: ginkgo, jets: 2, mass: 1e50, lambda: 1e40, lambda_root: 1e-40, t_cut: 1e98}
  - {name: small, generator: ginkgo, jets: 2, mass: 1e-19, lambda: 1e-40, lambda_root: 1e40, t_cut: 1e-40}
  - {name: mix, generator: mixture, points: 8, separation: 1e50, spread: 1e50, beta: 1e100}
  - {name: mix2, generator: mixture, kind: bernoulli, points: 8, separation: 1e-50}
algorithms:
  - {name: bhc, niw: {recipe: data, g: 1e6, kappa0: 1e100}}
  - {name: brt, niw: {recipe: explicit, nu0: 1e6, mu0: [1e100], lambda0: [[1e250]]}}
`
	if ps := problemsOf(t, src); len(ps) > 0 {
		t.Errorf("problems: %q", ps)
	}
}

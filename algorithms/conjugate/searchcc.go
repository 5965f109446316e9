package conjugate

import "math"

// SearchCC chooses the scale cc of Bioconductor's Dirichlet recipe (BernoulliFromData,
// CategoricalFromData) as Bioconductor BHC's FindOptimalHyperparameter does (BHC 1.27.0,
// R/FindOptimalHyperparameter.R, Bioconductor git commit 52a5f409b74bfd4394cc5614e7518c22c17b3d87),
// evidence(cc) being the log evidence of a clustering built with it:
//
//  1. evaluate cc = 1;
//  2. halve cc from 1 and evaluate, until the evidence is below that of the previous cc or 11
//     values have been tried (the package's counter stops it when it exceeds 10); the last cc
//     evaluated, the first worse one or 2⁻¹¹, is the lower end;
//  3. double cc from 1 likewise; the last cc evaluated (at most 2¹¹) is the upper end;
//  4. maximise the evidence on [lower, upper] with R's optimize(maximum = TRUE, tol = 1), that is
//     BrentMin on −evidence with tol = 1 (the tolerance is on cc, not on the evidence, whatever
//     the package's comment says), and return its result, optimize's $maximum.
//
// The result is therefore Brent's point, not the best cc of every evaluation: a value of the
// halving or doubling, or a cc Brent tried earlier within its last tolerance, can have higher
// evidence and is not returned (the package does not either). best is the evidence at cc, from
// the evaluation Brent made there: evidence is assumed deterministic, so the package's extra
// evaluation at the result (optimize's $objective, discarded by the package) is not made.
//
// An error from evidence stops the search and is returned. NaN evidence counts as −Inf (where
// the package stops with an R error in steps 2 and 3) and so is worse than any number; in step 4
// R's optimize replaces a non-finite value by the largest number, which BrentMin does too, so
// NaN and −Inf evidence are the worst there. best is the evidence as evaluated, NaN included.
func SearchCC(evidence func(cc float64) (float64, error)) (cc, best float64, err error) {
	at1, err := evidence(1)
	if err != nil {
		return 0, 0, err
	}
	bound := func(factor float64) (float64, error) {
		c, prev := 1.0, at1
		for counter := 1; ; counter++ {
			c *= factor
			v, err := evidence(c)
			if err != nil {
				return 0, err
			}
			if orMinusInf(v) < orMinusInf(prev) || counter > 10 {
				return c, nil
			}
			prev = v
		}
	}
	lo, err := bound(0.5)
	if err != nil {
		return 0, 0, err
	}
	hi, err := bound(2)
	if err != nil {
		return 0, 0, err
	}
	seen := map[float64]float64{}
	cc, _, err = BrentMin(func(c float64) (float64, error) {
		v, err := evidence(c)
		seen[c] = v
		return -orMinusInf(v), err
	}, lo, hi, 1)
	if err != nil {
		return 0, 0, err
	}
	return cc, seen[cc], nil
}

// orMinusInf returns v, or −Inf where v is NaN.
func orMinusInf(v float64) float64 {
	if math.IsNaN(v) {
		return math.Inf(-1)
	}
	return v
}

package conjugate

import "math"

// SearchCC chooses the scale cc of Bioconductor's Dirichlet recipe (BernoulliFromData,
// CategoricalFromData) by maximising evidence(cc), the log evidence of a clustering built with
// it, as Bioconductor BHC's FindOptimalHyperparameter does: halve cc from 1 while the evidence
// improves, double it from 1 likewise (at most 10 steps each, as the design note's reading of the
// package), then search the bracket between the first worse values by golden sections until it
// is narrower than 4/3 (R's optimise with tol = 1 stops about there). It returns the best cc of
// every evaluation, not only of the last bracket (ours), with its evidence. An error from
// evidence stops the search. NaN evidence counts as worse than any number.
func SearchCC(evidence func(cc float64) (float64, error)) (cc, best float64, err error) {
	cc, best = math.NaN(), math.Inf(-1)
	eval := func(c float64) (float64, error) {
		v, err := evidence(c)
		if err != nil {
			return 0, err
		}
		if math.IsNaN(v) {
			v = math.Inf(-1)
		}
		if v > best || math.IsNaN(cc) {
			cc, best = c, v
		}
		return v, nil
	}
	at1, err := eval(1)
	if err != nil {
		return 0, 0, err
	}
	bound := func(factor float64) (float64, error) {
		c, prev := 1.0, at1
		for range 10 {
			c *= factor
			v, err := eval(c)
			if err != nil {
				return 0, err
			}
			if v < prev {
				break
			}
			prev = v
		}
		return c, nil
	}
	lo, err := bound(0.5)
	if err != nil {
		return 0, 0, err
	}
	hi, err := bound(2)
	if err != nil {
		return 0, 0, err
	}
	const tol = 1.0
	phi := (math.Sqrt(5) - 1) / 2
	a, b := lo, hi
	x1, x2 := b-phi*(b-a), a+phi*(b-a)
	f1, err := eval(x1)
	if err != nil {
		return 0, 0, err
	}
	f2, err := eval(x2)
	if err != nil {
		return 0, 0, err
	}
	for b-a > 4*tol/3 {
		if f1 >= f2 {
			b, x2, f2 = x2, x1, f1
			x1 = b - phi*(b-a)
			if f1, err = eval(x1); err != nil {
				return 0, 0, err
			}
		} else {
			a, x1, f1 = x1, x2, f2
			x2 = a + phi*(b-a)
			if f2, err = eval(x2); err != nil {
				return 0, 0, err
			}
		}
	}
	return cc, best, nil
}

package conjugate

import (
	"errors"
	"math"
)

// BrentMin minimises f on [a, b] as R's optimize() does, and returns the point it settles on with
// f there.
//
// It ports the C function Brent_fmin of R's src/library/stats/src/optimize.c (R 4.2.2, the same
// in R-devel 4.5 at r-source commit 0c26529e807a9b1dd65f7324958c17bf72e1de1a), itself Brent's
// localmin (Algorithms for Minimization without Derivatives, 1973): golden-section steps mixed
// with parabolic interpolation through the three best points. It keeps R's constants (the golden
// fraction (3 − √5)/2 and eps = √DBL_EPSILON = 2⁻²⁶), its tolerance tol1 = eps·|x| + tol/3, its
// rule that f is never evaluated within tol1 of the current best point nor within 2·tol1 of an
// end, its stopping rule |x − m| ≤ 2·tol1 − (b − a)/2 with m the middle of the current interval,
// and its order of operations, so that on the same f it evaluates f at the same points, bit for
// bit (products are rounded before they are added, as in R's build, where no fused multiply-add
// is used). The first point is a + (3 − √5)/2·(b − a); the result is the best point evaluated
// (the last of equal ones).
//
// As R's optimize does (its fcn1), a non-finite value of f (NaN, ±Inf) is replaced by the largest
// float64. Unlike optimize, it does not evaluate f once more at the result: fx is the value it
// already has there (after that replacement). An error from f stops it and is returned. a and b
// must be finite with a < b, and tol finite and positive, as R's do_fmin requires.
func BrentMin(f func(float64) (float64, error), a, b, tol float64) (x, fx float64, err error) {
	if math.IsInf(a, 0) || math.IsNaN(a) || math.IsInf(b, 0) || math.IsNaN(b) || !(a < b) {
		return 0, 0, errors.New("conjugate: BrentMin needs finite a < b")
	}
	if !(tol > 0) || math.IsInf(tol, 1) {
		return 0, 0, errors.New("conjugate: BrentMin needs a finite tol > 0")
	}
	eval := func(u float64) (float64, error) {
		v, err := f(u)
		if err == nil && (math.IsNaN(v) || math.IsInf(v, 0)) {
			v = math.MaxFloat64
		}
		return v, err
	}
	golden := (3 - math.Sqrt(5)) * 0.5
	eps := math.Sqrt(0x1p-52) // DBL_EPSILON
	tol3 := tol / 3

	// x: best point so far; w: second best; v: the previous w; u: the latest point. d is the
	// latest step and e the one before it.
	x = a + float64(golden*(b-a))
	w, v := x, x
	var d, e float64
	if fx, err = eval(x); err != nil {
		return 0, 0, err
	}
	fw, fv := fx, fx
	for {
		m := (a + b) * 0.5
		tol1 := float64(eps*math.Abs(x)) + tol3
		t2 := tol1 * 2
		if math.Abs(x-m) <= t2-(b-a)*0.5 {
			return x, fx, nil
		}
		var p, q, r float64
		if math.Abs(e) > tol1 {
			// The parabola through (x, fx), (w, fw), (v, fv): its vertex lies at x + p/q.
			r = (x - w) * (fx - fv)
			q = (x - v) * (fx - fw)
			p = float64((x-v)*q) - float64((x-w)*r)
			q = (q - r) * 2
			if q > 0 {
				p = -p
			} else {
				q = -q
			}
			r = e
			e = d
		}
		if math.Abs(p) >= math.Abs(q*0.5*r) || p <= q*(a-x) || p >= q*(b-x) {
			// Golden section into the larger side of x.
			if x < m {
				e = b - x
			} else {
				e = a - x
			}
			d = golden * e
		} else {
			// Parabolic step, kept at least 2·tol1 inside the interval.
			d = p / q
			if u := x + d; u-a < t2 || b-u < t2 {
				d = tol1
				if x >= m {
					d = -d
				}
			}
		}
		var u float64
		switch {
		case math.Abs(d) >= tol1:
			u = x + d
		case d > 0:
			u = x + tol1
		default:
			u = x - tol1
		}
		fu, err := eval(u)
		if err != nil {
			return 0, 0, err
		}
		if fu <= fx {
			if u < x {
				b = x
			} else {
				a = x
			}
			v, w, x = w, x, u
			fv, fw, fx = fw, fx, fu
			continue
		}
		if u < x {
			a = u
		} else {
			b = u
		}
		if fu <= fw || w == x {
			v, fv = w, fw
			w, fw = u, fu
		} else if fu <= fv || v == x || v == w {
			v, fv = u, fu
		}
	}
}

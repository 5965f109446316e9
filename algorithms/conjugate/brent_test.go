package conjugate_test

import (
	"errors"
	"math"
	"slices"
	"testing"

	"github.com/hcbench/hcbench/algorithms/conjugate"
)

// The reference sequences below were made with R 4.2.2 Patched (2022-11-10 r83330), Debian's
// r-base-core package on x86_64, by calling optimize(g, c(lo, hi), tol = tol, maximum = TRUE)
// where g logs sprintf("%.17g", x) for each x it is called with and returns f(x) (warnings
// suppressed), and printing $maximum and $objective the same way. R's optimize calls f once
// more at the result for $objective, so the last x of each R sequence is the result, and the
// sequence before it is what Brent_fmin evaluated. The functions use only +, −, ×, ÷, abs and
// comparisons, which R and Go round alike, so the comparisons are exact: the points must agree
// bit for bit.

// A case of R's optimize(f, c(lo, hi), tol = tol, maximum = TRUE).
type optimizeCase struct {
	name               string
	f                  func(x float64) float64
	lo, hi, tol        float64
	maximum, objective float64   // optimize's $maximum and $objective
	xs                 []float64 // every x f was called with, the objective's call last
}

// R: -(x - 3.7)^2 / (x + 1)
func rational(x float64) float64 { return -((x - 3.7) * (x - 3.7)) / (x + 1) }

// R: if (x < 4) 0 else -(x - 4)^2
func plateau(x float64) float64 {
	if x < 4 {
		return 0
	}
	return -((x - 4) * (x - 4))
}

// R: -abs(x - 1.7)
func vee(x float64) float64 { return -math.Abs(x - 1.7) }

// R: if (x > 6) NaN else -(x - 5)^2
func nanAbove6(x float64) float64 {
	if x > 6 {
		return math.NaN()
	}
	return -((x - 5) * (x - 5))
}

// curve is a Bioconductor-like log evidence with its top at cc = peak:
// R: -300 - 25 * (cc - peak)^2 / cc.
func curve(peak float64) func(float64) float64 {
	return func(cc float64) float64 { return -300 - 25*((cc-peak)*(cc-peak))/cc }
}

var optimizeCases = []optimizeCase{
	{name: "rational", f: rational, lo: 0.5, hi: 16, tol: 1,
		maximum: 3.8220332743874574, objective: -0.0030883486716744347,
		xs: []float64{6.420473174376629, 10.07952682562337, 4.1590536512467402, 1.2289540177881251,
			4.4923870465548026, 3.2767228497278391, 3.8220332743874574, 3.8220332743874574}},
	{name: "rational tol 1e-6", f: rational, lo: 0.5, hi: 16, tol: 1e-6,
		maximum: 3.7000000101661614, objective: -2.1989539204127835e-17,
		xs: []float64{6.420473174376629, 10.07952682562337, 4.1590536512467402, 1.2289540177881251,
			4.472819010856119, 3.2838948223633135, 2.498977279884647, 3.7201310270447276,
			3.7203157614282891, 3.7017507818021049, 3.5421440076981843, 3.6999489422350309,
			3.6999963694237583, 3.7000000101661614, 3.6999996216985314, 3.7000003986337915,
			3.7000000101661614}},
	{name: "rational default tol", f: rational, lo: 0.5, hi: 16, tol: 0x1p-13, // .Machine$double.eps^0.25
		maximum: 3.6999963694237583, objective: -2.8044880914674377e-12,
		xs: []float64{6.420473174376629, 10.07952682562337, 4.1590536512467402, 1.2289540177881251,
			4.472819010856119, 3.2838948223633135, 2.498977279884647, 3.7201310270447276,
			3.7203157614282891, 3.7017507818021049, 3.5421440076981843, 3.6999489422350309,
			3.6999963694237583, 3.7000371146621673, 3.6999963694237583}},
	{name: "plateau", f: plateau, lo: 0, hi: 10, tol: 1,
		maximum: 2.7568365643690202, objective: 0,
		xs: []float64{3.819660112501051, 6.1803398874989472, 2.3606797749978972, 3.0901699437494741,
			2.7568365643690202, 2.7568365643690202}},
	{name: "plateau tol 1e-4", f: plateau, lo: 0, hi: 10, tol: 1e-4,
		maximum: 2.360724435169856, objective: 0,
		xs: []float64{3.819660112501051, 6.1803398874989472, 2.3606797749978972, 3.0901699437494741,
			2.8115294937452679, 2.6393202250021028, 2.5328890437410623, 2.4671109562589382,
			2.4264578624800213, 2.4013328687768141, 2.3858047687011048, 2.3762078750736064,
			2.3702766686253951, 2.366610981446108, 2.3643454621771842, 2.3629452942668214,
			2.36207994290826, 2.3615451263564582, 2.3612145915496989, 2.3610103098046569,
			2.3608840567429397, 2.3608060280596144, 2.360757803681222, 2.360724435169856,
			2.360724435169856}},
	{name: "vee", f: vee, lo: 0.25, hi: 64, tol: 1,
		maximum: 1.6069975610782725, objective: -0.093002438921727437,
		xs: []float64{24.600333217194201, 39.649666782805795, 15.299333565611594, 9.550999651582611,
			5.9983339140289837, 3.8026657375536281, 2.4456681764753561, 1.6069975610782725,
			1.088670615397084, 1.9403309183577355, 1.6069975610782725}},
	{name: "vee tol 1e-3", f: vee, lo: 0.25, hi: 64, tol: 1e-3,
		maximum: 1.7001734560880875, objective: -0.00017345608808749802,
		xs: []float64{24.600333217194201, 39.649666782805795, 15.299333565611594, 9.550999651582611,
			5.9983339140289837, 3.8026657375536281, 2.4456681764753561, 1.6069975610782725,
			1.088670615397084, 1.729395892652255, 2.0029875598731683, 1.7359034356156497,
			1.6902371635684053, 1.6584424646272049, 1.6868578190104309, 1.7027138998519529,
			1.7129055142140883, 1.7005672669140333, 1.698340159983291, 1.7001734560880875,
			1.6997554006584501, 1.7001734560880875}},
	{name: "NaN above 6", f: nanAbove6, lo: 0, hi: 8, tol: 1e-3,
		maximum: 5, objective: 0,
		xs: []float64{3.0557280900008408, 4.9442719099991583, 6.1114561800016816, 4.2229123600033649,
			5, 4.9996665921608603, 5.0003334078391397, 5}},
	{name: "bracket [0.125, 2]", f: curve(0.3), lo: 0.125, hi: 2, tol: 1,
		maximum: 0.50785292522596159, objective: -302.12673967102614,
		xs: []float64{0.84118627109394706, 1.2838137289060527, 0.50785292522596159, 0.50785292522596159}},
}

// TestBrentMinMatchesR checks that BrentMin on −f evaluates f at exactly the points R's
// optimize(maximum = TRUE) does, in the same order, and returns the same result.
func TestBrentMinMatchesR(t *testing.T) {
	for _, tc := range optimizeCases {
		var xs []float64
		x, fx, err := conjugate.BrentMin(func(x float64) (float64, error) {
			xs = append(xs, x)
			return -tc.f(x), nil
		}, tc.lo, tc.hi, tc.tol)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		n := len(tc.xs) - 1
		if tc.xs[n] != tc.maximum {
			t.Fatalf("%s: the reference's last call %v is not its result %v", tc.name, tc.xs[n], tc.maximum)
		}
		if !slices.Equal(xs, tc.xs[:n]) {
			t.Errorf("%s: evaluated\n%v\nR evaluated\n%v", tc.name, xs, tc.xs[:n])
		}
		if x != tc.maximum || -fx != tc.objective {
			t.Errorf("%s: got %v (f %v), R %v (f %v)", tc.name, x, -fx, tc.maximum, tc.objective)
		}
	}
}

// TestBrentMinErrors checks that BrentMin refuses the intervals and tolerances R's optimize
// refuses and stops at an error from f.
func TestBrentMinErrors(t *testing.T) {
	f := func(x float64) (float64, error) { return x * x, nil }
	for _, c := range [][3]float64{{1, 1, 1}, {2, 1, 1}, {math.Inf(-1), 1, 1}, {0, math.NaN(), 1},
		{0, 1, 0}, {0, 1, -1}, {0, 1, math.Inf(1)}, {0, 1, math.NaN()}} {
		if _, _, err := conjugate.BrentMin(f, c[0], c[1], c[2]); err == nil {
			t.Errorf("BrentMin(f, %v, %v, %v): no error", c[0], c[1], c[2])
		}
	}
	boom := errors.New("boom")
	calls := 0
	if _, _, err := conjugate.BrentMin(func(x float64) (float64, error) {
		if calls++; calls == 3 {
			return 0, boom
		}
		return x * x, nil
	}, -1, 3, 1e-3); !errors.Is(err, boom) || calls != 3 {
		t.Errorf("error %v after %d calls, want boom after 3", err, calls)
	}
}

// TestSearchCCMatchesBioconductor checks SearchCC against Bioconductor BHC's own
// FindOptimalHyperparameter (BHC 1.27.0, the last Bioconductor commit
// 52a5f409b74bfd4394cc5614e7518c22c17b3d87 of R/FindOptimalHyperparameter.R's package, installed
// with R CMD INSTALL in R 4.2.2 as above) run with its RunBhcWrapper replaced, through
// assignInNamespace, by an evidence curve that logs each cc it is called with
// (sprintf("%.17g", cc)). The package's optimize call evaluates the curve once more at its result
// (the last cc of each sequence), which SearchCC does not.
func TestSearchCCMatchesBioconductor(t *testing.T) {
	for _, tc := range []struct {
		name     string
		evidence func(cc float64) float64
		cc, ev   float64   // the package's result and the curve there
		xs       []float64 // every cc the package evaluated, in order
	}{
		{name: "peak 0.3", evidence: curve(0.3), cc: 0.50785292522596159, ev: -302.12673967102614,
			xs: []float64{1, 0.5, 0.25, 0.125, 2, 0.84118627109394706, 1.2838137289060527,
				0.50785292522596159, 0.50785292522596159}},
		{name: "peak 3.7", evidence: curve(3.7), cc: 3.9523937336928681, ev: -300.40293680930864,
			xs: []float64{1, 0.5, 2, 4, 8, 3.3647450843757882, 5.1352549156242109, 2.2705098312484226,
				3.9523937336928681, 4.2857271259214578, 3.9523937336928681}},
		{name: "peak 40", evidence: curve(40), cc: 40.078492211200661, ev: -300.00384310067523,
			xs: []float64{1, 0.5, 2, 4, 8, 16, 32, 64, 24.754841714381673, 39.745158285618317,
				49.009683428763353, 41.686123779162301, 40.078492211200661, 40.411826141750069,
				40.078492211200661}},
		// The best cc evaluated is 2⁻⁸, in the halving; Brent's tolerance 1 on cc leaves it far.
		{name: "peak 0.004", evidence: curve(0.004), cc: 0.43180577539969267, ev: -310.59607072739624,
			xs: []float64{1, 0.5, 0.25, 0.125, 0.0625, 0.03125, 0.015625, 0.0078125, 0.00390625,
				0.001953125, 2, 0.76513912013448737, 1.2368140048655125, 0.43180577539969267,
				0.43180577539969267}},
		// Doubling stops at its 11th step, 2¹¹, though the evidence still improves.
		{name: "peak 5000", evidence: curve(5000), cc: 2047.4873121911216, ev: -106739.37962115556,
			xs: []float64{1, 0.5, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 782.57540803459017,
				1265.9245919654095, 1564.6508160691806, 1775.5739971221985, 1879.6314708022419,
				1943.9425263199564, 1983.6889444822855, 2008.2535818376709, 2023.4353626446145,
				2032.8182191930564, 2038.6171434515581, 2042.2010757414985, 2044.4160677100597,
				2045.7850080314386, 2046.6310596786209, 2047.1539483528175, 2047.4873121911216,
				2047.4873121911216}},
		{name: "peak 1", evidence: curve(1), cc: 1.0729490168751576, ev: -300.12399375411496,
			xs: []float64{1, 0.5, 2, 1.0729490168751576, 1.4270509831248421, 1.0729490168751576}},
		// Equal evidence never stops the halving or the doubling: 11 steps each.
		{name: "flat", evidence: func(float64) float64 { return -100 }, cc: 2047.4264913606505, ev: -100,
			xs: []float64{1, 0.5, 0.25, 0.125, 0.0625, 0.03125, 0.015625, 0.0078125, 0.00390625,
				0.001953125, 0.0009765625, 0.00048828125, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024,
				2048, 782.26669281462375, 1265.7337954666259, 1564.5328973479977, 1749.2008981186282,
				1863.3319992293696, 1933.8688988892586, 1977.4631003401109, 2004.4057985491477,
				2021.0573017909633, 2031.3484967581844, 2037.7088050327789, 2041.6396917254056,
				2044.0691133073735, 2045.5705784180323, 2046.4985348893415, 2047.072043528691,
				2047.4264913606505, 2047.4264913606505}},
		// R: -300 - 25 * (cc - 12)^2 / cc - 4 * abs(cc - 9)
		{name: "kinked", evidence: func(cc float64) float64 {
			return curve(12)(cc) - float64(4*math.Abs(cc-9))
		}, cc: 11.189962096198334, ev: -310.22580823334886,
			xs: []float64{1, 0.5, 2, 4, 8, 16, 32, 12.53192935437831, 19.968070645621687,
				7.9361412912433744, 12.865262874451943, 11.652716615837209, 10.233111163591538,
				11.189962096198334, 10.856628596121572, 11.189962096198334}},
	} {
		var xs []float64
		cc, ev, err := conjugate.SearchCC(func(cc float64) (float64, error) {
			xs = append(xs, cc)
			return tc.evidence(cc), nil
		})
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		n := len(tc.xs) - 1
		if !slices.Equal(xs, tc.xs[:n]) {
			t.Errorf("%s: evaluated\n%v\nBioconductor evaluated\n%v", tc.name, xs, tc.xs[:n])
		}
		if cc != tc.cc || tc.xs[n] != tc.cc || ev != tc.ev {
			t.Errorf("%s: cc %v (evidence %v), Bioconductor %v (%v)", tc.name, cc, ev, tc.cc, tc.ev)
		}
	}
}

package brt_test

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/hcbench/hcbench/algorithms/brt"
	"github.com/hcbench/hcbench/algorithms/conjugate"
)

// pinnedRun is a seeded BRT run whose steps were recorded before issue 15's rewrite of the
// candidate store (mergeheap.Forest with n² candidates): the SHA-256 of its step list
// ("op,a,b,new;" per step; first 16 hex digits) and its root log p(D|T).
type pinnedRun struct {
	steps string
	logP  float64
}

// stepHash returns the first 16 hex digits of the SHA-256 of the step list.
func stepHash(steps []brt.Step) string {
	h := sha256.New()
	for _, s := range steps {
		fmt.Fprintf(h, "%d,%d,%d,%d;", s.Op, s.A, s.B, s.New)
	}
	return hex.EncodeToString(h.Sum(nil))[:16]
}

// pinnedModel returns the data set of a pinned run: Gaussian data (NIW, g = 10) or binary data
// of 5 features (Beta-Bernoulli), whose many repeated rows make ties for the tie rule.
func pinnedModel(t *testing.T, kind string, n int) conjugate.Model {
	rng := rand.New(rand.NewPCG(uint64(n), 15))
	if kind == "gauss" {
		return niw(t, gaussian(rng, n, 3, 4, 3), 10)
	}
	x := binary(rng, n, 5)
	a, b := conjugate.BernoulliFromData(x, 1)
	m, err := conjugate.NewBernoulli(x, a, b)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// pinned holds the runs of TestPinnedSteps as BRT made them before the rewrite.
var pinned = map[string]pinnedRun{
	"gauss/n=50/γ=0.5/join-only=false":  {"145206c223a2fdbd", -270.3246312311651},
	"gauss/n=50/γ=0.1/join-only=false":  {"a78b7617524e3d32", -271.31306365035664},
	"gauss/n=50/γ=0.5/join-only=true":   {"fbe3a342cb761c29", -272.9884932100387},
	"bern/n=50/γ=0.5/join-only=false":   {"7210f642ecc23786", -85.09160562590199},
	"bern/n=50/γ=0.1/join-only=false":   {"bc839472483a3c34", -92.70228613846167},
	"bern/n=50/γ=0.5/join-only=true":    {"7347161e7c494177", -88.5403107416543},
	"gauss/n=200/γ=0.5/join-only=false": {"70dd98af88495711", -837.1821565907003},
	"gauss/n=200/γ=0.1/join-only=false": {"c6aa9c392144eea9", -830.6915351871398},
	"gauss/n=200/γ=0.5/join-only=true":  {"01ed8ac82ca1a079", -848.0388957393825},
	"bern/n=200/γ=0.5/join-only=false":  {"f28db855f2a982b7", -192.36921495688563},
	"bern/n=200/γ=0.1/join-only=false":  {"546441f910de8c8b", -194.23878424975976},
	"bern/n=200/γ=0.5/join-only=true":   {"11a8091eeef43217", -200.34979648025325},
	"gauss/n=500/γ=0.5/join-only=false": {"04a04c043ccba286", -1560.9638940562168},
	"gauss/n=500/γ=0.1/join-only=false": {"6a4a4a07e7c7c3b7", -1584.7276298882143},
	"gauss/n=500/γ=0.5/join-only=true":  {"e09c6085a7e0bc51", -1587.5947005677042},
	"bern/n=500/γ=0.5/join-only=false":  {"d06ff00a6a119359", -255.78938527646022},
	"bern/n=500/γ=0.1/join-only=false":  {"93e9843255322c4e", -265.39494458270406},
	"bern/n=500/γ=0.5/join-only=true":   {"6fa6f45dc8e4bb1b", -269.3060001184101},
}

// TestPinnedSteps checks that BRT makes the steps it made before the rewrite, on Gaussian and
// binary data at n = 50, 200 and 500, for γ = 0.5 and 0.1 and join-only: the same steps, and the
// root log p(D|T) to 1e-12 relative. On amd64 the values are the pinned ones bit for bit
// (checked when they were pinned from the code at commit 737a59e, and after the rewrite); the
// tolerance allows for the fused multiply-adds that Go makes on arm64 and others.
func TestPinnedSteps(t *testing.T) {
	for _, n := range []int{50, 200, 500} {
		for _, kind := range []string{"gauss", "bern"} {
			m := pinnedModel(t, kind, n)
			for _, o := range []brt.Options{{Gamma: 0.5}, {Gamma: 0.1}, {Gamma: 0.5, JoinOnly: true}} {
				name := fmt.Sprintf("%s/n=%d/γ=%g/join-only=%t", kind, n, o.Gamma, o.JoinOnly)
				t.Run(name, func(t *testing.T) {
					r := run(t, m, o)
					got := pinnedRun{stepHash(r.Steps), r.LogEvidence()}
					want, ok := pinned[name]
					if !ok {
						t.Errorf("no pinned run; got %q: {%q, %v},", name, got.steps, got.logP)
						return
					}
					if got.steps != want.steps {
						t.Errorf("steps hash %s, pinned %s", got.steps, want.steps)
					}
					if d := math.Abs(got.logP - want.logP); !(d <= 1e-12*math.Abs(want.logP)) {
						t.Errorf("root log p(D|T) %.17g, pinned %.17g", got.logP, want.logP)
					}
				})
			}
		}
	}
}

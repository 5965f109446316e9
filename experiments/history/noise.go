package history

import (
	"fmt"
	"math"
)

// Noise labels. A timing series is noisy when its run-to-run spread is too large for the gate to
// resolve the smallest slowdown it flags: then one night's noise alone would read as a step, and
// `history -check` does not gate on its times (its counters and quality still gate).
//
// The spread is σ̂ of the natural log of the series' values (a group's median task time per
// run) over the NoiseWindow runs before its latest: the lower median of the absolute
// differences between successive runs' logs, over noiseScale (Noise), as the step fit estimates
// its noise. On the log scale a spread is relative (0.02: about 2 % per run), and a step in the
// window, or one noisy night, moves one difference only, so that a real slowdown does not make
// its own series noisy. The latest run is left out, so that the run under test cannot set the
// label under which it is judged.
//
// The resolvable effect E is the time's tolerance (TimeToleranceIn: 5 %, or the `time` threshold
// where larger), and the series is noisy when
//
//	NoiseZ·σ̂ > ln(1 + E),
//
// that is when E is less than NoiseZ = 3 standard deviations of the night-to-night noise: at
// 3σ, a night of Gaussian noise crosses E upwards with probability 0.13 %, and among 40 timing
// series (configs/nightly.yaml's) some series does in about 5 % of nights, which is the
// false-alarm rate the gate may have.

// NoiseWindow is the number of runs before the latest that a timing series' spread is over.
const NoiseWindow = 10

// NoiseMinRuns is the fewest runs before the latest from which a spread is estimated; with
// fewer, the label is unknown and the gate does not decide on the series' times.
const NoiseMinRuns = 5

// NoiseZ is how many standard deviations of the run-to-run spread the resolvable effect must
// span for a series not to be noisy.
const NoiseZ = 3

// TimeNoise is the noise label of a timing series.
type TimeNoise struct {
	// Runs counts the runs the spread is over (the last NoiseWindow before the latest, with a
	// positive time); Known says there were at least NoiseMinRuns.
	Runs  int
	Known bool
	// Spread is σ̂ of the log of the median time per run (relative: 0.02 is about 2 %).
	Spread float64
	// Effect is the least relative slowdown the gate resolves (0.05: 5 %).
	Effect float64
	// Noisy: NoiseZ·Spread > ln(1 + Effect).
	Noisy bool
}

// TimeNoiseOf labels a timing series of values y in run order, the latest last, whose gate
// resolves a slowdown of effect (a fraction).
func TimeNoiseOf(y []float64, effect float64) TimeNoise {
	n := TimeNoise{Effect: effect}
	if len(y) < 2 {
		return n
	}
	before := y[max(0, len(y)-1-NoiseWindow) : len(y)-1]
	var logs []float64
	for _, v := range before {
		if v > 0 && !math.IsInf(v, 0) {
			logs = append(logs, math.Log(v))
		}
	}
	n.Runs = len(logs)
	if n.Runs < NoiseMinRuns {
		return n
	}
	n.Known = true
	n.Spread = Noise(logs)
	n.Noisy = n.Spread > n.Limit()
	return n
}

// Limit is the largest spread of a series that is not noisy: ln(1 + Effect)/NoiseZ.
func (n TimeNoise) Limit() float64 { return math.Log1p(n.Effect) / NoiseZ }

// Why says the label and its reason in a line: "noisy: spread 4.1 % per run over the last 10
// runs > 1.6 %, a third of the 5 % slowdown the gate resolves".
func (n TimeNoise) Why() string {
	switch {
	case !n.Known:
		return fmt.Sprintf("noise unknown: %d runs before the latest, %d needed to estimate the spread", n.Runs, NoiseMinRuns)
	case n.Noisy:
		return fmt.Sprintf("noisy: spread %.2g %% per run over the last %d runs > %.2g %%, 1/%d of the %.3g %% slowdown the gate resolves; its times are not gated",
			100*n.Spread, n.Runs, 100*n.Limit(), NoiseZ, 100*n.Effect)
	}
	return fmt.Sprintf("quiet: spread %.2g %% per run over the last %d runs ≤ %.2g %%, 1/%d of the %.3g %% slowdown the gate resolves",
		100*n.Spread, n.Runs, 100*n.Limit(), NoiseZ, 100*n.Effect)
}

package main

import (
	"cmp"
	"context"
	"fmt"
	"path/filepath"
	"runtime"
	"slices"
	"sync"

	"github.com/hcbench/hcbench/experiments/compare"
	"github.com/hcbench/hcbench/experiments/metric"
	"github.com/hcbench/hcbench/experiments/results"
	"github.com/hcbench/hcbench/experiments/rundir"
)

// A setting is one candidate configuration of the gate's time test.
type setting struct {
	Test      string  // compare.Options.TimeTest
	Alpha     float64 // compare.Options.Alpha
	Threshold float64 // the time threshold: the minimum relative slowdown
	K         int     // -count: the first K repetitions of each record
}

// A measuredRun is one run of a measurement: round i's baseline or planted run.
type measuredRun struct {
	name    string
	planted bool
	round   int
	data    compare.Run
}

// Kinds of pair. An A/A pair's runs ran the same binary with the same environment; a planted
// pair's OLD is a baseline run and its NEW a planted one.
const (
	aaBaseline      = "A/A baseline"      // (b_i, b_i+1)
	aaPlanted       = "A/A planted"       // (p_i, p_i+1): every row slowed alike in both
	plantedForward  = "planted"           // (b_i, p_i)
	plantedBackward = "planted, reversed" // (b_i+1, p_i): the planted run ran first
)

// A pair is two runs compared as OLD and NEW.
type pair struct {
	kind     string
	old, new *measuredRun
}

// isAA reports whether the pair is an A/A pair.
func (p pair) isAA() bool { return p.kind == aaBaseline || p.kind == aaPlanted }

// pairsOf forms the pairs of runs in round order (b00 p00 b01 p01 …): consecutive runs of one
// kind are A/A pairs, and every planted run is paired with the baseline runs before and after
// it. Pairs share runs (a run is in up to two A/A and two planted pairs), so that 2n runs give
// 2(n−1) A/A pairs and 2n−1 planted pairs: the counts are not independent trials, but each
// pair's runs are as far apart as two nights' (one run between them), and a drift of the
// machine over the measurement falls on baseline and planted runs alike.
func pairsOf(runs []*measuredRun) []pair {
	byRound := map[bool][]*measuredRun{}
	for _, r := range runs {
		byRound[r.planted] = append(byRound[r.planted], r)
	}
	b, p := byRound[false], byRound[true]
	var out []pair
	for i := 0; i+1 < len(b); i++ {
		out = append(out, pair{aaBaseline, b[i], b[i+1]})
	}
	for i := 0; i+1 < len(p); i++ {
		out = append(out, pair{aaPlanted, p[i], p[i+1]})
	}
	for i := range p {
		if i < len(b) {
			out = append(out, pair{plantedForward, b[i], p[i]})
		}
		if i+1 < len(b) {
			out = append(out, pair{plantedBackward, b[i+1], p[i]})
		}
	}
	return out
}

// firstRepetitions returns the run with each record's times cut to its first k repetitions
// (records keep them in repetition order), as if it had run with -count k.
func firstRepetitions(r compare.Run, k int) compare.Run {
	recs := make([]results.Record, len(r.Records))
	for i, rec := range r.Records {
		if len(rec.Times) > k {
			rec.Times = rec.Times[:k:k]
			rec.Seconds = results.Median(rec.Times)
		}
		recs[i] = rec
	}
	return compare.Run{Manifest: r.Manifest, Records: recs}
}

// plantedRow is what one setting says of one planted row in one pair.
type plantedRow struct {
	Flagged bool
	Ratio   float64 // new median / old median
	Effect  float64 // compare.Time.Effect
	P       float64
}

// An outcome is one setting's verdict on one pair: the timing rows it flags (data set/label),
// and the planted rows by label.
type outcome struct {
	pair    int
	flagged []string
	planted map[string]plantedRow
	// timeNote is compare's reason why no time can regress between the pair's runs, if any.
	timeNote string
}

// A measurement is a directory's runs, pairs and every setting's outcomes.
type measurement struct {
	dir      string
	plan     plan
	runs     []*measuredRun
	pairs    []pair
	settings []setting
	outcomes map[setting][]outcome
	host     string
	cpus     int
	revision string
	start    string
}

// label names the measurement's condition.
func (m *measurement) label() string {
	if m.plan.Load == 0 {
		return "no added load"
	}
	return fmt.Sprintf("load %d", m.plan.Load)
}

// analyse reads each measurement directory's runs and evaluates every setting of g on every
// pair.
func analyse(ctx context.Context, dirs []string, g grid) ([]*measurement, error) {
	var out []*measurement
	k := 0
	for i, dir := range dirs {
		m, err := load(ctx, dir)
		if err != nil {
			return nil, err
		}
		if i == 0 || m.kmax() < k {
			k = m.kmax()
		}
		out = append(out, m)
	}
	// Every measurement is evaluated at the same settings, so that a table row and the
	// recommendation speak of all of them: K up to the fewest repetitions any has.
	for _, m := range out {
		m.evaluate(g, k)
	}
	return out, nil
}

// load reads a measurement's plan and its complete runs (an unfinished measurement is analysed
// over the rounds it finished: a round without both runs is left out).
func load(ctx context.Context, dir string) (*measurement, error) {
	p, err := readPlan(dir)
	if err != nil {
		return nil, err
	}
	m := &measurement{dir: dir, plan: p}
	for i := range p.Rounds {
		for _, pl := range []bool{false, true} {
			d := filepath.Join(dir, runName(i, pl))
			if !complete(d) {
				continue
			}
			man, recs, err := rundir.Open(ctx, d)
			if err != nil {
				return nil, err
			}
			m.runs = append(m.runs, &measuredRun{name: runName(i, pl), planted: pl, round: i, data: compare.Run{Manifest: man, Records: recs}})
			if m.host == "" {
				m.host, m.cpus, m.revision, m.start = man.Host, man.CPUs, man.Revision, man.Start.UTC().Format("2006-01-02")
			}
		}
	}
	m.pairs = pairsOf(m.runs)
	if len(m.pairs) == 0 {
		return nil, fmt.Errorf("%s: no pair of complete runs yet", dir)
	}
	return m, nil
}

// kmax is the most repetitions every run has.
func (m *measurement) kmax() int {
	k := m.plan.KMax
	for _, r := range m.runs {
		for _, rec := range r.data.Records {
			if rec.Error == "" {
				k = min(k, len(rec.Timings()))
			}
		}
	}
	return k
}

// evaluate compares every pair under every setting of g and K = 1 … kmax.
func (m *measurement) evaluate(g grid, kmax int) {
	m.outcomes = map[setting][]outcome{}
	for k := 1; k <= kmax; k++ {
		cut := map[*measuredRun]compare.Run{}
		for _, r := range m.runs {
			cut[r] = firstRepetitions(r.data, k)
		}
		for _, test := range g.tests {
			for _, alpha := range g.alphas {
				for _, th := range g.threshold {
					s := setting{Test: test, Alpha: alpha, Threshold: th, K: k}
					m.settings = append(m.settings, s)
					out := make([]outcome, len(m.pairs))
					var wg sync.WaitGroup
					sem := make(chan struct{}, runtime.NumCPU())
					for i, p := range m.pairs {
						wg.Add(1)
						sem <- struct{}{}
						go func() {
							defer func() { <-sem; wg.Done() }()
							out[i] = judge(i, cut[p.old], cut[p.new], s)
						}()
					}
					wg.Wait()
					m.outcomes[s] = out
				}
			}
		}
	}
}

// judge compares OLD and NEW under s.
func judge(i int, old, new compare.Run, s setting) outcome {
	res := compare.Compare(old, new, compare.Options{
		Thresholds: results.Thresholds{metric.Time: s.Threshold},
		TimeTest:   s.Test,
		Alpha:      s.Alpha,
	})
	o := outcome{pair: i, planted: map[string]plantedRow{}, timeNote: res.TimeNote}
	for _, r := range res.Rows {
		if r.TimeRegressed() {
			o.flagged = append(o.flagged, r.Dataset+"/"+r.Algorithm)
		}
		if r.Dataset == plantedDataset && slices.ContainsFunc(planted, func(l level) bool { return l.label == r.Algorithm }) {
			o.planted[r.Algorithm] = plantedRow{Flagged: r.TimeRegressed(), Ratio: r.Time.Ratio, Effect: r.Time.Effect, P: r.Time.P}
		}
	}
	return o
}

// A tally is one setting's counts over a measurement's pairs.
type tally struct {
	AA, AAFlagged int
	// Planted counts the planted pairs, Detected[l] those in which planted[l]'s row is flagged.
	Planted  int
	Detected []int
}

func (m *measurement) tally(s setting) tally {
	t := tally{Detected: make([]int, len(planted))}
	for _, o := range m.outcomes[s] {
		if m.pairs[o.pair].isAA() {
			t.AA++
			if len(o.flagged) > 0 {
				t.AAFlagged++
			}
			continue
		}
		t.Planted++
		for l, lv := range planted {
			if o.planted[lv.label].Flagged {
				t.Detected[l]++
			}
		}
	}
	return t
}

// The aims of the gate: fewer than 1 A/A pair in aaLimit flags anything, and a slowdown of
// planted[aimLevel] is flagged in at least aimDetect of aimOf planted pairs.
const (
	aaLimit   = 20
	aimLevel  = 1 // spin10
	aimDetect = 19
	aimOf     = 20
)

// falseAlarmsOK and detects report whether a tally meets each aim.
func (t tally) falseAlarmsOK() bool { return t.AA > 0 && t.AAFlagged*aaLimit < t.AA }
func (t tally) detects() bool {
	return t.Planted > 0 && t.Detected[aimLevel]*aimOf >= aimDetect*t.Planted
}

// recommend picks the setting with the smallest K, then the smallest threshold, that meets both
// aims in every measurement (ties: more 5 % detections, then fewer A/A alarms, then grid
// order). When none does, ok is false and why says what is best and what stops it.
func recommend(ms []*measurement) (best setting, ok bool, why string) {
	settings := ms[0].settings
	worst := func(s setting) (aa float64, det float64, det5 float64) {
		aa, det, det5 = 0, 1, 1
		for _, m := range ms {
			t := m.tally(s)
			aa = max(aa, frac(t.AAFlagged, t.AA))
			det = min(det, frac(t.Detected[aimLevel], t.Planted))
			det5 = min(det5, frac(t.Detected[0], t.Planted))
		}
		return
	}
	var qualified []setting
	for _, s := range settings {
		good := true
		for _, m := range ms {
			t := m.tally(s)
			good = good && t.falseAlarmsOK() && t.detects()
		}
		if good {
			qualified = append(qualified, s)
		}
	}
	if len(qualified) > 0 {
		slices.SortStableFunc(qualified, func(a, b setting) int {
			if a.K != b.K {
				return a.K - b.K
			}
			if a.Threshold != b.Threshold {
				return cmp.Compare(a.Threshold, b.Threshold)
			}
			aaA, _, d5A := worst(a)
			aaB, _, d5B := worst(b)
			if d5A != d5B {
				return cmp.Compare(d5B, d5A)
			}
			return cmp.Compare(aaA, aaB)
		})
		return qualified[0], true, ""
	}
	// None meets both: the best 10 % detection among the settings quiet enough in A/A, else the
	// quietest setting.
	quiet := slices.DeleteFunc(slices.Clone(settings), func(s setting) bool {
		for _, m := range ms {
			if !m.tally(s).falseAlarmsOK() {
				return true
			}
		}
		return false
	})
	if len(quiet) > 0 {
		best = slices.MaxFunc(quiet, func(a, b setting) int { _, da, _ := worst(a); _, db, _ := worst(b); return cmp.Compare(da, db) })
		_, d, _ := worst(best)
		return best, false, fmt.Sprintf("no setting meets both aims: the settings with fewer than 1 A/A pair in %d flagged detect a 10 %% slowdown in at most %.0f %% of planted pairs (the aim is %d in %d)", aaLimit, 100*d, aimDetect, aimOf)
	}
	best = slices.MinFunc(settings, func(a, b setting) int { aa, _, _ := worst(a); ab, _, _ := worst(b); return cmp.Compare(aa, ab) })
	aa, _, _ := worst(best)
	return best, false, fmt.Sprintf("no setting has fewer than 1 A/A pair in %d flagged: the least is %.0f %% of A/A pairs, where two runs of one binary differ on some row by more than every threshold tried", aaLimit, 100*aa)
}

func frac(n, of int) float64 {
	if of == 0 {
		return 0
	}
	return float64(n) / float64(of)
}

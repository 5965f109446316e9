package compare

import (
	"bytes"
	"maps"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/hcbench/hcbench/experiments/results"
)

// withCounters gives every record of r the counters splits = 100·(1+i) + a and subsets = 10
// (i the item's index, a the algorithm's), fresh maps so that a clone edits its own.
func withCounters(r Run) Run {
	for i := range r.Records {
		x := &r.Records[i]
		x.Counters = map[string]int64{"splits": 100*int64(1+len(x.Item)) + int64(len(x.Algorithm)), "subsets": 10}
	}
	return r
}

func cloneCounters(r Run) Run {
	out := clone(r)
	for i := range out.Records {
		out.Records[i].Counters = maps.Clone(out.Records[i].Counters)
	}
	return out
}

// TestCounters: a rise of one counter by one unit on one item is a regression at the default
// threshold 0 (any rise), named with the totals and the item; a fall is a change, not a
// regression; a threshold above the relative rise accepts it; identical counters say how many
// are unchanged and nothing else.
func TestCounters(t *testing.T) {
	old := withCounters(baseRun())
	same := Compare(old, cloneCounters(old), Options{Thresholds: defaults})
	wantRegressions(t, same)
	if c := row(t, same, "jets", "greedy").Counters; len(c) != 2 || c[0].Key != "splits" || c[0].Items != 4 || c[0].Old != 4*(200+6) || len(c[0].Differ) != 0 {
		t.Errorf("counters %+v", c)
	}
	out := text(t, same)
	if n := strings.Count(out, "work counters"); n != 6 { // a line per row
		t.Errorf("%d \"work counters\" lines, want 6:\n%s", n, out)
	}
	if !strings.Contains(out, "all 2 unchanged") || strings.Contains(out, "counters.splits") {
		t.Errorf("output of equal counters:\n%s", out)
	}

	new := cloneCounters(old)
	find(t, new, key("jets", "3", "greedy")).Counters["splits"]++
	res := Compare(old, new, Options{Thresholds: defaults})
	wantRegressions(t, res, []string{"jets/greedy: counters.splits rose by 1 (824 → 825 over 4 items; item 3: 206 → 207; any rise, exact: any change is a change)"})
	fs := res.Findings()
	if len(fs) != 1 || fs[0].String() != "regression counters.splits jets/greedy 824 → 825 (+1, any rise; item 3: 206 → 207)" || Decide(fs) != Regressed {
		t.Errorf("findings %q", fs)
	}
	out = squash(text(t, res))
	for _, s := range []string{"counters.splits (4) 824 825 +1 REGRESSION (any rise; exact, not noise); item 3: 206 → 207", "the other 1 unchanged", "counters any rise"} {
		if !strings.Contains(out, s) {
			t.Errorf("output lacks %q:\n%s", s, out)
		}
	}

	// 1/824 = 0.12%: within a threshold of 0.2%, beyond one of 0.1%.
	for lim, regs := range map[float64]int{0.002: 0, 0.001: 1} {
		th := maps.Clone(defaults)
		th["counters"] = lim
		if got := Compare(old, new, Options{Thresholds: th}).Regressions(); len(got) != regs {
			t.Errorf("threshold %g: regressions %q, want %d", lim, got, regs)
		}
	}

	// A fall is a change, better, not a regression.
	find(t, new, key("jets", "3", "greedy")).Counters["splits"] -= 2
	res = Compare(old, new, Options{Thresholds: defaults})
	wantRegressions(t, res)
	if out := squash(text(t, res)); !strings.Contains(out, "-1 fell (better); item 3: 206 → 205") {
		t.Errorf("output of a fall:\n%s", out)
	}

	// A counter one run lacks on an item is left out of that item's total.
	delete(find(t, new, key("jets", "3", "greedy")).Counters, "splits")
	if c := row(t, Compare(old, new, Options{Thresholds: defaults}), "jets", "greedy").Counters[0]; c.Items != 3 || c.Old != c.New {
		t.Errorf("counter missing on an item: %+v", c)
	}
}

// TestFindingsForms checks the plain-text and Markdown forms of a gate's findings and the
// verdict of each mix.
func TestFindingsForms(t *testing.T) {
	reg := Finding{Metric: "counters.splits", Dataset: "qcd", Algorithm: "trellis", Old: "1234", New: "1235", Figure: "+1, any rise"}
	und := Finding{Undecided: true, Figure: "the config hashes differ (old a, new b): different configs"}
	fail := Finding{Undecided: true, Metric: FailureMetric, Dataset: "qcd", Algorithm: "b|hc", Figure: "1 task failed in both runs"}
	for _, c := range []struct {
		fs   []Finding
		v    Verdict
		text string
	}{
		{nil, Pass, "check: pass (nothing regressed)\n"},
		{[]Finding{und, fail}, Undecided, "undecided: the config hashes differ (old a, new b): different configs\nundecided task qcd/b|hc (1 task failed in both runs)\ncheck: undecided (2 undecided)\n"},
		{[]Finding{und, reg}, Regressed, "regression counters.splits qcd/trellis 1234 → 1235 (+1, any rise)\nundecided: the config hashes differ (old a, new b): different configs\ncheck: regressed (1 regression, 1 undecided)\n"},
	} {
		if v := Decide(c.fs); v != c.v {
			t.Errorf("%v: verdict %v, want %v", c.fs, v, c.v)
		}
		var b bytes.Buffer
		if err := WriteFindingsText(&b, c.fs); err != nil || b.String() != c.text {
			t.Errorf("text:\n%s\nwant:\n%s", b.String(), c.text)
		}
	}
	var b bytes.Buffer
	if err := WriteFindingsMarkdown(&b, "hcbench compare -check", []Finding{und, reg, fail}); err != nil {
		t.Fatal(err)
	}
	want := "### hcbench compare -check: regressed\n\n1 regression, 2 undecided.\n\n" +
		"| finding | metric | data set | algorithm | old | new | figure |\n|---|---|---|---|---|---|---|\n" +
		"| regression | `counters.splits` | qcd | trellis | 1234 | 1235 | +1, any rise |\n" +
		"| undecided |  |  |  |  |  | the config hashes differ (old a, new b): different configs |\n" +
		"| undecided | `task` | qcd | b\\|hc |  |  | 1 task failed in both runs |\n"
	if b.String() != want {
		t.Errorf("markdown:\n%s\nwant:\n%s", b.String(), want)
	}
	b.Reset()
	if WriteFindingsMarkdown(&b, "hcbench compare -check", nil); b.String() != "### hcbench compare -check: pass\n\nNothing regressed.\n" {
		t.Errorf("markdown of a pass:\n%s", b.String())
	}
}

// TestFindingsUndecided: each thing that keeps the gate from deciding is an undecided finding,
// and nothing else is.
func TestFindingsUndecided(t *testing.T) {
	old := baseRun()
	old.Manifest.DataFiles = []results.DataFile{{Dataset: "iris", File: "iris.csv", SHA256: "aa", Bytes: 10}}
	base := clone(old)
	if fs := Compare(old, base, Options{Thresholds: defaults}).Findings(); len(fs) != 0 {
		t.Fatalf("A/A findings %v", fs)
	}
	for _, c := range []struct {
		name string
		edit func(o, n *Run)
		want string
	}{
		{"config", func(o, n *Run) { n.Manifest.ConfigHash = "bbbbbbbbbbbbbbbb" }, "undecided: the config hashes differ (old aaaaaaaaaaaa, new bbbbbbbbbbbb): different configs"},
		{"data", func(o, n *Run) {
			n.Manifest.DataFiles = []results.DataFile{{Dataset: "iris", File: "iris.csv", SHA256: "bb", Bytes: 10}}
		}, "undecided: different data: data set iris: iris.csv has changed"},
		{"failed in both", func(o, n *Run) {
			find(t, *o, key("iris", "2", "bhc")).Error = "boom"
			find(t, *n, key("iris", "2", "bhc")).Error = "boom"
		}, "undecided task iris/bhc (1 task failed in both runs)"},
		{"fixed", func(o, n *Run) { find(t, *o, key("iris", "2", "bhc")).Error = "boom" }, "undecided task iris/bhc (1 task failed in OLD and succeed in NEW"},
		{"unfinished NEW", func(o, n *Run) { n.Manifest.Status = results.StatusInterrupted }, "undecided: NEW did not finish"},
		{"unfinished OLD", func(o, n *Run) { o.Manifest.Status = results.StatusInterrupted }, "undecided: OLD did not finish"},
		{"missing tasks", func(o, n *Run) { n.Records = n.Records[1:] }, "undecided: 1 task of OLD is missing from NEW"},
	} {
		o, n := old, clone(old)
		o.Records = clone(old).Records
		c.edit(&o, &n)
		fs := Compare(o, n, Options{Thresholds: defaults}).Findings()
		if len(fs) != 1 || !strings.HasPrefix(fs[0].String(), c.want) || Decide(fs) != Undecided {
			t.Errorf("%s: findings %q, want one starting %q", c.name, fs, c.want)
		}
	}
	// A new failure is a regression, not undecided.
	n := clone(old)
	find(t, n, key("iris", "2", "bhc")).Error = "boom"
	if fs := Compare(old, n, Options{Thresholds: defaults}).Findings(); len(fs) != 1 || fs[0].String() != "regression task iris/bhc ok → error (task "+key("iris", "2", "bhc")+": boom)" {
		t.Errorf("new failure: %q", fs)
	}
}

// squash replaces each run of spaces with one, so that a test need not know the table's padding.
func squash(s string) string {
	return regexp.MustCompile(` +`).ReplaceAllString(s, " ")
}

// TestDocExample: the example of the plain-text findings in docs/nightly.md is what the gate
// prints for baseRun with one counter raised by one unit, a task of bhc failed in both runs and
// the config hash changed.
func TestDocExample(t *testing.T) {
	old := withCounters(baseRun())
	new := cloneCounters(old)
	new.Manifest.ConfigHash = "bbbbbbbbbbbbbbbb"
	find(t, new, key("jets", "3", "greedy")).Counters["splits"]++
	find(t, old, key("iris", "2", "bhc")).Error = "out of memory"
	find(t, new, key("iris", "2", "bhc")).Error = "out of memory"
	var b bytes.Buffer
	if err := WriteFindingsText(&b, Compare(old, new, Options{Thresholds: defaults}).Findings()); err != nil {
		t.Fatal(err)
	}
	doc, err := os.ReadFile("../../docs/nightly.md")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(doc), "```\n"+b.String()+"```\n") {
		t.Errorf("docs/nightly.md lacks the example\n%s", b.String())
	}
}

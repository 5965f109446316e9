package main

import (
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hcbench/hcbench/datasets/datadir/datatest"
	"github.com/hcbench/hcbench/internal/docregion"
)

// cheapConfigs are the shipped configs that TestDocumentedNumbers runs: each takes about a second.
var cheapConfigs = []string{"quickstart", "pam50", "bhc-digits", "bhc-purity", "brt-evidence"}

// TestDocumentedNumbers runs the cheap configs in this process and renders every region that
// depends only on them and not on the machine: the documentation must say exactly what the runs
// give. A change of the code that moves a documented number fails here until
// `go run ./internal/docnumbers -only REGION` writes the new one.
func TestDocumentedNumbers(t *testing.T) {
	if testing.Short() {
		t.Skip("runs five configs")
	}
	// The data the cheap configs read: pam50 and two UCI sets.
	for _, f := range []string{"pam50/220arrays_nonUBCcommon+12normal_50g.txt", "uci/digits.csv.gz", "uci/iris.csv", "uci/wine_data.csv"} {
		datatest.Path(t, f)
	}
	root, pages := modulePages(t)
	var regions []region
	for _, name := range regionNames(regionTable()) {
		r := regionTable()[name]
		if !r.machine && len(r.configs) > 0 && subset(r.configs, cheapConfigs) {
			regions = append(regions, r)
		}
	}
	if len(regions) < 8 {
		t.Fatalf("only %d regions depend on the cheap configs alone; the test would check little", len(regions))
	}
	configs, _ := needs(regions)
	c := &configRunner{root: root, data: datatest.Dir(t), workDir: t.TempDir()}
	e := &env{runs: map[string]*configRun{}, machine: thisMachine(time.Now())}
	for _, name := range configs {
		run, err := c.run(t.Context(), name)
		if err != nil {
			t.Fatal(err)
		}
		e.runs[name] = run
	}
	texts, err := render(e, regions)
	if err != nil {
		t.Fatal(err)
	}
	if diffs := differences(pages, texts); len(diffs) > 0 {
		var names []string
		for _, r := range regions {
			names = append(names, r.name)
		}
		t.Errorf("the documentation does not say what the runs give (go run ./internal/docnumbers -only '^(%s)$' rewrites it):\n%s",
			strings.Join(names, "|"), strings.Join(diffs, "\n"))
	}
}

func subset(a, b []string) bool {
	for _, x := range a {
		if !slices.Contains(b, x) {
			return false
		}
	}
	return true
}

// TestDifferencesFindAChangedNumber: one digit changed in one documented region is reported, with
// its page, line and both texts; the unchanged pages are not.
func TestDifferencesFindAChangedNumber(t *testing.T) {
	text := "intro\n<!-- begin numbers:t -->\n| a | 0.42 ± 0.51 |\n<!-- end numbers:t -->\nBeam reaches <!-- numbers:p -->37 %<!-- /numbers --> of jets.\n"
	spans, err := docregion.Parse("docs/x.md", text)
	if err != nil {
		t.Fatal(err)
	}
	pages := []page{{file: "docs/x.md", text: text, spans: spans}}
	same := map[string]string{"t": "| a | 0.42 ± 0.51 |", "p": "37 %"}
	if d := differences(pages, same); len(d) != 0 {
		t.Fatalf("unchanged regions reported: %q", d)
	}
	for name, changed := range map[string]map[string]string{
		"t": {"t": "| a | 0.43 ± 0.51 |", "p": "37 %"},
		"p": {"t": "| a | 0.42 ± 0.51 |", "p": "38 %"},
	} {
		d := differences(pages, changed)
		if len(d) != 1 || !strings.Contains(d[0], "numbers:"+name) || !strings.Contains(d[0], "docs/x.md:") {
			t.Errorf("a change of %s: reported %q", name, d)
		}
	}
}

// TestRegionsAreUsed: every region of the table is on a page, and every region a page names is
// in the table.
func TestRegionsAreUsed(t *testing.T) {
	_, pages := modulePages(t)
	if err := checkNames(pages, regionTable()); err != nil {
		t.Error(err)
	}
}

// timeClaim finds what reads as a measured time or memory in prose: "82 s", "0.29 s", "about 8
// seconds", "189 MB", "4.7 CPU-seconds".
var timeClaim = regexp.MustCompile(`\b\d+(\.\d+)?[  –-]?(ms|µs|ns|s|seconds?|minutes?|CPU-s|CPU-seconds|MB|GB|MiB|GiB)\b`)

// allowedTimes are times in the documentation that are settings, limits or examples, not
// measurements: a threshold, a timeout, a fuzzing budget, a reader's bound.
var allowedTimes = regexp.MustCompile(`(?i)(timeout|-fuzztime|fuzz target for|threshold|at least \d+ ms|5 % and 1 ms|1 ms\b|60s|2m|1h30m|limit|at most|bytes|a guess of|longer than|may hold|manifest|results line|TSV line|gzip data|config file)`)

// TestNoTimeClaimsOutsideRegions: a measured time or memory in the README, docs/ or a config's
// comments stands inside a region, so that the script writes it from a run. Code blocks (commands,
// example output) and settings are not claims.
func TestNoTimeClaimsOutsideRegions(t *testing.T) {
	root, err := moduleRoot()
	if err != nil {
		t.Fatal(err)
	}
	files, _ := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	configs, _ := filepath.Glob(filepath.Join(root, "configs", "*.yaml"))
	files = append(append([]string{filepath.Join(root, "README.md")}, files...), configs...)
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		rel, _ := filepath.Rel(root, f)
		yaml := strings.HasSuffix(f, ".yaml")
		fence, block := false, false
		for i, l := range strings.Split(string(b), "\n") {
			switch {
			case strings.HasPrefix(strings.TrimSpace(l), "```"):
				fence = !fence
				continue
			}
			if begin, end := docregion.IsBlockMarker(l); begin || end {
				block = begin
				continue
			}
			if fence || block {
				continue
			}
			if yaml {
				_, comment, ok := strings.Cut(l, "#")
				if !ok {
					continue
				}
				l = comment
			}
			l = docregion.StripInline(l)
			for _, m := range timeClaim.FindAllStringIndex(l, -1) {
				context := l[max(0, m[0]-40):min(len(l), m[1]+20)]
				if allowedTimes.MatchString(context) {
					continue
				}
				t.Errorf("%s:%d: %q reads as a measured time or memory outside a numbers region: put it in one (internal/docnumbers) or say it is a setting", rel, i+1, l[m[0]:m[1]])
			}
		}
	}
}

// TestParseBench: a benchmark's values are found under the units it printed (ns/op, ns/split),
// which the regions read, and under benchfmt's (sec/op), without the -GOMAXPROCS suffix in the
// name.
func TestParseBench(t *testing.T) {
	out := "goos: linux\ngoarch: amd64\npkg: x\nBenchmarkTrellis/N=20/logZ+MAP-2   \t       1\t5638082 ns/op\t        2.55 ns/split\nPASS\n"
	rs, err := parseBench(strings.NewReader(out), "out")
	if err != nil || len(rs) != 1 {
		t.Fatalf("parseBench: %v, %d results", err, len(rs))
	}
	r := rs[0]
	if r.name != "Trellis/N=20/logZ+MAP" || r.values["ns/split"] != 2.55 || r.values["ns/op"] != 5638082 || math.Abs(r.values["sec/op"]-5638082e-9) > 1e-15 {
		t.Errorf("parseBench: %+v", r)
	}
}

// modulePages returns the module root and its documentation pages with their regions.
func modulePages(t *testing.T) (string, []page) {
	t.Helper()
	root, err := moduleRoot()
	if err != nil {
		t.Fatal(err)
	}
	pages, err := readPages(root)
	if err != nil {
		t.Fatal(err)
	}
	return root, pages
}

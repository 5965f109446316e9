package webpage

import (
	"context"
	"fmt"
	"html"
	"image/color"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"

	"github.com/hcbench/hcbench/experiments/results"
	"github.com/hcbench/hcbench/reports"
	"github.com/hcbench/hcbench/reports/golden"
	"github.com/hcbench/hcbench/reports/table"
)

// mdReport is one Markdown report of a fixture, written as package reports writes it.
type mdReport struct {
	name, title string
	sections    []mdSection
	notes       []string
}

type mdSection struct {
	title string
	table table.Table
}

// write writes dir/reports/<name>.md in the format of reports.writeMarkdown.
func (r mdReport) write(t *testing.T, dir string) {
	t.Helper()
	var b strings.Builder
	fmt.Fprintf(&b, "# %s\n", r.title)
	for _, s := range r.sections {
		fmt.Fprintf(&b, "\n## %s\n\n", s.title)
		if err := table.WriteMarkdown(&b, s.table); err != nil {
			t.Fatal(err)
		}
	}
	if len(r.notes) > 0 {
		b.WriteString("\n")
		for _, n := range r.notes {
			b.WriteString(n + "\n")
		}
	}
	writeFile(t, filepath.Join(dir, "reports", r.name+".md"), b.String())
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// isFile reports whether path is a regular file.
func isFile(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.Mode().IsRegular()
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	b, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, to, string(b))
}

// gonumPlot saves a small line plot titled title as base.svg (and base.png with png), the way
// package reports saves its plots.
func gonumPlot(t *testing.T, base, title string, png bool) {
	t.Helper()
	p := plot.New()
	p.Title.Text = title
	p.X.Label.Text = "N"
	p.Y.Label.Text = "seconds"
	l, err := plotter.NewLine(plotter.XYs{{X: 1, Y: 1}, {X: 2, Y: 4}, {X: 3, Y: float64(len(title))}})
	if err != nil {
		t.Fatal(err)
	}
	l.Color = color.RGBA{R: 0x44, G: 0x77, B: 0xAA, A: 0xFF}
	p.Add(l)
	exts := []string{"svg"}
	if png {
		exts = append(exts, "png")
	}
	for _, ext := range exts {
		if err := p.Save(4*vg.Inch, 3*vg.Inch, base+"."+ext); err != nil {
			t.Fatal(err)
		}
	}
}

// fixture is a run directory with its expected content.
type fixture struct {
	dir     string
	reports []mdReport        // the Markdown reports, in page order
	plots   map[string]string // SVG file name → id of the section it belongs in
}

// tables returns every report table in page order.
func (f fixture) tables() []table.Table {
	var ts []table.Table
	for _, r := range f.reports {
		for _, s := range r.sections {
			ts = append(ts, s.table)
		}
	}
	return ts
}

func testManifest() results.Manifest {
	start := time.Date(2026, 3, 14, 9, 26, 53, 0, time.UTC)
	return results.Manifest{
		Schema: results.ManifestSchema, Tool: "hcbench", Version: "v1.2.3",
		Revision: "0123456789abcdef0123456789abcdef01234567", RevisionTime: "2026-03-13T18:00:00Z",
		Modified: true, RevisionSource: "buildinfo", GoVersion: "go1.26.8",
		Host: "testhost", OS: "linux", Arch: "amd64", CPUs: 2,
		Experiment: "fixture <run>", Config: "configs/fixture.yaml", Seed: 18446744073709551615,
		Workers: 2, Args: []string{"run", "configs/fixture.yaml"},
		Start: start, End: start.Add(83*time.Second + 250*time.Millisecond),
		Status: results.StatusComplete, Tasks: 12, Finished: 11, Failed: 1,
		Warnings:   []string{"data set jets: 3 items have <2 leaves & were skipped"},
		ConfigHash: "c0ffee",
		Datasets:   []string{"jets"}, Algorithms: []string{"greedy", "trellis"},
		Reports: []string{"summary", "runtime", "likelihood_gap", "z_vs_map", "dendrograms"},
	}
}

// newFixture writes a run directory with four Markdown reports (summary with two tables, one of
// them with cells that need escaping), real gonum/plot SVGs for runtime, likelihood_gap, z_vs_map
// and dendrograms (which has no Markdown), a plot no report claims, CSVs, and the run's files
// except bench.txt.
func newFixture(t *testing.T) fixture {
	t.Helper()
	dir := t.TempDir()
	m := testManifest()
	if err := m.WriteFile(filepath.Join(dir, "manifest.json")); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(dir, "config.yaml"), "name: fixture\n")
	writeFile(t, filepath.Join(dir, "results.jsonl"), "{}\n")
	writeFile(t, filepath.Join(dir, "run.log"), "started\n")
	f := fixture{dir: dir, plots: map[string]string{}}
	f.reports = []mdReport{
		{name: "summary", title: "Summary: fixture", sections: []mdSection{
			{"jets", table.Table{
				Header:  []string{"algorithm", "items", "log-likelihood"},
				Numeric: []bool{false, true, true},
				Rows: [][]string{
					{"greedy", "10", "-12.500 ± 1.250"},
					{"<b>bold</b>", "1", "-3.000"},
					{"a|b", "2", ""},
					{"x & y \"q\"", "3", "−inf"},
				},
			}},
			{"files | pipes", table.Table{
				Header:  []string{"file", "N"},
				Numeric: []bool{false, true},
				Rows:    [][]string{{"data/a.csv", "4"}, {"<script>alert(1)</script>", "5"}},
			}},
		}, notes: []string{"Log-likelihoods are natural logs; <i>not</i> HTML.", "Second note & last."}},
		{name: "runtime", title: "Runtime: fixture", sections: []mdSection{
			{"Median seconds per task", table.Table{
				Header: []string{"N", "greedy", "trellis"}, Numeric: []bool{true, true, true},
				Rows: [][]string{{"4", "10µs", "100µs"}, {"9", "50µs", "20ms"}},
			}},
		}, notes: []string{"The plot is runtime.png / runtime.svg."}},
		{name: "likelihood_gap", title: "Likelihood gaps: fixture", sections: []mdSection{
			{"jets: log-likelihood difference", table.Table{
				Header: []string{"row − column", "greedy"}, Numeric: []bool{false, true},
				Rows: [][]string{{"trellis", "1.000 ± 0.500"}},
			}},
		}},
		{name: "z_vs_map", title: "log Z against the MAP: fixture", sections: []mdSection{
			{"By number of leaves N", table.Table{
				Header: []string{"N", "log Z − MAP"}, Numeric: []bool{true, true},
				Rows: [][]string{{"4", "0.250 ± 0.100"}},
			}},
		}},
	}
	for _, r := range f.reports {
		r.write(t, dir)
	}
	rep := filepath.Join(dir, "reports")
	for _, p := range []struct{ name, section string }{
		{"runtime", "report-runtime"},
		{"gap-jets-trellis-greedy", "report-likelihood_gap"},
		{"gap-jets-greedy-truth", "report-likelihood_gap"},
		{"z_vs_map", "report-z_vs_map"},
		{"z_minus_map", "report-z_vs_map"},
		{"dendrograms-jets", "report-dendrograms"},
		{"stray", "other-plots"},
	} {
		gonumPlot(t, filepath.Join(rep, p.name), "plot "+p.name, p.name == "runtime")
		f.plots[p.name+".svg"] = p.section
	}
	for _, name := range []string{"summary.csv", "summary_by_item.csv", "runtime.csv", "likelihood_gap.csv", "z_vs_map.csv", "orphan.csv"} {
		writeFile(t, filepath.Join(rep, name), "a,b\n1,2\n")
	}
	writeFile(t, filepath.Join(rep, "notes.txt"), "a stray file\n")
	return f
}

func writePage(t *testing.T, dir string) string {
	t.Helper()
	path, err := Write(dir)
	if err != nil {
		t.Fatal(err)
	}
	if path != filepath.Join(dir, File) {
		t.Fatalf("Write returned %s, want %s", path, filepath.Join(dir, File))
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// pageTable is a <table> found in HTML: its class and its rows of cells (unescaped text), with
// each cell's class attribute.
type pageTable struct {
	class   string
	rows    [][]string
	classes [][]string
}

var (
	tableRE = regexp.MustCompile(`(?s)<table([^>]*)>(.*?)</table>`)
	rowRE   = regexp.MustCompile(`(?s)<tr[^>]*>(.*?)</tr>`)
	cellRE  = regexp.MustCompile(`(?s)<t[hd]([^>]*)>(.*?)</t[hd]>`)
	classRE = regexp.MustCompile(`class="([^"]*)"`)
)

func attrClass(attrs string) string {
	if m := classRE.FindStringSubmatch(attrs); m != nil {
		return m[1]
	}
	return ""
}

// findTables extracts the tables of an HTML page (ours, or Chromium's serialization of its DOM).
func findTables(page string) []pageTable {
	var out []pageTable
	for _, tm := range tableRE.FindAllStringSubmatch(page, -1) {
		pt := pageTable{class: attrClass(tm[1])}
		for _, rm := range rowRE.FindAllStringSubmatch(tm[2], -1) {
			var cells, classes []string
			for _, cm := range cellRE.FindAllStringSubmatch(rm[1], -1) {
				cells = append(cells, html.UnescapeString(cm[2]))
				classes = append(classes, attrClass(cm[1]))
			}
			pt.rows = append(pt.rows, cells)
			pt.classes = append(pt.classes, classes)
		}
		out = append(out, pt)
	}
	return out
}

// checkTables checks that page has exactly the report tables want, in order, with every cell's
// text and alignment (numeric columns right-aligned), besides the manifest summary table.
func checkTables(t *testing.T, page string, want []table.Table) {
	t.Helper()
	var got []pageTable
	manifests := 0
	for _, pt := range findTables(page) {
		if pt.class == "manifest" {
			manifests++
			continue
		}
		got = append(got, pt)
	}
	if manifests != 1 {
		t.Errorf("%d manifest tables, want 1", manifests)
	}
	if len(got) != len(want) {
		t.Fatalf("%d report tables, want %d", len(got), len(want))
	}
	for i, w := range want {
		wantRows := append([][]string{w.Header}, w.Rows...)
		if !slices.EqualFunc(got[i].rows, wantRows, slices.Equal) {
			t.Errorf("table %d:\n got %q\nwant %q", i, got[i].rows, wantRows)
			continue
		}
		for r, classes := range got[i].classes {
			for c, class := range classes {
				want := "l"
				if c < len(w.Numeric) && w.Numeric[c] {
					want = "r"
				}
				if class != want {
					t.Errorf("table %d row %d column %d: class %q, want %q", i, r, c, class, want)
				}
			}
		}
	}
}

func TestReportTables(t *testing.T) {
	f := newFixture(t)
	page := writePage(t, f.dir)
	checkTables(t, page, f.tables())
	if n := strings.Count(page, "<thead>"); n != len(f.tables()) {
		t.Errorf("%d <thead>, want one per report table (%d)", n, len(f.tables()))
	}
}

func TestEscaping(t *testing.T) {
	f := newFixture(t)
	page := writePage(t, f.dir)
	for _, bad := range []string{"<b>bold", "<script>alert", "<i>not</i>", `a\|b`, "fixture <run>", "<2 leaves"} {
		if strings.Contains(page, bad) {
			t.Errorf("page holds %q unescaped", bad)
		}
	}
	for _, good := range []string{
		"<td class=\"l\">&lt;b&gt;bold&lt;/b&gt;</td>",
		"<td class=\"l\">a|b</td>",
		"&lt;script&gt;alert(1)&lt;/script&gt;",
		"<h1>fixture &lt;run&gt;</h1>",
		"<details id=\"report-summary-2\" open>\n<summary><h3>files | pipes</h3></summary>",
		"<p>Log-likelihoods are natural logs; &lt;i&gt;not&lt;/i&gt; HTML.</p>",
		"<p>Second note &amp; last.</p>",
	} {
		if !strings.Contains(page, good) {
			t.Errorf("page lacks %q", good)
		}
	}
}

// sectionOf returns the HTML of <section id="id">…</section> (sections do not nest).
func sectionOf(page, id string) string {
	i := strings.Index(page, `<section id="`+id+`">`)
	if i < 0 {
		return ""
	}
	j := strings.Index(page[i:], "</section>")
	if j < 0 {
		return page[i:]
	}
	return page[i : i+j]
}

// TestPlotsLinked checks that every plot is shown once, in the section of the report that drew
// it and, where its name says its data set, in that data set's group: as an image of its SVG file
// beside the page, loaded lazily, with the size of the SVG (gonum's 4 × 3 in is 384 × 288 CSS
// pixels) so that the page does not jump as images load; never inlined, so that the page stays
// small with many plots (TestPageSizeAtNightlyScale).
func TestPlotsLinked(t *testing.T) {
	f := newFixture(t)
	page := writePage(t, f.dir)
	if n := strings.Count(page, "<img "); n != len(f.plots) {
		t.Errorf("%d <img> elements, want %d", n, len(f.plots))
	}
	for name, id := range f.plots {
		img := fmt.Sprintf(`<img src="reports/%s" alt="plot %s" loading="lazy" decoding="async" width="384" height="288">`, name, name)
		if n := strings.Count(page, img); n != 1 {
			t.Errorf("%s shown %d times, want once", name, n)
		}
		if !strings.Contains(sectionOf(page, id), img) {
			t.Errorf("%s is not in section %s", name, id)
		}
	}
	for _, bad := range []string{"<svg", "<?xml", "<!-- Generated", "data:"} {
		if strings.Contains(page, bad) {
			t.Errorf("page holds %q", bad)
		}
	}
	// The gap histograms of data set jets are in the group of its table, after the table.
	gap := sectionOf(page, "report-likelihood_gap")
	// A group with plots takes the whole width, for the grid of plots.
	start := strings.Index(gap, `<details id="report-likelihood_gap-1" class="full" open>`)
	if start < 0 {
		t.Fatalf("no full-width jets group in likelihood_gap:\n%s", gap)
	}
	group, _, _ := strings.Cut(gap[start:], "</details>")
	if !strings.Contains(group, "</table>") || !strings.Contains(group, "gap-jets-trellis-greedy.svg") || !strings.Contains(group, "gap-jets-greedy-truth.svg") {
		t.Errorf("the jets group of likelihood_gap lacks its table or plots:\n%s", group)
	}
	if !strings.Contains(page, "figure img { display: block; max-width: 100%; height: auto;") {
		t.Error("images do not scale with max-width:100%")
	}
	// The PNG twin is linked, not shown; a plot without one has no PNG link.
	if !strings.Contains(page, `<a href="reports/runtime.png">PNG</a>`) || strings.Contains(page, "stray.png") {
		t.Error("PNG links wrong")
	}
}

// hrefs returns every href of page.
func hrefs(page string) []string {
	var out []string
	for _, m := range regexp.MustCompile(`href="([^"]*)"`).FindAllStringSubmatch(page, -1) {
		out = append(out, html.UnescapeString(m[1]))
	}
	return out
}

func TestLinks(t *testing.T) {
	f := newFixture(t)
	page := writePage(t, f.dir)
	links := hrefs(page)
	for _, want := range []string{"config.yaml", "results.jsonl", "run.log", "manifest.json",
		"reports/summary.csv", "reports/summary_by_item.csv", "reports/runtime.csv", "reports/likelihood_gap.csv",
		"reports/z_vs_map.csv", "reports/orphan.csv", "reports/notes.txt", "reports/runtime.svg", "reports/stray.svg"} {
		if !slices.Contains(links, want) {
			t.Errorf("no link to %s", want)
		}
	}
	for _, absent := range []string{"bench.txt", "tasks.txt", "reports/runtime.png"} {
		if slices.Contains(links, absent) != (absent == "reports/runtime.png") {
			t.Errorf("link to %s: %v", absent, slices.Contains(links, absent))
		}
	}
	for _, l := range links {
		if strings.Contains(l, ":") || strings.HasPrefix(l, "/") {
			t.Errorf("link %q is not relative to the run directory", l)
		}
		if strings.HasPrefix(l, "#") {
			if !strings.Contains(page, `id="`+l[1:]+`"`) {
				t.Errorf("anchor %s has no target", l)
			}
			continue
		}
		if _, err := os.Stat(filepath.Join(f.dir, filepath.FromSlash(l))); err != nil {
			t.Errorf("link %s: %v", l, err)
		}
	}
	// CSVs are linked in their report's section; what no report claims goes to "Other files".
	for id, names := range map[string][]string{
		"report-summary": {"summary.csv", "summary_by_item.csv"}, "report-runtime": {"runtime.csv"},
		"other-files": {"orphan.csv", "notes.txt"},
	} {
		for _, n := range names {
			if !strings.Contains(sectionOf(page, id), `href="reports/`+n+`"`) {
				t.Errorf("%s not linked in section %s", n, id)
			}
		}
	}

	writeFile(t, filepath.Join(f.dir, "bench.txt"), "BenchmarkX 1 2 ns/op\n")
	if page := writePage(t, f.dir); !slices.Contains(hrefs(page), "bench.txt") {
		t.Error("bench.txt present but not linked")
	}
}

// TestContentsAndOrder checks the page's order: the results first (the summary report, open, a
// group per data set, open), then the other reports in the manifest's order and the closing
// sections, each folded, then the run's details, folded; and the line of contents under the title
// that links them all.
func TestContentsAndOrder(t *testing.T) {
	f := newFixture(t)
	// The experiment's name as the fixture's Markdown titles have it ("Runtime: fixture").
	m := testManifest()
	m.Experiment = "fixture"
	if err := m.WriteFile(filepath.Join(f.dir, "manifest.json")); err != nil {
		t.Fatal(err)
	}
	page := writePage(t, f.dir)
	_, nav, _ := strings.Cut(page, `<nav id="contents"`)
	nav, _, _ = strings.Cut(nav, "</nav>")
	ids := []string{"report-summary", "report-runtime", "report-likelihood_gap", "report-z_vs_map",
		"report-dendrograms", "other-plots", "other-files", "run"}
	last := -1
	for _, id := range ids {
		if !strings.Contains(nav, `href="#`+id+`"`) {
			t.Errorf("contents lack #%s", id)
		}
		i := strings.Index(page, `<section id="`+id+`">`)
		if i < last {
			t.Errorf("section %s out of order", id)
		}
		last = i
		// Only the results are open.
		open := strings.HasPrefix(page[i+len(`<section id="`+id+`">`):], "\n<details open>")
		if open != (id == "report-summary") {
			t.Errorf("section %s open: %v", id, open)
		}
	}
	if i, j := strings.Index(page, "<nav"), strings.Index(page, `<section id="report-summary">`); i > j {
		t.Error("the contents come after the results")
	}
	for _, g := range []string{"report-summary-1", "report-summary-2", "report-runtime-1"} {
		if !strings.Contains(page, `<details id="`+g+`" open>`) {
			t.Errorf("group %s missing or folded", g)
		}
	}
	if !strings.Contains(sectionOf(page, "report-dendrograms"), "<h2>dendrograms</h2>") {
		t.Error("the dendrograms section (plots only) has no heading")
	}
	// A report's title without the experiment's name, which the page's own title says.
	if !strings.Contains(page, "<summary><h2>Runtime</h2>") {
		t.Error("the runtime section is not titled Runtime")
	}
}

func TestManifestSummary(t *testing.T) {
	f := newFixture(t)
	page := writePage(t, f.dir)
	_, warn, _ := strings.Cut(page, `<section class="warnings"`)
	warn, _, _ = strings.Cut(warn, "</section>")
	if !strings.Contains(warn, "<li>data set jets: 3 items have &lt;2 leaves &amp; were skipped</li>") {
		t.Error("warning not shown in the warnings box")
	}
	if i, j := strings.Index(page, `class="warnings"`), strings.Index(page, `<section id="run">`); i < 0 || i > j {
		t.Error("warnings do not come before the run summary")
	}
	var rows []string
	for _, pt := range findTables(page) {
		if pt.class == "manifest" {
			for _, r := range pt.rows {
				rows = append(rows, strings.Join(r, ": "))
			}
		}
	}
	for _, want := range []string{
		"Status: complete",
		"Tasks: 11 finished, 1 failed, of 12",
		"Started: 2026-03-14 09:26:53 UTC",
		"Ended: 2026-03-14 09:28:16 UTC",
		"Duration: 1m23s",
		"Seed: 18446744073709551615",
		"Tool: hcbench v1.2.3",
		"Revision: 0123456789abcdef0123456789abcdef01234567 (modified); committed 2026-03-13T18:00:00Z, from buildinfo",
		"Go: go1.26.8",
		"Host: testhost (linux/amd64, 2 CPUs)",
		"Config hash: c0ffee",
		"Reports: summary, runtime, likelihood_gap, z_vs_map, dendrograms",
	} {
		if !slices.Contains(rows, want) {
			t.Errorf("summary lacks %q; has\n%s", want, strings.Join(rows, "\n"))
		}
	}
	if !strings.Contains(page, `<tr class="bad"><th scope="row">Tasks</th>`) {
		t.Error("failed tasks are not marked")
	}

	// A shard and a merge say so; a run without an end says it has none.
	m := testManifest()
	m.Shard, m.End, m.Status = &results.Shard{Index: 1, Count: 4}, time.Time{}, results.StatusInterrupted
	rs := summaryRows(m)
	m = testManifest()
	m.MergedFrom = []string{"manifest-shard-0-of-2.json", "manifest-shard-1-of-2.json"}
	rs = append(rs, summaryRows(m)...)
	// A run resumed by another build lists its sessions, marked.
	m = testManifest()
	old := results.Build{Revision: "aaaa", GoVersion: "go1.26.8"}
	m.Sessions = []results.Session{{Build: old, Host: "h1", Records: 7}, {Build: results.Build{Revision: "bbbb", Modified: true, GoVersion: "go1.26.8"}, Host: "h2", Records: 5}}
	rs = append(rs, summaryRows(m)...)
	for _, want := range []row{
		{"Sessions", "revision aaaa, go1.26.8, h1: 7 records; revision bbbb (modified), go1.26.8, h2: 5 records", true},
		{"Shard", "1/4", false},
		{"Ended", "—", false},
		{"Status", "interrupted (stopped by a signal; finished tasks are kept)", true},
		{"Merged from", "manifest-shard-0-of-2.json, manifest-shard-1-of-2.json", false},
	} {
		if !slices.Contains(rs, want) {
			t.Errorf("summary lacks %+v", want)
		}
	}
}

func TestMissingManifest(t *testing.T) {
	dir := t.TempDir()
	_, err := Write(dir)
	if err == nil || !strings.Contains(err.Error(), filepath.Join(dir, "manifest.json")) {
		t.Fatalf("error %v does not name the missing manifest", err)
	}
	if _, err := os.Stat(filepath.Join(dir, File)); err == nil {
		t.Error("a page was written without a manifest")
	}
}

func TestLaterSchemaRefused(t *testing.T) {
	dir := t.TempDir()
	m := testManifest()
	m.Schema = results.ManifestSchema + 1
	if err := m.WriteFile(filepath.Join(dir, "manifest.json")); err != nil {
		t.Fatal(err)
	}
	_, err := Write(dir)
	if err == nil || !strings.Contains(err.Error(), "schema") || !strings.Contains(err.Error(), "manifest.json") {
		t.Fatalf("manifest of schema %d: error %v", m.Schema, err)
	}
	if _, err := os.Stat(filepath.Join(dir, File)); err == nil {
		t.Error("a page was written for a manifest of a later schema")
	}
}

func TestWithoutReportsInManifest(t *testing.T) {
	// An older manifest lists no reports: every Markdown report is shown, sorted, with the reports
	// known by their plots alone (dendrograms); a report listed but absent says so.
	f := newFixture(t)
	m := testManifest()
	m.Reports = nil
	if err := m.WriteFile(filepath.Join(f.dir, "manifest.json")); err != nil {
		t.Fatal(err)
	}
	page := writePage(t, f.dir)
	last := -1
	for _, r := range []string{"summary", "dendrograms", "likelihood_gap", "runtime", "z_vs_map"} {
		i := strings.Index(page, `<section id="report-`+r+`">`)
		if i < last {
			t.Errorf("report %s missing or out of order", r)
		}
		last = i
	}
	if !strings.Contains(sectionOf(page, "report-dendrograms"), "dendrograms-jets.svg") {
		t.Error("dendrograms not claimed without a manifest list")
	}

	m.Reports = []string{"purity", "summary"}
	if err := m.WriteFile(filepath.Join(f.dir, "manifest.json")); err != nil {
		t.Fatal(err)
	}
	page = writePage(t, f.dir)
	if !strings.Contains(sectionOf(page, "report-purity"), "No file of this report was found") {
		t.Error("a listed report without files is not flagged")
	}
	// The summary comes first, as the results; the others keep the manifest's order, and
	// reports not listed follow the listed ones; dendrograms is not listed, so its plot goes to
	// "Other plots".
	if s, p, r := strings.Index(page, `id="report-summary"`), strings.Index(page, `id="report-purity"`), strings.Index(page, `id="report-runtime"`); !(s < p && p < r) {
		t.Errorf("sections summary, purity, runtime at %d, %d, %d; want that order", s, p, r)
	}
	if !strings.Contains(sectionOf(page, "other-plots"), "dendrograms-jets.svg") {
		t.Error("a plot of a report not on the page is not in Other plots")
	}
}

func TestManifestOnly(t *testing.T) {
	dir := t.TempDir()
	m := testManifest()
	m.Reports, m.Warnings = nil, nil
	if err := m.WriteFile(filepath.Join(dir, "manifest.json")); err != nil {
		t.Fatal(err)
	}
	page := writePage(t, dir)
	if strings.Contains(page, "<section id=\"report-") || strings.Contains(page, `class="warnings"`) {
		t.Error("sections for reports that do not exist, or a warnings box without warnings")
	}
	if hs := hrefs(page); !slices.Contains(hs, "manifest.json") || slices.Contains(hs, "config.yaml") {
		t.Errorf("links %v", hs)
	}
}

func TestDeterministic(t *testing.T) {
	f := newFixture(t)
	a := writePage(t, f.dir)
	b := writePage(t, f.dir)
	if a != b {
		t.Error("two pages of one run directory differ")
	}
	entries, err := os.ReadDir(f.dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".index-") {
			t.Errorf("temporary file %s left behind", e.Name())
		}
	}
}

// goldenRun is a small run directory whose page is kept in testdata/page.html: the manifest
// testdata/manifest.json (a file, so that fields added to Manifest do not change the page), a
// Markdown report, hand-written SVGs from testdata (one with an XML declaration, doctype and
// comment), a plot of no report, and every optional file of the run directory.
func goldenRun(t *testing.T) string {
	dir := t.TempDir()
	copyFile(t, filepath.Join("testdata", "manifest.json"), filepath.Join(dir, "manifest.json"))
	for _, name := range []string{"config.yaml", "results.jsonl", "bench.txt", "run.log", "tasks.txt"} {
		writeFile(t, filepath.Join(dir, name), name+"\n")
	}
	mdReport{name: "summary", title: "Summary: golden", sections: []mdSection{
		{"jets", table.Table{
			Header: []string{"algorithm", "items", "log-likelihood"}, Numeric: []bool{false, true, true},
			Rows: [][]string{{"greedy", "10", "-12.500 ± 1.250"}, {"a|b <c>", "1", ""}},
		}},
	}, notes: []string{"One note."}}.write(t, dir)
	writeFile(t, filepath.Join(dir, "reports", "summary.csv"), "a\n")
	copyFile(t, filepath.Join("testdata", "tree.svg"), filepath.Join(dir, "reports", "dendrograms-jets.svg"))
	writeFile(t, filepath.Join(dir, "reports", "dendrograms-jets.png"), "png")
	copyFile(t, filepath.Join("testdata", "bars.svg"), filepath.Join(dir, "reports", "bars.svg"))
	return dir
}

func TestGolden(t *testing.T) {
	dir := goldenRun(t)
	path, err := Write(dir)
	if err != nil {
		t.Fatal(err)
	}
	golden.Check(t, path, "page.html")
}

// TestPageSizeAtNightlyScale builds the reports of a run the size of configs/nightly.yaml's
// Ginkgo and pam50 part (5 data sets, 4 to 6 algorithms each: 43 gap histograms, the runtime plot
// and z_vs_map's two, each with a panel per data set) with package reports, and its page:
// under 300 KB, where the plots alone
// are more than that (the page inlined them, 641 KB at nightly scale), and every plot an image
// loaded lazily.
func TestPageSizeAtNightlyScale(t *testing.T) {
	dir := t.TempDir()
	m := testManifest()
	m.Warnings = nil
	m.Reports = []string{"summary", "runtime", "likelihood_gap", "z_vs_map"}
	in := reports.Input{Experiment: m.Experiment}
	for ds, algs := range map[string][]string{
		"qcd": {"truth", "greedy", "beam", "beam-float", "trellis", "trellis-map"}, "qcd21": {"truth", "greedy", "beam", "trellis"},
		"w-large": {"truth", "greedy", "beam", "sparse_trellis"}, "public9": {"truth", "greedy", "beam", "trellis"},
		"pam50": {"greedy", "beam", "trellis", "average-linkage", "complete-linkage"},
	} {
		in.Datasets = append(in.Datasets, ds)
		for _, a := range algs {
			if !slices.Contains(in.Algorithms, a) {
				in.Algorithms = append(in.Algorithms, a)
			}
		}
		for item := range 60 {
			for k, a := range algs {
				r := results.Record{Schema: results.RecordSchema, Dataset: ds, Item: fmt.Sprint(item), Algorithm: a, AlgorithmName: a,
					N: 5 + item%8, Seconds: 1e-5 * float64(k+1) * float64(1+item%8)}
				// Differences of a few nats that vary from item to item, as real gaps do.
				r.LogLikelihood = results.Log(-40 - float64(item%8) + 0.37*float64(k) - 0.11*float64((item*(k+3))%13))
				if a == "trellis" {
					r.LogZ = results.Log(-35 - float64(item%8))
				}
				in.Records = append(in.Records, r)
			}
		}
	}
	slices.Sort(in.Datasets)
	m.Datasets, m.Algorithms = in.Datasets, in.Algorithms
	if err := m.WriteFile(filepath.Join(dir, "manifest.json")); err != nil {
		t.Fatal(err)
	}
	files, err := reports.Write(context.Background(), m.Reports, in, filepath.Join(dir, "reports"))
	if err != nil {
		t.Fatal(err)
	}
	var svgs, svgBytes int
	for _, f := range files {
		if strings.HasSuffix(f, ".svg") {
			fi, err := os.Stat(f)
			if err != nil {
				t.Fatal(err)
			}
			svgs++
			svgBytes += int(fi.Size())
		}
	}
	page := writePage(t, dir)
	t.Logf("%d plots of %d KB in all; index.html %d KB", svgs, svgBytes/1000, len(page)/1000)
	if svgs != 43+1+2 || svgBytes < 300_000 {
		t.Fatalf("%d plots of %d bytes: not nightly scale, so the size check would prove little", svgs, svgBytes)
	}
	if len(page) > 300_000 {
		t.Errorf("index.html is %d bytes, want under 300 KB", len(page))
	}
	if n := strings.Count(page, `loading="lazy"`); n != svgs {
		t.Errorf("%d lazily loaded images, want %d", n, svgs)
	}
}

// TestSplitModelGroups: a data set whose records carry two models (a run resumed after its
// likelihood changed) is two groups in the reports, "jets (likelihood=…)", and each group's gap
// histogram is shown with that group's table, not after all the groups.
func TestSplitModelGroups(t *testing.T) {
	dir := t.TempDir()
	m := testManifest()
	m.Reports = []string{"likelihood_gap"}
	m.Datasets, m.Algorithms = []string{"jets"}, []string{"greedy", "trellis"}
	in := reports.Input{Experiment: m.Experiment, Datasets: m.Datasets, Algorithms: m.Algorithms}
	for item := range 4 {
		likelihood := []string{"ginkgo2020", "ginkgo2021"}[item%2]
		for k, a := range in.Algorithms {
			in.Records = append(in.Records, results.Record{Schema: results.RecordSchema, Dataset: "jets", Item: fmt.Sprint(item),
				Algorithm: a, AlgorithmName: a, N: 5, DataParams: map[string]any{"likelihood": likelihood},
				LogLikelihood: results.Log(-20 + float64(k) + 0.5*float64(item))})
		}
	}
	if err := m.WriteFile(filepath.Join(dir, "manifest.json")); err != nil {
		t.Fatal(err)
	}
	if _, err := reports.Write(context.Background(), m.Reports, in, filepath.Join(dir, "reports")); err != nil {
		t.Fatal(err)
	}
	page := writePage(t, dir)
	gap := sectionOf(page, "report-likelihood_gap")
	// The groups of ginkgo2020, then those of ginkgo2021, then the notes.
	first := strings.Index(gap, "<h3>jets (likelihood=ginkgo2020): log-likelihood difference")
	second := strings.Index(gap, "<h3>jets (likelihood=ginkgo2021): log-likelihood difference")
	notes := strings.Index(gap, `<div class="notes">`)
	if first < 0 || second < first || notes < second {
		t.Fatalf("no group per model, in order, before the notes:\n%s", gap)
	}
	for model, groups := range map[string]string{"ginkgo2020": gap[first:second], "ginkgo2021": gap[second:notes]} {
		if plot := "gap-jets_likelihood=" + model + "-trellis-greedy.svg"; !strings.Contains(groups, `<figure id="plot-`) || !strings.Contains(groups, plot) {
			t.Errorf("the groups of %s lack %s:\n%s", model, plot, groups)
		}
	}
}

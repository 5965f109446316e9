package history

import (
	"context"
	"fmt"
	imagepng "image/png"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/hcbench/hcbench/internal/chromiumtest"
)

// ScreenshotEnv names a file that TestChromiumDrawsHistory writes its screenshot of the page
// to (a PNG), for a reader to look at; without it the screenshot goes to a temporary directory.
const ScreenshotEnv = "HCBENCH_HISTORY_SCREENSHOT"

// TestChromiumDrawsHistory writes history.html for 30 generated nightly runs with one planted
// step (greedy 0.3 nats worse from run 17 on), opens it in headless Chromium and checks what a
// reader would see: no console message or script error; every series a panel with its trend
// drawn (one SVG, one line, a point per run, each point's tooltip naming the run's time, build
// and revision); the regressions table at the top with the planted step at run 17 and nothing
// else; and a screenshot. It logs the page's size.
func TestChromiumDrawsHistory(t *testing.T) {
	bin := chromiumtest.Binary(t)
	ctx := context.Background()
	dir := t.TempDir()
	dirs := fixture{plant: plantedGap}.writeRuns(t, filepath.Join(dir, "runs"), 30)
	db := openDB(t)
	ingestAll(t, db, dirs)
	h, err := db.Load(ctx, 0)
	if err != nil {
		t.Fatal(err)
	}
	page := filepath.Join(dir, PageFile)
	f, err := os.Create(page)
	if err != nil {
		t.Fatal(err)
	}
	if err := WritePage(f, h, PageOptions{DB: db.Path(), Generated: time.Date(2026, 2, 1, 0, 0, 0, 0, time.UTC)}); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(page)
	if err != nil {
		t.Fatal(err)
	}
	series := h.Experiments[0].Series
	t.Logf("history.html: %d bytes (%.1f KB) for %d runs and %d series", fi.Size(), float64(fi.Size())/1024, len(h.Experiments[0].Runs), len(series))

	// Self-contained: nothing is loaded from elsewhere (the SVG namespace is a name, not a load).
	raw, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	if m := regexp.MustCompile(`(?i)<(script|img|link|iframe)[^>]+(src|href)=|url\(|@import`).Find(raw); m != nil {
		t.Errorf("history.html loads a resource: %s", m)
	}

	dom, stderr := chromiumtest.DumpDOM(t, bin, page)
	chromiumtest.LogProblems(t, stderr, page)

	// Every series but the work counters' has its panel, drawn; the counters are a table of one
	// row per data set and algorithm (greedy, beam and the trellis count).
	counters := 0
	for _, s := range series {
		if s.Metric.Exact {
			counters++
		}
	}
	figures := regexp.MustCompile(`(?s)<figure class="panel[^"]*" id="([^"]+)"[^>]*>(.*?)</figure>`).FindAllStringSubmatch(dom, -1)
	if len(figures) != len(series)-counters || counters != 4 {
		t.Errorf("%d panels, want one per series but the %d counters': %d", len(figures), counters, len(series)-counters)
	}
	if rows := regexp.MustCompile(`<tr id="c0-\d+">`).FindAllString(dom, -1); len(rows) != 3 {
		t.Errorf("%d rows of counters, want 3 (greedy, beam, trellis)", len(rows))
	}
	for _, fig := range figures {
		id, body := fig[1], fig[2]
		svgs, lines := strings.Count(body, `<svg class="trend"`), strings.Count(body, `<path class="line"`)
		points := strings.Count(body, "<circle")
		if svgs != 1 || lines != 1 || points != 30 || strings.Count(body, "<title>") != 30 {
			t.Errorf("panel %s: %d svg, %d lines, %d points, %d tooltips; want 1, 1, 30 and 30", id, svgs, lines, points, strings.Count(body, "<title>"))
		}
		if !strings.Contains(body, "<title>run 17 of 30, 2026-01-17 02:00Z\nrevision "+revision(16)[:12]+" (") ||
			!strings.Contains(body, "build "+executable(16)[:12]+", go1.26.8") {
			t.Errorf("panel %s: run 17's tooltip lacks its time, revision or build:\n%s", id, body[:min(len(body), 1500)])
		}
	}

	// Greedy's exact gap over all N: the latest value in the caption, 0.3 nats above its first.
	if !strings.Contains(dom, `<figcaption><span class="last" title="the latest run's value">0.6333 nats</span>greedy · all N</figcaption>`) {
		t.Error("greedy's panels do not give the latest exact gap, 0.6333 nats, in a caption")
	}

	// The table of runs: one row per run in time order, with its time, revision and build.
	runRows := regexp.MustCompile(`<tr><td class="num">(\d+)</td><td>([^<]+)</td><td>([^<]+)</td><td><code>([^<]+)</code>`).FindAllStringSubmatch(dom, -1)
	if len(runRows) != 30 {
		t.Errorf("the table of runs has %d rows, want 30", len(runRows))
	}
	for i, r := range runRows {
		want := []string{fmt.Sprint(i + 1), fixtureStart.Add(time.Duration(i) * 24 * time.Hour).Format("2006-01-02 15:04:05Z"), "revision " + revision(i)[:12], executable(i)[:12]}
		if r[1] != want[0] || r[2] != want[1] || !strings.HasPrefix(r[3], want[2]+" (") || r[4] != want[3] {
			t.Errorf("run row %d: %q, want %q", i+1, r[1:], want)
		}
	}

	// The regressions table: the planted step, at run 17, in every row.
	i := strings.Index(dom, `<table id="regressions-table">`)
	if i < 0 {
		t.Fatal("no regressions table")
	}
	table, _, _ := strings.Cut(dom[i:], "</table>")
	rows := strings.Count(table, `<tr class="regression">`)
	if want := len(h.Changes("")); rows != want || rows == 0 {
		t.Errorf("%d regression rows, want %d", rows, want)
	}
	// One pair of runs: 16 → 17, with the revisions to bisect.
	between := regexp.MustCompile(`<tr class="between"><th colspan="6">([^<]*)`).FindAllStringSubmatch(table, -1)
	if want := "nightly: run 16 (2026-01-16 02:00Z, revision " + revision(15)[:12] + ") → run 17 (2026-01-17 02:00Z, revision " + revision(16)[:12] + "): " +
		fmt.Sprint(rows) + " series"; len(between) != 1 || between[0][1] != want+" · " {
		t.Errorf("the table's pairs of runs are %q, want one: %q", between, want)
	}
	if !strings.Contains(table, "git bisect start "+revision(16)+" "+revision(15)) {
		t.Error("the table does not give the revisions to bisect")
	}
	if !strings.Contains(table, "mean gap to the exact MAP") || !strings.Contains(table, "qcd · greedy · all N") {
		t.Errorf("the table lacks greedy's exact gap over all N:\n%s", table)
	}
	if strings.Index(dom, `id="regressions"`) > strings.Index(dom, "<figure") {
		t.Error("the regressions table is not above the trends")
	}

	shot := os.Getenv(ScreenshotEnv)
	if shot == "" {
		shot = filepath.Join(t.TempDir(), "history.png")
	}
	chromiumtest.LogProblems(t, chromiumtest.Screenshot(t, bin, page, shot, 1280, 1600), page)
	// The screenshot shows drawn trends (the points and lines' blue, #1565c0) and the planted
	// regression (the red, #c62828, of its table rows, panels and step bars), each within 16
	// of the colour per channel (antialiasing). Measured: 12,378 blue and 14,174 red pixels.
	blue, red := colourPixels(t, shot, [3]int{0x15, 0x65, 0xc0}, [3]int{0xc6, 0x28, 0x28})
	t.Logf("screenshot: %s (%d blue, %d red pixels)", shot, blue, red)
	if blue < 2000 || red < 1000 {
		t.Errorf("the screenshot has %d pixels of the trends' blue and %d of the regressions' red; want at least 2,000 and 1,000", blue, red)
	}
}

// colourPixels counts the pixels of the PNG within 16 per channel of each of two colours.
func colourPixels(t *testing.T, png string, a, b [3]int) (na, nb int) {
	t.Helper()
	f, err := os.Open(png)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := imagepng.Decode(f)
	if err != nil {
		t.Fatal(err)
	}
	near := func(c [3]int, r, g, bl uint32) bool {
		d := func(x int, y uint32) bool { return abs(x-int(y>>8)) <= 16 }
		return d(c[0], r) && d(c[1], g) && d(c[2], bl)
	}
	bounds := img.Bounds()
	for y := bounds.Min.Y; y < bounds.Max.Y; y++ {
		for x := bounds.Min.X; x < bounds.Max.X; x++ {
			r, g, bl, _ := img.At(x, y).RGBA()
			if near(a, r, g, bl) {
				na++
			}
			if near(b, r, g, bl) {
				nb++
			}
		}
	}
	return na, nb
}

package cli

import (
	"image"
	_ "image/png" // decodes the screenshot
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/hcbench/hcbench/internal/chromiumtest"
)

// ComparisonScreenshotEnv names a file that TestChromiumComparisonPage writes its screenshot of
// the page to (a PNG), for a reader to look at; without it the screenshot goes to a temporary
// directory.
const ComparisonScreenshotEnv = "HCBENCH_COMPARISON_SCREENSHOT"

// naturalWidths is a script added to a copy of the page: it writes each image's naturalWidth
// (0 until the browser has loaded and decoded it) into its data-natural-width attribute, which
// the dumped DOM then holds, as the page's timers run.
const naturalWidths = `<script>setInterval(function () { for (const i of document.images) i.setAttribute("data-natural-width", i.naturalWidth); }, 100);</script>`

// TestChromiumComparisonPage runs 4 linkages on 8 ClustBench data sets with the comparison
// report, opens the run's index.html in headless Chromium, and checks what a reader sees first:
// no console message or script error; the page opens on the comparison (the first section and
// the first entry of the contents, unfolded), with the methods paragraph before the first
// group, which is nca's, whose critical-difference diagram is loaded (naturalWidth > 0); and
// the link to comparison/pairs.csv. It takes a screenshot (ComparisonScreenshotEnv).
func TestChromiumComparisonPage(t *testing.T) {
	bin := chromiumtest.Binary(t)
	dir := t.TempDir()
	cfg := writeFile(t, dir, "cb.yaml", clustbenchConfig(t, "cb", []string{"single", "average", "complete", "ward"}, "[summary, {name: comparison, metrics: [nca, ari]}]"))
	out := filepath.Join(dir, "run")
	runOK(t, "run", cfg, "-out", out)
	page := filepath.Join(out, "index.html")
	html := mustRead(t, page)
	probe := filepath.Join(out, "probe.html")
	if !strings.Contains(html, "</body>") {
		t.Fatal("index.html has no </body>")
	}
	writeFile(t, out, "probe.html", strings.Replace(html, "</body>", naturalWidths+"</body>", 1))
	dom, stderr := chromiumtest.DumpDOM(t, bin, probe)
	chromiumtest.LogProblems(t, stderr, probe)

	if s := regexp.MustCompile(`<section id="([^"]+)"`).FindStringSubmatch(dom); s == nil || s[1] != "report-comparison" {
		t.Errorf("the first section is %q, want report-comparison", s)
	}
	if s := regexp.MustCompile(`<nav id="contents"[^>]*>\s*<a href="([^"]+)"`).FindStringSubmatch(dom); s == nil || s[1] != "#report-comparison" {
		t.Errorf("the contents begin with %q, want #report-comparison", s)
	}
	i := strings.Index(dom, `<section id="report-comparison">`)
	if i < 0 {
		t.Fatal("no comparison section")
	}
	section, _, _ := strings.Cut(dom[i:], "</section>")
	if !strings.HasPrefix(section, `<section id="report-comparison">`+"\n"+`<details open="">`) {
		t.Error("the comparison is folded")
	}
	methods := strings.Index(section, "<p>We compared 4 algorithms (single, average, complete, ward) on 8 data sets of ClustBench v1.1.0")
	first := strings.Index(section, `<details id="report-comparison-1"`)
	if methods < 0 || first < 0 || methods > first {
		t.Errorf("the methods paragraph (at %d) is not before the first group (at %d)", methods, first)
	}
	if first >= 0 {
		group := section[first:]
		if end := strings.Index(group, `<details id="report-comparison-2"`); end > 0 {
			group = group[:end]
		}
		if !strings.Contains(group, "<h3>nca</h3>") {
			t.Error("the first group is not nca's")
		}
		fig := regexp.MustCompile(`<figure id="plot-comparison-nca-cd">[\s\S]*?<img src="reports/comparison-nca-cd.svg"[^>]*data-natural-width="(\d+)"`).FindStringSubmatch(group)
		if fig == nil {
			t.Error("the first group has no critical-difference diagram of nca")
		} else if w, _ := strconv.Atoi(fig[1]); w <= 0 {
			t.Errorf("the critical-difference diagram of nca is not loaded: naturalWidth %d", w)
		} else {
			t.Logf("the CD diagram of nca is loaded, %d CSS pixels wide", w)
		}
	}
	if !strings.Contains(section, `<a href="reports/comparison/pairs.csv">comparison/pairs.csv</a>`) {
		t.Error("the comparison lists no link to comparison/pairs.csv")
	}
	if _, err := os.Stat(filepath.Join(out, "reports", "comparison", "pairs.csv")); err != nil {
		t.Error(err)
	}

	shot := os.Getenv(ComparisonScreenshotEnv)
	if shot == "" {
		shot = filepath.Join(t.TempDir(), "comparison.png")
	}
	chromiumtest.LogProblems(t, chromiumtest.Screenshot(t, bin, page, shot, 1280, 1600), page)
	// The screenshot is of a drawn page, not a blank one: at least 3 % of its pixels are not
	// near white (text, tables and figures).
	dark, all := inkedPixels(t, shot)
	t.Logf("screenshot: %s (%d of %d pixels inked)", shot, dark, all)
	if dark*100 < all*3 {
		t.Errorf("the screenshot has %d of %d pixels away from white; want at least 3 %%", dark, all)
	}
}

// inkedPixels counts the pixels of a PNG farther than 32 from white in some channel.
func inkedPixels(t *testing.T, png string) (inked, all int) {
	t.Helper()
	f, err := os.Open(png)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, _, err := image.Decode(f)
	if err != nil {
		t.Fatal(err)
	}
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			r, g, bl, _ := img.At(x, y).RGBA()
			if min(r, g, bl)>>8 < 255-32 {
				inked++
			}
			all++
		}
	}
	return inked, all
}

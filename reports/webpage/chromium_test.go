package webpage

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/hcbench/hcbench/internal/chromiumtest"
)

// The browser test opens the page in headless Chromium (package chromiumtest), as a person would
// open it from disk, and reads back the DOM Chromium built and the messages it logged.

func TestChromiumRendersPage(t *testing.T) {
	bin := chromiumtest.Binary(t)
	f := newFixture(t)
	page := filepath.Join(f.dir, File)
	if _, err := Write(f.dir); err != nil {
		t.Fatal(err)
	}
	dom, stderr := chromiumtest.DumpDOM(t, bin, page)

	problems, ignored := chromiumtest.ConsoleProblems(stderr, page)
	for _, p := range problems {
		t.Errorf("chromium: %s", p)
	}
	for _, l := range ignored {
		t.Logf("chromium (not a page problem): %s", l)
	}
	t.Logf("chromium wrote %d lines to stderr: %d problems, %d other lines, the rest known noise",
		strings.Count(strings.TrimSpace(stderr), "\n")+1, len(problems), len(ignored))

	// Every table, with every cell, as Chromium parsed it.
	checkTables(t, dom, f.tables())
	// Every plot is an <img> of its SVG file beside the page, inside its own figure, and the
	// file is there; the page goes on after the last one.
	if n := strings.Count(dom, "<img "); n != len(f.plots) {
		t.Errorf("DOM has %d <img>, want %d", n, len(f.plots))
	}
	for name := range f.plots {
		stem := strings.TrimSuffix(name, ".svg")
		i := strings.Index(dom, `<figure id="plot-`+stem+`"`)
		if i < 0 {
			t.Errorf("no figure for %s", name)
			continue
		}
		fig, _, _ := strings.Cut(dom[i:], "</figure>")
		if !strings.Contains(fig, `<img src="reports/`+name+`"`) {
			t.Errorf("figure of %s lacks its image:\n%s", name, fig)
		}
		if !isFile(filepath.Join(f.dir, "reports", name)) {
			t.Errorf("the image of %s is not in reports/", name)
		}
	}
	// The results are open, the other reports folded: Chromium keeps the open attribute of the
	// first <details> of the summary and of its groups only.
	if !strings.Contains(dom, `<section id="report-summary">`+"\n"+`<details open="">`) {
		t.Error("the results are not open")
	}
	if strings.Contains(dom, `<section id="report-runtime">`+"\n"+`<details open`) {
		t.Error("the runtime report is not folded")
	}
	footer := strings.Index(dom, `<footer id="end">`)
	if footer < 0 || footer < strings.LastIndex(dom, "<img ") || !strings.Contains(dom[footer:], "</body>") {
		t.Error("the footer is missing or not after the last plot")
	}
}

// TestChromiumReportsConsoleErrors makes sure that the check above can fail with this browser:
// a page with a script error must give console problems.
func TestChromiumReportsConsoleErrors(t *testing.T) {
	bin := chromiumtest.Binary(t)
	page := filepath.Join(t.TempDir(), File)
	writeFile(t, page, `<!DOCTYPE html><html><head><meta charset="utf-8"><title>bad</title></head>`+
		`<body><p>x</p><script>console.error("on purpose"); notDefined();</script></body></html>`)
	_, stderr := chromiumtest.DumpDOM(t, bin, page)
	problems, _ := chromiumtest.ConsoleProblems(stderr, page)
	var console, uncaught bool
	for _, p := range problems {
		console = console || strings.Contains(p, `"on purpose"`)
		uncaught = uncaught || strings.Contains(p, "Uncaught ReferenceError")
	}
	if !console || !uncaught {
		t.Errorf("console error %v, uncaught exception %v; problems found: %q\nstderr:\n%s", console, uncaught, problems, stderr)
	}
}

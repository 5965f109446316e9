package webpage

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// The browser test opens the page in headless Chromium, as a person would open it from disk, and
// reads back the DOM Chromium built and the messages it logged. It runs where a chromium (or
// chromium-browser) binary is on PATH; .ci/run installs Debian's chromium package and sets
// HCBENCH_REQUIRE_CHROMIUM=1, so that in CI a missing browser fails instead of skipping.

// chromiumBinary returns the browser to run, or skips (fails under HCBENCH_REQUIRE_CHROMIUM=1).
func chromiumBinary(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("HCBENCH_REQUIRE_CHROMIUM") == "1" {
		t.Fatal("HCBENCH_REQUIRE_CHROMIUM=1 but no chromium or chromium-browser on PATH: install Debian's chromium package (apt-get install chromium)")
	}
	t.Skip("no chromium or chromium-browser on PATH (install Debian's chromium package to run this test; HCBENCH_REQUIRE_CHROMIUM=1 makes its absence fail)")
	return ""
}

// dumpDOM runs Chromium headless on the page and returns the DOM it serialized and its stderr.
// The profile, home and cache live in a temporary directory, so the test leaves nothing behind
// and parallel runs do not share a profile.
func dumpDOM(t *testing.T, bin, page string) (dom, stderr string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	home := t.TempDir()
	abs, err := filepath.Abs(page)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.CommandContext(ctx, bin, "--headless", "--no-sandbox", "--disable-gpu",
		"--enable-logging=stderr", "--v=0", "--user-data-dir="+filepath.Join(home, "profile"),
		"--dump-dom", "file://"+filepath.ToSlash(abs))
	cmd.Env = append(os.Environ(), "HOME="+home, "XDG_CONFIG_HOME="+filepath.Join(home, "config"),
		"XDG_CACHE_HOME="+filepath.Join(home, "cache"))
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	cmd.WaitDelay = 10 * time.Second // a helper process that keeps stderr open must not hang the test
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s: %v (timed out: %v)\nstderr:\n%s", bin, err, ctx.Err() != nil, errb.String())
	}
	return out.String(), errb.String()
}

// Chromium's stderr lines that are known to be harmless where tests run (containers and CI
// machines without a desktop session), and so are not looked at.
var chromiumNoise = []*regexp.Regexp{
	// Debian's launcher script (/usr/bin/chromium) sources /etc/chromium.d/dev-shm, whose
	// `[ $shm_avail -lt … ]` fails with "unexpected operator" when findmnt prints more than one
	// number (several mounts on /dev/shm); it only decides whether to add --disable-dev-shm-usage.
	regexp.MustCompile(`^/\S*chromium(-browser)?: \d+: `),
	// No D-Bus system or session bus in a container: the browser logs failed connections and
	// method calls (dbus/bus.cc, dbus/object_proxy.cc, dbus/property.cc), and the services it
	// would reach over D-Bus (bluetooth's Floss/BlueZ, UPower, the screensaver for idle
	// detection) are reported unavailable. None of them matter to a page.
	regexp.MustCompile(`:(ERROR|WARNING):dbus/`),
	regexp.MustCompile(`:WARNING:device/bluetooth/`),
	regexp.MustCompile(`:WARNING:ui/base/idle/`),
	// No GPU (we pass --disable-gpu): the video-acceleration probe finds no DRM device, and the
	// GPU process, started anyway for software compositing, warns that it sandboxes itself late.
	regexp.MustCompile(`:WARNING:media/gpu/`),
	regexp.MustCompile(`:WARNING:sandbox/policy/linux/sandbox_linux\.cc:\d+\] InitializeSandbox\(\) called with multiple threads in process gpu-process`),
}

// consoleProblems returns the lines of Chromium's stderr that tell of a problem with the page:
// a console message (Chromium logs every one as a line holding "CONSOLE"; the page has no
// script, so any is a problem), an uncaught exception, or an error that names the page. Known
// noise (chromiumNoise) is left out first; other lines are returned in ignored for the log.
func consoleProblems(stderr, page string) (problems, ignored []string) {
	url := "file://" + filepath.ToSlash(page)
lines:
	for _, line := range strings.Split(stderr, "\n") {
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		for _, re := range chromiumNoise {
			if re.MatchString(line) {
				continue lines
			}
		}
		mentionsPage := strings.Contains(line, url) || strings.Contains(line, page) || strings.Contains(line, File)
		if strings.Contains(line, "CONSOLE") || strings.Contains(line, "Uncaught") ||
			(strings.Contains(line, "ERROR:") && mentionsPage) {
			problems = append(problems, line)
		} else {
			ignored = append(ignored, line)
		}
	}
	return problems, ignored
}

func TestChromiumRendersPage(t *testing.T) {
	bin := chromiumBinary(t)
	f := newFixture(t)
	page := filepath.Join(f.dir, File)
	if _, err := Write(f.dir); err != nil {
		t.Fatal(err)
	}
	dom, stderr := dumpDOM(t, bin, page)

	problems, ignored := consoleProblems(stderr, page)
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
	// Every SVG became an <svg> element, closed where it should be: the page goes on after the
	// last one (an SVG that swallowed the rest of the page would hold the footer).
	if n, m := strings.Count(dom, "<svg"), strings.Count(dom, "</svg>"); n != len(f.plots) || m != len(f.plots) {
		t.Errorf("DOM has %d <svg> and %d </svg>, want %d", n, m, len(f.plots))
	}
	for name := range f.plots {
		// Each plot's title, as gonum/plot writes it, is text inside its own figure.
		stem := strings.TrimSuffix(name, ".svg")
		i := strings.Index(dom, `<figure id="plot-`+stem+`">`)
		if i < 0 {
			t.Errorf("no figure for %s", name)
			continue
		}
		fig, _, _ := strings.Cut(dom[i:], "</figure>")
		if !strings.Contains(fig, "plot "+stem) || !strings.Contains(fig, "</svg>") {
			t.Errorf("figure of %s lacks its plot", name)
		}
	}
	footer := strings.Index(dom, `<footer id="end">`)
	if footer < 0 || footer < strings.LastIndex(dom, "</svg>") || !strings.Contains(dom[footer:], "</body>") {
		t.Error("the footer is missing or not after the last plot")
	}
	if strings.Contains(dom, "<svg") && strings.Contains(dom[strings.LastIndex(dom, "</svg>"):], "<path") {
		t.Error("SVG markup outside an <svg> element")
	}
}

// TestChromiumReportsConsoleErrors makes sure that the check above can fail with this browser:
// a page with a script error must give console problems.
func TestChromiumReportsConsoleErrors(t *testing.T) {
	bin := chromiumBinary(t)
	page := filepath.Join(t.TempDir(), File)
	writeFile(t, page, `<!DOCTYPE html><html><head><meta charset="utf-8"><title>bad</title></head>`+
		`<body><p>x</p><script>console.error("on purpose"); notDefined();</script></body></html>`)
	_, stderr := dumpDOM(t, bin, page)
	problems, _ := consoleProblems(stderr, page)
	var console, uncaught bool
	for _, p := range problems {
		console = console || strings.Contains(p, `"on purpose"`)
		uncaught = uncaught || strings.Contains(p, "Uncaught ReferenceError")
	}
	if !console || !uncaught {
		t.Errorf("console error %v, uncaught exception %v; problems found: %q\nstderr:\n%s", console, uncaught, problems, stderr)
	}
}

func TestConsoleProblems(t *testing.T) {
	// Lines as Chromium 156 and Debian's launcher print them.
	page := "/tmp/run/index.html"
	stderr := strings.Join([]string{
		`/usr/bin/chromium: 9: [: 25276514304: unexpected operator`,
		`[4143:4233:1121/141759.452327:ERROR:dbus/bus.cc:405] Failed to connect to the bus: Failed to connect to socket /run/dbus/system_bus_socket: No such file or directory`,
		`[4143:4143:1121/141800.535662:ERROR:dbus/object_proxy.cc:572] Failed to call method: org.freedesktop.DBus.NameHasOwner: object_path= /org/freedesktop/DBus: unknown error type: `,
		`[4143:4143:1121/141800.535754:WARNING:device/bluetooth/dbus/bluez_dbus_manager.cc:209] Floss manager service not available, cannot set Floss enable/disable.`,
		`[4247:4247:1121/141800.076682:WARNING:media/gpu/vaapi/vaapi_wrapper.cc:1655] drmGetDevices2() has not found any devices`,
		`[4247:4247:1121/141800.311284:WARNING:sandbox/policy/linux/sandbox_linux.cc:405] InitializeSandbox() called with multiple threads in process gpu-process.`,
		`[4143:4143:1121/141800.625003:WARNING:ui/base/idle/idle_linux.cc:111] None of the known D-Bus ScreenSaver services could be used.`,
		`[1:1:1121/141800.9:WARNING:something/new.cc:1] an unknown warning`,
	}, "\n")
	if problems, ignored := consoleProblems(stderr, page); len(problems) != 0 || len(ignored) != 1 {
		t.Errorf("noise: problems %q, ignored %q", problems, ignored)
	}
	for _, bad := range []string{
		`[4394:4394:1121/141805.911827:INFO:CONSOLE:1] "boom", source: file:///tmp/run/index.html (1)`,
		`[4394:4394:1121/141805.919792:INFO:CONSOLE:1] "Uncaught ReferenceError: nosuch is not defined", source: file:///tmp/run/index.html (1)`,
		`[1:1:1121/141805.9:ERROR:some/loader.cc:1] Failed to load file:///tmp/run/index.html`,
		`Uncaught SyntaxError somewhere`,
	} {
		if problems, _ := consoleProblems(stderr+"\n"+bad+"\n", page); len(problems) != 1 || problems[0] != bad {
			t.Errorf("%q: problems %q", bad, problems)
		}
	}
}

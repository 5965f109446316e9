// Package chromiumtest opens pages in headless Chromium for tests, as a person would open them
// from disk, and reads back the DOM Chromium built, the messages it logged, or a screenshot. The
// tests of the pages hcbench writes (a run's index.html, history.html) use it.
//
// A test runs where a chromium (or chromium-browser) binary is on PATH, and skips elsewhere;
// .ci/run installs Debian's chromium package and sets HCBENCH_REQUIRE_CHROMIUM=1, so that in CI
// a missing browser fails instead of skipping.
package chromiumtest

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// RequireEnv is the environment variable that makes a missing browser fail the test.
const RequireEnv = "HCBENCH_REQUIRE_CHROMIUM"

// Binary returns the browser to run, or skips the test (fails it under
// HCBENCH_REQUIRE_CHROMIUM=1).
func Binary(t testing.TB) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv(RequireEnv) == "1" {
		t.Fatal(RequireEnv + "=1 but no chromium or chromium-browser on PATH: install Debian's chromium package (apt-get install chromium)")
	}
	t.Skip("no chromium or chromium-browser on PATH (install Debian's chromium package to run this test; " + RequireEnv + "=1 makes its absence fail)")
	return ""
}

// VirtualTime is how long Chromium lets a page's timers run before it dumps the DOM or takes a
// screenshot, in virtual time (it runs as fast as the page's work allows): a page that draws
// in slices after it loads is drawn whole by then.
const VirtualTime = 10 * time.Second

// DumpDOM runs Chromium headless on the page (a file) and returns the DOM it serialized, after
// the page's scripts and their timers ran (VirtualTime), and its stderr.
func DumpDOM(t testing.TB, bin, page string) (dom, stderr string) {
	t.Helper()
	return run(t, bin, page, "--dump-dom", virtualTime())
}

func virtualTime() string {
	return "--virtual-time-budget=" + strconv.FormatInt(VirtualTime.Milliseconds(), 10)
}

// Screenshot runs Chromium headless on the page with a window of width × height CSS pixels
// and writes a PNG of it to png, after the page's timers ran (VirtualTime); it returns
// Chromium's stderr.
func Screenshot(t testing.TB, bin, page, png string, width, height int) (stderr string) {
	t.Helper()
	abs, err := filepath.Abs(png)
	if err != nil {
		t.Fatal(err)
	}
	_, stderr = run(t, bin, page, "--hide-scrollbars", virtualTime(), "--window-size="+strconv.Itoa(width)+","+strconv.Itoa(height), "--screenshot="+abs)
	if fi, err := os.Stat(abs); err != nil || fi.Size() == 0 {
		t.Fatalf("%s wrote no screenshot to %s (%v)\nstderr:\n%s", bin, abs, err, stderr)
	}
	return stderr
}

// run runs Chromium headless on the page with args. The profile, home and cache live in a
// temporary directory, so the test leaves nothing behind and parallel runs do not share a
// profile.
func run(t testing.TB, bin, page string, args ...string) (stdout, stderr string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	home := t.TempDir()
	abs, err := filepath.Abs(page)
	if err != nil {
		t.Fatal(err)
	}
	args = append([]string{"--headless", "--no-sandbox", "--disable-gpu",
		"--enable-logging=stderr", "--v=0", "--user-data-dir=" + filepath.Join(home, "profile")}, args...)
	cmd := exec.CommandContext(ctx, bin, append(args, "file://"+filepath.ToSlash(abs))...)
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

// Noise are Chromium's stderr lines that are known to be harmless where tests run (containers
// and CI machines without a desktop session), and so are not looked at.
var Noise = []*regexp.Regexp{
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
	// --screenshot says where it wrote the PNG; Screenshot checks the file itself.
	regexp.MustCompile(`^\d+ bytes written to file `),
}

// ConsoleProblems returns the lines of Chromium's stderr that tell of a problem with the page:
// a console message (Chromium logs every one as a line holding "CONSOLE"; a page's script
// writes none, so any is a problem), an uncaught exception, or an error that names the page
// (its URL, path or file name). Known noise (Noise) is left out first; other lines are returned
// in ignored for the log.
func ConsoleProblems(stderr, page string) (problems, ignored []string) {
	url := "file://" + filepath.ToSlash(page)
	base := filepath.Base(page)
lines:
	for _, line := range strings.Split(stderr, "\n") {
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		for _, re := range Noise {
			if re.MatchString(line) {
				continue lines
			}
		}
		mentionsPage := strings.Contains(line, url) || strings.Contains(line, page) || strings.Contains(line, base)
		if strings.Contains(line, "CONSOLE") || strings.Contains(line, "Uncaught") ||
			(strings.Contains(line, "ERROR:") && mentionsPage) {
			problems = append(problems, line)
		} else {
			ignored = append(ignored, line)
		}
	}
	return problems, ignored
}

// LogProblems fails the test for every problem line of stderr (ConsoleProblems) and logs the
// other lines that are not known noise.
func LogProblems(t testing.TB, stderr, page string) {
	t.Helper()
	problems, ignored := ConsoleProblems(stderr, page)
	for _, p := range problems {
		t.Errorf("chromium: %s", p)
	}
	for _, l := range ignored {
		t.Logf("chromium (not a page problem): %s", l)
	}
	t.Logf("chromium wrote %d lines to stderr: %d problems, %d other lines, the rest known noise",
		strings.Count(strings.TrimSpace(stderr), "\n")+1, len(problems), len(ignored))
}

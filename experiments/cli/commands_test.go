package cli

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// TestUnknownCommandSuggests: a mistyped command gets the nearest command and a one-line hint,
// not the whole usage, and exit code 2.
func TestUnknownCommandSuggests(t *testing.T) {
	for _, tc := range []struct{ arg, want string }{
		{"rnu", `hcbench: unknown command "rnu"; did you mean "run"?`},
		{"plna", `hcbench: unknown command "plna"; did you mean "plan"?`},
		{"versoin", `hcbench: unknown command "versoin"; did you mean "version"?`},
		{"frobnicate", `hcbench: unknown command "frobnicate"` + "\n"},
	} {
		code, stdout, stderr := run(t, context.Background(), tc.arg)
		if code != ExitUsage || stdout != "" || !strings.HasPrefix(stderr, tc.want) {
			t.Errorf("%s: exit %d, stdout %q, stderr %q; want exit %d and stderr starting %q", tc.arg, code, stdout, stderr, ExitUsage, tc.want)
		}
		if n := strings.Count(stderr, "\n"); n != 2 {
			t.Errorf("%s: stderr has %d lines, want 2 (the problem and a hint):\n%s", tc.arg, n, stderr)
		}
	}
}

// TestHelpFlagExitsZero: every command of the table (and every data subcommand) prints its usage
// to stdout and exits 0 for -h, -help and --help, as Go's tools do; `help COMMAND` prints the
// same; a flag that does not exist still exits 2 with the usage on stderr.
func TestHelpFlagExitsZero(t *testing.T) {
	ctx := context.Background()
	var cmds [][]string
	for _, name := range commandNames() {
		cmds = append(cmds, []string{name})
	}
	cmds = append(cmds, []string{"data", "fetch"}, []string{"data", "list"}, []string{"data", "verify"})
	for _, cmd := range cmds {
		name := strings.Join(cmd, " ")
		var first string
		for _, h := range []string{"-h", "-help", "--help"} {
			code, stdout, stderr := run(t, ctx, append(cmd, h)...)
			if code != ExitOK || stderr != "" || !strings.Contains(stdout, "Usage") {
				t.Errorf("%s %s: exit %d, stderr %q, stdout %q; want exit 0 and the usage on stdout", name, h, code, stderr, stdout)
			}
			if first == "" {
				first = stdout
			}
		}
		code, stdout, stderr := run(t, ctx, append([]string{"help"}, cmd...)...)
		if code != ExitOK || stdout != first || stderr != "" {
			t.Errorf("help %s: exit %d, stderr %q, stdout\n%s\nwant exit 0 and what %s -h prints:\n%s", name, code, stderr, stdout, name, first)
		}
		if name == "help" || name == "data" {
			continue // no flags of their own
		}
		code, stdout, stderr = run(t, ctx, append(cmd, "-no-such-flag")...)
		if code != ExitUsage || stdout != "" || !strings.Contains(stderr, "flag provided but not defined") || !strings.Contains(stderr, "Usage: hcbench "+name) {
			t.Errorf("%s -no-such-flag: exit %d, stdout %q, stderr %q; want exit 2 and the problem and usage on stderr", name, code, stdout, stderr)
		}
	}
	code, _, stderr := run(t, ctx, "help", "rnu")
	if code != ExitUsage || !strings.Contains(stderr, `did you mean "run"?`) {
		t.Errorf("help rnu: exit %d, stderr %q", code, stderr)
	}
}

// TestVersion: the version command names the module version (or (devel) and the revision) and
// the Go version the binary was built with.
func TestVersion(t *testing.T) {
	code, stdout, stderr := run(t, context.Background(), "version")
	if code != ExitOK || stderr != "" {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	lines := strings.Split(stdout, "\n")
	if !strings.HasPrefix(lines[0], "hcbench ") {
		t.Errorf("first line %q does not start with hcbench", lines[0])
	}
	for _, want := range []string{"\nmodule:", "\nrevision:", "\ngo:         " + runtime.Version() + " " + runtime.GOOS + "/" + runtime.GOARCH + "\n", "\nexecutable:"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("no %q in\n%s", want, stdout)
		}
	}
	if code, _, _ := run(t, context.Background(), "version", "extra"); code != ExitUsage {
		t.Errorf("version extra: exit %d, want %d", code, ExitUsage)
	}
	if code, out, _ := run(t, context.Background(), "--version"); code != ExitOK || out != stdout {
		t.Errorf("--version: exit %d, output\n%s\nwant that of version", code, out)
	}
}

// TestVersionFromBuildInfo builds hcbench with its VCS stamp (-buildvcs=true, which GOFLAGS may
// turn off) and runs its version command: the module version is the one the go command
// stamped (a pseudo-version naming the commit, for a build from a checkout) and the revision
// is the checkout's HEAD, read from the build info. It skips where there is no go command or
// no git checkout, and with -short (the build takes seconds).
func TestVersionFromBuildInfo(t *testing.T) {
	if testing.Short() {
		t.Skip("builds hcbench")
	}
	head, err := exec.Command("git", "rev-parse", "HEAD").Output()
	if err != nil {
		t.Skipf("not in a git checkout: %v", err)
	}
	// The go command finds a git checkout by a .git directory, so a build in a linked worktree
	// (git worktree add), whose .git is a file, carries no VCS stamp (Go 1.26).
	if top, err := exec.Command("git", "rev-parse", "--show-toplevel").Output(); err == nil {
		if fi, err := os.Stat(filepath.Join(strings.TrimSpace(string(top)), ".git")); err == nil && !fi.IsDir() {
			t.Skip("a linked git worktree: the go command stamps no VCS information there")
		}
	}
	goCmd, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command")
	}
	bin := filepath.Join(t.TempDir(), "hcbench")
	if out, err := exec.Command(goCmd, "build", "-buildvcs=true", "-o", bin, "github.com/hcbench/hcbench").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	out, err := exec.Command(bin, "version").Output()
	if err != nil {
		t.Fatalf("hcbench version: %v\n%s", err, out)
	}
	rev := strings.TrimSpace(string(head))
	lines := strings.Split(string(out), "\n")
	if len(lines) < 3 || !strings.HasPrefix(lines[0], "hcbench v0.0.0-") || !strings.Contains(lines[0], rev[:12]) {
		t.Errorf("first line %q: want the pseudo-version the go command stamps, naming %s", lines[0], rev[:12])
	}
	if !strings.HasPrefix(lines[1], "module:     github.com/hcbench/hcbench v0.0.0-") {
		t.Errorf("module line %q", lines[1])
	}
	if !strings.HasPrefix(lines[2], "revision:   "+rev) || !strings.HasSuffix(lines[2], "(from the build's VCS stamp)") {
		t.Errorf("revision line %q: want %s from the build's VCS stamp", lines[2], rev)
	}
}

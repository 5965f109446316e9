//go:build unix

package cli

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/hcbench/hcbench/experiments/results"
)

// hangLimit is how long a test waits for a process that should stop at once: far beyond the
// one second hcbench aims for (the tests log the time it took), only to fail a hang.
const hangLimit = 10 * time.Second

// syncBuffer is a bytes.Buffer safe for a process's writes and the test's reads.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// interruptAt starts hcbench with args in another process, waits until its stderr holds marker
// (or, with marker "", for settle), waits settle more so that it is inside the phase, sends it
// sig, and returns its exit code, the time from the signal to its exit, and its output.
func interruptAt(t *testing.T, sig syscall.Signal, marker string, settle time.Duration, args ...string) (int, time.Duration, string) {
	t.Helper()
	cmd := command(t, args...)
	var out syncBuffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	deadline := time.Now().Add(hangLimit)
	for marker != "" && !strings.Contains(out.String(), marker) {
		select {
		case err := <-done:
			t.Fatalf("hcbench %s ended (%v) before %q:\n%s", strings.Join(args, " "), err, marker, out.String())
		case <-time.After(10 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			t.Fatalf("hcbench %s never printed %q:\n%s", strings.Join(args, " "), marker, out.String())
		}
	}
	time.Sleep(settle)
	select {
	case err := <-done:
		t.Fatalf("hcbench %s ended (%v) before it was interrupted; the phase did not last:\n%s", strings.Join(args, " "), err, out.String())
	default:
	}
	start := time.Now()
	if err := cmd.Process.Signal(sig); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-done:
		took := time.Since(start)
		code := 0
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		return code, took, out.String()
	case <-time.After(hangLimit):
		cmd.Process.Kill()
		<-done
		t.Fatalf("hcbench %s did not stop within %v of %v:\n%s", strings.Join(args, " "), hangLimit, sig, out.String())
	}
	return 0, 0, ""
}

// TestSignalsInEveryPhase interrupts hcbench in each long phase, in another process, with SIGINT
// or SIGTERM: generating a rare jet, validate and plan waiting on a FIFO or reading a stalled
// one, preparing a large data set (the n² correlation weights), and BHC on thousands of points.
// Each must exit 130 within one second (the time is logged), and a run's manifest must say
// interrupted.
func TestSignalsInEveryPhase(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "data.csv")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skipf("no FIFO: %v", err)
	}
	fifoCfg := writeFile(t, dir, "fifo.yaml", "version: 1\nname: f\ndatasets:\n  - {name: v, file: data.csv, split_model: none}\nalgorithms: [bhc]\n")
	cases := []struct {
		name   string
		sig    syscall.Signal
		config string // a run's config; "" for the FIFO config
		args   []string
		marker string
		settle time.Duration
		setup  func(t *testing.T) // run before the command starts
	}{
		{name: "generation", sig: syscall.SIGINT, marker: "msg=run ", settle: 300 * time.Millisecond,
			// 60-leaf jets at t_cut 16 almost never occur: the rejection sampler draws for minutes.
			config: "version: 1\nname: g\ndatasets:\n  - {name: q, generator: ginkgo, jets: 1, min_leaves: 60, max_leaves: 60, t_cut: 16, max_tries: 1000000000}\nalgorithms: [truth]\n"},
		{name: "data-preparation", sig: syscall.SIGTERM, marker: "msg=run ", settle: 200 * time.Millisecond,
			// The correlation-clustering weights of 6000 points of 200 features: 3.6e9 products.
			config: "version: 1\nname: d\ndatasets:\n  - {name: m, generator: mixture, points: 6000, dims: 200}\nalgorithms: [greedy]\n"},
		{name: "bhc", sig: syscall.SIGINT, marker: "msg=run ", settle: time.Second,
			// BHC on 4000 points takes about 6 s, its setup (all pairs) over a second.
			config: "version: 1\nname: b\nworkers: 1\ndatasets:\n  - {name: m, generator: mixture, points: 4000, dims: 4, split_model: none}\nalgorithms: [bhc]\n"},
		{name: "validate-waiting-for-a-writer", sig: syscall.SIGINT, args: []string{"validate", fifoCfg}, settle: 300 * time.Millisecond},
		{name: "plan-reading-a-stalled-fifo", sig: syscall.SIGTERM, args: []string{"plan", fifoCfg}, settle: 300 * time.Millisecond,
			setup: func(t *testing.T) {
				// A writer that sends half a file and then stalls, holding the FIFO open.
				w, err := os.OpenFile(fifo, os.O_RDWR, 0)
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { w.Close() })
				if _, err := w.WriteString("x,y,label\n1,2,a\n3,"); err != nil {
					t.Fatal(err)
				}
			}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			args := c.args
			var out string
			if c.config != "" {
				cfg := writeFile(t, t.TempDir(), "c.yaml", c.config)
				out = filepath.Join(filepath.Dir(cfg), "run")
				args = append([]string{"run", cfg, "-out", out}, c.args...)
			}
			if c.setup != nil {
				c.setup(t)
			}
			code, took, output := interruptAt(t, c.sig, c.marker, c.settle, args...)
			t.Logf("%v: exit %d after %v", c.sig, code, took.Round(time.Millisecond))
			if took > time.Second {
				t.Errorf("%v: exit after %v, more than the one second hcbench promises", c.sig, took.Round(time.Millisecond))
			}
			if code != ExitInterrupted {
				t.Errorf("exit %d, want %d\n%s", code, ExitInterrupted, output)
			}
			if out != "" {
				if m := readManifest(t, filepath.Join(out, results.ManifestFile)); m.Status != results.StatusInterrupted {
					t.Errorf("manifest status %q, want interrupted\n%s", m.Status, output)
				}
			}
		})
	}
}

// TestGoRunSIGTERM runs hcbench as `go run` does (a binary in the go build cache, started by a
// parent that does not pass SIGTERM on) and sends SIGTERM to that parent: hcbench must notice that
// its parent ended, stop, and mark its run interrupted, instead of running on with nobody waiting
// for it and holding the run's lock.
func TestGoRunSIGTERM(t *testing.T) {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	exeDir := filepath.Join(dir, "go-build", "c4", "c4"+strings.Repeat("0123456789abcdef", 4)[2:]+"-d")
	if err := os.MkdirAll(exeDir, 0o755); err != nil {
		t.Fatal(err)
	}
	exe := filepath.Join(exeDir, "hcbench")
	b, err := os.ReadFile(self)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(exe, b, 0o755); err != nil {
		t.Fatal(err)
	}
	cfg := writeFile(t, dir, "slow.yaml", slowConfig)
	out := filepath.Join(dir, "run")
	// sh stands for the go command: it starts hcbench and waits; SIGTERM ends it alone.
	sh := exec.Command("sh", "-c", `"$0" "$@" & wait`, exe, "run", cfg, "-out", out)
	sh.Env = append(os.Environ(), "HCBENCH_TEST_MAIN=1")
	var output syncBuffer
	sh.Stdout, sh.Stderr = &output, &output
	if err := sh.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(hangLimit)
	for !strings.Contains(output.String(), "msg=run ") {
		if time.Now().After(deadline) {
			sh.Process.Kill()
			t.Fatalf("hcbench never started its tasks:\n%s", output.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
	start := time.Now()
	if err := sh.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	sh.Wait()
	for {
		m, err := results.ReadManifest(filepath.Join(out, results.ManifestFile))
		if err == nil && m.Status == results.StatusInterrupted {
			t.Logf("hcbench stopped %v after its parent ended", time.Since(start).Round(time.Millisecond))
			break
		}
		if time.Since(start) > hangLimit {
			t.Fatalf("hcbench did not stop within %v of its parent's end (manifest %q, %v):\n%s", hangLimit, m.Status, err, output.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	// Its lock is soon free (it is released as the process ends, just after the manifest is
	// written): the same command resumes the run.
	for {
		code, stdout, stderr := run(t, t.Context(), "run", cfg, "-out", out)
		if code == ExitOK {
			break
		}
		if !strings.Contains(stderr, "in use by another hcbench process") || time.Since(start) > hangLimit {
			t.Fatalf("resume: exit %d\n%s%s", code, stdout, stderr)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestBuiltByGoRun tells go run's binaries (in the build cache since Go 1.24, in the go command's
// work directory before) from built ones.
func TestBuiltByGoRun(t *testing.T) {
	hash := strings.Repeat("0123456789abcdef", 4)
	for exe, want := range map[string]bool{
		"/root/.cache/go-build/01/" + hash + "-d/hcbench": true,
		"/tmp/go-build1234/b001/exe/hcbench":              true,
		"/home/me/hcbench/bin/hcbench":                    false,
		"/root/.cache/go-build/ff/" + hash + "-d/hcbench": false, // the folder is not its hash's
		"/tmp/go-build1234/b001/hcbench.test":             false, // go test's binary
		"/usr/local/bin/hcbench":                          false,
	} {
		if got := builtByGoRun(exe); got != want {
			t.Errorf("builtByGoRun(%s) = %v, want %v", exe, got, want)
		}
	}
}

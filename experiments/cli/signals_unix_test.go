//go:build unix

package cli

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/hcbench/hcbench/experiments/results"
	"github.com/hcbench/hcbench/experiments/rundir"
)

// startLimit bounds how long a test waits for a process it started to reach the phase the test
// is about: long, so that a loaded machine meets it; it only ends a test whose process never
// gets there.
const startLimit = 2 * time.Minute

// hangLimit is how long a test waits for a process that should stop at once: far beyond the one
// second hcbench aims for, only to fail a hang (the tests log the time it took).
const hangLimit = time.Minute

// stopWork bounds the CPU time hcbench may use from a signal to its exit: it promises to stop
// within one second of Ctrl-C or SIGTERM. The wall time that takes is that work stretched by
// the machine's load, which no program controls; the tests log it, and assert the work.
const stopWork = time.Second

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

// child is a process a test started, its stdout and stderr together in out.
type child struct {
	cmd  *exec.Cmd
	out  syncBuffer
	done chan struct{} // closed once cmd.Wait has returned
	err  error         // cmd.Wait's
}

// startChild starts cmd, its output going to the child's buffer; the test kills it if it still
// runs when the test ends.
func startChild(t *testing.T, cmd *exec.Cmd) *child {
	t.Helper()
	c := &child{cmd: cmd, done: make(chan struct{})}
	cmd.Stdout, cmd.Stderr = &c.out, &c.out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		c.err = cmd.Wait()
		close(c.done)
	}()
	t.Cleanup(func() {
		select {
		case <-c.done:
		default:
			cmd.Process.Kill()
			<-c.done
		}
	})
	return c
}

// waitFor waits until ready reports true (it is polled), failing the test if the process ends
// first or startLimit passes.
func (c *child) waitFor(t *testing.T, what string, ready func() bool) {
	t.Helper()
	deadline := time.Now().Add(startLimit)
	for !ready() {
		select {
		case <-c.done:
			t.Fatalf("%s ended (%v) before %s:\n%s", c.name(), c.err, what, c.out.String())
		case <-time.After(5 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: not %s after %v:\n%s", c.name(), what, startLimit, c.out.String())
		}
	}
}

// printed returns a readiness test of the process's output holding marker.
func (c *child) printed(marker string) func() bool {
	return func() bool { return strings.Contains(c.out.String(), marker) }
}

// work waits until process pid has used d more CPU time, so that a phase that starts with a
// marker is well under way whatever the load; without /proc it returns at once.
func (c *child) work(t *testing.T, pid int, d time.Duration) {
	t.Helper()
	start, ok := cpuTime(pid)
	if !ok {
		return
	}
	c.waitFor(t, fmt.Sprintf("%v of work into the phase", d), func() bool {
		now, ok := cpuTime(pid)
		return !ok || now-start >= d
	})
}

// interrupt sends sig to process pid (the child or one it started) and waits for the child to
// end: it returns the child's exit code, the wall time from the signal to its end and, where it
// can be known (cpuKnown), the CPU time pid used meanwhile.
func (c *child) interrupt(t *testing.T, pid int, sig syscall.Signal) (code int, wall, cpu time.Duration, cpuKnown bool) {
	t.Helper()
	select {
	case <-c.done:
		t.Fatalf("%s ended (%v) before it was interrupted; the phase did not last:\n%s", c.name(), c.err, c.out.String())
	default:
	}
	before, cpuKnown := cpuTime(pid)
	start := time.Now()
	if err := syscall.Kill(pid, sig); err != nil {
		t.Fatal(err)
	}
	select {
	case <-c.done:
	case <-time.After(hangLimit):
		c.cmd.Process.Kill()
		<-c.done
		t.Fatalf("%s did not stop within %v of %v:\n%s", c.name(), hangLimit, sig, c.out.String())
	}
	wall = time.Since(start)
	ps := c.cmd.ProcessState
	return ps.ExitCode(), wall, ps.UserTime() + ps.SystemTime() - before, cpuKnown && pid == c.cmd.Process.Pid
}

// checkStop checks that an interrupted process exited 130 having used at most stopWork of CPU
// time after the signal, and logs the times.
func checkStop(t *testing.T, sig syscall.Signal, code int, wall, cpu time.Duration, cpuKnown bool, output string) {
	t.Helper()
	if cpuKnown {
		t.Logf("%v: exit %d %v after the signal, having used %v of CPU time meanwhile", sig, code, wall.Round(time.Millisecond), cpu.Round(time.Millisecond))
		if cpu > stopWork {
			t.Errorf("%v: %v of CPU time from the signal to the exit, more than the one second hcbench promises", sig, cpu.Round(time.Millisecond))
		}
	} else {
		t.Logf("%v: exit %d %v after the signal", sig, code, wall.Round(time.Millisecond))
	}
	if code != ExitInterrupted {
		t.Errorf("%v: exit %d, want %d\n%s", sig, code, ExitInterrupted, output)
	}
}

func (c *child) name() string { return "hcbench " + strings.Join(c.cmd.Args[1:], " ") }

// TestSignalsInEveryPhase interrupts hcbench in each long phase, in another process, with SIGINT
// or SIGTERM: generating a rare jet, validate and plan waiting on a FIFO or reading a stalled
// one, preparing a large data set (the n² correlation weights), and BHC on thousands of points.
// Each phase is recognised by an event (a progress line of the phase, then some CPU time spent
// in it; a thread waiting in open(2) for the FIFO's writer; the FIFO's bytes read), never by a
// time waited. Each must exit 130 having used at most a second of CPU time after the signal (the
// wall time is logged), and a run's manifest must say interrupted.
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
		marker string        // the output line of the phase
		work   time.Duration // the CPU time to let the process spend in the phase after its marker
		// ready, when not nil, is called before the command starts and returns the test of the
		// process (its pid) being in the phase.
		ready func(t *testing.T) func(pid int) bool
	}{
		{name: "generation", sig: syscall.SIGINT, marker: "msg=progress of=items", work: 300 * time.Millisecond,
			// 60-leaf jets at t_cut 16 almost never occur: the rejection sampler draws for minutes.
			config: "version: 1\nname: g\ndatasets:\n  - {name: q, generator: ginkgo, jets: 1, min_leaves: 60, max_leaves: 60, t_cut: 16, max_tries: 1000000000}\nalgorithms: [truth]\n"},
		{name: "data-preparation", sig: syscall.SIGTERM, marker: "msg=progress of=items", work: 300 * time.Millisecond,
			// The correlation-clustering weights of 6000 points of 200 features: 3.6e9 products,
			// seconds of CPU time after the points' few milliseconds.
			config: "version: 1\nname: d\ndatasets:\n  - {name: m, generator: mixture, points: 6000, dims: 200}\nalgorithms: [greedy]\n"},
		{name: "bhc", sig: syscall.SIGINT, marker: "msg=progress of=tasks", work: time.Second,
			// BHC on 4000 points takes about 6 s of CPU time, its setup (all pairs) over a second.
			config: "version: 1\nname: b\nworkers: 1\ndatasets:\n  - {name: m, generator: mixture, points: 4000, dims: 4, split_model: none}\nalgorithms: [bhc]\n"},
		{name: "validate-waiting-for-a-writer", sig: syscall.SIGINT, args: []string{"validate", fifoCfg},
			ready: func(t *testing.T) func(int) bool {
				return func(pid int) bool {
					blocked, err := blockedOpeningFIFO(pid)
					if err != nil {
						t.Skipf("cannot see a process wait for a FIFO's writer: %v", err)
					}
					return blocked
				}
			}},
		{name: "plan-reading-a-stalled-fifo", sig: syscall.SIGTERM, args: []string{"plan", fifoCfg},
			ready: func(t *testing.T) func(int) bool {
				// A writer that sends half a file and then stalls, holding the FIFO open; the
				// process has read it all when the FIFO holds no unread byte.
				w, err := os.OpenFile(fifo, os.O_RDWR, 0)
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { w.Close() })
				if _, err := w.WriteString("x,y,label\n1,2,a\n3,"); err != nil {
					t.Fatal(err)
				}
				if _, err := unread(w); err != nil {
					t.Skipf("cannot see a FIFO's unread bytes: %v", err)
				}
				return func(int) bool {
					n, err := unread(w)
					return err == nil && n == 0
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
				args = append([]string{"run", cfg, "-out", out, "-progress", "10ms"}, c.args...)
			}
			var ready func(int) bool
			if c.ready != nil {
				ready = c.ready(t)
			}
			p := startChild(t, command(t, args...))
			pid := p.cmd.Process.Pid
			if c.marker != "" {
				p.waitFor(t, "in the phase (printed "+c.marker+")", p.printed(c.marker))
				p.work(t, pid, c.work)
			}
			if ready != nil {
				p.waitFor(t, "in the phase", func() bool { return ready(pid) })
			}
			code, wall, cpu, cpuKnown := p.interrupt(t, pid, c.sig)
			checkStop(t, c.sig, code, wall, cpu, cpuKnown, p.out.String())
			if out != "" {
				if m := readManifest(t, filepath.Join(out, results.ManifestFile)); m.Status != results.StatusInterrupted {
					t.Errorf("manifest status %q, want interrupted\n%s", m.Status, p.out.String())
				}
			}
		})
	}
}

// initGate is the environment variable that stops hcbench, run from the test binary, in its
// package initialisation (see init below), before main and Main run.
const initGate = "HCBENCH_TEST_INIT_GATE"

// initMarker is what hcbench prints, with its pid, once stopped by initGate.
const initMarker = "hcbench test: in package initialisation, pid "

// With initGate=1, the process stops here, in package cli's initialisation (which comes after
// that of every package it imports, package interrupt's included), until it receives SIGINT or
// SIGTERM: it prints initMarker and its pid, waits for the signal on a channel of its own, and
// goes on to Main once every channel has it (signal.Stop returns once the signal is delivered).
// What Main does then is what a signal that comes before main makes hcbench do.
func init() {
	if os.Getenv(initGate) != "1" {
		return
	}
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, syscall.SIGINT, syscall.SIGTERM)
	fmt.Fprintf(os.Stderr, "%s%d\n", initMarker, os.Getpid())
	<-ch
	signal.Stop(ch)
}

// TestSignalBeforeMain sends hcbench SIGTERM, and SIGINT as a shell's background job (`hcbench
// run … &`, which a shell starts with SIGINT ignored), while it is still initialising its
// packages (the gate above holds it there): the signal must interrupt the run (exit 130), not
// end it without a word (SIGTERM's default action) nor be lost (the ignored SIGINT: the run would
// complete and exit 0). TestInterruptInitialisedFirst checks that the handler comes before the
// slow initialisers.
func TestSignalBeforeMain(t *testing.T) {
	cfg := writeFile(t, t.TempDir(), "small.yaml", smallConfig)
	for _, c := range []struct {
		name       string
		sig        syscall.Signal
		background bool
	}{
		{"SIGTERM", syscall.SIGTERM, false},
		{"SIGINT-to-a-background-job", syscall.SIGINT, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "run")
			cmd := command(t, "run", cfg, "-out", out)
			if c.background {
				if b, err := exec.Command("sh", "-c", "grep SigIgn /proc/self/status & wait $!").Output(); err == nil {
					// The mask of the signals ignored, in hex: SIGINT is bit 1.
					f := strings.Fields(string(b))
					if mask, err := strconv.ParseUint(f[len(f)-1], 16, 64); err != nil || mask&(1<<(syscall.SIGINT-1)) == 0 {
						t.Fatalf("sh does not start a background job with SIGINT ignored: %q", b)
					}
				}
				cmd = exec.Command("sh", append([]string{"-c", `"$0" "$@" & wait $!`}, cmd.Args...)...)
				cmd.Env = command(t).Env
			}
			cmd.Env = append(cmd.Env, initGate+"=1")
			p := startChild(t, cmd)
			p.waitFor(t, "initialising (printed its pid)", p.printed(initMarker))
			pid, err := strconv.Atoi(strings.Fields(p.out.String()[strings.Index(p.out.String(), initMarker)+len(initMarker):])[0])
			if err != nil {
				t.Fatal(err)
			}
			if c.background {
				// Killing sh does not end its job, which waits for a signal in its initialisation.
				t.Cleanup(func() {
					if t.Failed() {
						syscall.Kill(pid, syscall.SIGKILL)
					}
				})
			}
			code, wall, cpu, cpuKnown := p.interrupt(t, pid, c.sig)
			checkStop(t, c.sig, code, wall, cpu, cpuKnown, p.out.String())
			if !strings.Contains(p.out.String(), "interrupted") {
				t.Errorf("hcbench did not say it was interrupted:\n%s", p.out.String())
			}
		})
	}
}

// TestInterruptInitialisedFirst: package interrupt, which catches the signals, is initialised
// before every package outside the standard library whose initialisation costs time (0.1 ms or
// more) but those the Go specification's order puts first (their import paths sort before its
// own), and before go-runewidth, whose table takes tens of milliseconds (GODEBUG=inittrace=1 lists
// the packages in the order they are initialised, with the time each took). A package that
// depends on math alone (gonum's mathext/internal/amos, some constants) is ready, and so
// initialised, long before interrupt's imports (os/signal) are, whatever its path: at a few
// microseconds it delays no signal.
func TestInterruptInitialisedFirst(t *testing.T) {
	const self = "github.com/hcbench/hcbench/internal/interrupt"
	cmd := command(t, "version")
	cmd.Env = append(cmd.Env, "GODEBUG=inittrace=1")
	b, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%v\n%s", err, b)
	}
	var order []string
	took := map[string]float64{} // milliseconds
	for _, l := range strings.Split(string(b), "\n") {
		if f := strings.Fields(l); len(f) > 4 && f[0] == "init" && strings.HasPrefix(f[2], "@") {
			order = append(order, f[1])
			took[f[1]], _ = strconv.ParseFloat(f[4], 64) // "init PKG @T ms, D ms, …"
		}
	}
	at := slices.Index(order, self)
	if at < 0 {
		t.Fatalf("%s is not initialised:\n%s", self, b)
	}
	for _, pkg := range order[:at] {
		if first, _, _ := strings.Cut(pkg, "/"); strings.Contains(first, ".") && pkg > self && took[pkg] >= 0.1 {
			t.Errorf("%s is initialised before %s", pkg, self)
		}
	}
	if rw := slices.Index(order, "github.com/mattn/go-runewidth"); rw >= 0 && rw < at {
		t.Errorf("go-runewidth is initialised before %s", self)
	}
	t.Logf("%s is initialised %d of %d, after %s", self, at+1, len(order), strings.Join(order[:at], " "))
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
	p := startChild(t, sh)
	p.waitFor(t, "running its tasks", p.printed("msg=run "))
	start := time.Now()
	if err := sh.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	<-p.done
	for {
		m, err := results.ReadManifest(filepath.Join(out, results.ManifestFile))
		if err == nil && m.Status == results.StatusInterrupted {
			t.Logf("hcbench stopped %v after its parent ended", time.Since(start).Round(time.Millisecond))
			break
		}
		if time.Since(start) > hangLimit {
			t.Fatalf("hcbench did not stop within %v of its parent's end (manifest %q, %v):\n%s", hangLimit, m.Status, err, p.out.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	// Its lock is soon free: it is released as the process ends, just after the manifest is
	// written (the same command would resume the run, as TestSIGINTKeepsFinishedRecords shows).
	files := rundir.FilesOf(out, nil)
	for {
		lock, err := rundir.Lock(out, files)
		if lock != nil {
			lock.Close()
			break
		}
		if !strings.Contains(err.Error(), "in use by another hcbench process") || time.Since(start) > hangLimit {
			t.Fatalf("the run's lock after hcbench stopped: %v", err)
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

package registry

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"strings"
	"sync"
	"time"

	"github.com/hcbench/hcbench/experiments/results"
	"github.com/hcbench/hcbench/internal/linelimit"
)

// The programs of an external variant: each runs in its own process group with three pipes, a
// goroutine reading its stdout line by line (so that a timeout or a cancelled context never waits
// on a blocked read), one reading its stderr into the run's log (at a bounded rate) and a ring of
// its last lines, and one waiting for it to exit, which kills what it left in its group. A pool
// keeps the idle ones, at most one per worker.

const (
	// maxAnswerLine bounds one line of a program's stdout: a longer one is a flood, not an answer.
	maxAnswerLine = 16 << 20
	// stderrTailLines and stderrTailBytes bound the ring of a program's last stderr lines that a
	// failed task's error quotes; stderrLineBytes bounds one line (the rest is cut).
	stderrTailLines = 20
	stderrTailBytes = 4 << 10
	stderrLineBytes = 4 << 10
	// stderrLogBurst and stderrLogRate bound what the programs of a variant write to the run's
	// log (run.log and the terminal), together: at most stderrLogBurst bytes at once and
	// stderrLogRate bytes a second on average, a line counting its text and stderrLogLineBytes
	// for the log's own fields. The lines beyond are counted, not logged (a program can write
	// gigabytes of stderr), and the count is logged when the log takes lines again and when
	// the run ends.
	stderrLogBurst     = 64 << 10
	stderrLogRate      = 16 << 10
	stderrLogLineBytes = 128
	// stderrLogNoticeBytes is what the line that counts the lines left out costs.
	stderrLogNoticeBytes = 512
	// endGrace bounds each wait for the end of what a program is ending: for the stderr of a
	// killed program to end, so that its last words (a traceback) are in the error; for a
	// program that closed its stdout to exit, so that its exit status is; and for the stdout of
	// a program that exited to end (a process it started outside its group may hold it), before
	// its task fails. Each wait ends at the event; the bound is long so that a loaded machine
	// meets it, and is reached only by a program that closed its stdout and lives on, or whose
	// escaped child holds a pipe.
	endGrace = 5 * time.Second
	// requestGrace is how long an answer may come before hcbench has finished writing its
	// request (a program that answers without reading it): then the task fails.
	requestGrace = 10 * time.Second
	// closeGrace bounds how long Close waits for killed programs to be reaped.
	closeGrace = 5 * time.Second
)

// extLine is a line of a program's stdout, or why there is none: io.EOF (stdout closed), a
// *linelimit.TooLongError (a flood) or a read error.
type extLine struct {
	b   []byte
	err error
}

// extProc is one running program.
type extProc struct {
	cmd    *exec.Cmd
	pid    int
	stdin  *os.File // the write end of its stdin
	stdout *os.File // the read end of its stdout
	stderr *os.File // the read end of its stderr

	lines      chan extLine  // from the stdout reader
	quit       chan struct{} // closed by kill: the readers stop
	stderrDone chan struct{} // closed when the stderr reader has seen the end
	exited     chan struct{} // closed when the program has exited; waitErr says how
	waitErr    error
	tail       tail
	killOnce   sync.Once

	grace    time.Duration // endGrace, which a test may shorten
	served   int           // requests answered
	lastTask string        // the task of the last answer, for the message of a stray line
}

// start starts a program of the variant.
func (s *externalSolver) start() (*extProc, error) {
	inR, inW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		inR.Close()
		inW.Close()
		return nil, err
	}
	errR, errW, err := os.Pipe()
	if err != nil {
		inR.Close()
		inW.Close()
		outR.Close()
		outW.Close()
		return nil, err
	}
	cmd := &exec.Cmd{Path: s.path, Args: s.argv, Dir: s.dir, Env: s.env, Stdin: inR, Stdout: outW, Stderr: errW}
	setProcessGroup(cmd)
	err = cmd.Start()
	// The program has its own copies of its ends of the pipes.
	inR.Close()
	outW.Close()
	errW.Close()
	if err != nil {
		inW.Close()
		outR.Close()
		errR.Close()
		return nil, fmt.Errorf("external program %s cannot start: %w", s.display, err)
	}
	p := &extProc{
		cmd: cmd, pid: cmd.Process.Pid, stdin: inW, stdout: outR, stderr: errR, grace: s.grace,
		lines: make(chan extLine, 1), quit: make(chan struct{}), stderrDone: make(chan struct{}), exited: make(chan struct{}),
	}
	go p.readStdout()
	go p.readStderr(s.log, s.display, &s.stderrLog)
	go func() {
		p.waitErr = waitProgram(cmd)
		close(p.exited)
	}()
	return p, nil
}

// readStdout hands the program's stdout to Solve line by line, then why it ended.
func (p *extProc) readStdout() {
	lr := linelimit.NewReader(p.stdout, maxAnswerLine)
	for {
		b, err := lr.Line()
		l := extLine{err: err}
		if err == nil {
			l.b = bytes.Clone(b)
		}
		select {
		case p.lines <- l:
		case <-p.quit:
			return
		}
		if err != nil {
			return
		}
	}
}

// readStderr keeps the last lines of the program's stderr and sends each to the run's log, as
// far as budget allows.
func (p *extProc) readStderr(log *slog.Logger, display string, budget *logBudget) {
	defer close(p.stderrDone)
	br := bufio.NewReaderSize(p.stderr, stderrLineBytes)
	for {
		b, err := br.ReadSlice('\n')
		if len(b) == 0 && err != nil && err != bufio.ErrBufferFull {
			return
		}
		text := strings.TrimRight(string(b), "\r\n")
		if err == bufio.ErrBufferFull { // a long line: keep its start, skip the rest
			text += " …(cut)"
			for err == bufio.ErrBufferFull {
				_, err = br.ReadSlice('\n')
			}
		}
		p.tail.add(text)
		if ok, skipped := budget.take(len(text), time.Now()); ok {
			skipped.log(log, display)
			log.Info("external program stderr", "program", display, "pid", p.pid, "line", text)
		}
		if err != nil {
			return
		}
	}
}

// kill kills the program and its process group, at once and without waiting; the readers stop.
// Its stderr is read for its grace more (the last words of a program killed), then closed.
func (p *extProc) kill() {
	p.killOnce.Do(func() {
		close(p.quit)
		killProcessGroup(p.cmd)
		p.stdin.Close()
		p.stdout.Close()
		go func() {
			select {
			case <-p.stderrDone:
			case <-time.After(p.grace):
			}
			p.stderr.Close()
		}()
	})
}

// hasExited reports whether the program has exited.
func (p *extProc) hasExited() bool {
	select {
	case <-p.exited:
		return true
	default:
		return false
	}
}

// exitText says how the program exited ("exit status 2"), or "" while it runs.
func (p *extProc) exitText() string {
	if !p.hasExited() {
		return ""
	}
	var ee *exec.ExitError
	switch {
	case p.waitErr == nil:
		return "exit status 0"
	case errors.As(p.waitErr, &ee):
		return ee.String()
	}
	return p.waitErr.Error()
}

// stderrTail waits for the stderr of a killed program to end (at most its grace) and writes
// its last lines for an error.
func (p *extProc) stderrTail() string {
	select {
	case <-p.stderrDone:
	case <-time.After(p.grace):
	}
	lines := p.tail.lines()
	if len(lines) == 0 {
		return "\n(its stderr was empty)"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "\nstderr, last %d line(s):", len(lines))
	for _, l := range lines {
		b.WriteString("\n| ")
		b.WriteString(l)
	}
	return b.String()
}

// logBudget is a token bucket of the log's bytes for the stderr of a variant's programs
// (stderrLogBurst, stderrLogRate), and the count of the lines it refused. Once it refuses a line
// it refuses until half the burst has come back, so that a flood is logged in bursts, each after
// one line that counts the lines left out (which costs its bytes too), not as a notice for every
// line.
type logBudget struct {
	mu       sync.Mutex
	tokens   float64
	last     time.Time // when tokens was last filled; zero: never (the bucket is full)
	refusing bool
	skipped  skippedLines
}

// skippedLines counts the stderr lines not logged since the last report of them.
type skippedLines struct{ lines, bytes int64 }

// take reports whether a line of n bytes of text may be logged at now, and the lines skipped
// before it, to be reported first (zero when none, or when this one is skipped too).
func (b *logBudget) take(n int, now time.Time) (bool, skippedLines) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.last.IsZero() {
		b.tokens = stderrLogBurst
	} else if dt := now.Sub(b.last).Seconds(); dt > 0 {
		b.tokens = min(stderrLogBurst, b.tokens+dt*stderrLogRate)
	}
	b.last = now
	cost := float64(n + stderrLogLineBytes)
	if b.skipped.lines > 0 {
		cost += stderrLogNoticeBytes
	}
	if b.refusing && b.tokens < stderrLogBurst/2 || b.tokens < cost {
		b.refusing = true
		b.skipped.lines++
		b.skipped.bytes += int64(n)
		return false, skippedLines{}
	}
	b.refusing = false
	b.tokens -= cost
	s := b.skipped
	b.skipped = skippedLines{}
	return true, s
}

// flush returns the lines skipped since the last report, and forgets them.
func (b *logBudget) flush() skippedLines {
	b.mu.Lock()
	defer b.mu.Unlock()
	s := b.skipped
	b.skipped = skippedLines{}
	return s
}

// log reports the skipped lines, if any.
func (s skippedLines) log(log *slog.Logger, display string) {
	if s.lines > 0 {
		log.Warn(fmt.Sprintf("external program stderr: %d %s (%s) not logged, over the log's limit of %s at once and %s a second for a variant's programs; a failed task's error quotes the last lines of its program",
			s.lines, results.Plural(int(s.lines), "line", "lines"), linelimit.Size(int(s.bytes)), linelimit.Size(stderrLogBurst), linelimit.Size(stderrLogRate)),
			"program", display)
	}
}

// tail is a ring of the last lines of a stderr: at most stderrTailLines, and at most
// stderrTailBytes besides the last one.
type tail struct {
	mu    sync.Mutex
	ring  []string
	bytes int
}

func (t *tail) add(s string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.ring = append(t.ring, s)
	t.bytes += len(s)
	for len(t.ring) > stderrTailLines || len(t.ring) > 1 && t.bytes > stderrTailBytes {
		t.bytes -= len(t.ring[0])
		t.ring = t.ring[1:]
	}
}

func (t *tail) lines() []string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return append([]string(nil), t.ring...)
}

// pool holds a variant's programs: the idle ones, and all that live (for Close).
type pool struct {
	mu     sync.Mutex
	idle   []*extProc
	live   map[*extProc]bool
	closed bool
}

func (pl *pool) init() { pl.live = map[*extProc]bool{} }

var errExternalClosed = errors.New("external: the algorithm's programs were closed")

// acquire returns an idle program, or starts one. An idle program that has exited or closed its
// stdout since its last answer is dropped (with a warning) for a fresh one; one that wrote a
// line is returned with that line, which fails the task it was to serve.
func (s *externalSolver) acquire() (*extProc, *extLine, error) {
	for {
		s.mu.Lock()
		if s.closed {
			s.mu.Unlock()
			return nil, nil, errExternalClosed
		}
		var p *extProc
		if k := len(s.idle); k > 0 {
			p, s.idle = s.idle[k-1], s.idle[:k-1]
		}
		s.mu.Unlock()
		if p == nil {
			break
		}
		select {
		case l := <-p.lines:
			if l.err == nil {
				return p, &l, nil
			}
			s.log.Warn("external program ended between requests; starting another", "program", s.display, "pid", p.pid, "stdout", describeStreamEnd(l.err))
			s.discard(p)
			continue
		default:
		}
		if p.hasExited() {
			s.log.Warn("external program exited between requests; starting another", "program", s.display, "pid", p.pid, "status", p.exitText())
			s.discard(p)
			continue
		}
		return p, nil, nil
	}
	p, err := s.start()
	if err != nil {
		return nil, nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		p.kill()
		return nil, nil, errExternalClosed
	}
	s.live[p] = true
	return p, nil, nil
}

// release gives a program that answered back to the pool, or kills it when the pool is full
// (at most one idle program per worker) or closed.
func (s *externalSolver) release(p *extProc) {
	s.mu.Lock()
	if !s.closed && len(s.idle) < s.workers {
		s.idle = append(s.idle, p)
		s.mu.Unlock()
		return
	}
	delete(s.live, p)
	s.mu.Unlock()
	p.kill()
}

// discard kills a program and forgets it.
func (s *externalSolver) discard(p *extProc) {
	p.kill()
	s.mu.Lock()
	delete(s.live, p)
	s.mu.Unlock()
}

// Close kills every program left and waits (a little) for them to be reaped.
func (s *externalSolver) Close() error {
	s.mu.Lock()
	s.closed = true
	procs := make([]*extProc, 0, len(s.live))
	for p := range s.live {
		procs = append(procs, p)
	}
	s.live, s.idle = map[*extProc]bool{}, nil
	s.mu.Unlock()
	for _, p := range procs {
		p.kill()
	}
	defer func() { s.stderrLog.flush().log(s.log, s.display) }()
	deadline := time.After(closeGrace)
	for _, p := range procs {
		select {
		case <-p.exited:
		case <-deadline:
			return fmt.Errorf("external program %s (pid %d) was killed but has not exited after %s", s.display, p.pid, closeGrace)
		}
	}
	return nil
}

// describeStreamEnd says why a program's stdout gave no line.
func describeStreamEnd(err error) string {
	if err == io.EOF {
		return "closed"
	}
	if e, ok := linelimit.IsTooLong(err); ok {
		return fmt.Sprintf("a line longer than %s", linelimit.Size(e.Limit))
	}
	return err.Error()
}

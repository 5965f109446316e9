package runner

import (
	"bytes"
	"fmt"
	"io"
	"log/slog"
	"os"
	"sync"
	"time"

	"github.com/vbauerster/mpb/v8"
	"github.com/vbauerster/mpb/v8/decor"
	"golang.org/x/term"
)

// progress shows how far a run is: a bar on a terminal, otherwise a log line every period, so
// that CI logs are not flooded with redraws. Its time left comes from an estimate of the units'
// costs (see estimate).
type progress struct {
	bar     *mpb.Bar
	p       *mpb.Progress
	console *Console
	stop    chan struct{}
	wg      sync.WaitGroup
	mu      sync.Mutex
	done    int
	fail    int
	total   int
	start   time.Time
	est     *estimate
}

// unitCost is the expected cost of one unit of a progress (a task): the seconds it should take on
// the reference machine (registry.Algorithm.Cost), and the group whose finished units calibrate
// it (the task's algorithm variant).
type unitCost struct {
	group    string
	expected float64
}

// newProgress shows the progress of the units of what ("items" while data are made, "tasks"),
// whose costs are given (nil: units of equal, unknown cost) and which run on workers at once.
// On a terminal the bar is drawn on w through a Console when w is one (NewConsole), so that log
// lines written meanwhile go above it.
func newProgress(what string, total int, costs []unitCost, workers int, terminal bool, w io.Writer, log *slog.Logger, every time.Duration) *progress {
	pr := &progress{total: total, start: time.Now(), stop: make(chan struct{}), est: newEstimate(total, costs, workers)}
	if terminal {
		pr.console, _ = w.(*Console)
		if pr.console == nil {
			pr.console = NewConsole(w)
		}
		pr.p = mpb.New(mpb.WithConsoleWriter(newTermWriter(pr.console.w)), mpb.WithWidth(40))
		pr.bar = pr.p.AddBar(int64(total),
			mpb.PrependDecorators(decor.Name(what+" "), decor.CountersNoUnit("%d/%d", decor.WCSyncWidth)),
			mpb.AppendDecorators(decor.Percentage(decor.WCSyncSpace), decor.Any(func(decor.Statistics) string { return " eta " + pr.eta() })),
		)
		pr.console.attach(pr.p)
		return pr
	}
	if every <= 0 {
		return pr
	}
	pr.wg.Add(1)
	go func() {
		defer pr.wg.Done()
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			select {
			case <-pr.stop:
				return
			case <-t.C:
				pr.mu.Lock()
				done, fail := pr.done, pr.fail
				pr.mu.Unlock()
				args := []any{"of", what, "done", done, "total", pr.total, "failed", fail, "elapsed", time.Since(pr.start).Round(time.Second)}
				if left, ok := pr.left(); ok {
					args = append(args, "eta", left.Round(time.Second))
				}
				log.Info("progress", args...)
			}
		}
	}()
	return pr
}

// left estimates the time left.
func (pr *progress) left() (time.Duration, bool) {
	pr.mu.Lock()
	defer pr.mu.Unlock()
	return pr.est.left(time.Now())
}

// begin counts unit i as started now: the time it has run counts against its cost.
func (pr *progress) begin(i int) {
	pr.mu.Lock()
	pr.est.begin(i, time.Now())
	pr.mu.Unlock()
}

// eta is the time left as the bar shows it.
func (pr *progress) eta() string {
	left, ok := pr.left()
	if !ok {
		return "?"
	}
	if left < time.Minute {
		left = left.Round(time.Second)
	} else {
		left = left.Round(time.Minute / 6)
	}
	return left.String()
}

// add counts unit i as finished after seconds; a failed unit does not calibrate the estimate.
func (pr *progress) add(i int, seconds float64, failed bool) {
	pr.mu.Lock()
	pr.done++
	if failed {
		pr.fail++
	}
	pr.est.finish(i, seconds, !failed)
	pr.mu.Unlock()
	if pr.bar != nil {
		pr.bar.Increment()
	}
}

// skip counts unit i as done without having run (a repetition of a task that failed before it):
// it neither fails nor calibrates the estimate.
func (pr *progress) skip(i int) {
	pr.mu.Lock()
	pr.done++
	pr.est.finish(i, 0, false)
	pr.mu.Unlock()
	if pr.bar != nil {
		pr.bar.Increment()
	}
}

// close stops the display; aborted leaves the bar where it stopped. The bar's last drawing is
// on the terminal before close returns, and the log writes below it again.
func (pr *progress) close(aborted bool) {
	close(pr.stop)
	pr.wg.Wait()
	if pr.bar != nil {
		pr.console.detach(func() {
			if aborted || pr.bar.Current() < int64(pr.total) {
				pr.bar.Abort(false)
			}
			pr.p.Wait()
		})
	}
}

// Console is the terminal that a run draws its progress bar on and writes its log to. While a
// bar is drawn, what is written goes above the bar (through mpb, at its next drawing), so that a
// log line is neither drawn over by the bar nor written into it; the bar's end waits for writes
// in progress, and writes made meanwhile wait for its last drawing.
type Console struct {
	mu sync.Mutex
	w  io.Writer
	p  *mpb.Progress
}

// NewConsole returns the Console of the terminal w.
func NewConsole(w io.Writer) *Console { return &Console{w: w} }

// Write writes b above the bar, or to the terminal when none is drawn.
func (c *Console) Write(b []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.p != nil {
		if n, err := c.p.Write(b); err == nil {
			return n, nil
		}
	}
	return c.w.Write(b)
}

func (c *Console) attach(p *mpb.Progress) {
	c.mu.Lock()
	c.p = p
	c.mu.Unlock()
}

// detach ends the bar with end, writes waiting meanwhile.
func (c *Console) detach(end func()) {
	c.mu.Lock()
	defer c.mu.Unlock()
	end()
	c.p = nil
}

// termWriter is the console writer of the bar (mpb.ConsoleWriter): mpb writes a drawing (and the
// lines written above it) into its buffer and flushes it, and each flush first moves the cursor
// up over the previous drawing and clears the screen below. Unlike mpb's own writer it returns
// to the start of the line before moving up: the terminal echoes Ctrl-C as "^C" after the
// drawing, which leaves the cursor two columns in, and the next drawing then started there,
// after what was left of the line ("tatasks").
type termWriter struct {
	bytes.Buffer
	out io.Writer
	up  int // lines of the previous drawing
}

func newTermWriter(out io.Writer) *termWriter { return &termWriter{out: out} }

// IsTerminal says the writer draws on a terminal: a progress is drawn only there.
func (w *termWriter) IsTerminal() bool { return true }

// GetTermSize returns the terminal's size; 80×24 where it cannot be asked (a test's writer) or
// says 0×0 (a pseudo-terminal whose size was never set, as script(1) or an expect script make
// it), which would leave mpb no line to draw the bar on.
func (w *termWriter) GetTermSize() (width, height int, err error) {
	if f, ok := w.out.(*os.File); ok {
		if width, height, err := term.GetSize(int(f.Fd())); err == nil && width > 0 && height > 0 {
			return width, height, nil
		}
	}
	return 80, 24, nil
}

// Flush writes the buffer over the previous drawing; lines is the number of lines of the
// drawing it ends with.
func (w *termWriter) Flush(lines int) error {
	var b bytes.Buffer
	if w.up > 0 {
		fmt.Fprintf(&b, "\r\x1b[%dA\x1b[J", w.up)
	}
	b.Write(w.Bytes())
	w.Reset()
	w.up = lines
	_, err := w.out.Write(b.Bytes())
	return err
}

// estimate predicts the time left of a set of units (tasks) from their expected costs, calibrated
// by the units that finish. A group's (an algorithm variant's) units left are scaled by the ratio
// of the measured to the expected seconds of its finished units: a ratio of sums, so that each
// counts by its size and a thousand quick tasks do not outvote one long one. A group none of whose
// units has finished is scaled by that ratio over all groups, and before any unit finishes the
// expectations are taken as they are (they are seconds on the reference machine). Units of
// unknown cost (no costs given) are of equal cost, with no estimate before one finishes. A unit
// running has the time it has run taken off its scaled cost (down to 0), so that the time left
// of a long last task counts down. The time left is the scaled work left shared by the workers,
// but at least the longest unit left, which one worker must run alone: a long last task is not
// hidden behind many quick ones.
type estimate struct {
	costs    []unitCost
	finished []bool
	started  map[int]time.Time // units running, and when they started
	workers  int
	known    bool // costs are expected seconds
	left0    int  // units left
	// measured and expected seconds of the finished units that calibrate, by group and in all.
	measured, expected       map[string]float64
	allMeasured, allExpected float64
}

func newEstimate(total int, costs []unitCost, workers int) *estimate {
	e := &estimate{costs: costs, finished: make([]bool, total), workers: max(workers, 1), known: costs != nil, left0: total,
		measured: map[string]float64{}, expected: map[string]float64{}, started: map[int]time.Time{}}
	if costs == nil {
		e.costs = make([]unitCost, total)
		for i := range e.costs {
			e.costs[i].expected = 1
		}
	}
	return e
}

// finish marks unit i finished after seconds; calibrate says whether its time is a measure of
// its cost (not that of a failure).
func (e *estimate) finish(i int, seconds float64, calibrate bool) {
	if i < 0 || i >= len(e.finished) || e.finished[i] {
		return
	}
	e.finished[i] = true
	delete(e.started, i)
	e.left0--
	if c := e.costs[i]; calibrate && c.expected > 0 {
		e.measured[c.group] += seconds
		e.expected[c.group] += c.expected
		e.allMeasured += seconds
		e.allExpected += c.expected
	}
}

// begin marks unit i started at t.
func (e *estimate) begin(i int, t time.Time) {
	if i >= 0 && i < len(e.finished) && !e.finished[i] {
		e.started[i] = t
	}
}

// left returns the estimated time left at now; ok is false when there is no estimate yet.
func (e *estimate) left(now time.Time) (left time.Duration, ok bool) {
	global, haveGlobal := 1.0, e.known
	if e.allExpected > 0 {
		global, haveGlobal = e.allMeasured/e.allExpected, true
	}
	if !haveGlobal {
		return 0, false
	}
	ratio := map[string]float64{}
	for g, x := range e.expected {
		ratio[g] = e.measured[g] / x
	}
	var work, longest float64
	for i, c := range e.costs {
		if e.finished[i] {
			continue
		}
		r, ok := ratio[c.group]
		if !ok {
			r = global
		}
		s := c.expected * r
		if t, ok := e.started[i]; ok {
			s = max(s-now.Sub(t).Seconds(), 0)
		}
		work += s
		longest = max(longest, s)
	}
	secs := max(work/float64(min(e.workers, max(e.left0, 1))), longest)
	return time.Duration(min(secs, 1e9) * float64(time.Second)), true
}

package runner

import (
	"fmt"
	"io"
	"log/slog"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// t0 is the clock of the estimate tests.
var t0 = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

// near reports whether d is within tol seconds of want.
func near(d time.Duration, want, tol float64) bool {
	return d.Seconds() >= want-tol && d.Seconds() <= want+tol
}

// TestEstimateLongTaskLast: forty quick greedy tasks finish first and one trellis task, expected
// to take 40 s, is left: the estimate is its 40 s (the trellis, not yet calibrated, takes the
// ratio of measured to expected time over all the tasks, here 1), where a count of tasks said
// "0s"; once it runs, the time it has run comes off (30 s in, 10 s are left; past its
// expectation, 0). Tolerances: 1e-6 s, the estimate being exact arithmetic on these numbers.
func TestEstimateLongTaskLast(t *testing.T) {
	var costs []unitCost
	for range 40 {
		costs = append(costs, unitCost{"greedy", 0.01})
	}
	costs = append(costs, unitCost{"trellis", 40})
	e := newEstimate(len(costs), costs, 2)
	if left, ok := e.left(t0); !ok || !near(left, 40, 1e-6) {
		t.Errorf("before any task: %v %v, want the expected 40 s (the longest task alone exceeds the 40.4 s of work shared by 2 workers)", left, ok)
	}
	for i := range 40 {
		e.finish(i, 0.01, true)
	}
	if left, ok := e.left(t0); !ok || !near(left, 40, 1e-6) {
		t.Errorf("with the trellis task left: %v %v, want 40s", left, ok)
	}
	e.begin(40, t0)
	if left, ok := e.left(t0.Add(30 * time.Second)); !ok || !near(left, 10, 1e-6) {
		t.Errorf("30 s into the trellis task: %v %v, want 10s", left, ok)
	}
	if left, ok := e.left(t0.Add(50 * time.Second)); !ok || left != 0 {
		t.Errorf("50 s into the trellis task: %v %v, want 0s", left, ok)
	}
}

// TestEstimateCalibrates: an algorithm running twice as slow as expected has its tasks left
// scaled by 2, an algorithm without a finished task by the ratio over all (also 2 here), until
// its own tasks say otherwise; a failed task does not calibrate; the work is shared by the
// workers. Tolerance 1e-6 s.
func TestEstimateCalibrates(t *testing.T) {
	var costs []unitCost
	for range 10 {
		costs = append(costs, unitCost{"a", 1})
	}
	for range 10 {
		costs = append(costs, unitCost{"b", 1})
	}
	e := newEstimate(len(costs), costs, 2)
	for i := range 5 {
		e.finish(i, 2, true)
	}
	// 5 a left at 2 s, 10 b at 2 s (the global ratio): 30 s of work on 2 workers.
	if left, _ := e.left(t0); !near(left, 15, 1e-6) {
		t.Errorf("after 5 slow a: %v, want 15s", left)
	}
	e.finish(10, 0.5, true)
	e.finish(11, 100, false) // a failure: no calibration
	// 5 a left at 2 s, 8 b at 0.5 s: 14 s on 2 workers.
	if left, _ := e.left(t0); !near(left, 7, 1e-6) {
		t.Errorf("after a quick b and a failed one: %v, want 7s", left)
	}
	e.finish(11, 1, true) // finished twice: counted once
	if left, _ := e.left(t0); !near(left, 7, 1e-6) {
		t.Errorf("after a unit finished twice: %v, want 7s", left)
	}
}

// TestEstimateUnknownCosts: units of unknown cost (items being made) have no estimate until one
// finishes, then the mean time of those finished, shared by the workers. Tolerance 1e-6 s.
func TestEstimateUnknownCosts(t *testing.T) {
	e := newEstimate(10, nil, 3)
	if _, ok := e.left(t0); ok {
		t.Error("an estimate before any unit finished")
	}
	e.finish(0, 1, true)
	if left, ok := e.left(t0); !ok || !near(left, 3, 1e-6) {
		t.Errorf("after one unit of 1 s: %v %v, want 3s (9 units on 3 workers)", left, ok)
	}
}

// screen is a minimal terminal: it keeps the lines written to it, with the cursor movements mpb's
// drawing uses (carriage return, newline, ESC[nA: up n lines, ESC[J: clear to the end of the
// screen); the column stays as it was when the cursor moves up, as on a real terminal.
type screen struct {
	mu       sync.Mutex
	lines    [][]rune
	row, col int
}

func (s *screen) Write(b []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	text := []rune(string(b))
	for i := 0; i < len(text); i++ {
		for len(s.lines) <= s.row {
			s.lines = append(s.lines, nil)
		}
		switch r := text[i]; {
		case r == '\r':
			s.col = 0
		case r == '\n':
			s.row, s.col = s.row+1, 0
		case r == '\x1b' && i+1 < len(text) && text[i+1] == '[':
			j := i + 2
			for j < len(text) && (text[j] >= '0' && text[j] <= '9' || text[j] == ';') {
				j++
			}
			if j == len(text) {
				return len(b), fmt.Errorf("escape sequence cut short")
			}
			arg, _ := strconv.Atoi(string(text[i+2 : j]))
			switch text[j] {
			case 'A':
				s.row = max(s.row-max(arg, 1), 0)
			case 'J':
				s.lines[s.row] = s.lines[s.row][:min(s.col, len(s.lines[s.row]))]
				s.lines = s.lines[:s.row+1]
			}
			i = j
		default:
			line := s.lines[s.row]
			for len(line) <= s.col {
				line = append(line, ' ')
			}
			line[s.col] = r
			s.lines[s.row] = line
			s.col++
		}
	}
	return len(b), nil
}

func (s *screen) text() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []string
	for _, l := range s.lines {
		out = append(out, strings.TrimRight(string(l), " "))
	}
	return strings.TrimRight(strings.Join(out, "\n"), "\n")
}

// waitFor waits for the screen to show want, up to a minute: a bound on a hang, which a loaded
// machine meets.
func waitFor(t *testing.T, s *screen, want string) {
	t.Helper()
	for start := time.Now(); time.Since(start) < time.Minute; time.Sleep(10 * time.Millisecond) {
		if strings.Contains(s.text(), want) {
			return
		}
	}
	t.Fatalf("the screen never showed %q:\n%s", want, s.text())
}

// TestBarEndsCleanlyOnCtrlC draws the tasks bar on a fake terminal, writes a log line while it
// is drawn, then echoes "^C" after the drawing as a terminal does on Ctrl-C, ends the bar as an
// interrupted run does and writes the interrupt message: the log line stands whole above the bar,
// the bar's line starts with "tasks" (the echo left the cursor two columns in, and the next
// drawing used to start there: "tatasks"), and the message has a line of its own below it.
func TestBarEndsCleanlyOnCtrlC(t *testing.T) {
	scr := &screen{}
	con := NewConsole(scr)
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	costs := make([]unitCost, 10)
	for i := range costs {
		costs[i] = unitCost{"greedy", 1}
	}
	pr := newProgress("tasks", 10, costs, 1, true, con, log, 0)
	for i := range 3 {
		pr.add(i, 1, false)
	}
	waitFor(t, scr, "tasks 3/10")
	fmt.Fprintln(con, "level=WARN msg=\"task failed\"")
	waitFor(t, scr, "task failed")
	scr.Write([]byte("^C")) // the terminal's echo of Ctrl-C
	pr.add(3, 1, false)
	waitFor(t, scr, "tasks 4/10")
	if drawn := strings.Split(scr.text(), "\n"); len(drawn) < 2 || !strings.HasPrefix(drawn[1], "tasks 4/10 ") {
		t.Errorf("the drawing after the echo of Ctrl-C shows\n%s\nwant the bar's line to start with \"tasks 4/10\"", scr.text())
	}
	pr.close(true)
	fmt.Fprintln(con, "hcbench: interrupted")
	lines := strings.Split(scr.text(), "\n")
	if len(lines) != 3 || lines[0] != `level=WARN msg="task failed"` || !strings.HasPrefix(lines[1], "tasks 4/10 ") || lines[2] != "hcbench: interrupted" {
		t.Errorf("the screen shows\n%s\nwant the log line, the bar at 4/10 and the message, each on its own line", scr.text())
	}
	if !strings.Contains(lines[1], " eta 6s") {
		t.Errorf("bar %q: want eta 6s (6 tasks of 1 s left on 1 worker)", lines[1])
	}
}

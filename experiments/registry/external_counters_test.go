package registry

import (
	"fmt"
	"maps"
	"strings"
	"testing"
)

// TestExternalCounters: an answer's counters reach the solution (and so the record) as the
// program counted them, n standing for a count that differs by item. A counter with a bad name
// or value, or too many of them, fails the task with the program and the counter named, and the
// program, which kept to the protocol, serves the next item; counters that are not an object are
// a malformed answer, which kills the program.
func TestExternalCounters(t *testing.T) {
	jets := testJets(t, 3)
	s, _ := startExt(t, "greedy", extOptions{flags: []string{"-counters", `{"leaves_read": "$n", "steps": 0, "big": 9223372036854775807}`}})
	for _, it := range jets {
		sol, err := s.Solve(t.Context(), extTask(it))
		if err != nil {
			t.Fatal(err)
		}
		want := map[string]int64{"leaves_read": int64(it.Leaves()), "steps": 0, "big": 1<<63 - 1}
		if !maps.Equal(sol.Counters, want) {
			t.Errorf("item %s: counters %v, want %v", it.ID, sol.Counters, want)
		}
	}
	many := make([]string, maxCounters+1)
	for i := range many {
		many[i] = fmt.Sprintf(`"c%d": %d`, i, i)
	}
	for _, c := range []struct {
		counters string
		want     string
		kept     bool
	}{
		{`{"Steps": 1}`, `answered with a counter named "Steps"; a counter's name is 1 to 64 lower-case letters, digits and '_'`, true},
		{`{"steps-done": 1}`, `a counter named "steps-done"`, true},
		{`{"` + strings.Repeat("k", maxCounterKeyBytes+1) + `": 1}`, "a counter's name is 1 to 64", true},
		{`{"": 1}`, `a counter named ""`, true},
		{`{"a_ok": 1, "steps": -1}`, `answered with counter "steps" = "-1", which is not a count`, true},
		{`{"steps": 1.5}`, `counter "steps" = "1.5", which is not a count`, true},
		{`{"steps": 1e3}`, `counter "steps" = "1e3"`, true},
		{`{"steps": 9223372036854775808}`, `counter "steps" = "9223372036854775808"`, true},
		{`{"steps": "7"}`, `counter "steps" = "\"7\""`, true},
		{`{"steps": null}`, `counter "steps" = "null"`, true},
		{"{" + strings.Join(many, ", ") + "}", "answered with 65 counters, more than the 64 an answer may hold", true},
		{`[1, 2]`, "answered with counters that are not an object", false},
		{`7`, "answered with counters that are not an object", false},
	} {
		s, _ := startExt(t, "greedy", extOptions{flags: []string{"-bad", "1", "-counters", c.counters}})
		var pids []any
		for i, it := range jets {
			sol, err := s.Solve(t.Context(), extTask(it))
			if i != 1 {
				if err != nil {
					t.Fatalf("%s, item %d: %v", c.counters, i, err)
				}
				pids = append(pids, fill(sol).Extra["pid"])
				continue
			}
			switch {
			case err == nil:
				t.Errorf("%s: no error", c.counters)
			case !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "external program "):
				t.Errorf("%s: %v, want %q", c.counters, err, c.want)
			case c.kept != strings.Contains(err.Error(), "the program is kept for the next item"):
				t.Errorf("%s: %v, want the program kept: %v", c.counters, err, c.kept)
			}
		}
		if (pids[0] == pids[1]) != c.kept {
			t.Errorf("%s: pids %v before and after the bad answer, want the same: %v", c.counters, pids, c.kept)
		}
	}
}

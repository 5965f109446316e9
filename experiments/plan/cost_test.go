package plan

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/hcbench/hcbench/experiments/config"
	"github.com/hcbench/hcbench/experiments/registry"
)

func newPlan(t *testing.T, src string) *Plan {
	t.Helper()
	cfg, err := config.Parse("t.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	p, err := New(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestCosts: the expected time of a variant's tasks follows its cost model: the trellis's is its
// Cost at each data set's leaf count, the beam's B·N² is above greedy's N², and a data set of twice
// the items costs twice as much; memory per task is the trellis's tables. The table lists each
// data set and variant, and the whole's time on the workers.
func TestCosts(t *testing.T) {
	p := newPlan(t, `version: 1
name: c
workers: 2
datasets:
  - {name: a, generator: ginkgo, jets: 2, min_leaves: 10, max_leaves: 10, t_cut: 4}
  - {name: b, generator: ginkgo, jets: 4, min_leaves: 12, max_leaves: 12, t_cut: 4}
algorithms: [greedy, beam, trellis]
`)
	costs := p.Costs(nil)
	if len(costs) != 6 {
		t.Fatalf("%d costs, want 6 (2 data sets × 3 algorithms): %+v", len(costs), costs)
	}
	by := map[string]Cost{}
	for _, c := range costs {
		by[c.Dataset+"/"+c.Algorithm] = c
	}
	perTask := func(k string) float64 { return by[k].Seconds / float64(by[k].Tasks) }
	// Tolerance 1e-9: the ratios are exact in the model, up to rounding.
	var trellisParams registry.Params
	for _, task := range p.Tasks {
		if task.Algorithm.Name == "trellis" {
			trellisParams = task.Algorithm.Params
		}
	}
	trellis, _ := registry.LookupAlgorithm("trellis")
	want := trellis.Cost(trellisParams, 12) / trellis.Cost(trellisParams, 10)
	if r := perTask("b/trellis") / perTask("a/trellis"); math.Abs(r-want) > 1e-9*want || want <= 3 {
		t.Errorf("trellis at 12 leaves ÷ at 10 = %g, want its Cost's %g (more than 3)", r, want)
	}
	if r := by["b/greedy"].Seconds / by["a/greedy"].Seconds; math.Abs(r-2*144.0/100) > 1e-9 {
		t.Errorf("greedy on b ÷ on a = %g, want %g (twice the items, N²)", r, 2*144.0/100)
	}
	if perTask("a/beam") <= perTask("a/greedy") {
		t.Errorf("beam %g s a task, greedy %g: the beam keeps B = n(n-1)/2 hierarchies", perTask("a/beam"), perTask("a/greedy"))
	}
	if by["b/trellis"].Memory <= by["b/greedy"].Memory || by["b/trellis"].Memory < 8<<12 {
		t.Errorf("memory per task: trellis %d, greedy %d", by["b/trellis"].Memory, by["b/greedy"].Memory)
	}
	var b bytes.Buffer
	if err := p.WriteCosts(&b, 2, nil); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{"dataset  algorithm  tasks  N   time/task", "\nb        trellis    4      12  ", "# expected time: about "} {
		if !strings.Contains(out, want) {
			t.Errorf("no %q in\n%s", want, out)
		}
	}
	if strings.Count(out, "\n") != 9 {
		t.Errorf("%d lines, want 9 (title, header, 6 rows, total):\n%s", strings.Count(out, "\n"), out)
	}
}

// TestFilter: -only selects tasks by an unanchored regular expression over their keys; the
// task list, the costs and the memory estimate count only those.
func TestFilter(t *testing.T) {
	p := newPlan(t, "version: 1\nname: f\ndatasets:\n  - {name: q, generator: ginkgo, jets: 3, t_cut: 16}\n  - {name: m, generator: mixture, points: 4}\nalgorithms: [truth, greedy, beam]\n")
	for _, tc := range []struct {
		expr string
		n    int
	}{{"", 11}, {"algorithm=beam$", 4}, {"algorithm=(greedy|beam)$", 8}, {`dataset=q\|item=1\|`, 3}, {"item=0", 5}, {"nothing", 0}} {
		f, err := NewFilter(tc.expr)
		if err != nil {
			t.Fatal(err)
		}
		keep, n := p.Selected(f, nil)
		if n != tc.n {
			t.Errorf("-only %q selects %d tasks, want %d", tc.expr, n, tc.n)
		}
		for _, limit := range []int{-1, 3} {
			var b bytes.Buffer
			if err := p.Write(&b, f, limit); err != nil {
				t.Fatal(err)
			}
			want, head := tc.n, "# the "
			if limit >= 0 && tc.n > limit {
				want, head = limit, fmt.Sprintf("# the first %d of the %d tasks", limit, tc.n)
			}
			if got := strings.Count(b.String(), "\n") - 2; got != want || !strings.HasPrefix(b.String(), head) {
				t.Errorf("-only %q: Write(limit %d) lists %d tasks, want %d under %q:\n%s", tc.expr, limit, got, want, head, &b)
			}
		}
		tasks := 0
		for _, c := range p.Costs(keep) {
			tasks += c.Tasks
		}
		if tasks != tc.n {
			t.Errorf("-only %q: Costs count %d tasks, want %d", tc.expr, tasks, tc.n)
		}
	}
	if _, err := NewFilter("(unclosed"); err == nil || !strings.Contains(err.Error(), "-only \"(unclosed\" is not a regular expression") {
		t.Errorf("bad expression: %v", err)
	}
	one, _ := NewFilter("item=0")
	all := p.Memory(1, nil)
	keep, _ := p.Selected(one, nil)
	if part := p.Memory(1, keep); part.Bytes >= all.Bytes {
		t.Errorf("memory of the filtered plan %d, of the whole %d", part.Bytes, all.Bytes)
	}
}

// TestFormatSeconds: times are written in the unit a reader wants.
func TestFormatSeconds(t *testing.T) {
	for _, tc := range []struct {
		s    float64
		want string
	}{{0, "0 s"}, {4e-5, "40 µs"}, {0.0032, "3.2 ms"}, {4.12, "4.1 s"}, {0.22, "220 ms"}, {12.3, "12 s"}, {9.97, "10 s"}, {200, "3m20s"}, {5*3600 + 600, "5h10m"}, {1e10, "317 years"}} {
		if got := FormatSeconds(tc.s); got != tc.want {
			t.Errorf("FormatSeconds(%g) = %q, want %q", tc.s, got, tc.want)
		}
	}
}

// TestEveryAlgorithmHasACost: every algorithm of the table estimates its tasks' time (a run's
// progress and plan's expected time use it), with its defaults, as a positive finite number of
// seconds that does not fall as items grow from 2 to 30 leaves (3000 for the polynomial ones); the
// exact methods grow by 3 a leaf (tolerance 3e-9 relative: rounding).
func TestEveryAlgorithmHasACost(t *testing.T) {
	var names []string
	for _, a := range registry.Algorithms() {
		if a.Name != "external" { // its program is checked when the config is read
			names = append(names, a.Name)
		}
	}
	cfg, err := config.Parse("t.yaml", []byte("version: 1\nname: c\ndatasets:\n  - {name: q, generator: ginkgo, jets: 1, t_cut: 16}\nalgorithms: ["+strings.Join(names, ", ")+"]\n"))
	if err != nil {
		t.Fatal(err)
	}
	params := map[string]registry.Params{"external": &registry.ExternalParams{}}
	for _, a := range cfg.Algorithms {
		params[a.Name] = a.Params
	}
	for _, a := range registry.Algorithms() {
		if a.Cost == nil {
			t.Errorf("algorithm %s has no Cost", a.Name)
			continue
		}
		p := params[a.Name]
		prev, top := 0.0, 30
		if a.Name != "trellis" && a.Name != "bhc_exact" {
			top = 3000 // past the sizes where subsampling methods switch from their exact base case
		}
		for n := 2; n <= top; n++ {
			c := a.Cost(p, n)
			if !(c > 0) || math.IsInf(c, 0) || c < prev {
				t.Errorf("%s: Cost at %d leaves %g (at %d: %g); want positive, finite, not falling", a.Name, n, c, n-1, prev)
			}
			prev = c
		}
		// The exact methods' time grows as the splits of every subset, 3^N, once their
		// subsets' own work (2^N) no longer shows.
		if a.Name == "trellis" || a.Name == "bhc_exact" {
			if r := a.Cost(p, 25) / a.Cost(p, 24); r < 2.9 || r > 3 {
				t.Errorf("%s: Cost(25)/Cost(24) = %g, want 2.9 to 3", a.Name, r)
			}
		}
	}
}

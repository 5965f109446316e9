package registry

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/hcbench/hcbench/algorithms/model"
	"github.com/hcbench/hcbench/algorithms/model/correlation"
	"github.com/hcbench/hcbench/algorithms/tree"
	"github.com/hcbench/hcbench/experiments/item"
	"github.com/hcbench/hcbench/experiments/results"
	"github.com/hcbench/hcbench/internal/externaltest"
)

// The tests of the external algorithm run real child processes: the test binary itself, which
// TestMain turns into a protocol program (internal/externaltest) when its first argument asks.

func TestMain(m *testing.M) {
	if externaltest.IsProgram(os.Args) {
		os.Exit(externaltest.Main(os.Args[2:]))
	}
	os.Exit(m.Run())
}

// syncBuffer is a log destination that goroutines may write while a test reads it.
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

// testJets draws k Ginkgo jets of 5 to 9 leaves, as `generator: ginkgo` does.
func testJets(t testing.TB, k int) []*item.Item {
	t.Helper()
	src := &GinkgoSource{Jets: k, JetType: "qcd", Mass: 30, Lambda: 1.5, LambdaRoot: 1.5, TCut: 16, MinLeaves: 5, MaxLeaves: 9, MaxTries: 20000,
		JetLikelihood: JetLikelihood{Likelihood: "ginkgo2020", RootLambda: "generative"}}
	var out []*item.Item
	for i := range k {
		it, err := generateJet(context.Background(), 7, "qcd", fmt.Sprint(i), i, src, map[string]any{"generator": "ginkgo"})
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, it)
	}
	return out
}

// extOptions are the parameters of a test's external variant beyond its mode.
type extOptions struct {
	flags   []string
	timeout time.Duration
	workers int
	params  JSONObject
	labels  bool
	leaves  string
	dir     string
	grace   time.Duration // the solver's endGrace; 0: as it is
}

// startExt starts an external variant whose program is this test binary in mode, and its log.
func startExt(t testing.TB, mode string, o extOptions) (*externalSolver, *syncBuffer) {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	if o.dir == "" {
		o.dir = t.TempDir()
	}
	p := &ExternalParams{Command: append(CommandLine{exe, externaltest.Arg, mode}, o.flags...), Timeout: Duration(o.timeout), Params: o.params, GiveLabels: o.labels, LeafLabels: o.leaves}
	var logs syncBuffer
	sv, err := startExternal(p, Run{ConfigDir: o.dir, Workers: max(o.workers, 1), Log: slog.New(slog.NewTextHandler(&logs, nil))})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := sv.Close(); err != nil {
			t.Error(err)
		}
	})
	s := sv.(*externalSolver)
	if o.grace > 0 {
		s.grace = o.grace
	}
	return s, &logs
}

// waitFor waits until cond holds, checking it every few milliseconds: for an event that a test
// cannot be told of. After a minute, far beyond what any load delays an event by, the test
// fails as hung, naming what it waited for.
func waitFor(t testing.TB, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(time.Minute); !cond(); time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("still waiting for %s after a minute", what)
		}
	}
}

func extTask(it *item.Item) Task {
	return Task{Key: fmt.Sprintf("dataset=%s|item=%s|algorithm=ext", it.Dataset, it.ID), Dataset: it.Dataset, Item: it, Seed: 1000 + uint64(it.Index)}
}

// fill returns the record fields a solution adds.
func fill(sol Solution) results.Record {
	r := results.Record{Params: map[string]any{}}
	if sol.Fill != nil {
		sol.Fill(&r)
	}
	return r
}

// TestExternalScoresAsBuiltIn: a program that runs hcbench's greedy answers its trees by Newick
// (leaves by index or by name) or by merges (pairs, or scipy's 4 float columns); hcbench scores
// them exactly as it scores the built-in greedy's tree, the program's own log-likelihood agrees
// (no warning), and its seconds and extra values reach the record.
func TestExternalScoresAsBuiltIn(t *testing.T) {
	jets := testJets(t, 6)
	for _, mode := range []string{"greedy", "greedy-merges", "greedy-names", "scipy-merges"} {
		t.Run(mode, func(t *testing.T) {
			s, logs := startExt(t, mode, extOptions{})
			for _, it := range jets {
				task := extTask(it)
				sol, err := s.Solve(t.Context(), task)
				if err != nil {
					t.Fatal(err)
				}
				builtin, err := solveGreedy(t.Context(), &NoParams{}, task, Run{})
				if err != nil {
					t.Fatal(err)
				}
				if !tree.SameClusters(sol.Tree, builtin.Tree) {
					t.Errorf("item %s: tree %s, greedy's %s", it.ID, sol.Tree.Newick(nil), builtin.Tree.Newick(nil))
				}
				want, err := model.TreeLogLikelihood(it.Model, builtin.Tree)
				if err != nil {
					t.Fatal(err)
				}
				if sol.LogLikelihood != want || math.Abs(want-builtin.LogLikelihood) > 1e-9 {
					t.Errorf("item %s: log-likelihood %v, the built-in tree's %v (greedy's own sum %v)", it.ID, sol.LogLikelihood, want, builtin.LogLikelihood)
				}
				if len(sol.Warnings) > 0 {
					t.Errorf("item %s: warnings %q", it.ID, sol.Warnings)
				}
				r := fill(sol)
				if r.ReportedLogLikelihood == nil || math.Abs(float64(*r.ReportedLogLikelihood)-want) > 1e-9 || r.ReportedSeconds == nil || r.Extra["mode"] != mode {
					t.Errorf("item %s: record fields %v %v %v", it.ID, r.ReportedLogLikelihood, r.ReportedSeconds, r.Extra)
				}
			}
			// The stderr reader runs beside the answers.
			waitFor(t, "the program's stderr in the log", func() bool { return strings.Contains(logs.String(), "request 6: item 5, n ") })
		})
	}
}

// TestExternalRequest: the request carries the task, the seed as a decimal string, the item's
// names (indices for jets), params verbatim, and labels only when give_labels asks; the program
// runs in the config file's folder.
func TestExternalRequest(t *testing.T) {
	it := testJets(t, 1)[0]
	it.Labels = make([]string, it.Leaves())
	dir := t.TempDir()
	params := JSONObject{"temperature": 0.5, "nested": map[string]any{"k": []any{int64(1), "x", nil}}}
	for _, labels := range []bool{false, true} {
		s, _ := startExt(t, "greedy", extOptions{params: params, labels: labels, dir: dir})
		task := extTask(it)
		task.Seed = 18446744073709551615 // beyond a float's exact integers: hence a string
		sol, err := s.Solve(t.Context(), task)
		if err != nil {
			t.Fatal(err)
		}
		x := fill(sol).Extra
		wantLabels := "absent"
		if labels {
			wantLabels = "[" + strings.Repeat(`"",`, it.Leaves()-1) + `""]`
		}
		realDir, _ := filepath.EvalSymlinks(dir)
		if x["seed"] != "18446744073709551615" || x["params"] != `{"nested":{"k":[1,"x",null]},"temperature":0.5}` || x["labels"] != wantLabels ||
			x["dataset"] != "qcd" || x["item"] != "0" || (x["cwd"] != dir && x["cwd"] != realDir) {
			t.Errorf("give_labels %v: the program saw %v", labels, x)
		}
	}
	// The request line itself.
	s, _ := startExt(t, "greedy", extOptions{})
	b, err := s.request(extTask(it))
	if err != nil {
		t.Fatal(err)
	}
	var req map[string]json.RawMessage
	if err := json.Unmarshal(b, &req); err != nil || b[len(b)-1] != '\n' || bytes.Count(b, []byte{'\n'}) != 1 {
		t.Fatalf("request %q: %v", b, err)
	}
	for k, want := range map[string]string{
		"protocol": "2", "task": `"dataset=qcd|item=0|algorithm=ext"`, "seed": `"1000"`, "params": "{}", "leaf_labels": `"index"`,
		"model": `{"kind":"ginkgo2020","lambda":1.5,"root_lambda":1.5,"t_cut":16}`,
	} {
		if string(req[k]) != want {
			t.Errorf("request %s = %s, want %s", k, req[k], want)
		}
	}
	if _, ok := req["labels"]; ok {
		t.Error("labels sent without give_labels")
	}
	if externaltest.Protocol != ExternalProtocol {
		t.Errorf("the test program speaks protocol %d, hcbench %d", externaltest.Protocol, ExternalProtocol)
	}
	var names []string
	var data struct{ Leaves [][4]float64 }
	if json.Unmarshal(req["names"], &names) != nil || len(names) != it.Leaves() || names[2] != "2" || json.Unmarshal(req["data"], &data) != nil || len(data.Leaves) != it.Leaves() || data.Leaves[3] != it.Jet.Leaves[3] {
		t.Errorf("names %s, data %s", req["names"], req["data"])
	}
}

// TestExternalVectors: vector items send their features, a missing cell as null, the
// correlation model's settings, and their names; the caterpillar a program answers is scored
// under the item's model.
func TestExternalVectors(t *testing.T) {
	x := [][]float64{{1, 0.5}, {0.2, 1}, {-1, 0.3}, {0.4, math.NaN()}, {-0.5, -1}}
	m, err := correlation.New(t.Context(), x, correlation.Params{Beta: 1, MaskMissing: true})
	if err != nil {
		t.Fatal(err)
	}
	it := &item.Item{Dataset: "v", ID: "s1", Model: m, Vectors: x, Names: []string{"a", "b", "c", "d", "e"}, Labels: []string{"p", "p", "q", "q", ""},
		DataParams: map[string]any{"similarity": "cosine", "centering": "mean_with_diag", "within_pairs": "unordered", "beta": 1.0, "missing": "mask", "file": "x.csv"}}
	s, _ := startExt(t, "caterpillar", extOptions{labels: true})
	b, err := s.request(extTask(it))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"names":["a","b","c","d","e"]`, `"data":{"features":[[1,0.5],[0.2,1],[-1,0.3],[0.4,null],[-0.5,-1]]}`,
		`"model":{"kind":"correlation","similarity":"cosine","centering":"mean_with_diag","within_pairs":"unordered","beta":1,"missing":"mask"}`, `"labels":["p","p","q","q",""]`} {
		if !bytes.Contains(b, []byte(want)) {
			t.Errorf("request lacks %s:\n%s", want, b)
		}
	}
	sol, err := s.Solve(t.Context(), extTask(it))
	if err != nil {
		t.Fatal(err)
	}
	want, _ := model.TreeLogLikelihood(m, sol.Tree)
	if got := sol.Tree.Newick(nil); got != "((((0,1),2),3),4);" || sol.LogLikelihood != want {
		t.Errorf("tree %s, log-likelihood %v, want %v", got, sol.LogLikelihood, want)
	}
	// Without a split model, no model is sent and there is no log-likelihood.
	it.Model = nil
	b, _ = s.request(extTask(it))
	if !bytes.Contains(b, []byte(`"model":null`)) {
		t.Errorf("request without a model: %s", b)
	}
	if sol, err := s.Solve(t.Context(), extTask(it)); err != nil || !math.IsNaN(sol.LogLikelihood) {
		t.Errorf("without a model: %v, %v", sol.LogLikelihood, err)
	}
}

// TestExternalFailures: each way a program can break the protocol fails its task alone, with an
// error naming the cause and quoting the program's stderr; the program is killed and a fresh one
// answers the next item. A program's own error answer fails its task and keeps the program.
func TestExternalFailures(t *testing.T) {
	jets := testJets(t, 4)
	cases := []struct {
		mode    string
		want    []string
		keepPID bool
		grace   time.Duration // shortened where no event ends the wait (a program that lives on)
	}{
		{"malformed", []string{"not a JSON object", `"this is not JSON {"`, "write anything else to stderr", "request 2: item 1"}, false, 0},
		{"wrong-key", []string{`answered for task "dataset=nope|item=0|algorithm=nope", but the request was task "dataset=qcd|item=1|algorithm=ext"`}, false, 0},
		{"repeated-leaf", []string{"invalid tree", "appears twice"}, false, 0},
		{"missing-leaf", []string{"invalid tree", "missing"}, false, 0},
		{"future-node", []string{"invalid tree", "is not made yet"}, false, 0},
		{"wrong-n", []string{"invalid tree", "merges for n ="}, false, 0},
		{"exit", []string{"closed its stdout before answering", "exit status 3", "| RuntimeError: boom on item 1"}, false, 0},
		{"close-stdout", []string{"closed its stdout before answering"}, false, 50 * time.Millisecond},
		{"flood", []string{"longer than 16 MiB", "a flood"}, false, 0},
		{"nested-extra", []string{"extra.list is a list or an object"}, false, 0},
		{"error", []string{"answered with an error: cannot cluster item 1"}, true, 0},
		{"greedy-names", []string{`leaf "a" is one of the names, not an item index (leaves are read by index here)`, `the request's "leaf_labels" is "index"`, "set leaf_labels: name"}, false, 0},
		{"mixed-labels", []string{"the tree mixes names and indices", `as the request's "leaf_labels" says ("index")`}, false, 0},
	}
	for _, c := range cases {
		t.Run(c.mode, func(t *testing.T) {
			s, _ := startExt(t, c.mode, extOptions{flags: []string{"-bad", "1"}, grace: c.grace})
			var pids []any
			for i, it := range named(jets) {
				sol, err := s.Solve(t.Context(), extTask(it))
				if i == 1 {
					if err == nil {
						t.Fatalf("item 1 did not fail")
					}
					t.Log(err)
					for _, w := range c.want {
						if !strings.Contains(err.Error(), w) {
							t.Errorf("error lacks %q:\n%v", w, err)
						}
					}
					if !c.keepPID && !strings.Contains(err.Error(), "it was killed, and a fresh one starts for the next item\nstderr, last") {
						t.Errorf("error does not say the program was killed, with its stderr:\n%v", err)
					}
					continue
				}
				if err != nil {
					t.Fatalf("item %d: %v", i, err)
				}
				pids = append(pids, fill(sol).Extra["pid"])
			}
			if samePID := pids[0] == pids[1]; samePID != c.keepPID {
				t.Errorf("program before and after the failure: pids %v (want the same: %v)", pids, c.keepPID)
			}
			if pids[1] != pids[2] {
				t.Errorf("a healthy program was restarted: pids %v", pids)
			}
		})
	}
}

// named returns copies of items whose leaves are named a, b, c, … (z, then z26, z27, …).
func named(items []*item.Item) []*item.Item {
	var out []*item.Item
	for _, it := range items {
		c := *it
		c.Names = make([]string, it.Leaves())
		for i := range c.Names {
			c.Names[i] = string(rune('a' + min(i, 25)))
			if i > 25 {
				c.Names[i] += strconv.Itoa(i)
			}
		}
		out = append(out, &c)
	}
	return out
}

// TestExternalLeafLabels: the request's leaf_labels, set by the entry's (index by default), says
// how a Newick answer names its leaves. With names that are the indices in another order (a CSV
// id column), a tree is read as the program meant it only by the field: the same tree answered
// by index and by name scores the same; a leaf given the other way fails its task, and a
// repeated name refuses leaf_labels: name before the request is sent.
func TestExternalLeafLabels(t *testing.T) {
	it := testJets(t, 1)[0]
	n := it.Leaves()
	perm := *it
	perm.Names = make([]string, n)
	for i := range n {
		perm.Names[i] = strconv.Itoa((i + 2) % n) // not the identity: index i is name (i+2) mod n
	}
	builtin, err := solveGreedy(t.Context(), &NoParams{}, extTask(&perm), Run{})
	if err != nil {
		t.Fatal(err)
	}
	wantLL, err := model.TreeLogLikelihood(perm.Model, builtin.Tree)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ mode, leaves string }{
		{"greedy", ""}, {"greedy", "index"}, {"greedy-labels", "index"}, {"greedy-labels", "name"}, {"greedy-names", "name"},
	} {
		s, _ := startExt(t, c.mode, extOptions{leaves: c.leaves})
		b, err := s.request(extTask(&perm))
		want := c.leaves
		if want == "" {
			want = "index"
		}
		if err != nil || !bytes.Contains(b, []byte(`,"leaf_labels":"`+want+`",`)) {
			t.Errorf("%s, leaf_labels %q: request %.200s, %v", c.mode, c.leaves, b, err)
		}
		sol, err := s.Solve(t.Context(), extTask(&perm))
		if err != nil {
			t.Errorf("%s, leaf_labels %q: %v", c.mode, c.leaves, err)
			continue
		}
		if !tree.SameClusters(sol.Tree, builtin.Tree) || sol.LogLikelihood != wantLL || len(sol.Warnings) > 0 {
			t.Errorf("%s, leaf_labels %q: tree %s (%v), greedy's %s; warnings %q", c.mode, c.leaves, sol.Tree.Newick(nil), sol.LogLikelihood, builtin.Tree.Newick(nil), sol.Warnings)
		}
	}
	// Given the other way: a names program under leaf_labels: index over names that are not
	// indices, an index program under leaf_labels: name, and a tree that mixes the two.
	for _, c := range []struct {
		mode, leaves string
		it           *item.Item
		want         []string
	}{
		{"greedy-names", "index", named([]*item.Item{it})[0], []string{"is one of the names, not an item index", `the request's "leaf_labels" is "index"`, "set leaf_labels: name"}},
		{"greedy", "name", named([]*item.Item{it})[0], []string{"is not one of the names but an item index", `the request's "leaf_labels" is "name"`, "set leaf_labels: index"}},
		{"mixed-labels", "name", named([]*item.Item{it})[0], []string{"the tree mixes names and indices", `as the request's "leaf_labels" says ("name")`}},
	} {
		s, _ := startExt(t, c.mode, extOptions{leaves: c.leaves})
		_, err := s.Solve(t.Context(), extTask(c.it))
		for _, w := range c.want {
			if err == nil || !strings.Contains(err.Error(), w) {
				t.Errorf("%s, leaf_labels %s: %v, want %q", c.mode, c.leaves, err, w)
			}
		}
	}
	// leaf_labels: name needs distinct names; the task fails before its request is sent.
	dup := *it
	dup.Names = make([]string, n)
	for i := range dup.Names {
		dup.Names[i] = "x"
	}
	s, _ := startExt(t, "greedy-labels", extOptions{leaves: "name"})
	if _, err := s.Solve(t.Context(), extTask(&dup)); err == nil || !strings.Contains(err.Error(), `leaves 0 and 1 of this item are both named "x"`) || !strings.Contains(err.Error(), "use leaf_labels: index") {
		t.Errorf("repeated names under leaf_labels: name: %v", err)
	}
	if len(s.live) != 0 {
		t.Errorf("a program started for a request that could not be sent")
	}
	s, _ = startExt(t, "greedy-labels", extOptions{})
	if _, err := s.Solve(t.Context(), extTask(&dup)); err != nil {
		t.Errorf("repeated names under leaf_labels: index: %v", err)
	}
}

// TestExternalExtraBounds: an extra within the bounds reaches the record; one over either (its
// JSON text, its keys) fails its task with the bound, and the program, in step, is kept.
func TestExternalExtraBounds(t *testing.T) {
	jets := testJets(t, 3)
	const greedyKeys = 9 // greedyExtra's own
	for _, c := range []struct {
		flags []string
		want  string
	}{
		{[]string{"-extra-keys", fmt.Sprint(maxExtraKeys - greedyKeys)}, ""},
		{[]string{"-extra-bytes", "3500"}, ""},
		{[]string{"-extra-keys", fmt.Sprint(maxExtraKeys - greedyKeys + 1)}, "an extra of 65 keys, more than the 64 an answer's extra may hold"},
		{[]string{"-extra-bytes", fmt.Sprint(maxExtraBytes)}, "more than the 4.0 KiB (4096 bytes) an answer's extra may hold"},
		{[]string{"-extra-bytes", fmt.Sprint(15 << 20)}, "an extra of 15.0 MiB"},
	} {
		s, _ := startExt(t, "greedy", extOptions{flags: append([]string{"-bad", "1"}, c.flags...)})
		var pids []any
		for i, it := range jets {
			sol, err := s.Solve(t.Context(), extTask(it))
			if i == 1 && c.want != "" {
				if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "the program is kept for the next item") {
					t.Errorf("%v: %v, want %q", c.flags, err, c.want)
				}
				continue
			}
			if err != nil {
				t.Fatalf("%v, item %d: %v", c.flags, i, err)
			}
			x := fill(sol).Extra
			if i == 1 && (x["long"] == nil && x["key0"] == nil) {
				t.Errorf("%v: the extra values are not in the record: %v", c.flags, x)
			}
			pids = append(pids, x["pid"])
		}
		if pids[0] != pids[1] {
			t.Errorf("%v: the program was restarted: pids %v", c.flags, pids)
		}
	}
}

// TestExternalBoundsDocumented: the bounds of extra, of counters and of the log's share of stderr, as the
// algorithm's help and docs/external.md state them, are the code's.
func TestExternalBoundsDocumented(t *testing.T) {
	alg, ok := LookupAlgorithm("external")
	if !ok {
		t.Fatal("no external algorithm")
	}
	docs, err := os.ReadFile("../../docs/external.md")
	if err != nil {
		t.Fatal(err)
	}
	text := strings.ToLower(strings.Join(strings.Fields(string(docs)), " "))
	for _, want := range []string{
		fmt.Sprintf("at most %d keys and %d KiB", maxExtraKeys, maxExtraBytes>>10),
		fmt.Sprintf("%d KiB at once and %d KiB a second", stderrLogBurst>>10, stderrLogRate>>10),
	} {
		if !strings.Contains(alg.Help, want) {
			t.Errorf("the help lacks %q", want)
		}
		if want = strings.ToLower(want); !strings.Contains(text, want) && !strings.Contains(text, strings.Replace(want, " at once", " to the log at once", 1)) {
			t.Errorf("docs/external.md lacks %q", want)
		}
	}
	if want := fmt.Sprintf("counters: at most %d, named by 1 to %d lower-case letters", maxCounters, maxCounterKeyBytes); !strings.Contains(alg.Help, want) {
		t.Errorf("the help lacks %q", want)
	}
	for _, want := range []string{
		fmt.Sprintf("at most %d counts, each named by 1 to %d lower-case letters", maxCounters, maxCounterKeyBytes),
		fmt.Sprintf("%d KiB for the `counters` of every record", counterRecordBytes>>10),
		fmt.Sprintf("%d KiB for the `extra` of every record", extraRecordBytes>>10),
		fmt.Sprintf("up to %d lines, %d KiB, a line cut at %d KiB", stderrTailLines, stderrTailBytes>>10, stderrLineBytes>>10),
		fmt.Sprintf("%d bytes for the log's own fields", stderrLogLineBytes),
		fmt.Sprintf("named in the error after a limit of %d s from the exit", int(endGrace.Seconds())),
	} {
		if !strings.Contains(text, strings.ToLower(want)) {
			t.Errorf("docs/external.md lacks %q", want)
		}
	}
}

// TestExternalExtraLine: a line after an answer is found when the next request is due; that
// task fails, naming the line, and the one after runs on a fresh program.
func TestExternalExtraLine(t *testing.T) {
	jets := testJets(t, 4)
	s, _ := startExt(t, "extra-line", extOptions{flags: []string{"-bad", "1"}})
	for i, it := range jets {
		_, err := s.Solve(t.Context(), extTask(it))
		switch {
		case i == 2 && err == nil:
			t.Fatal("the task after the extra line did not fail")
		case i == 2 && !strings.Contains(err.Error(), "dataset=qcd|item=1|algorithm=ext") ||
			i == 2 && !strings.Contains(err.Error(), "no request was waiting") && !strings.Contains(err.Error(), "a second time"):
			t.Errorf("error does not name the stray line: %v", err)
		case i != 2 && err != nil:
			t.Errorf("item %d: %v", i, err)
		}
	}
}

// TestExternalWarnings: a rose tree is kept without a log-likelihood, and a reported
// log-likelihood that disagrees with hcbench's score is kept with a warning.
func TestExternalWarnings(t *testing.T) {
	it := testJets(t, 1)[0]
	s, _ := startExt(t, "rose", extOptions{})
	sol, err := s.Solve(t.Context(), extTask(it))
	if err != nil {
		t.Fatal(err)
	}
	if sol.Tree.IsBinary() || !math.IsNaN(sol.LogLikelihood) || len(sol.Warnings) != 1 || !strings.Contains(sol.Warnings[0], "rose tree") {
		t.Errorf("rose tree: binary %v, log-likelihood %v, warnings %q", sol.Tree.IsBinary(), sol.LogLikelihood, sol.Warnings)
	}
	s, _ = startExt(t, "wrong-ll", extOptions{})
	sol, err = s.Solve(t.Context(), extTask(it))
	if err != nil {
		t.Fatal(err)
	}
	r := fill(sol)
	if len(sol.Warnings) != 1 || !strings.Contains(sol.Warnings[0], "the program reported log_likelihood") || r.ReportedLogLikelihood == nil ||
		math.Abs(float64(*r.ReportedLogLikelihood)-sol.LogLikelihood-1) > 1e-9 {
		t.Errorf("wrong log-likelihood: warnings %q, reported %v, scored %v", sol.Warnings, r.ReportedLogLikelihood, sol.LogLikelihood)
	}
	s, _ = startExt(t, "big-extra", extOptions{})
	sol, err = s.Solve(t.Context(), extTask(it))
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(fill(sol).Extra)
	if string(b) != `{"a":"text","b":12345678901234567,"c":true,"d":null,"e":0.25}` {
		t.Errorf("extra %s", b)
	}
}

// TestExternalTimeout: a program that does not answer within the timeout fails its task, with
// the last lines of its stderr, without waiting for it, and is replaced. The program first
// answers an item, so that its stderr holds a line written before the timeout whatever the load;
// start-up counts toward that item and toward the one after the timeout, on a fresh program, so
// the timeout doubles until a loaded machine meets it.
func TestExternalTimeout(t *testing.T) {
	jets := testJets(t, 3)
	for timeout := 250 * time.Millisecond; ; timeout *= 2 {
		s, _ := startExt(t, "hang", extOptions{flags: []string{"-bad", "1"}, timeout: timeout})
		sol, err := s.Solve(t.Context(), extTask(jets[0]))
		if err != nil {
			if timeout > time.Minute {
				t.Fatal(err)
			}
			t.Logf("timeout %v: the first item (start-up included): %v", timeout, err)
			continue
		}
		first := fill(sol).Extra["pid"]
		_, err = s.Solve(t.Context(), extTask(jets[1])) // the program sleeps for an hour
		if want := fmt.Sprintf("gave no answer within its timeout of %s", timeout); err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), ": item 0, n ") {
			t.Errorf("timeout: %v, want %q and the program's stderr", err, want)
		}
		sol, err = s.Solve(t.Context(), extTask(jets[2])) // on a fresh program: start-up counts again
		if err != nil {
			if timeout > time.Minute || !strings.Contains(err.Error(), "gave no answer within its timeout") {
				t.Fatalf("the next item: %v", err)
			}
			t.Logf("timeout %v: the next item (start-up included): %v", timeout, err)
			continue
		}
		if fill(sol).Extra["pid"] == first {
			t.Error("the program that timed out serves the next item")
		}
		return
	}
}

// TestExternalCancel: cancelling the context during a request (Ctrl-C) kills the program and
// returns the context's error, without waiting for the program. The cancel comes once the
// program has read its request (its stderr says so).
func TestExternalCancel(t *testing.T) {
	it := testJets(t, 1)[0]
	s, logs := startExt(t, "hang", extOptions{})
	ctx, cancel := context.WithCancel(t.Context())
	var procs []*extProc
	go func() {
		waitFor(t, "the program to read its request", func() bool { return strings.Contains(logs.String(), "request 1: item 0") })
		s.mu.Lock()
		for p := range s.live {
			procs = append(procs, p)
		}
		s.mu.Unlock()
		cancel()
	}()
	_, err := s.Solve(ctx, extTask(it)) // the program sleeps for an hour
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("Solve returned %v, want the context's error", err)
	}
	if len(procs) != 1 {
		t.Fatalf("%d programs during the request, want 1", len(procs))
	}
	waitFor(t, "the cancelled program to exit", procs[0].hasExited)
	s.mu.Lock()
	live := len(s.live)
	s.mu.Unlock()
	if live != 0 {
		t.Errorf("%d programs still held after the cancel", live)
	}
}

// TestExternalStderrLog: a program that floods its stderr (20 MB before its answer) is read to
// the end and answers; the run's log takes at most the burst and the rate of its budget from it,
// and says how many lines it left out.
func TestExternalStderrLog(t *testing.T) {
	it := testJets(t, 1)[0]
	const lines = 200_000
	start := time.Now()
	s, logs := startExt(t, "stderr-flood", extOptions{flags: []string{"-lines", fmt.Sprint(lines)}})
	if _, err := s.Solve(t.Context(), extTask(it)); err != nil {
		t.Fatal(err)
	}
	p := s.idle[0]
	waitFor(t, "the end of the program's stderr", func() bool { return slices.Contains(p.tail.lines(), "stderr done") })
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	elapsed := time.Since(start).Seconds()
	logged, text := 0, 0
	for l := range strings.Lines(logs.String()) {
		if strings.Contains(l, `msg="external program stderr"`) {
			logged++
			text += len(l[strings.Index(l, "line=")+len("line="):]) - 1
		}
	}
	budget := stderrLogBurst + elapsed*stderrLogRate
	notices := strings.Count(logs.String(), "not logged, over the log's limit")
	if float64(text+logged*stderrLogLineBytes+notices*stderrLogNoticeBytes) > budget {
		t.Errorf("the log took %d lines (%d bytes) of stderr in %.1f s, over its budget of %.0f bytes", logged, text, elapsed, budget)
	}
	if logged == 0 || logged >= lines {
		t.Errorf("%d of %d lines logged", logged, lines)
	}
	if !regexp.MustCompile(`external program stderr: \d+ lines \(.*\) not logged, over the log's limit of 64.0 KiB \(65536 bytes\) at once and 16.0 KiB \(16384 bytes\) a second`).MatchString(logs.String()) {
		t.Errorf("the log does not say how many lines it left out:\n%s", logs.String()[max(0, len(logs.String())-2000):])
	}
}

// TestLogBudget: the token bucket of the log's bytes: a burst, a rate, a refusal that lasts
// until half the burst is back, and the count of the lines it refused, reported (and paid for)
// with the next line it takes.
func TestLogBudget(t *testing.T) {
	var b logBudget
	now := time.Unix(1000, 0)
	const cost = 1000
	line := cost - stderrLogLineBytes
	takeAll := func() (took int, first skippedLines) {
		for {
			ok, skipped := b.take(line, now)
			if !ok {
				return took, first
			}
			if took == 0 {
				first = skipped
			} else if skipped.lines != 0 {
				t.Fatalf("skipped %+v reported twice", skipped)
			}
			took++
		}
	}
	if took, skipped := takeAll(); took != stderrLogBurst/cost || skipped.lines != 0 {
		t.Errorf("a burst of %d lines (skipped %+v), want %d", took, skipped, stderrLogBurst/cost)
	}
	b.take(line, now)          // refused too: two lines left out
	now = now.Add(time.Second) // a second's bytes back, less than half the burst
	if ok, _ := b.take(line, now); ok {
		t.Error("the budget took a line before half its burst was back")
	}
	now = now.Add(time.Second) // half the burst back: three lines left out, then
	left := stderrLogBurst%cost + 2*stderrLogRate - cost - stderrLogNoticeBytes
	if took, skipped := takeAll(); skipped != (skippedLines{lines: 3, bytes: int64(3 * line)}) || took != 1+left/cost {
		t.Errorf("after two seconds: %d lines, skipped %+v; want %d lines, the 3 refused", took, skipped, 1+left/cost)
	}
	if s := b.flush(); s.lines != 1 || b.flush().lines != 0 {
		t.Errorf("flush: %+v, then not forgotten", s)
	}
}

// TestExternalClose: Close kills the idle programs; Solve after it fails.
func TestExternalClose(t *testing.T) {
	it := testJets(t, 1)[0]
	s, _ := startExt(t, "greedy", extOptions{})
	if _, err := s.Solve(t.Context(), extTask(it)); err != nil {
		t.Fatal(err)
	}
	p := s.idle[0]
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	select {
	case <-p.exited:
	default:
		t.Error("Close returned with its program running")
	}
	if _, err := s.Solve(t.Context(), extTask(it)); !errors.Is(err, errExternalClosed) {
		t.Errorf("Solve after Close: %v", err)
	}
}

// TestExternalWorkers: the same program gives the same records on 1 and on 2 workers (2
// programs at once).
func TestExternalWorkers(t *testing.T) {
	jets := testJets(t, 12)
	type out struct {
		newick string
		ll     float64
		rep    results.LogProb
	}
	results1 := make([]out, len(jets))
	results2 := make([]out, len(jets))
	record := func(dst []out, i int, sol Solution, err error) {
		if err != nil {
			t.Error(err)
			return
		}
		dst[i] = out{sol.Tree.Newick(nil), sol.LogLikelihood, *fill(sol).ReportedLogLikelihood}
	}
	s1, _ := startExt(t, "greedy-merges", extOptions{workers: 1})
	for i, it := range jets {
		sol, err := s1.Solve(t.Context(), extTask(it))
		record(results1, i, sol, err)
	}
	s2, _ := startExt(t, "greedy-merges", extOptions{workers: 2})
	var wg sync.WaitGroup
	next := make(chan int)
	pids := sync.Map{}
	for range 2 {
		wg.Go(func() {
			for i := range next {
				sol, err := s2.Solve(t.Context(), extTask(jets[i]))
				record(results2, i, sol, err)
				if err == nil {
					pids.Store(fill(sol).Extra["pid"], true)
				}
			}
		})
	}
	for i := range jets {
		next <- i
	}
	close(next)
	wg.Wait()
	for i := range jets {
		if results1[i] != results2[i] {
			t.Errorf("item %d: 1 worker %+v, 2 workers %+v", i, results1[i], results2[i])
		}
	}
	n := 0
	pids.Range(func(any, any) bool { n++; return true })
	if n > 2 {
		t.Errorf("%d programs ran for 2 workers", n)
	}
	if len(s2.idle) > 2 {
		t.Errorf("%d idle programs kept for 2 workers", len(s2.idle))
	}
}

// TestExternalStart: the program is found relative to the config file's folder, run there, and
// refused before the run when it is missing, a directory, not executable, or not on PATH.
func TestExternalStart(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "bin", "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(exe, filepath.Join(dir, "bin", "prog")); err != nil {
		t.Skip("no symlinks here:", err)
	}
	if err := os.WriteFile(filepath.Join(dir, "bin", "plain.py"), []byte("print(1)\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	start := func(cmd ...string) (Solver, error) {
		return startExternal(&ExternalParams{Command: cmd}, Run{ConfigDir: dir, Workers: 1})
	}
	sv, err := start("bin/prog", externaltest.Arg, "greedy")
	if err != nil {
		t.Fatal(err)
	}
	defer sv.Close()
	sol, err := sv.Solve(t.Context(), extTask(testJets(t, 1)[0]))
	if err != nil {
		t.Fatal(err)
	}
	realDir, _ := filepath.EvalSymlinks(dir)
	if cwd := fill(sol).Extra["cwd"]; cwd != dir && cwd != realDir {
		t.Errorf("the program ran in %v, want the config file's folder %s", cwd, dir)
	}
	for _, c := range []struct {
		cmd  []string
		want string
	}{
		{[]string{"./nope.py"}, "nope.py does not exist (a relative path is taken from the config file's folder, " + dir},
		{[]string{"bin/sub"}, "is a directory"},
		{[]string{"bin/plain.py"}, "is not executable: make it executable (chmod +x, with a #! line naming its interpreter) or run it through its interpreter, as in [python3, bin/plain.py]"},
		{[]string{"hcbench-no-such-program-7"}, `"hcbench-no-such-program-7" is not a program on PATH`},
	} {
		if _, err := start(c.cmd...); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: %v, want %q", c.cmd, err, c.want)
		}
	}
}

// checker is a registry.Checker that collects messages.
type checker struct{ bad []string }

func (c *checker) Bad(key, format string, args ...any) {
	c.bad = append(c.bad, key+": "+fmt.Sprintf(format, args...))
}
func (c *checker) Failed(...string) bool { return false }
func (c *checker) Has(string) bool       { return true }
func (c *checker) Dir() string           { return "." }

// TestExternalParams: the YAML types of the parameters, and their checks.
func TestExternalParams(t *testing.T) {
	node := func(src string) *yaml.Node {
		var doc yaml.Node
		if err := yaml.Unmarshal([]byte(src), &doc); err != nil {
			t.Fatal(err)
		}
		return doc.Content[0]
	}
	var d Duration
	for src, want := range map[string]time.Duration{"60s": time.Minute, "1h30m": 90 * time.Minute, "none": 0, "0": 0, "-5s": -5 * time.Second} {
		if err := d.DecodeYAML(node(src)); err != nil || time.Duration(d) != want {
			t.Errorf("duration %s: %v, %v", src, time.Duration(d), err)
		}
	}
	for src, want := range map[string]string{"60": "with its unit, such as 60s", "soon": `got "soon"`, "[1]": "got a list"} {
		if err := d.DecodeYAML(node(src)); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("duration %s: %v, want %q", src, err, want)
		}
	}
	var c CommandLine
	if err := c.DecodeYAML(node(`[python3, x.py, --depth, 3]`)); err != nil || strings.Join(c, " ") != "python3 x.py --depth 3" {
		t.Errorf("command %q, %v", c, err)
	}
	if err := c.DecodeYAML(node(`python3 x.py`)); err == nil || !strings.Contains(err.Error(), "as a list") {
		t.Errorf("command as a string: %v", err)
	}
	var o JSONObject
	src := "base: &b {x: 1, y: [a, null, true]}\nmerged: {<<: *b, x: 2}\nbig: 18446744073709551615\nf: 0.5\nwhen: 2024-01-02\n"
	if err := o.DecodeYAML(node(src)); err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(o)
	if string(b) != `{"base":{"x":1,"y":["a",null,true]},"big":18446744073709551615,"f":0.5,"merged":{"x":2,"y":["a",null,true]},"when":"2024-01-02"}` {
		t.Errorf("params %s", b)
	}
	for src, want := range map[string]string{
		"{a: .nan}":       "a (line 1): .nan is not a number JSON can hold",
		"{a: [1, .inf]}":  "a[1] (line 1): .inf is not a number JSON can hold",
		"{1: x}":          `key "1" is not a string`,
		"[1]":             "want a mapping",
		"{a: !!binary 0}": "tagged !!binary",
	} {
		if err := o.DecodeYAML(node(src)); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("params %s: %v, want %q", src, err, want)
		}
	}
	if b, _ := json.Marshal(JSONObject(nil)); string(b) != "{}" {
		t.Errorf("no params: %s", b)
	}
	var ch checker
	(&ExternalParams{Timeout: Duration(-time.Second), LeafLabels: "index"}).Check(&ch)
	(&ExternalParams{Command: CommandLine{" "}, LeafLabels: "names"}).Check(&ch)
	if got := strings.Join(ch.bad, "\n"); got != "command: must name the program to run, a list such as [python3, my_clusterer.py]\ntimeout: must be positive, or none for no limit; got -1s\ncommand: the program, its first element, is empty\nleaf_labels: must be index or name, got \"names\"" {
		t.Errorf("checks:\n%s", got)
	}
	// The program is looked for at validation, relative to the config file's folder.
	ch = checker{}
	(&ExternalParams{Command: CommandLine{"./no_such_program", "x"}, LeafLabels: "name"}).Check(&ch)
	(&ExternalParams{Command: CommandLine{"no-such-program-on-path"}, LeafLabels: "name"}).Check(&ch)
	if got := strings.Join(ch.bad, "\n"); !strings.Contains(got, "no_such_program does not exist (a relative path is taken from the config file's folder") ||
		!strings.Contains(got, `"no-such-program-on-path" is not a program on PATH`) {
		t.Errorf("missing programs:\n%s", got)
	}
}

// TestParseAnswer: the answers a program may give, and what is wrong with the others.
func TestParseAnswer(t *testing.T) {
	names := []string{"a", "b", "c"}
	longExtra := `{"s": "` + strings.Repeat("x", maxExtraBytes-len(`{"s": ""}`)) + `"}` // at the bound
	manyKeys := "{"
	for i := range maxExtraKeys + 1 {
		manyKeys += fmt.Sprintf(`"k%d": %d,`, i, i)
	}
	manyKeys = strings.TrimSuffix(manyKeys, ",") + "}"
	// Answers parsed with the request's leaves index; "name:" before a line asks for names.
	for line, want := range map[string]string{
		`name:{"task": "k", "newick": "((a,b),c);"}`:                                                            "",
		`{"task": "k", "newick": "((0,1),2);"}`:                                                                 "",
		`{"task": "k", "newick": "((a,b),c);"}`:                                                                 `leaf "a" is one of the names, not an item index (leaves are read by index here); the request's "leaf_labels" is "index" (the config entry's leaf_labels, by default)`,
		`name:{"task": "k", "newick": "((0,1),2);"}`:                                                            `leaf "0" is not one of the names but an item index (leaves are read by name here); the request's "leaf_labels" is "name"`,
		`{"task": "k", "newick": "((0,b),2);"}`:                                                                 `the leaves before it were given by index: the tree mixes names and indices); an answer gives every leaf the same way, as the request's "leaf_labels" says ("index")`,
		`name:{"task": "k", "merges": [[0, 1], [3, 2]]}`:                                                        "",
		`{"task": "k", "newick": "((0,1),2);", "extra": ` + longExtra + `}`:                                     "",
		`{"task": "k", "newick": "((0,1),2);", "extra": ` + manyKeys + `}`:                                      "refused: answered with an extra of 65 keys, more than the 64",
		`{"task": "k", "newick": "((0,1),2);", "extra": {"s": "` + strings.Repeat("x", maxExtraBytes) + `"}}`:   "refused: answered with an extra of 4.0 KiB (4105 bytes), more than the 4.0 KiB (4096 bytes)",
		`{"task": "k", "newick": "((0,1),2);", "extra": {"a": [` + strings.Repeat("1,", maxExtraBytes) + `1]}}`: "refused: answered with an extra of 8.0 KiB",
		`{"task": "k", "merges": [[0, 1], [3, 2]], "log_likelihood": null}`:                                     "",
		`{"task": "k", "merges": [[0.0, 1.0, 0.5, 2.0], [2, 3]]}`:                                               "",
		`{"task": "k", "error": "no"}`:                                                                          "",
		``:                                                                                                      "an empty line",
		`[1]`:                                                                                                   "not a JSON object",
		`{"task": "k", "newick": "x", "log_likelihood": -Infinity}`:                                             "JSON has no NaN or Infinity",
		`{"newick": "((0,1),2);"}`:                                                                              "without a task key",
		`{"task": 3, "newick": "((0,1),2);"}`:                                                                   "task that is not a string",
		`{"task": "prev", "newick": "((0,1),2);"}`:                                                              `answered task "prev" a second time`,
		`{"task": "k", "newick": "((0,1),2);", "x": 1}`:                                                         `unknown key "x"`,
		`{"task": "k"}`: "0 of newick, merges and error",
		`{"task": "k", "newick": "((0,1),2);", "merges": []}`:          "2 of newick",
		`name:{"task": "k", "newick": "((a,b),x);"}`:                   `unknown leaf label "x"`,
		`{"task": "k", "newick": "((0,1),7);"}`:                        "leaf 7 is not one of the items 0..2",
		`{"task": "k", "newick": "(((((0,1),2))));"}`:                  "nested deeper",
		`{"task": "k", "merges": [[0, 1], [1, 2]]}`:                    "merge 1 names node 1, which merge 0 already merged",
		`{"task": "k", "merges": [[0, 0], [3, 2]]}`:                    "merge 0 merges node 0 with itself",
		`{"task": "k", "merges": [[0, 1.5], [3, 2]]}`:                  "node id 1.5 is not a non-negative integer",
		`{"task": "k", "merges": [[0, 1, 2], [3, 2]]}`:                 "merge 0 has 3 numbers",
		`{"task": "k", "newick": "((0,1),2);", "seconds": -1}`:         "seconds that are not a number",
		`{"task": "k", "newick": "((0,1),2);", "extra": {"a": {}}}`:    "extra.a is a list or an object",
		`{"task": "k", "newick": "((0,1),2);", "extra": [1]}`:          "want an object of flat values",
		`{"task": "k", "newick": "((0,1),2);", "log_likelihood": "x"}`: "not a number or null",
	} {
		by := tree.ByIndex
		if l, ok := strings.CutPrefix(line, "name:"); ok {
			line, by = l, tree.ByName
		}
		a, err := parseAnswer([]byte(line), "k", 3, names, by, "prev")
		if err == nil && a.refused != "" {
			err = errors.New("refused: " + a.refused)
		}
		if len(line) > 200 {
			line = line[:200] + "…"
		}
		switch {
		case want == "" && err != nil:
			t.Errorf("%s: %v", line, err)
		case want == "" && a.errText == "" && a.tree.Items() != 3:
			t.Errorf("%s: tree %v", line, a.tree)
		case want != "" && (err == nil || !strings.Contains(err.Error(), want)):
			t.Errorf("%s: %v, want %q", line, err, want)
		}
	}
}

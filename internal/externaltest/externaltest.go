// Package externaltest is a program that speaks hcbench's external protocol (docs/external.md),
// correctly or in one of the ways a program can break it, for the tests of the external
// algorithm: a test binary whose TestMain (or init) sees Arg as its first argument runs Main
// instead of its tests, and is then the program that a test's config names:
//
//	[TEST_BINARY, hcbench-external-test, MODE, FLAGS...]
//
// It needs no interpreter, so the tests of the protocol run wherever Go does.
package externaltest

import (
	"bufio"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"time"

	"github.com/hcbench/hcbench/algorithms/greedy"
	"github.com/hcbench/hcbench/algorithms/model/ginkgo"
	"github.com/hcbench/hcbench/algorithms/tree"
)

// Arg is the first argument that makes a test binary this program.
const Arg = "hcbench-external-test"

// Protocol is the version of the external protocol this program speaks; it refuses requests of
// any other (the registry's tests check that it is the registry's).
const Protocol = 2

// IsProgram reports whether args (os.Args) ask for this program.
func IsProgram(args []string) bool { return len(args) > 2 && args[1] == Arg }

// Modes says what each mode answers. The misbehaving modes misbehave only on the items named by
// -bad (default: every item) and answer as greedy elsewhere.
var Modes = map[string]string{
	"greedy":        "hcbench's greedy on the Ginkgo model built from the request (caterpillar for vectors): Newick by index whatever the request's leaf_labels, with log_likelihood, seconds and extra {pid, served, mode, ...}; -extra-keys and -extra-bytes add keys and a long string to extra, -counters the answer's counters",
	"greedy-merges": "as greedy, answering merges",
	"greedy-names":  "as greedy, Newick with the leaves named by names whatever the request's leaf_labels",
	"greedy-labels": "as greedy, Newick with the leaves labelled as the request's leaf_labels asks",
	"mixed-labels":  "as greedy-labels, but the last leaf of the Newick given the other way (by name where leaf_labels is index, by index where it is name)",
	"scipy-merges":  "as greedy, merges as scipy's 4-column float rows",
	"caterpillar":   "merges ((0,1),2),… by index, for any item",
	"adjacent":      "merges by index pairing adjacent leaves, (0,1), (2,3), …, then adjacent pairs of those, and so on up to the root: blind to the data, it reads only n and sees only the order of the leaves",
	"noop":          "a fixed caterpillar at once, reading only the task and n (the overhead benchmark)",
	"error":         "an error answer",
	"wrong-key":     "an answer for another task",
	"malformed":     "a line that is not JSON",
	"repeated-leaf": "a Newick tree with a leaf twice",
	"missing-leaf":  "a Newick tree without leaf n−1",
	"future-node":   "merges whose first names a node not made yet",
	"wrong-n":       "n − 2 merges",
	"rose":          "a star: one node with all the leaves",
	"wrong-ll":      "a correct tree with log_likelihood 1 more than its own",
	"extra-line":    "a correct answer, then a second line",
	"exit":          "writes to stderr and exits with status 3 instead of answering",
	"close-stdout":  "closes stdout and sleeps",
	"hang":          "never answers (sleeps)",
	"flood":         "writes bytes without a newline, forever",
	"spawn":         "starts a child that sleeps (its pid on stderr: child PID), then never answers",
	"orphan":        "starts a child that sleeps holding its stdout (its pid on stderr: child PID), then exits with status 3 without answering",
	"escape":        "as orphan, its child in a session of its own (out of the program's process group)",
	"stderr-flood":  "writes -lines lines of 100 bytes to stderr (then the line stderr done), then answers as greedy",
	"sleep":         "sleeps forever (the child of spawn)",
	"nested-extra":  "a correct tree with extra holding a list",
	"big-extra":     "a correct tree with extra {a, b, c} of every flat type",
}

// Request is what the program reads of a request.
type Request struct {
	Protocol   int                        `json:"protocol"`
	Task       string                     `json:"task"`
	Dataset    string                     `json:"dataset"`
	Item       string                     `json:"item"`
	Seed       string                     `json:"seed"`
	N          int                        `json:"n"`
	Names      []string                   `json:"names"`
	LeafLabels string                     `json:"leaf_labels"`
	Params     map[string]any             `json:"params"`
	Data       map[string]json.RawMessage `json:"data"`
	Model      *Model                     `json:"model"`
	Labels     json.RawMessage            `json:"labels"`
}

// Model is the request's model.
type Model struct {
	Kind       string  `json:"kind"`
	Lambda     float64 `json:"lambda"`
	RootLambda float64 `json:"root_lambda"`
	TCut       float64 `json:"t_cut"`
}

// Main runs the program on stdin and stdout with args (the mode, then flags) and returns its
// exit status.
func Main(args []string) int {
	if len(args) == 0 || Modes[args[0]] == "" {
		fmt.Fprintf(os.Stderr, "externaltest: unknown mode %q\n", strings.Join(args, " "))
		return 2
	}
	mode := args[0]
	fs := flag.NewFlagSet(mode, flag.ContinueOnError)
	bad := fs.String("bad", "", "misbehave only on these items (comma-separated ids); default: all")
	delay := fs.Duration("delay", 0, "wait this long before each answer")
	var o options
	fs.IntVar(&o.extraKeys, "extra-keys", 0, "add this many keys to extra")
	fs.IntVar(&o.extraBytes, "extra-bytes", 0, "add a string of this many bytes to extra")
	fs.IntVar(&o.lines, "lines", 0, "stderr-flood: the lines to write")
	fs.StringVar(&o.counters, "counters", "", `the greedy modes: answer this JSON text as counters, the string "$n" in it replaced by n (the request's number of leaves)`)
	if err := fs.Parse(args[1:]); err != nil {
		return 2
	}
	switch mode {
	case "sleep":
		time.Sleep(time.Hour)
		return 0
	case "noop":
		return noop()
	}
	badItems := map[string]bool{}
	for _, id := range strings.Split(*bad, ",") {
		if id != "" {
			badItems[id] = true
		}
	}
	in := bufio.NewReaderSize(os.Stdin, 1<<20)
	out := bufio.NewWriter(os.Stdout)
	served := 0
	for {
		line, err := in.ReadBytes('\n')
		if err != nil {
			return 0 // stdin closed: hcbench is done
		}
		var req Request
		if err := json.Unmarshal(line, &req); err != nil {
			fmt.Fprintln(os.Stderr, "externaltest: bad request:", err)
			return 4
		}
		if req.Protocol != Protocol || req.LeafLabels != "index" && req.LeafLabels != "name" {
			fmt.Fprintln(os.Stderr, "externaltest: protocol", req.Protocol, "leaf_labels", req.LeafLabels)
			return 4
		}
		if *delay > 0 {
			time.Sleep(*delay)
		}
		served++
		m, opts := mode, o
		if len(badItems) > 0 && !badItems[req.Item] {
			m, opts = "greedy", options{}
		}
		fmt.Fprintf(os.Stderr, "request %d: item %s, n %d\n", served, req.Item, req.N)
		ans, extraLine, code := answer(m, &req, served, opts)
		if code >= 0 {
			return code
		}
		if ans != nil {
			b, err := json.Marshal(ans)
			if err != nil {
				fmt.Fprintln(os.Stderr, "externaltest:", err)
				return 4
			}
			out.Write(b)
			out.WriteByte('\n')
		}
		if extraLine != "" {
			out.WriteString(extraLine + "\n")
		}
		out.Flush()
	}
}

// options are the flags of the modes that take some.
type options struct {
	extraKeys, extraBytes int
	lines                 int
	counters              string
}

// answer returns the answer of mode to req, a line to write after it, and an exit status to
// end with (−1: go on).
func answer(mode string, req *Request, served int, o options) (map[string]any, string, int) {
	start := time.Now()
	n := req.N
	a := map[string]any{"task": req.Task}
	switch mode {
	case "error":
		a["error"] = "cannot cluster item " + req.Item
		return a, "", -1
	case "wrong-key":
		a["task"] = "dataset=nope|item=0|algorithm=nope"
		a["newick"] = caterpillar(n).Newick(nil)
		return a, "", -1
	case "malformed":
		return nil, "this is not JSON {", -1
	case "repeated-leaf":
		nw := "(0,0);"
		if n > 2 {
			nw = fmt.Sprintf("(%s,0);", strings.TrimSuffix(caterpillar(n-1).Newick(nil), ";"))
		}
		a["newick"] = nw
		return a, "", -1
	case "missing-leaf":
		a["newick"] = caterpillar(max(n-1, 1)).Newick(nil)
		return a, "", -1
	case "future-node":
		ms := caterpillarMerges(n)
		ms[0][1] = 2*n - 2 // the root, made last
		a["merges"] = ms
		return a, "", -1
	case "wrong-n":
		a["merges"] = caterpillarMerges(n)[:max(n-2, 0)]
		return a, "", -1
	case "rose":
		leaves := make([]string, n)
		for i := range leaves {
			leaves[i] = strconv.Itoa(i)
		}
		a["newick"] = "(" + strings.Join(leaves, ",") + ");"
		return a, "", -1
	case "caterpillar":
		a["merges"] = caterpillarMerges(n)
		return a, "", -1
	case "adjacent":
		a["merges"] = AdjacentMerges(n)
		return a, "", -1
	case "exit":
		fmt.Fprintln(os.Stderr, "Traceback (most recent call last):")
		fmt.Fprintln(os.Stderr, "RuntimeError: boom on item "+req.Item)
		return nil, "", 3
	case "close-stdout":
		os.Stdout.Close()
		time.Sleep(time.Hour)
		return nil, "", 0
	case "hang":
		time.Sleep(time.Hour)
		return nil, "", 0
	case "flood":
		chunk := []byte(strings.Repeat("x", 1<<16))
		for {
			if _, err := os.Stdout.Write(chunk); err != nil {
				return nil, "", 5
			}
		}
	case "spawn":
		exe, err := os.Executable()
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return nil, "", 4
		}
		child := exec.Command(exe, Arg, "sleep")
		if err := child.Start(); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return nil, "", 4
		}
		fmt.Fprintf(os.Stderr, "child %d\n", child.Process.Pid)
		time.Sleep(time.Hour)
		return nil, "", 0
	case "orphan", "escape":
		exe, err := os.Executable()
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return nil, "", 4
		}
		child := exec.Command(exe, Arg, "sleep")
		child.Stdout = os.Stdout // the child holds the program's stdout
		if mode == "escape" {
			detach(child)
		}
		if err := child.Start(); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return nil, "", 4
		}
		fmt.Fprintf(os.Stderr, "child %d\n", child.Process.Pid)
		return nil, "", 3
	case "stderr-flood":
		line := strings.Repeat("e", 99) + "\n"
		w := bufio.NewWriter(os.Stderr)
		for range o.lines {
			w.WriteString(line)
		}
		w.WriteString("stderr done\n")
		w.Flush()
	}
	// The greedy modes.
	t, ll := solve(req)
	if !math.IsNaN(ll) {
		a["log_likelihood"] = jsonLog(ll)
	}
	extra := greedyExtra(req, mode, served)
	for i := range o.extraKeys {
		extra[fmt.Sprintf("key%d", i)] = i
	}
	if o.extraBytes > 0 {
		extra["long"] = strings.Repeat("x", o.extraBytes)
	}
	a["extra"] = extra
	if o.counters != "" {
		a["counters"] = json.RawMessage(strings.ReplaceAll(o.counters, `"$n"`, strconv.Itoa(n)))
	}
	switch mode {
	case "greedy-merges":
		a["merges"] = treeMerges(t, n, false)
	case "scipy-merges":
		a["merges"] = treeMerges(t, n, true)
	case "greedy-names":
		a["newick"] = t.Newick(req.Names)
	case "greedy-labels":
		a["newick"] = t.Newick(leafLabels(req, -1))
	case "mixed-labels":
		a["newick"] = t.Newick(leafLabels(req, lastLeaf(t)))
	default:
		a["newick"] = t.Newick(nil)
	}
	switch mode {
	case "wrong-ll":
		if math.IsInf(ll, 0) || math.IsNaN(ll) {
			a["log_likelihood"] = 0
		} else {
			a["log_likelihood"] = ll + 1
		}
	case "extra-line":
		return a, fmt.Sprintf(`{"task": %q, "newick": "oops"}`, req.Task), -1
	case "nested-extra":
		a["extra"] = map[string]any{"list": []int{1, 2}}
	case "big-extra":
		a["extra"] = map[string]any{"a": "text", "b": int64(12345678901234567), "c": true, "d": nil, "e": 0.25}
	}
	a["seconds"] = time.Since(start).Seconds()
	return a, "", -1
}

// leafLabels returns the labels of a Newick whose leaves are given as req's leaf_labels asks, but for
// item other (−1: none), given the other way.
func leafLabels(req *Request, other int) []string {
	labels := make([]string, req.N)
	for i := range labels {
		byName := req.LeafLabels == "name"
		if i == other {
			byName = !byName
		}
		if byName {
			labels[i] = req.Names[i]
		} else {
			labels[i] = strconv.Itoa(i)
		}
	}
	return labels
}

// lastLeaf returns the item of the last leaf that Newick writes.
func lastLeaf(t *tree.Tree) int {
	last := -1
	for _, v := range t.PostOrder() {
		if t.Nodes[v].IsLeaf() {
			last = t.Nodes[v].Item
		}
	}
	return last
}

// greedyExtra echoes what the program was told and where it runs, for the tests: its process
// id and working directory, its count of requests, and the request's seed, dataset, item, and
// params and labels as JSON text.
func greedyExtra(req *Request, mode string, served int) map[string]any {
	cwd, _ := os.Getwd()
	params, _ := json.Marshal(req.Params)
	labels := "absent"
	if req.Labels != nil {
		labels = string(req.Labels)
	}
	return map[string]any{
		"pid": os.Getpid(), "served": served, "mode": mode, "cwd": cwd, "seed": req.Seed,
		"dataset": req.Dataset, "item": req.Item, "params": string(params), "labels": labels,
	}
}

// jsonLog writes a log-likelihood as the protocol does: −Inf as null.
func jsonLog(ll float64) any {
	if math.IsInf(ll, -1) {
		return nil
	}
	return ll
}

// solve runs hcbench's greedy on the jet of req under its model, or makes a caterpillar for
// vectors (which have no model this program builds).
func solve(req *Request) (*tree.Tree, float64) {
	raw, ok := req.Data["leaves"]
	if !ok || req.Model == nil {
		return caterpillar(req.N), math.NaN()
	}
	var leaves [][4]float64
	if err := json.Unmarshal(raw, &leaves); err != nil {
		panic(err)
	}
	p := ginkgo.Params{Lambda: req.Model.Lambda, LambdaRoot: req.Model.RootLambda, TCut: req.Model.TCut}
	switch req.Model.Kind {
	case "ginkgo2020":
		p.Version = ginkgo.Version2020
	case "ginkgo2021":
		p.Version = ginkgo.Version2021
	default:
		panic("model kind " + req.Model.Kind)
	}
	m, err := ginkgo.New(leaves, p)
	if err != nil {
		panic(err)
	}
	r, err := greedy.Run(context.Background(), m)
	if err != nil {
		panic(err)
	}
	return r.Tree, r.LogLikelihood
}

func caterpillarMerges(n int) [][2]int {
	ms := [][2]int{}
	prev := 0
	for i := 1; i < n; i++ {
		ms = append(ms, [2]int{prev, i})
		prev = n + i - 1
	}
	return ms
}

// AdjacentMerges returns the merges of the adjacent mode over n leaves (nodes 0..n−1 the
// leaves, merge k making node n+k): the leaves paired in their order, (0,1), (2,3), …, then the
// pairs paired likewise, a node left over at the end of a level carried up to the next, until one
// node remains. On leaves listed class by class in blocks of a power of two, every class is a
// clade of its tree: a program that reads nothing but the order scores purity 1.
func AdjacentMerges(n int) [][2]int {
	ms := [][2]int{}
	level := make([]int, n)
	for i := range level {
		level[i] = i
	}
	for len(level) > 1 {
		next := make([]int, 0, (len(level)+1)/2)
		for i := 0; i+1 < len(level); i += 2 {
			ms = append(ms, [2]int{level[i], level[i+1]})
			next = append(next, n+len(ms)-1)
		}
		if len(level)%2 == 1 {
			next = append(next, level[len(level)-1])
		}
		level = next
	}
	return ms
}

func caterpillar(n int) *tree.Tree {
	t, err := tree.FromMerges(n, caterpillarMerges(n))
	if err != nil {
		panic(err)
	}
	return t
}

// treeMerges writes a binary tree as merges in post-order, as scipy's rows when scipy is set
// ([a, b, height, count] as floats).
func treeMerges(t *tree.Tree, n int, scipy bool) [][]any {
	id := make([]int, len(t.Nodes))
	size := make([]int, len(t.Nodes))
	rows := [][]any{}
	for _, v := range t.PostOrder() {
		nd := t.Nodes[v]
		if nd.IsLeaf() {
			id[v], size[v] = nd.Item, 1
			continue
		}
		a, b := id[nd.Children[0]], id[nd.Children[1]]
		size[v] = size[nd.Children[0]] + size[nd.Children[1]]
		if scipy {
			rows = append(rows, []any{float64(a), float64(b), float64(len(rows) + 1), float64(size[v])})
		} else {
			rows = append(rows, []any{a, b})
		}
		id[v] = n + len(rows) - 1
	}
	return rows
}

// noop answers every request at once with a caterpillar over its n leaves, reading only the
// task key and n: the protocol's own cost, for the benchmark.
func noop() int {
	in := bufio.NewReaderSize(os.Stdin, 1<<20)
	out := bufio.NewWriter(os.Stdout)
	cache := map[int][]byte{}
	for {
		line, err := in.ReadSlice('\n')
		if err == bufio.ErrBufferFull {
			fmt.Fprintln(os.Stderr, "noop: request over 1 MiB")
			return 4
		}
		if err == io.EOF || err != nil {
			return 0
		}
		var req struct {
			Task string `json:"task"`
			N    int    `json:"n"`
		}
		if err := json.Unmarshal(line, &req); err != nil {
			return 4
		}
		tail, ok := cache[req.N]
		if !ok {
			b, _ := json.Marshal(caterpillarMerges(req.N))
			tail = append(append([]byte(`,"merges":`), b...), "}\n"...)
			cache[req.N] = tail
		}
		key, _ := json.Marshal(req.Task)
		out.WriteString(`{"task":`)
		out.Write(key)
		out.Write(tail)
		out.Flush()
	}
}

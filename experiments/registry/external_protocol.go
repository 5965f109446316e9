package registry

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/hcbench/hcbench/algorithms/model"
	"github.com/hcbench/hcbench/algorithms/model/correlation"
	"github.com/hcbench/hcbench/algorithms/model/ginkgo"
	"github.com/hcbench/hcbench/algorithms/tree"
	"github.com/hcbench/hcbench/experiments/item"
	"github.com/hcbench/hcbench/experiments/metric"
	"github.com/hcbench/hcbench/experiments/results"
	"github.com/hcbench/hcbench/internal/linelimit"
)

// The external protocol, version 2 (docs/external.md): one JSON line per item on the program's
// stdin, one JSON line back on its stdout per request, in order. Version 2 added the request's
// leaves, which says how a Newick answer names its leaves (version 1 guessed it from the first
// leaf, and misread a tree by index over names that are indices in another order).

// ExternalProtocol is the protocol version that requests carry.
const ExternalProtocol = 2

// reportedTolerance is how far a program's own log-likelihood may be from hcbench's score of its
// tree before the record warns.
const reportedTolerance = 1e-6

// maxExtraBytes and maxExtraKeys bound an answer's extra: its JSON text as the answer wrote
// it, and its keys. A record keeps extra, and a run keeps its records in memory and writes them
// to results.jsonl, so an extra without bound (a 15 MB string in each answer, or 500,000 keys,
// about 110 MB a record) takes the memory and the disk; extraRecordBytes, what an extra at the
// bound holds in memory, is counted for each record in the run's memory estimate.
const (
	maxExtraBytes    = 4 << 10
	maxExtraKeys     = 64
	extraRecordBytes = 16 << 10 // measured: 10 KiB for 64 keys of 50-byte strings, rounded up
)

// maxCounters and maxCounterKeyBytes bound an answer's counters: their number and a key's
// length. A record keeps them, as it keeps extra; counterRecordBytes is what counters at the
// bounds hold in memory, counted for each record in the run's memory estimate.
const (
	maxCounters        = 64
	maxCounterKeyBytes = 64
	counterRecordBytes = 8 << 10 // measured: 7.5 KiB for 64 keys of 64 bytes, rounded up
)

// maxErrorText bounds the message of a program's error answer, and the quote of a bad line, in a
// record.
const maxErrorText = 4 << 10

// extRequest is a request, in the order its fields are written.
type extRequest struct {
	Protocol   int             `json:"protocol"`
	Task       string          `json:"task"`
	Dataset    string          `json:"dataset"`
	Item       string          `json:"item"`
	Seed       string          `json:"seed"`
	N          int             `json:"n"`
	Names      []string        `json:"names"`
	LeafLabels string          `json:"leaf_labels"`
	Params     json.RawMessage `json:"params"`
	Data       any             `json:"data"`
	Model      any             `json:"model"`
	Labels     *[]string       `json:"labels,omitempty"`
}

type jetData struct {
	Leaves [][4]float64 `json:"leaves"`
}

type vectorData struct {
	Features features `json:"features"`
}

// features are feature vectors whose NaN (missing) cells are written as null.
type features [][]float64

func (f features) MarshalJSON() ([]byte, error) {
	b := []byte{'['}
	for i, row := range f {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, '[')
		for j, x := range row {
			if j > 0 {
				b = append(b, ',')
			}
			switch {
			case math.IsNaN(x):
				b = append(b, "null"...)
			case math.IsInf(x, 0):
				return nil, fmt.Errorf("feature %d of leaf %d is %v, which JSON cannot hold", j, i, x)
			default:
				b = strconv.AppendFloat(b, x, 'g', -1, 64)
			}
		}
		b = append(b, ']')
	}
	return append(b, ']'), nil
}

// jetModel is the request's model of a jet: the Ginkgo likelihood and its rates; root_lambda is
// the rate the root split is scored with (λ itself under root_lambda: uniform).
type jetModel struct {
	Kind       string  `json:"kind"`
	Lambda     float64 `json:"lambda"`
	RootLambda float64 `json:"root_lambda"`
	TCut       float64 `json:"t_cut"`
}

// correlationModel is the request's model of vectors: the correlation-clustering energy's
// settings, as the data set's entry resolves them.
type correlationModel struct {
	Kind        string `json:"kind"`
	Similarity  any    `json:"similarity"`
	Centering   any    `json:"centering"`
	WithinPairs any    `json:"within_pairs"`
	Beta        any    `json:"beta"`
	Missing     any    `json:"missing,omitempty"`
}

// request writes the request line of a task, its newline included.
func (s *externalSolver) request(t Task) ([]byte, error) {
	it := t.Item
	n := it.Leaves()
	req := extRequest{
		Protocol: ExternalProtocol, Task: t.Key, Dataset: t.Dataset, Item: it.ID,
		Seed: strconv.FormatUint(t.Seed, 10), N: n, Names: leafNames(it), LeafLabels: s.leafLabels().String(), Params: s.params,
	}
	if req.Dataset == "" {
		req.Dataset = it.Dataset
	}
	if s.leafLabels() == tree.ByName {
		if err := distinctNames(req.Names); err != nil {
			return nil, err
		}
	}
	switch {
	case it.Jet != nil:
		req.Data = jetData{Leaves: it.Jet.Leaves}
	case it.Vectors != nil:
		req.Data = vectorData{Features: it.Vectors}
	default:
		return nil, errors.New("the external protocol sends jets or feature vectors, and this item has neither")
	}
	switch m := it.Model.(type) {
	case nil:
		req.Model = nil
	case *ginkgo.Model:
		p := m.Params()
		root := p.LambdaRoot
		if p.RootLambda == ginkgo.RootLambdaUniform {
			root = p.Lambda
		}
		req.Model = jetModel{Kind: p.Version.String(), Lambda: p.Lambda, RootLambda: root, TCut: p.TCut}
	case *correlation.Model:
		dp := it.DataParams
		req.Model = correlationModel{Kind: "correlation", Similarity: dp["similarity"], Centering: dp["centering"], WithinPairs: dp["within_pairs"], Beta: dp["beta"], Missing: dp["missing"]}
	default:
		return nil, fmt.Errorf("the external protocol (version %d) has no description of this item's model (%T)", ExternalProtocol, it.Model)
	}
	if s.p.GiveLabels {
		labels := it.Labels
		req.Labels = &labels
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(&req); err != nil { // Encode ends the line
		return nil, fmt.Errorf("writing the request: %w", err)
	}
	return b.Bytes(), nil
}

// leafNames returns the names a request sends: the item's, or its leaves' indices.
func leafNames(it *item.Item) []string {
	if it.Names != nil {
		return it.Names
	}
	names := make([]string, it.Leaves())
	for i := range names {
		names[i] = strconv.Itoa(i)
	}
	return names
}

// distinctNames checks that no two leaves share a name, as leaf_labels: name needs.
func distinctNames(names []string) error {
	seen := make(map[string]int, len(names))
	for i, nm := range names {
		if j, dup := seen[nm]; dup {
			return fmt.Errorf("leaves %d and %d of this item are both named %q, so a Newick answer cannot name its leaves by name (leaf_labels: name); use leaf_labels: index", j, i, nm)
		}
		seen[nm] = i
	}
	return nil
}

// extAnswer is a program's answer to a request.
type extAnswer struct {
	tree       *tree.Tree
	errText    string // the program's own error: the task fails, the program stays
	refused    string // why hcbench refuses a well-formed answer: the task fails, the program stays
	reportedLL *float64
	seconds    *float64
	extra      map[string]any
	counters   map[string]int64
}

// answerKeys are the keys an answer may have.
var answerKeys = []string{"task", "newick", "merges", "error", "log_likelihood", "seconds", "extra", "counters"}

// parseAnswer reads an answer line to the request of task key over n leaves, named by names,
// whose Newick labels leaves as by says. Its error says what is wrong with the line; any error
// means the program is out of step with the protocol.
func parseAnswer(line []byte, key string, n int, names []string, by tree.LeafLabels, lastTask string) (*extAnswer, error) {
	b := bytes.TrimSpace(line)
	if len(b) == 0 {
		return nil, errors.New("wrote an empty line where its answer should be")
	}
	var fields map[string]json.RawMessage
	if b[0] != '{' {
		return nil, fmt.Errorf("wrote a line that is not a JSON object where its answer should be: %s%s (stdout carries answers only; write anything else to stderr)", quoteLine(b), nanHint(b))
	}
	if err := json.Unmarshal(b, &fields); err != nil {
		return nil, fmt.Errorf("wrote a malformed JSON line where its answer should be (%v): %s%s", err, quoteLine(b), nanHint(b))
	}
	raw, ok := fields["task"]
	if !ok {
		return nil, fmt.Errorf("answered without a task key: %s", quoteLine(b))
	}
	var task string
	if err := json.Unmarshal(raw, &task); err != nil {
		return nil, fmt.Errorf("answered with a task that is not a string (%s)", quoteLine(raw))
	}
	if task != key {
		if task == lastTask {
			return nil, fmt.Errorf("answered task %q a second time (one line per request), where the request was task %q", task, key)
		}
		return nil, fmt.Errorf("answered for task %q, but the request was task %q", task, key)
	}
	for k := range fields {
		if !slices.Contains(answerKeys, k) {
			return nil, fmt.Errorf("answered with an unknown key %q (an answer has %s)", k, strings.Join(answerKeys, ", "))
		}
	}
	given := 0
	for _, k := range []string{"newick", "merges", "error"} {
		if _, ok := fields[k]; ok {
			given++
		}
	}
	if given != 1 {
		return nil, fmt.Errorf("answered with %d of newick, merges and error; an answer has exactly one", given)
	}
	a := &extAnswer{}
	if raw, ok := fields["error"]; ok {
		var msg string
		if err := json.Unmarshal(raw, &msg); err != nil {
			return nil, fmt.Errorf("answered with an error that is not a string (%s)", quoteLine(raw))
		}
		if len(msg) > maxErrorText {
			msg = msg[:maxErrorText] + " …(cut)"
		}
		a.errText = msg
		return a, nil
	}
	var err error
	if raw, ok := fields["newick"]; ok {
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return nil, fmt.Errorf("answered with a newick that is not a string (%s)", quoteLine(raw))
		}
		if a.tree, err = tree.ParseNewickItems(s, n, names, by); err != nil {
			return nil, fmt.Errorf("answered with an invalid tree: %v%s", err, labelsHint(err))
		}
	} else {
		if a.tree, err = mergesTree(fields["merges"], n); err != nil {
			return nil, fmt.Errorf("answered with an invalid tree: %v", err)
		}
	}
	if raw, ok := fields["log_likelihood"]; ok {
		ll := math.Inf(-1) // null: −Inf, as records write it
		if string(raw) != "null" {
			if err := json.Unmarshal(raw, &ll); err != nil {
				return nil, fmt.Errorf("answered with a log_likelihood that is not a number or null (%s)", quoteLine(raw))
			}
		}
		a.reportedLL = &ll
	}
	if raw, ok := fields["seconds"]; ok {
		var sec float64
		if err := json.Unmarshal(raw, &sec); err != nil || sec < 0 {
			return nil, fmt.Errorf("answered with seconds that are not a number ≥ 0 (%s)", quoteLine(raw))
		}
		a.seconds = &sec
	}
	if raw, ok := fields["extra"]; ok {
		if len(raw) > maxExtraBytes {
			// Over the bound: the line is well-formed, so the program stays, but nothing
			// of the answer is kept (a record holds all the program answered, or says why not).
			a.refused = fmt.Sprintf("answered with an extra of %s, more than the %s an answer's extra may hold%s", linelimit.Size(len(raw)), linelimit.Size(maxExtraBytes), extraHint)
			return a, nil
		}
		if a.extra, err = flatObject(raw); err != nil {
			return nil, fmt.Errorf("answered with a bad extra: %v", err)
		}
		if len(a.extra) > maxExtraKeys {
			a.refused = fmt.Sprintf("answered with an extra of %d keys, more than the %d an answer's extra may hold%s", len(a.extra), maxExtraKeys, extraHint)
			a.extra = nil
			return a, nil
		}
	}
	if raw, ok := fields["counters"]; ok {
		var obj map[string]json.RawMessage
		if err := json.Unmarshal(raw, &obj); err != nil || obj == nil {
			return nil, fmt.Errorf("answered with counters that are not an object (%s)", quoteLine(raw))
		}
		if a.counters, a.refused = checkCounters(obj); a.refused != "" {
			a.extra, a.counters = nil, nil
		}
	}
	return a, nil
}

// extraHint says why an extra has bounds and what to do instead.
const extraHint = " (a record keeps extra, and a run keeps its records in memory); keep extra to a few values (write bulk output to a file of the program's own)"

// checkCounters reads an answer's counters: at most maxCounters, each named as a work counter is
// (metric.ValidCounterKey, at most maxCounterKeyBytes) and a non-negative integer. why says,
// naming the counter, what breaks the rules (the first by name, so the message is the same
// whatever the order of the answer's keys); the line itself is well-formed.
func checkCounters(obj map[string]json.RawMessage) (counters map[string]int64, why string) {
	if len(obj) > maxCounters {
		return nil, fmt.Sprintf("answered with %d counters, more than the %d an answer may hold (a record keeps them)", len(obj), maxCounters)
	}
	counters = make(map[string]int64, len(obj))
	for _, k := range slices.Sorted(maps.Keys(obj)) {
		if !metric.ValidCounterKey(k) || len(k) > maxCounterKeyBytes {
			return nil, fmt.Sprintf("answered with a counter named %s; a counter's name is 1 to %d lower-case letters, digits and '_'", quoteLine([]byte(k)), maxCounterKeyBytes)
		}
		v, err := strconv.ParseInt(string(obj[k]), 10, 64)
		if err != nil || v < 0 {
			return nil, fmt.Sprintf("answered with counter %q = %s, which is not a count: a counter is an integer from 0 to 2^63 − 1, written without a fraction or exponent", k, quoteLine(obj[k]))
		}
		counters[k] = v
	}
	return counters, ""
}

// labelsHint says what to change when a Newick answer gave its leaves the other way than the
// request's leaf_labels asked.
func labelsHint(err error) string {
	var le *tree.LabelError
	switch {
	case !errors.As(err, &le):
		return ""
	case le.Mixed:
		return fmt.Sprintf(`; an answer gives every leaf the same way, as the request's "leaf_labels" says (%q)`, le.By)
	case le.By == tree.ByIndex:
		return `; the request's "leaf_labels" is "index" (the config entry's leaf_labels, by default): answer each leaf by its index 0..n−1, or set leaf_labels: name in the entry for a program that answers names`
	}
	return `; the request's "leaf_labels" is "name" (the config entry's leaf_labels: name): answer each leaf by its name, or set leaf_labels: index in the entry for a program that answers indices`
}

// mergesTree builds the tree of a merges answer: n−1 rows [a, b] (or scipy's [a, b, distance,
// count], the last two ignored) of node ids, leaves 0..n−1 and merge k making node n+k; each
// node is merged once, after it is made.
func mergesTree(raw json.RawMessage, n int) (*tree.Tree, error) {
	var rows [][]json.Number
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	if err := d.Decode(&rows); err != nil {
		return nil, fmt.Errorf("merges must be a list of pairs of node ids: %v", err)
	}
	if len(rows) != n-1 {
		return nil, fmt.Errorf("%d merges for n = %d leaves, want n − 1 = %d", len(rows), n, n-1)
	}
	merges := make([][2]int, len(rows))
	used := make([]int, 2*n-1) // the merge that used a node, + 1
	for k, row := range rows {
		if len(row) != 2 && len(row) != 4 {
			return nil, fmt.Errorf("merge %d has %d numbers, want a pair of node ids (or scipy's 4 columns)", k, len(row))
		}
		for j := range 2 {
			id, err := nodeID(row[j])
			if err != nil {
				return nil, fmt.Errorf("merge %d: %v", k, err)
			}
			switch {
			case id >= n+k:
				return nil, fmt.Errorf("merge %d names node %d, which is not made yet (leaves are 0..%d, and merge %d makes node %d)", k, id, n-1, k, n+k)
			case used[id] > 0 && used[id]-1 == k:
				return nil, fmt.Errorf("merge %d merges node %d with itself", k, id)
			case used[id] > 0:
				return nil, fmt.Errorf("merge %d names node %d, which merge %d already merged", k, id, used[id]-1)
			}
			used[id] = k + 1
			merges[k][j] = id
		}
	}
	return tree.FromMerges(n, merges)
}

// nodeID reads a node id: a non-negative integer, also when written as a float (3.0, as numpy
// writes a linkage matrix's ids).
func nodeID(x json.Number) (int, error) {
	if i, err := strconv.Atoi(string(x)); err == nil && i >= 0 {
		return i, nil
	}
	f, err := strconv.ParseFloat(string(x), 64)
	if err != nil || f < 0 || f != math.Trunc(f) || f > math.MaxInt32 {
		return 0, fmt.Errorf("node id %s is not a non-negative integer", x)
	}
	return int(f), nil
}

// flatObject reads extra: an object whose values are strings, numbers, true/false or null.
func flatObject(raw json.RawMessage) (map[string]any, error) {
	var m map[string]any
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	if err := d.Decode(&m); err != nil || m == nil {
		return nil, fmt.Errorf("want an object of flat values, got %s", quoteLine(raw))
	}
	for k, v := range m {
		switch v.(type) {
		case string, json.Number, bool, nil:
		default:
			return nil, fmt.Errorf("extra.%s is a list or an object; extra holds flat values (strings, numbers, true/false, null)", k)
		}
	}
	return m, nil
}

// quoteLine quotes (the start of) a line for a message.
func quoteLine(b []byte) string {
	if len(b) > 200 {
		return strconv.Quote(string(b[:200])) + fmt.Sprintf(" …(%d bytes in all)", len(b))
	}
	return strconv.Quote(string(b))
}

// nanHint explains a line with NaN or Infinity, which Python's json.dumps writes but JSON lacks.
func nanHint(b []byte) string {
	if bytes.Contains(b, []byte("Infinity")) || bytes.Contains(b, []byte("NaN")) {
		return " (JSON has no NaN or Infinity: write a log-likelihood of −Inf as null; Python's json.dumps(..., allow_nan=False) catches these)"
	}
	return ""
}

// Solve sends the task's item to a program of the pool and scores the tree it answers.
func (s *externalSolver) Solve(ctx context.Context, t Task) (Solution, error) {
	if err := ctx.Err(); err != nil {
		return Solution{}, err
	}
	req, err := s.request(t)
	if err != nil {
		return Solution{}, err
	}
	p, stray, err := s.acquire()
	if err != nil {
		return Solution{}, err
	}
	if stray != nil {
		return Solution{}, s.fail(p, fmt.Sprintf("wrote a line to stdout when no request was waiting (after its answer to task %q): %s; stdout carries one answer per request and nothing else (write logs to stderr)", p.lastTask, quoteLine(bytes.TrimSpace(stray.b))))
	}
	line, cause := s.exchange(ctx, p, req)
	if cause != "" {
		if err := ctx.Err(); err != nil {
			s.discard(p)
			return Solution{}, err
		}
		return Solution{}, s.fail(p, cause)
	}
	a, err := parseAnswer(line, t.Key, t.Item.Leaves(), leafNames(t.Item), s.leafLabels(), p.lastTask)
	if err != nil {
		return Solution{}, s.fail(p, err.Error())
	}
	p.served++
	p.lastTask = t.Key
	if a.refused != "" {
		s.release(p)
		return Solution{}, fmt.Errorf("external program %s (pid %d) %s: the task fails and its tree is not recorded; the program is kept for the next item", s.display, p.pid, a.refused)
	}
	if a.errText != "" {
		tail := p.tail.lines()
		s.release(p)
		msg := fmt.Sprintf("external program %s (pid %d) answered with an error: %s", s.display, p.pid, a.errText)
		if len(tail) > 0 {
			msg += "\nstderr, last line(s):\n| " + strings.Join(tail, "\n| ")
		}
		return Solution{}, errors.New(msg)
	}
	s.release(p)
	return score(t.Item, a)
}

// exchange writes a request to a program and waits for its answer line, its stdout's end, its
// exit, the timeout or ctx, whichever comes first. It returns the line, or why there is none (""
// cause: the line).
func (s *externalSolver) exchange(ctx context.Context, p *extProc, req []byte) (line []byte, cause string) {
	wrote := make(chan error, 1)
	go func() {
		_, err := p.stdin.Write(req)
		wrote <- err
	}()
	var timeout <-chan time.Time
	if s.p.Timeout > 0 {
		tm := time.NewTimer(time.Duration(s.p.Timeout))
		defer tm.Stop()
		timeout = tm.C
	}
	timedOut := fmt.Sprintf("gave no answer within its timeout of %s", s.p.Timeout)
	written := false
	// got is the answer to a line of stdout, or its end.
	got := func(l extLine) ([]byte, string) {
		if l.err != nil {
			return nil, streamCause(p, l.err)
		}
		if !written {
			select {
			case err := <-wrote:
				if err != nil {
					return nil, fmt.Sprintf("answered, but could not be sent the whole request (%v)", err)
				}
			case <-ctx.Done():
				return nil, "cancelled"
			case <-timeout:
				return nil, timedOut
			case <-time.After(requestGrace):
				return nil, "answered before it read its whole request, and then stopped reading it"
			}
		}
		return l.b, ""
	}
	exited := p.exited
	for {
		select {
		case err := <-wrote:
			if err != nil {
				return nil, fmt.Sprintf("could not be sent its request (%v): it closed its stdin or exited%s", err, p.exitNote())
			}
			written, wrote = true, nil
		case l := <-p.lines:
			return got(l)
		case <-exited:
			// Its exit killed what it left in its process group, so its stdout ends as soon as
			// the lines it wrote are read, unless a process that left the group holds it.
			exited = nil
			select {
			case l := <-p.lines:
				return got(l)
			case <-ctx.Done():
				return nil, "cancelled"
			case <-time.After(p.grace):
				return nil, fmt.Sprintf("exited (%s) without answering, and its stdout stays open %s later: a process it started outside its process group holds it (hcbench kills the group only)", p.exitText(), p.grace)
			}
		case <-ctx.Done():
			return nil, "cancelled"
		case <-timeout:
			return nil, timedOut
		}
	}
}

// streamCause says why a program's stdout gave no answer.
func streamCause(p *extProc, err error) string {
	if e, ok := linelimit.IsTooLong(err); ok {
		return fmt.Sprintf("wrote a line longer than %s where its answer should be (a flood of output, not an answer)", linelimit.Size(e.Limit))
	}
	if err == io.EOF {
		return "closed its stdout before answering" + p.exitNote()
	}
	return fmt.Sprintf("could not be read (%v)", err)
}

// exitNote waits up to its grace for the program to exit and says how it did: " (it exited:
// exit status 1)", or "" if it still runs.
func (p *extProc) exitNote() string {
	select {
	case <-p.exited:
	case <-time.After(p.grace):
		return ""
	}
	return fmt.Sprintf(" (it exited: %s)", p.exitText())
}

// fail kills a program that broke the protocol and returns the task's error: the cause, the
// program, and the last lines of its stderr.
func (s *externalSolver) fail(p *extProc, cause string) error {
	s.discard(p)
	return fmt.Errorf("external program %s (pid %d) %s; it was killed, and a fresh one starts for the next item%s", s.display, p.pid, cause, p.stderrTail())
}

// score makes the Solution of an answer: the tree scored under the item's model by hcbench
// itself, as a built-in algorithm's, and what the program reported beside it.
func score(it *item.Item, a *extAnswer) (Solution, error) {
	sol := Solution{Tree: a.tree, LogLikelihood: math.NaN(), Counters: a.counters}
	if it.Model != nil {
		if a.tree.IsBinary() {
			ll, err := model.TreeLogLikelihood(it.Model, a.tree)
			if err != nil {
				return Solution{}, err
			}
			sol.LogLikelihood = ll
		} else {
			sol.Warnings = append(sol.Warnings, "the program answered a rose tree (a node with more than two children), which the split model does not score (it scores binary trees only): the record has no log_likelihood")
		}
	}
	if a.reportedLL != nil && !math.IsNaN(sol.LogLikelihood) && !closeLogs(*a.reportedLL, sol.LogLikelihood) {
		sol.Warnings = append(sol.Warnings, fmt.Sprintf("the program reported log_likelihood %v, and hcbench scores its tree %v under the item's model (they differ by more than %g)",
			*a.reportedLL, sol.LogLikelihood, reportedTolerance))
	}
	sol.Fill = func(r *results.Record) {
		if a.reportedLL != nil {
			r.ReportedLogLikelihood = results.Log(*a.reportedLL)
		}
		r.ReportedSeconds = a.seconds
		r.Extra = a.extra
	}
	return sol, nil
}

// closeLogs reports whether two log-likelihoods agree within reportedTolerance (−Inf equals
// −Inf).
func closeLogs(a, b float64) bool {
	if math.IsInf(a, 0) || math.IsInf(b, 0) {
		return a == b
	}
	return math.Abs(a-b) <= reportedTolerance
}

package registry

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/hcbench/hcbench/algorithms/tree"
	"github.com/hcbench/hcbench/experiments/item"
	"github.com/hcbench/hcbench/experiments/memory"
	"github.com/hcbench/hcbench/internal/linelimit"
)

// The external algorithm: a program in any language, run as a child process that speaks the
// external protocol (version 1; docs/external.md). This file holds its entry, its parameters and
// their YAML types; external_protocol.go the requests and answers, external_process.go the
// programs and their pool.

func init() {
	RegisterAlgorithm(Algorithm{
		Name: "external",
		Help: "your own program, in any language, scored and reported like a built-in algorithm (docs/external.md). " +
			"hcbench starts the command once per worker, in the config file's folder, and writes it one JSON line per item on stdin, " +
			`{"protocol": 2, "task", "dataset", "item", "seed" (a decimal string), "n", "names", "leaf_labels" (index or name), "params", "data", "model"} ` +
			`(jets: data.leaves [[E, px, py, pz], ...] and model {kind: ginkgo2020 or ginkgo2021, lambda, root_lambda, t_cut}; ` +
			`vectors: data.features, missing cells null, and model {kind: correlation, similarity, centering, within_pairs, beta, missing} or null; ` +
			`labels only with give_labels); the program writes one JSON line per request on stdout, in order: ` +
			`{"task", "newick"} (leaves labelled as leaf_labels says: by index 0..n−1 or by names), {"task", "merges"} (scipy's linkage: leaves 0..n−1, merge k makes node n+k) ` +
			`or {"task", "error"}, optionally with log_likelihood (recorded as reported_log_likelihood, a warning when it differs from hcbench's own score by more than 1e-6), ` +
			"seconds (reported_seconds), extra (flat values, at most 64 keys and 4 KiB: a larger one fails the task) " +
			"and counters (the program's work counters, recorded as counters: at most 64, named by 1 to 64 lower-case letters, digits and '_', each an integer ≥ 0; a bad one fails the task). hcbench scores the tree itself under the item's model; a rose tree gets no log_likelihood. " +
			"Its stderr goes to the run's log, at most 64 KiB at once and 16 KiB a second. A malformed or unsolicited line, a wrong task key, an invalid tree, a program that exits, " +
			"a line over 16 MiB or a timeout fails that task only, with the cause and the last lines of stderr: the program is killed with its process group and a fresh one starts for the next item",
		NewParams:   func() Params { return &ExternalParams{} },
		OwnCounters: true, // its programs name their own
		Start:       startExternal,
		Memory:      externalMemory,
		RecordBytes: func(Params) int64 { return extraRecordBytes + counterRecordBytes },
		// Unknown: a program's own algorithm. A guess of a millisecond for the request and
		// answer and 1 µs·n², which the progress calibrates from the first tasks.
		Cost: func(_ Params, n int) float64 { return 1e-3 + 1e-6*square(n) },
	})
}

// The working memory of an external task in hcbench (the program's own is its own): its
// program's buffers, the request and the answer lines, and an answer's extra and counters at
// their bounds.
const (
	// extProgramBytes: the stdout reader's buffer, stderr's line buffer and tail, and the
	// goroutines and pipes of one program.
	extProgramBytes = linelimit.BufSize + stderrLineBytes + 2*stderrTailBytes + 16<<10
	// extNumberBytes is a number of the request as JSON writes it (up to 24 characters and a
	// comma); extNameBytes a leaf's name in the request, and extAnswerLeafBytes what an answer
	// writes per leaf (a Newick label, a merge, or a scipy row of four floats).
	extNumberBytes, extNameBytes, extAnswerLeafBytes = 25, 24, 64
	// extLineCopies: a line is held about three times, as it is built or read, copied, and
	// decoded.
	extLineCopies = 3
)

// externalMemory estimates the working memory of one external task on an item of n leaves of a
// data set of size s: its program's buffers, the request and the answer, and an extra and
// counters at their bounds while the answer is parsed (a record keeps them: RecordBytes counts
// them there).
func externalMemory(_ Params, s item.Size, n int) int64 {
	perLeaf := int64(extNameBytes + extNumberBytes*max(s.Dims, 4))
	lines := memory.Mul(int64(n), perLeaf+extAnswerLeafBytes)
	return memory.Add(extProgramBytes+extraRecordBytes+counterRecordBytes, memory.Mul(extLineCopies, lines))
}

// ExternalParams: `external` runs a program of the user's through the external protocol.
type ExternalParams struct {
	Command    CommandLine `yaml:"command" required:"true" help:"the program and its arguments, a list such as [python3, my_clusterer.py, --depth, \"3\"]: run without a shell, in the config file's folder (so relative paths among the arguments are relative to the config file); a program given as a path with a slash is taken relative to the config file's folder, a bare name is looked up on PATH; hcbench checks that it exists and is executable before the run starts"`
	Timeout    Duration    `yaml:"timeout" default:"none" help:"most time for one item, from sending its request to its answer (a freshly started program's start-up counts toward its first item): a duration such as 60s, 2m or 1h30m, or none; past it the task fails and the program is killed and restarted"`
	Params     JSONObject  `yaml:"params" help:"a mapping passed to the program verbatim as the request's params (as JSON; default {}): its own settings, such as {temperature: 0.5}; values must be ones JSON can hold (no NaN or infinities)"`
	GiveLabels bool        `yaml:"give_labels" default:"false" help:"send the leaves' labels (the ground-truth classes, \"\" unknown) as the request's labels; they are never sent otherwise"`
	LeafLabels string      `yaml:"leaf_labels" default:"index" help:"how the program's Newick answers label their leaves, sent as the request's leaf_labels: index (0..n−1, the leaves' positions in the request) or name (the request's names, which must then be distinct); a leaf given the other way fails its task. Merges number leaves by index either way"`
}

// Check checks the external algorithm's parameters, and that its program exists and can run
// (relative to the config file's folder, or on PATH).
func (p *ExternalParams) Check(c Checker) {
	switch {
	case len(p.Command) == 0:
		c.Bad("command", "must name the program to run, a list such as [python3, my_clusterer.py]")
	case strings.TrimSpace(p.Command[0]) == "":
		c.Bad("command", "the program, its first element, is empty")
	default:
		if dir, err := filepath.Abs(c.Dir()); err == nil {
			if _, err := resolveProgram(p.Command[0], dir); err != nil {
				c.Bad("command", "%v", strings.TrimPrefix(err.Error(), "command: "))
			}
		}
	}
	if p.Timeout < 0 {
		c.Bad("timeout", "must be positive, or none for no limit; got %s", time.Duration(p.Timeout))
	}
	OneOf(c, "leaf_labels", p.LeafLabels, tree.ByIndex.String(), tree.ByName.String())
}

// CommandLine is a program and its arguments, written as a YAML list of strings.
type CommandLine []string

func (a *CommandLine) DecodeYAML(n *yaml.Node) error {
	n = dealias(n)
	if n.Kind == yaml.ScalarNode && n.ShortTag() == "!!str" {
		return fmt.Errorf("want the program and its arguments as a list, such as [python3, my_clusterer.py]; got the string %q (hcbench runs no shell, so a string is never split at its spaces)", n.Value)
	}
	if n.Kind != yaml.SequenceNode {
		return fmt.Errorf("want the program and its arguments as a list, such as [python3, my_clusterer.py]; got %s", Describe(n))
	}
	out := make(CommandLine, 0, len(n.Content))
	for i, e := range n.Content {
		e = dealias(e)
		if e.Kind != yaml.ScalarNode || e.ShortTag() == "!!null" {
			return fmt.Errorf("element %d: want a string, got %s", i, Describe(e))
		}
		out = append(out, e.Value)
	}
	*a = out
	return nil
}

// YAMLType names the value's syntax for help.
func (*CommandLine) YAMLType() string { return "list of strings" }

// Duration is a length of time written as Go writes durations (60s, 2m, 1h30m), or none (0).
type Duration time.Duration

func (d *Duration) DecodeYAML(n *yaml.Node) error {
	n = dealias(n)
	if n.Kind != yaml.ScalarNode || n.ShortTag() == "!!null" {
		return fmt.Errorf("want a duration such as 60s, 2m or 1h30m, or none; got %s", Describe(n))
	}
	v := strings.TrimSpace(n.Value)
	if v == "none" || v == "0" {
		*d = 0
		return nil
	}
	x, err := time.ParseDuration(v)
	if err != nil {
		if _, ferr := strconv.ParseFloat(v, 64); ferr == nil {
			return fmt.Errorf("want a duration with its unit, such as %ss or %sm; got %s", v, v, v)
		}
		return fmt.Errorf("want a duration such as 60s, 2m or 1h30m, or none; got %q", v)
	}
	*d = Duration(x)
	return nil
}

// String writes the duration as configs write it.
func (d Duration) String() string {
	if d == 0 {
		return "none"
	}
	return time.Duration(d).String()
}

// MarshalYAML writes the duration as a config writes it.
func (d Duration) MarshalYAML() (any, error) { return d.String(), nil }

// MarshalJSON writes the duration as a config writes it, for result records.
func (d Duration) MarshalJSON() ([]byte, error) { return json.Marshal(d.String()) }

// YAMLType names the value's syntax for help.
func (*Duration) YAMLType() string { return "duration (60s, 2m, 1h30m) or none" }

// JSONObject is a YAML mapping kept as the JSON object it is sent as: any mapping with string
// keys whose values JSON can hold (numbers, strings, true/false, null, lists and mappings of
// them). A YAML timestamp is kept as its text; NaN, infinities and binary data are refused.
type JSONObject map[string]any

// maxJSONNodes bounds the values of one JSONObject, aliases expanded (a "billion laughs" of
// aliases would otherwise take the memory).
const maxJSONNodes = 1 << 20

// maxJSONDepth bounds its nesting.
const maxJSONDepth = 200

func (o *JSONObject) DecodeYAML(n *yaml.Node) error {
	n = dealias(n)
	if n.Kind != yaml.MappingNode {
		return fmt.Errorf("want a mapping of names to values, such as {temperature: 0.5}; got %s", Describe(n))
	}
	budget := maxJSONNodes
	v, err := yamlJSON(n, "", &budget, 0)
	if err != nil {
		return err
	}
	*o = v.(map[string]any)
	return nil
}

// MarshalJSON writes the object; nil is {}.
func (o JSONObject) MarshalJSON() ([]byte, error) {
	if o == nil {
		return []byte("{}"), nil
	}
	return json.Marshal(map[string]any(o))
}

// MarshalYAML writes the object as a YAML mapping; nil is {}.
func (o JSONObject) MarshalYAML() (any, error) {
	if o == nil {
		return map[string]any{}, nil
	}
	return map[string]any(o), nil
}

// YAMLType names the value's syntax for help.
func (*JSONObject) YAMLType() string { return "mapping" }

// dealias follows a YAML alias to the node it names.
func dealias(n *yaml.Node) *yaml.Node {
	for n.Kind == yaml.AliasNode && n.Alias != nil {
		n = n.Alias
	}
	return n
}

// yamlJSON converts a YAML node into the value encoding/json writes as the same JSON: map[string]any,
// []any, string, int64 or uint64, float64, bool or nil. path names the value in errors.
func yamlJSON(n *yaml.Node, path string, budget *int, depth int) (any, error) {
	n = dealias(n)
	if *budget--; *budget < 0 {
		return nil, fmt.Errorf("more than %d values (aliases expanded)", maxJSONNodes)
	}
	if depth > maxJSONDepth {
		return nil, fmt.Errorf("%s: nested deeper than %d", orRoot(path), maxJSONDepth)
	}
	at := func(format string, args ...any) error {
		return fmt.Errorf("%s (line %d): %s", orRoot(path), n.Line, fmt.Sprintf(format, args...))
	}
	switch n.Kind {
	case yaml.MappingNode:
		out := map[string]any{}
		explicit := map[string]bool{}
		var merged []*yaml.Node // mappings merged in with <<, whose keys yield to explicit ones
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := dealias(n.Content[i]), n.Content[i+1]
			if k.Kind == yaml.ScalarNode && k.ShortTag() == "!!merge" {
				v = dealias(v)
				switch v.Kind {
				case yaml.MappingNode:
					merged = append(merged, v)
				case yaml.SequenceNode:
					for _, m := range v.Content {
						if m = dealias(m); m.Kind != yaml.MappingNode {
							return nil, at("a merge key (<<) takes mappings, got %s", Describe(m))
						}
						merged = append(merged, m)
					}
				default:
					return nil, at("a merge key (<<) takes a mapping or a list of mappings, got %s", Describe(v))
				}
				continue
			}
			if k.Kind != yaml.ScalarNode || k.ShortTag() != "!!str" {
				return nil, at("key %s is not a string (JSON object keys are strings; quote it)", Describe(k))
			}
			if explicit[k.Value] {
				return nil, at("key %q given twice", k.Value)
			}
			explicit[k.Value] = true
			x, err := yamlJSON(v, joinPath(path, k.Value), budget, depth+1)
			if err != nil {
				return nil, err
			}
			out[k.Value] = x
		}
		for _, m := range merged {
			x, err := yamlJSON(m, path, budget, depth+1)
			if err != nil {
				return nil, err
			}
			for key, val := range x.(map[string]any) {
				if _, ok := out[key]; !ok {
					out[key] = val
				}
			}
		}
		return out, nil
	case yaml.SequenceNode:
		out := make([]any, 0, len(n.Content))
		for i, e := range n.Content {
			x, err := yamlJSON(e, fmt.Sprintf("%s[%d]", path, i), budget, depth+1)
			if err != nil {
				return nil, err
			}
			out = append(out, x)
		}
		return out, nil
	case yaml.ScalarNode:
		switch n.ShortTag() {
		case "!!null":
			return nil, nil
		case "!!str", "!!timestamp":
			return n.Value, nil
		case "!!bool":
			var b bool
			if err := n.Decode(&b); err != nil {
				return nil, at("%v", err)
			}
			return b, nil
		case "!!int":
			var i int64
			if err := n.Decode(&i); err == nil {
				return i, nil
			}
			var u uint64
			if err := n.Decode(&u); err == nil {
				return u, nil
			}
			return nil, at("the integer %s is too large; write it as a string or a float", n.Value)
		case "!!float":
			var f float64
			if err := n.Decode(&f); err != nil {
				return nil, at("%v", err)
			}
			if math.IsNaN(f) || math.IsInf(f, 0) {
				return nil, at("%s is not a number JSON can hold (JSON has no NaN or infinities)", n.Value)
			}
			return f, nil
		}
		return nil, at("a value tagged %s, which JSON cannot hold", n.ShortTag())
	}
	return nil, at("want a value JSON can hold, got %s", Describe(n))
}

func joinPath(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

func orRoot(path string) string {
	if path == "" {
		return "the mapping"
	}
	return path
}

// externalSolver is a started external variant: its resolved command, the request fields that
// do not change from item to item, and the pool of its programs (external_process.go).
type externalSolver struct {
	p       *ExternalParams
	path    string   // the program, an absolute path
	argv    []string // argv[0] as written, then the arguments
	dir     string   // the working directory: the config file's folder, absolute
	env     []string
	params  json.RawMessage // the params object as sent
	workers int
	log     *slog.Logger
	display string // the command for messages

	stderrLog logBudget     // what the programs' stderr may still write to the log
	grace     time.Duration // endGrace, which a test may shorten
	pool
}

// startExternal checks that the program exists and may be run, and prepares its pool; no
// program starts until the first item (one per worker that asks).
func startExternal(p Params, run Run) (Solver, error) {
	ep, ok := p.(*ExternalParams)
	if !ok {
		return nil, fmt.Errorf("registry: parameters %T, want *ExternalParams", p)
	}
	if len(ep.Command) == 0 || ep.Command[0] == "" {
		return nil, errors.New("command: no program given")
	}
	dir := run.ConfigDir
	if dir == "" {
		dir = "."
	}
	dir, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	path, err := resolveProgram(ep.Command[0], dir)
	if err != nil {
		return nil, err
	}
	params, err := json.Marshal(ep.Params)
	if err != nil {
		return nil, fmt.Errorf("params: %w", err)
	}
	log := run.Log
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	s := &externalSolver{
		p: ep, path: path, argv: append([]string(nil), ep.Command...), dir: dir, env: externalEnv(),
		params: params, workers: max(run.Workers, 1), log: log, display: displayCommand(ep.Command), grace: endGrace,
	}
	s.pool.init()
	return s, nil
}

// leafLabels is how the variant's Newick answers label their leaves.
func (s *externalSolver) leafLabels() tree.LeafLabels {
	if s.p.LeafLabels == tree.ByName.String() {
		return tree.ByName
	}
	return tree.ByIndex
}

// resolveProgram finds the program of a command: a path with a separator is taken relative to
// dir (the config file's folder) and must be an executable file; a bare name is looked up on PATH.
func resolveProgram(prog, dir string) (string, error) {
	if strings.ContainsRune(prog, '/') || runtime.GOOS == "windows" && strings.ContainsAny(prog, `\:`) {
		path := prog
		if !filepath.IsAbs(path) {
			path = filepath.Join(dir, path)
		}
		fi, err := os.Stat(path)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			return "", fmt.Errorf("command: the program %s does not exist (a relative path is taken from the config file's folder, %s)", path, dir)
		case err != nil:
			return "", fmt.Errorf("command: the program %s cannot be read: %w", path, err)
		case fi.IsDir():
			return "", fmt.Errorf("command: the program %s is a directory", path)
		case !isExecutable(fi):
			return "", fmt.Errorf("command: the program %s is not executable: make it executable (chmod +x, with a #! line naming its interpreter) or run it through its interpreter, as in [python3, %s]", path, prog)
		}
		return path, nil
	}
	path, err := exec.LookPath(prog)
	if err != nil {
		return "", fmt.Errorf("command: %q is not a program on PATH (%v): install it, or give the program's path", prog, err)
	}
	return filepath.Abs(path)
}

// externalEnv is the programs' environment: hcbench's, with Python's output unbuffered and its
// string hashing fixed (so that a Python program answers each request at once, and the same
// way in every process) unless the environment sets them.
func externalEnv() []string {
	env := os.Environ()
	for _, kv := range []string{"PYTHONUNBUFFERED=1", "PYTHONHASHSEED=0"} {
		name, _, _ := strings.Cut(kv, "=")
		if _, set := os.LookupEnv(name); !set {
			env = append(env, kv)
		}
	}
	return env
}

// displayCommand writes a command for messages, shortened.
func displayCommand(argv []string) string {
	s := strings.Join(argv, " ")
	if len(s) > 120 {
		s = s[:117] + "..."
	}
	return "[" + s + "]"
}

// Package results is the record of a run: one Record per task in results.jsonl (JSON Lines,
// appended as tasks finish) and a Manifest describing the run. The formats are documented in
// docs/results.md, and their JSON Schemas are RecordJSONSchema and ManifestJSONSchema; a record
// is a flat struct so that it loads directly into a data frame.
package results

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"os"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/hcbench/hcbench/internal/linelimit"
)

// RecordSchema is the version of Record written by this build.
const RecordSchema = 1

// Record is the result of one task: one algorithm run on one data item.
//
// Log-likelihoods are natural logs. JSON has no infinities, so a log-likelihood of −Inf (a tree
// the model forbids) is written as null; a field that does not apply is left out.
type Record struct {
	Schema     int    `json:"schema"`
	Experiment string `json:"experiment"`
	// Key identifies the task: "dataset=…|item=…|algorithm=…".
	Key       string `json:"key"`
	Dataset   string `json:"dataset"`
	Item      string `json:"item"`
	Algorithm string `json:"algorithm"` // the label of the variant
	// AlgorithmName is the algorithm the label runs (truth, greedy, …).
	AlgorithmName string `json:"algorithm_name"`
	// Params are the algorithm's parameters, defaults applied, keyed by config key.
	Params map[string]any `json:"params"`
	// DataParams are the data set's settings, resolved as the task used them, in one flat object
	// keyed by config key: the source (generator, or file and format) and every key of the data
	// set entry with its default applied, so the model that scored the tree (likelihood and
	// root_lambda of jets, the correlation-clustering keys of vectors) and the sampling of the
	// items are in every record. A jets file's likelihood keys are those resolved against the
	// file, and jets add their own lambda, lambda_root and t_cut, which a file holds per jet.
	DataParams map[string]any `json:"data_params,omitempty"`
	N          int            `json:"n"` // leaves
	// Seed is the first 64 bits of the task's random stream seed (see package seeds).
	Seed uint64 `json:"seed,string"`
	// LogLikelihood is the returned tree's log-likelihood under the data set's model.
	LogLikelihood *LogProb `json:"log_likelihood,omitempty"`
	// TruthLogLikelihood is the generating tree's, where the item has one.
	TruthLogLikelihood *LogProb `json:"truth_log_likelihood,omitempty"`
	Newick             string   `json:"newick,omitempty"`
	// LogZ is log Z, the log of the sum of φ over all binary trees (trellis in mode full).
	LogZ *LogProb `json:"log_z,omitempty"`
	// NTrees is the number of binary trees with finite likelihood (trellis), counted in float64:
	// exact below 2^53 (every N ≤ 16), otherwise rounded (2e−13 relative at N = 18 with a constant
	// potential), which NTreesExact says.
	NTrees      *float64 `json:"n_trees,omitempty"`
	NTreesExact *bool    `json:"n_trees_exact,omitempty"`
	// MAPTrees is the number of binary trees that reach the MAP, every split within
	// params.map_tie_tolerance of its cluster's best (trellis with count_map_trees), and
	// MAPPurityPairMin and MAPPurityPairMax the least and greatest pair-weighted dendrogram
	// purity among them (labelled data): the spread of what the MAP tree's purity could be.
	MAPTrees         *float64 `json:"map_trees,omitempty"`
	MAPPurityPairMin *float64 `json:"map_dendrogram_purity_pair_min,omitempty"`
	MAPPurityPairMax *float64 `json:"map_dendrogram_purity_pair_max,omitempty"`
	// Marginals are posterior cluster probabilities (trellis with marginals > 0).
	Marginals *Marginals `json:"marginals,omitempty"`
	// Samples are trees drawn from the exact posterior (trellis with samples > 0).
	Samples []TreeSample `json:"samples,omitempty"`
	// LeafNames and LeafLabels are the item's leaf names and classes ("" unknown), in the data's
	// order, for labelled data (pam50 subsamples record the samples drawn).
	LeafNames  []string `json:"leaf_names,omitempty"`
	LeafLabels []string `json:"leaf_labels,omitempty"`
	// LeafPositions are the leaves' 1-based positions among the items of the data file, in leaf
	// order, for data read from a file of vectors (for pam50, the sample's column counted from
	// the first sample).
	LeafPositions []int `json:"leaf_positions,omitempty"`
	// LeafOrderSeed is the first 64 bits of the seed of the random stream that drew the order in
	// which the algorithm was given the item's leaves (see docs/results.md): never the data's
	// own, which can list them class by class. Every field that names leaves (newick, samples,
	// marginals, clusters, merges, leaf_*) names them in the data's order all the same. Absent
	// (0) in the records of builds that gave the leaves in the data's order.
	LeafOrderSeed uint64 `json:"leaf_order_seed,string,omitempty"`
	// MissingCells counts the item's values the data file lacked (filled or masked); present, 0
	// included, in every record of vector data, absent for jets.
	MissingCells *int `json:"missing_cells,omitempty"`
	// LabelledLeaves counts the item's leaves of known class (labelled data), which the
	// label metrics (dendrogram purity, …) count.
	LabelledLeaves int `json:"labelled_leaves,omitempty"`
	// Metrics are the values of the metrics computed from the tree (package metric's table:
	// dendrogram_purity, …), by key. Each is a top-level key of the record's JSON, so that a data
	// frame reads it as a column, and is absent where the metric does not apply (NaN and ±Inf
	// are never written). Reading a record, every top-level key that is not a field of Record
	// and holds a number is a metric value, so that the records of a build with another table
	// (an older one, or one with a metric registered by a test) keep theirs.
	Metrics map[string]float64 `json:"-"`
	// Counters are the algorithm's work counters on the task (its entry's Counters, or those an
	// external program returned): exact counts of its work, by counter key, the same on every
	// run of a build with the task's seed. Absent for a failed task and in the records of builds
	// before counters.
	Counters map[string]int64 `json:"counters,omitempty"`
	// LogEvidence is log p(D|T) of the returned tree under the cluster model (the Bayesian
	// algorithms: bhc, rbhc, embhc, bhc_exact, brt).
	LogEvidence *LogProb `json:"log_evidence,omitempty"`
	// LowerBound is the BHC paper's Corollary-1 lower bound on the log marginal likelihood of the
	// Dirichlet-process mixture (BHC variants with the DP prior).
	LowerBound *LogProb `json:"lower_bound,omitempty"`
	// Clusters is the algorithm's flat clustering as lists of item indices (0-based, ascending),
	// for the Bayesian algorithms the cut of the tree at r < 0.5 named in params.cut.
	Clusters [][]int `json:"clusters,omitempty"`
	// Partitions are the tree cut at each reference labelling's number of clusters k (its
	// distinct non-zero labels; reports/metrics.Cut), one per distinct k, ascending, for items
	// with reference labellings of their own (ClustBench: not the one derived from class
	// labels). A k above the number of leaves has none. The clustbench_results report writes
	// them in the suite's results layout.
	Partitions []Partition `json:"partitions,omitempty"`
	// Merges are the quantities of every merge node of a BHC tree, in creation order (BHC
	// variants with params.merges true).
	Merges []Merge `json:"merges,omitempty"`
	// SparseClusters and SparseSplits are the size of a sparse trellis (its vertices and edges).
	SparseClusters int `json:"sparse_clusters,omitempty"`
	SparseSplits   int `json:"sparse_splits,omitempty"`
	// ReportedLogLikelihood is the log-likelihood an external program reported for its own tree
	// (external); LogLikelihood is hcbench's score of that tree, and the record warns when the
	// two differ by more than 1e-6.
	ReportedLogLikelihood *LogProb `json:"reported_log_likelihood,omitempty"`
	// ReportedSeconds is the compute time an external program reported (external), beside
	// Seconds, the wall time hcbench measured, which takes in the round trip to the program.
	ReportedSeconds *float64 `json:"reported_seconds,omitempty"`
	// Extra are an external program's own values (external): flat, each a string, a number,
	// true/false or null.
	Extra map[string]any `json:"extra,omitempty"`
	// Seconds is the wall time of the algorithm on the item: of its one run, or the median of
	// Times when it ran more than once (repeat, -count).
	Seconds float64 `json:"seconds"`
	// Times are the wall times of every run of the algorithm on the item, in run order, when it
	// ran more than once; absent after one run (and in records of builds before repeats), where
	// Seconds is the one time (see Timings). A failed task holds the runs up to the one that
	// failed.
	Times    []float64 `json:"times,omitempty"`
	Error    string    `json:"error,omitempty"`
	Warnings []string  `json:"warnings,omitempty"`
}

// Metric returns the record's value of a computed metric (Metrics), ok false where it has none.
func (r *Record) Metric(key string) (v float64, ok bool) {
	v, ok = r.Metrics[key]
	return v, ok
}

// Timings returns the task's timings: Times, or Seconds alone for a task that ran once.
func (r *Record) Timings() []float64 {
	if len(r.Times) > 0 {
		return r.Times
	}
	return []float64{r.Seconds}
}

// Partition is a flat clustering of an item into K clusters: Labels[i] in 1..K is the cluster of
// the item's point i in the data's order, the clusters numbered by first appearance (point 0 is
// in cluster 1), so that equal partitions are equal slices whatever the order the algorithm was
// given the points in.
type Partition struct {
	K      int   `json:"k"`
	Labels []int `json:"labels"`
}

// Marginals are posterior marginals P(cluster | items) of clusters of items (0-based indices).
type Marginals struct {
	// MAPClusters are the clusters of the MAP tree with at least two items, largest first.
	MAPClusters []ClusterMarginal `json:"map_clusters"`
	// TopClusters are the most probable clusters (leaving out single items and the full set).
	TopClusters []ClusterMarginal `json:"top_clusters"`
}

// ClusterMarginal is one cluster and its posterior probability.
type ClusterMarginal struct {
	Cluster []int   `json:"cluster"`
	P       float64 `json:"p"`
}

// Merge is one merge node k of a BHC tree: its id (leaves are 0..n−1, merges n, n+1, … in
// creation order), its children, size n_k, and log p(D_k|H1), log π_k, log r_k and
// log p(D_k|T_k).
type Merge struct {
	Node     int     `json:"node"`
	Children [2]int  `json:"children"`
	Size     int     `json:"size"`
	LogML    LogProb `json:"log_ml"`
	LogPi    LogProb `json:"log_pi"`
	LogR     LogProb `json:"log_r"`
	LogP     LogProb `json:"log_p"`
}

// TreeSample is a tree drawn from the posterior and its log-likelihood.
type TreeSample struct {
	Newick        string  `json:"newick"`
	LogLikelihood LogProb `json:"log_likelihood"`
}

// LogProb is a log-probability that may be −Inf, written to JSON as null in that case.
type LogProb float64

// Log returns a pointer to v as a LogProb, for record fields.
func Log(v float64) *LogProb { l := LogProb(v); return &l }

// Value returns the float64, −Inf for nil.
func (l *LogProb) Value() float64 {
	if l == nil {
		return math.Inf(-1)
	}
	return float64(*l)
}

// MarshalJSON writes −Inf as null and refuses NaN and +Inf, which no result should hold.
func (l LogProb) MarshalJSON() ([]byte, error) {
	v := float64(l)
	switch {
	case math.IsInf(v, -1):
		return []byte("null"), nil
	case math.IsNaN(v) || math.IsInf(v, 1):
		return nil, fmt.Errorf("log-probability %v is not a number a result may hold", v)
	}
	return strconv.AppendFloat(nil, v, 'g', -1, 64), nil
}

// UnmarshalJSON reads null as −Inf.
func (l *LogProb) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		*l = LogProb(math.Inf(-1))
		return nil
	}
	var v float64
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	*l = LogProb(v)
	return nil
}

type plainRecord Record

// logProbFields are the indices of Record's *LogProb fields, and nullProbe a struct type with a
// json.RawMessage field for each, of the same JSON key, which tells a null value from an absent
// one: decoding into it matches keys as decoding a Record does (case-insensitively, the last of
// repeated keys winning), and copies no other value.
var logProbFields, nullProbe = func() ([]int, reflect.Type) {
	var idx []int
	var fields []reflect.StructField
	rt := reflect.TypeFor[Record]()
	for i := range rt.NumField() {
		f := rt.Field(i)
		if f.Type != reflect.TypeFor[*LogProb]() {
			continue
		}
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		idx = append(idx, i)
		fields = append(fields, reflect.StructField{Name: f.Name, Type: reflect.TypeFor[json.RawMessage](), Tag: reflect.StructTag(`json:"` + name + `"`)})
	}
	return idx, reflect.StructOf(fields)
}()

// recordFields are the JSON keys of Record's fields, in lower case.
var recordFields = func() map[string]bool {
	out := map[string]bool{}
	rt := reflect.TypeFor[Record]()
	for i := range rt.NumField() {
		if name, _, _ := strings.Cut(rt.Field(i).Tag.Get("json"), ","); name != "-" && name != "" {
			out[strings.ToLower(name)] = true
		}
	}
	return out
}()

// IsRecordField reports whether key is the JSON key of a field of Record, ignoring case as
// encoding/json matches keys (all are ASCII): a metric's column must not be one.
func IsRecordField(key string) bool { return recordFields[strings.ToLower(key)] }

// MarshalJSON writes the record's fields, then its Metrics as top-level keys in key order,
// leaving out NaN and ±Inf. A metric key that is a field of Record is an error.
func (r Record) MarshalJSON() ([]byte, error) {
	b, err := json.Marshal((*plainRecord)(&r))
	if err != nil || len(r.Metrics) == 0 {
		return b, err
	}
	b = b[:len(b)-1] // the closing brace
	for _, k := range slices.Sorted(maps.Keys(r.Metrics)) {
		v := r.Metrics[k]
		if math.IsNaN(v) || math.IsInf(v, 0) {
			continue
		}
		if IsRecordField(k) {
			return nil, fmt.Errorf("metric %q is a field of the record", k)
		}
		kb, _ := json.Marshal(k)
		b = append(append(append(b, ','), kb...), ':')
		b = strconv.AppendFloat(b, v, 'g', -1, 64)
	}
	return append(b, '}'), nil
}

// UnmarshalJSON decodes a record. encoding/json sets a pointer field to nil on null without asking
// the pointed-to type, so the null (−Inf) log-probabilities are restored here; the top-level keys
// that are no field of Record and hold numbers are its Metrics.
func (r *Record) UnmarshalJSON(b []byte) error {
	if err := json.Unmarshal(b, (*plainRecord)(r)); err != nil {
		return err
	}
	var top map[string]json.RawMessage
	if err := json.Unmarshal(b, &top); err != nil {
		return err
	}
	r.Metrics = nil
	for k, raw := range top {
		if IsRecordField(k) {
			continue
		}
		var v float64
		if json.Unmarshal(raw, &v) != nil || string(bytes.TrimSpace(raw)) == "null" {
			continue // not a number: no metric's value
		}
		if r.Metrics == nil {
			r.Metrics = map[string]float64{}
		}
		r.Metrics[k] = v
	}
	probe := reflect.New(nullProbe)
	if err := json.Unmarshal(b, probe.Interface()); err != nil {
		return err
	}
	v := reflect.ValueOf(r).Elem()
	for k, i := range logProbFields {
		if m := probe.Elem().Field(k).Bytes(); string(bytes.TrimSpace(m)) == "null" {
			v.Field(i).Set(reflect.ValueOf(Log(math.Inf(-1))))
		}
	}
	return nil
}

// Writer appends records to a JSON Lines file, one complete line per write, so that a crash never
// leaves half a record behind another. It is safe for concurrent use.
type Writer struct {
	mu sync.Mutex
	f  *os.File
}

// Create creates (or truncates) a results file; a symbolic link in its place is refused
// (OpenNoFollow).
func Create(path string) (*Writer, error) {
	f, err := OpenNoFollow(path, os.O_CREATE|os.O_TRUNC|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, err
	}
	return &Writer{f: f}, nil
}

// Append opens a results file for appending, creating it if needed. Every Write is one write
// call of one whole line on an O_APPEND file, so a process killed at any moment (SIGKILL
// included) leaves whole records behind it, except when the system itself fails mid-write; that
// leaves a last line without its newline, which Recover cuts off. A symbolic link in its place is
// refused (OpenNoFollow).
func Append(path string) (*Writer, error) {
	f, err := OpenNoFollow(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, err
	}
	return &Writer{f: f}, nil
}

// Recover reads the records of a results file that is to be appended to, after a crash. A last
// line without its newline is a torn record: it is cut off the file, and torn describes it (for a
// warning); any other line that is not a record is an error naming the file and line. A missing
// file holds no records. The file is read as Read reads, a line at a time within MaxLine: a line
// longer, torn or not, is no record that hcbench writes, and is an error naming the byte
// offset it starts at, where the file can be cut. A symbolic link in place of the file is
// refused (OpenNoFollow), as the cut would change the file it names.
func Recover(path string) (recs []Record, torn string, err error) {
	return RecoverContext(context.Background(), path)
}

// RecoverContext is Recover through ctx: a cancelled ctx stops the reading with ctx's error.
func RecoverContext(ctx context.Context, path string) (recs []Record, torn string, err error) {
	if err := ctx.Err(); err != nil {
		return nil, "", fmt.Errorf("reading %s: %w", path, context.Cause(ctx))
	}
	f, err := OpenNoFollow(path, os.O_RDWR, 0)
	if errors.Is(err, os.ErrNotExist) {
		return nil, "", nil
	}
	if err != nil {
		return nil, "", err
	}
	defer f.Close()
	recs, tail, err := read(ctxReader{ctx, path, f}, path, true)
	if err != nil {
		return nil, "", err
	}
	if tail.bytes > 0 {
		torn = fmt.Sprintf("%s:%d: dropped a torn last record (%d bytes without a newline), left by a run that was killed while writing", path, tail.line, tail.bytes)
		if err := f.Truncate(tail.offset); err != nil {
			return nil, "", fmt.Errorf("cannot cut the torn last line off %s: %w", path, err)
		}
	}
	return recs, torn, nil
}

// ctxReader reads from r until ctx is cancelled, then returns ctx's error.
type ctxReader struct {
	ctx  context.Context
	name string
	r    io.Reader
}

func (c ctxReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, fmt.Errorf("reading %s: %w", c.name, context.Cause(c.ctx))
	}
	return c.r.Read(p)
}

// marshalLine encodes a record as one JSON line.
func (r *Record) marshalLine() ([]byte, error) {
	b, err := json.Marshal(r)
	if err != nil {
		return nil, fmt.Errorf("record %s: %w", r.Key, err)
	}
	return append(b, '\n'), nil
}

// Write appends one record.
func (w *Writer) Write(r *Record) error {
	b, err := r.marshalLine()
	if err != nil {
		return err
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	_, err = w.f.Write(b)
	return err
}

// Close closes the file.
func (w *Writer) Close() error { return w.f.Close() }

// MaxLine bounds one record's line in results.jsonl, its newline excluded. The largest records
// (a tree of thousands of leaves with its merges, clusters and posterior samples) take a few MB; a
// file without line breaks (/dev/zero, a binary file) is refused once MaxLine bytes are read,
// having held about that much memory (see package linelimit).
const MaxLine = 64 << 20

// Read reads records from JSON Lines; name labels errors, which give the line. A last line
// without its newline is a torn record (a run killed while writing) and an error that says so.
//
// A line longer than MaxLine (64 MiB) stops reading with an error naming its line, the byte
// offset it starts at, and the limit; memory stays within about MaxLine besides what the records
// read so far take, which is in proportion to the text. r is only read, never seeked, so it may
// be a pipe.
func Read(r io.Reader, name string) ([]Record, error) {
	recs, _, err := read(r, name, false)
	return recs, err
}

// tornLine is a last line without its newline: its line number, the byte offset it starts at,
// and its length (0: there is none).
type tornLine struct {
	line   int
	offset int64
	bytes  int
}

// read is Read; with recovering, a torn last line is returned instead of an error (Recover cuts
// it off), and a line too long says how to cut it off.
func read(r io.Reader, name string, recovering bool) ([]Record, tornLine, error) {
	lr := linelimit.NewReader(r, MaxLine)
	var out []Record
	line := 0
	var offset int64 // where the line being read starts
	for {
		raw, err := lr.Line()
		if err == io.EOF {
			break
		}
		if e, ok := linelimit.IsTooLong(err); ok {
			if recovering {
				return nil, tornLine{}, fmt.Errorf("%s:%d: from byte %d on, a line longer than %s, the limit for one result record: neither a record that hcbench writes nor the torn last one that a killed run leaves; if the file is damaged there, cut it off (truncate -s %d %s: the tasks of the records after it run again) and resume",
					name, e.Line, offset, linelimit.Size(e.Limit), offset, name)
			}
			return nil, tornLine{}, fmt.Errorf("%s:%d: line longer than %s, the limit for one result record (from byte %d); is this a results.jsonl file, one JSON record per line?", name, e.Line, linelimit.Size(e.Limit), offset)
		}
		if err != nil {
			return nil, tornLine{}, fmt.Errorf("%s:%d: %w", name, line+1, err)
		}
		line++
		b := bytes.TrimSpace(raw)
		if raw[len(raw)-1] != '\n' {
			if recovering {
				return out, tornLine{line: line, offset: offset, bytes: len(raw)}, nil
			}
			if len(b) > 0 {
				return nil, tornLine{}, fmt.Errorf("%s:%d: torn last record (no newline): the run was killed while writing it; resume the run (hcbench run with the same config and -out) to drop it and redo the task", name, line)
			}
		}
		offset += int64(len(raw))
		if len(b) == 0 {
			continue
		}
		// Decode in place, and double the slice when full (append grows a large slice by a
		// quarter at a time, allocating 5 times its final size in all; doubling, 2 to 4).
		if len(out) == cap(out) {
			out = slices.Grow(out, max(len(out), 8))
		}
		out = out[:len(out)+1]
		rec := &out[len(out)-1]
		if err := json.Unmarshal(b, rec); err != nil {
			return nil, tornLine{}, fmt.Errorf("%s:%d: not a result record: %v", name, line, err)
		}
		if rec.Schema != RecordSchema {
			return nil, tornLine{}, fmt.Errorf("%s:%d: record schema %d, this build reads %d", name, line, rec.Schema, RecordSchema)
		}
	}
	return out, tornLine{}, nil
}

// ReadFile reads a results file; see Read.
func ReadFile(path string) ([]Record, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return Read(f, path)
}

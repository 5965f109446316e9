package registry

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"math/rand/v2"
	"slices"

	"golang.org/x/sync/semaphore"

	"github.com/hcbench/hcbench/algorithms/model"
	"github.com/hcbench/hcbench/algorithms/tree"
	"github.com/hcbench/hcbench/experiments/item"
	"github.com/hcbench/hcbench/experiments/metric"
	"github.com/hcbench/hcbench/experiments/results"
)

// Algorithm is an entry of the algorithm table: what a config's `algorithms:` entry names.
type Algorithm struct {
	// Name is what configs write (`- trellis`); lower-case letters, digits and '_'.
	Name string
	// Help says what the algorithm does, in one paragraph, for `help config` and the docs.
	Help string
	// NewParams returns a pointer to a new parameters struct; config decodes a config entry into
	// it, applies its defaults and calls its Check.
	NewParams func() Params
	// Start prepares one variant (one config entry) for a run, before its tasks: an algorithm
	// that needs nothing returns its Solver at once (see Func); one that keeps resources across
	// tasks (the external algorithm's programs) keeps them in its Solver until Close.
	Start func(p Params, run Run) (Solver, error)
	// Memory estimates the working memory of one task on an item of n leaves of a data set of
	// size s, beyond the item and the record; nil: negligible (O(n)). Estimates are refused
	// before a run when they exceed what the process may use.
	Memory func(p Params, s item.Size, n int) int64
	// RecordBytes bounds what one record of the variant holds beyond the fields every record has
	// (the external algorithm's extra); a run keeps its records, so it is counted for each; nil:
	// nothing.
	RecordBytes func(p Params) int64
	// MemoryHint says what to change when Memory is more than the process may use (default: use
	// smaller items).
	MemoryHint string
	// CannotRun says why the variant cannot run on an item of n leaves of a data set of size s
	// (too many leaves for an exact method, over its memory limit), or ""; nil: it always can.
	// A variant that can run on no item of a data set is a config error; one that fails only on
	// some is a warning.
	CannotRun func(p Params, s item.Size, n int, run Run) string
	// Budgeted marks an algorithm whose Memory comes from the run's shared Budget (the trellis's
	// tables): the estimate counts the largest such task once, not once per worker.
	Budgeted bool
	// Cost estimates the seconds one task takes on an item of n leaves, on the reference
	// machine (see ReferenceMachine): plan prints it as the expected time, and the progress of
	// a run weighs the tasks left by it, calibrated by the times of the tasks that finish, so
	// that its growth in n and in the parameters matters more than its constant. nil: a guess
	// (TaskSeconds).
	Cost func(p Params, n int) float64
	// Role is what the algorithm is to the metrics and reports: the exact method (trellis, whose
	// log-likelihood is the MAP), the generating tree (truth: the plan gives it a task only for
	// items that have one), the baseline (greedy), or none. Records carry the algorithm's name;
	// results.RoleOf answers from this field (RegisterAlgorithm passes it on).
	Role results.Role
	// Counters declares the work counters that Solve returns in Solution.Counters: deterministic
	// counts of the algorithm's work on a task (split energies evaluated, subsets visited, …),
	// which a change of the code changes and a machine's load never does, so that compare and
	// history gate on them with no tolerance for noise. nil: none (the external algorithm's
	// programs may return their own).
	Counters []Counter
	// OwnCounters marks an algorithm whose counters are named at run time (the external
	// algorithm's programs name their own), which CheckCounters does not hold to Counters.
	OwnCounters bool
}

// CheckCounters checks a solution's counters against the declaration: every declared counter,
// and no other, with a value of at least 0. An algorithm with OwnCounters passes any valid key.
func (a *Algorithm) CheckCounters(got map[string]int64) error {
	declared := map[string]bool{}
	for _, c := range a.Counters {
		declared[c.Key] = true
		if _, ok := got[c.Key]; !ok && !a.OwnCounters {
			return fmt.Errorf("internal error (please report): algorithm %s declares the work counter %q but did not return it", a.Name, c.Key)
		}
	}
	for _, k := range slices.Sorted(maps.Keys(got)) {
		switch {
		case !metric.ValidCounterKey(k):
			return fmt.Errorf("algorithm %s returned a work counter named %q: a counter's name is lower-case letters, digits and '_'", a.Name, k)
		case !declared[k] && !a.OwnCounters:
			return fmt.Errorf("internal error (please report): algorithm %s returned the work counter %q, which it does not declare", a.Name, k)
		case got[k] < 0:
			return fmt.Errorf("algorithm %s returned the work counter %s = %d: a count cannot be negative", a.Name, k, got[k])
		}
	}
	return nil
}

// Counter declares one work counter of an algorithm.
type Counter struct {
	// Key names the counter in records (counters.<key>), compare, history and bench.txt (its
	// unit, with '-' for '_'); lower-case letters, digits and '_'.
	Key string
	// Help says what one unit of it is, in a sentence (for the docs and `help config`).
	Help string
}

// ReferenceMachine is the machine whose seconds the algorithms' Cost estimates. The constants
// are fitted to the task times of the shipped configs' runs there (go run ./internal/docnumbers,
// whose plan.task-times table in docs/experiments.md sets each algorithm's measured task time
// beside its Cost's), on the largest tasks where several sizes run; RBHC's and EMBHC's growth
// comes from their benchmarks to a million points.
const ReferenceMachine = "linux/amd64, 2 cores of an Intel Xeon (a shared VM), Go 1.26"

// TaskSeconds is a's Cost for an item of n leaves; for an algorithm without one (a test-only
// algorithm), a guess of 1 µs·n².
func (a *Algorithm) TaskSeconds(p Params, n int) float64 {
	if a.Cost != nil {
		return a.Cost(p, n)
	}
	return 1e-6 * float64(n) * float64(n)
}

// square returns n² as a float, for the costs that grow with the pairs of leaves.
func square(n int) float64 { return float64(n) * float64(n) }

// Run is what a variant knows of the run it belongs to.
type Run struct {
	// ConfigDir is the config file's directory: paths in parameters are relative to it.
	ConfigDir string
	// Workers is the number of tasks run at once.
	Workers int
	// Budget is the memory that tasks with large tables share (see Budget).
	Budget *Budget
	// Log receives what the variant wants a user to see (an external program's stderr).
	Log *slog.Logger
}

// Task is one algorithm variant on one item.
type Task struct {
	// Key is the task key (dataset=…|item=…|algorithm=…), Dataset the data set's name.
	Key, Dataset string
	Item         *item.Item
	// Seed is the first 64 bits of the task's random stream's seed, as its record has it; RNG is
	// that stream, the task's only source of randomness.
	Seed uint64
	RNG  *rand.Rand
}

// Solution is what an algorithm returns for a task's record. What names leaves (Tree, Clusters,
// Samples, Marginals, Merges) names them as the task's item does, in the order the algorithm was
// given them; the runner renumbers them to the data's order for the record (item.Item.DataTree).
type Solution struct {
	Tree *tree.Tree
	// LogLikelihood is the tree's log-likelihood under the item's split model; NaN when there is
	// none (no split model, or a rose tree the model does not score), and the record then has no
	// log_likelihood.
	LogLikelihood float64
	Warnings      []string
	// Clusters is the algorithm's flat clustering (lists of items), where it has one.
	Clusters [][]int
	// Samples are trees drawn from the posterior, with their log-likelihoods (trellis).
	Samples []Sample
	// Marginals are posterior cluster probabilities (trellis).
	Marginals *results.Marginals
	// Merges are the merge nodes of a BHC tree (leaves 0..n−1, merges from n on).
	Merges []results.Merge
	// Heights are the heights of Tree's nodes, indexed by node (len(Tree.Nodes)): 0 for a leaf,
	// an internal node's merge height as the linkage reports it (scipy's Z[:, 2]: for Ward
	// linkage √(2|A||B|/(|A|+|B|))·‖c_A − c_B‖). nil when the algorithm has none. The runner's
	// renumbering to the data's order (item.Item.DataTree) keeps node indices, so they stay valid.
	Heights []float64
	// Counters are the algorithm's work counters on the task (see Algorithm.Counters): exact
	// counts of the work it did, the same on every run with the task's seed, by counter key.
	// An algorithm returns every counter it declares, 0 included; nil for one that declares none.
	Counters map[string]int64
	// Fill adds the algorithm's own fields to the record that name no leaf (log Z, log evidence,
	// …); it may change the record's params (which hold every parameter, defaults applied) to say
	// which settings shaped the result.
	Fill func(*results.Record)
}

// Sample is a tree drawn from a posterior, and its log-likelihood.
type Sample struct {
	Tree          *tree.Tree
	LogLikelihood float64
}

// Solver runs a prepared variant on items. Solve is called from several goroutines at once (one
// per worker), never after Close.
type Solver interface {
	Solve(ctx context.Context, t Task) (Solution, error)
	Close() error
}

// Func is a Solver with nothing to release: most algorithms.
type Func func(ctx context.Context, t Task) (Solution, error)

// Solve calls f.
func (f Func) Solve(ctx context.Context, t Task) (Solution, error) { return f(ctx, t) }

// Close does nothing.
func (Func) Close() error { return nil }

// Simple makes an Algorithm's Start from a solve function of its own parameter type, for
// algorithms that keep nothing between tasks.
func Simple[P Params](solve func(ctx context.Context, p P, t Task, run Run) (Solution, error)) func(Params, Run) (Solver, error) {
	return func(p Params, run Run) (Solver, error) {
		pp, ok := p.(P)
		if !ok {
			return nil, fmt.Errorf("registry: parameters %T, want %T", p, *new(P))
		}
		return Func(func(ctx context.Context, t Task) (Solution, error) { return solve(ctx, pp, t, run) }), nil
	}
}

// Budget is memory that the tasks of a run share for their large tables (the trellis's): a task
// takes what it will allocate before it does, waiting while others hold it, so that tasks running
// at once stay within the budget together and whether a task fits does not depend on the number
// of workers.
type Budget struct {
	sem   *semaphore.Weighted
	total int64
}

// NewBudget returns a budget of total bytes.
func NewBudget(total int64) *Budget {
	return &Budget{sem: semaphore.NewWeighted(total), total: total}
}

// Total returns the budget's size.
func (b *Budget) Total() int64 { return b.total }

// Acquire takes n bytes (at most the whole budget), waiting for them, and returns the function
// that gives them back; it returns ctx's error if ctx ends first.
func (b *Budget) Acquire(ctx context.Context, n int64) (release func(), err error) {
	n = min(n, b.total)
	if err := b.sem.Acquire(ctx, n); err != nil {
		return nil, err
	}
	return func() { b.sem.Release(n) }, nil
}

// ErrNoModel is returned by an algorithm that scores splits on an item without a split model.
var ErrNoModel = errors.New("needs a split model, and this data set has split_model: none")

// NeedModel returns the split model of the item, for the algorithm name, which scores splits:
// an error wrapping ErrNoModel for a data set without one, or saying why the item's could not
// be built (item.Item.ModelErr), so that only the algorithms that need it fail on such an item.
func NeedModel(name string, it *item.Item) (model.Model, error) {
	switch {
	case it.Model != nil:
		return it.Model, nil
	case it.ModelErr != nil:
		return nil, fmt.Errorf("%s needs the item's split model, which its data do not define: %w", name, it.ModelErr)
	}
	return nil, fmt.Errorf("%s %w", name, ErrNoModel)
}

var algorithms = map[string]*Algorithm{}

// RegisterAlgorithm adds a to the table; it panics on a duplicate or malformed name, on a
// missing NewParams or Start, or on a counter declared twice, with a malformed key or without
// help (a mistake in the program, found at start-up).
func RegisterAlgorithm(a Algorithm) {
	if a.NewParams == nil || a.Start == nil {
		panic(fmt.Sprintf("registry: algorithm %q needs NewParams and Start", a.Name))
	}
	seen := map[string]bool{}
	for _, c := range a.Counters {
		if !metric.ValidCounterKey(c.Key) || c.Help == "" || seen[c.Key] {
			panic(fmt.Sprintf("registry: algorithm %q: counter %q is declared twice, malformed or without help", a.Name, c.Key))
		}
		seen[c.Key] = true
	}
	register(algorithms, "algorithm", a.Name, &a)
	// results is below registry and cannot read this table: it keeps the roles by name.
	results.SetRole(a.Name, a.Role)
}

// LookupAlgorithm returns the algorithm of a name.
func LookupAlgorithm(name string) (*Algorithm, bool) { return lookup(algorithms, name) }

// Algorithms returns every algorithm, by name.
func Algorithms() []*Algorithm {
	return sorted(algorithms, func(a *Algorithm) string { return a.Name })
}

// AlgorithmNames returns the algorithms' names, sorted.
func AlgorithmNames() []string {
	var out []string
	for _, a := range Algorithms() {
		out = append(out, a.Name)
	}
	return out
}

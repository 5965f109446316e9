// Package plan expands a config into its task list: one task per (data set item, algorithm
// variant), in config order, each with a stable key that names it in results, seeds its random
// stream and joins it across runs.
package plan

import (
	"context"
	"errors"
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/hcbench/hcbench/experiments/config"
	"github.com/hcbench/hcbench/experiments/inputs"
	"github.com/hcbench/hcbench/experiments/results"
)

// Task is one algorithm variant on one data item.
type Task struct {
	Key       string
	Dataset   *inputs.Dataset
	Item      int // index in Dataset
	Algorithm config.Algorithm
}

// Key returns the stable key of a task.
func Key(dataset, item, label string) string {
	return "dataset=" + dataset + "|item=" + item + "|algorithm=" + label
}

// SeedKey returns the key of a task's random stream; data streams use another prefix
// (registry.SeedKey), so the two never coincide.
func SeedKey(taskKey string) string { return "task|" + taskKey }

// Plan is an opened config and its tasks.
type Plan struct {
	Config   *config.Config
	Datasets []*inputs.Dataset
	Tasks    []Task
	// Warnings are what the sources left out of their data sets (inputs.Dataset.Warnings), and
	// what the plan found that fails some tasks (an algorithm that cannot run on the largest
	// items of a data set), with the config's file and line.
	Warnings []string
}

// New opens the data sets of cfg (reading data files through ctx, generating nothing) and lists
// the tasks: data sets in config order, items in data set order, algorithms in config order. The
// truth algorithm gets a task only for items that have a generating tree, and a variant
// restricted to some data sets only for their items. When data sets cannot be opened, the error
// joins the problems of all of them (errors.Join), each with its file and line where there is
// one. Before anything large is allocated, the memory that opening the data sets and listing
// the tasks takes is estimated and refused over what the process may use; afterwards, an
// algorithm that can run on no item of a data set is a problem (see Plan.Warnings for some).
func New(ctx context.Context, cfg *config.Config) (*Plan, error) {
	return NewShard(ctx, cfg, 1)
}

// NewShard is New for a run of one of shards shards (1 or less: the whole run). Every shard lists
// all the tasks, but holds only its own share of the items and records, which the estimate made
// before anything large is allocated then counts.
func NewShard(ctx context.Context, cfg *config.Config, shards int) (*Plan, error) {
	p := &Plan{Config: cfg}
	e, problems := preEstimate(cfg, max(shards, 1))
	if len(problems) > 0 {
		return nil, errors.Join(problems...)
	}
	if r := resident(e); !r.fits() {
		change := "lower the data sets' counts (jets, items, subsamples), or split the config"
		if shards > 1 {
			change += " or the run into more shards"
		}
		return nil, fmt.Errorf("%s: %w", cfg.Path, tooLarge("the run", r, change))
	}
	var errs []error
	for _, ds := range cfg.Datasets {
		d, err := inputs.Open(ctx, cfg, ds)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		p.Datasets = append(p.Datasets, d)
		p.Warnings = append(p.Warnings, d.Warnings()...)
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	errs, warnings := feasibility(cfg, p.Datasets)
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	p.Warnings = append(p.Warnings, warnings...)
	for _, d := range p.Datasets {
		for i := range d.Len() {
			for _, a := range cfg.Algorithms {
				if results.RoleOf(a.Name) == results.Truth && !d.HasTruth(i) || !a.RunsOnDataset(d.Name) || leftOut(a, d, i) != "" {
					continue
				}
				p.Tasks = append(p.Tasks, Task{Key: Key(d.Name, d.ID(i), a.Label), Dataset: d, Item: i, Algorithm: a})
			}
		}
	}
	return p, nil
}

// WriteSummary prints the line that heads a plan: the config's name and how many tasks it has,
// or how many of them f selects (nil: all).
func (p *Plan) WriteSummary(w io.Writer, f *Filter) error {
	_, n := p.Selected(f, nil)
	tasks := results.Plural(len(p.Tasks), "task", "tasks")
	var err error
	if f == nil {
		_, err = fmt.Fprintf(w, "# %s: %d %s\n", p.Config.Name, len(p.Tasks), tasks)
	} else {
		_, err = fmt.Fprintf(w, "# %s: %d of %d %s (-only %s)\n", p.Config.Name, n, len(p.Tasks), tasks, f)
	}
	return err
}

// Write prints the task list, one task per line: the tasks f selects (nil: all), the first limit
// of them (limit < 0: all), under a line that says how many it lists and, when it leaves some
// out, how to list them all.
func (p *Plan) Write(w io.Writer, f *Filter, limit int) error {
	tw := tabwriter.NewWriter(w, 2, 4, 2, ' ', 0)
	keep, n := p.Selected(f, nil)
	what := fmt.Sprintf("the %d %s", n, results.Plural(n, "task", "tasks"))
	if f != nil {
		what += " -only selects"
	}
	if limit >= 0 && n > limit {
		fmt.Fprintf(tw, "# the first %d of %s (-tasks lists them all):\n", limit, what)
	} else {
		fmt.Fprintf(tw, "# %s:\n", what)
		limit = n
	}
	fmt.Fprintf(tw, "dataset\titem\talgorithm\tkey\n")
	for k, t := range p.Tasks {
		if limit == 0 {
			break
		}
		if keep(k) {
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", t.Dataset.Name, t.Dataset.ID(t.Item), t.Algorithm.Label, t.Key)
			limit--
		}
	}
	return tw.Flush()
}

package plan

import (
	"fmt"
	"io"
	"math"
	"strconv"
	"text/tabwriter"
	"time"

	"github.com/hcbench/hcbench/experiments/config"
	"github.com/hcbench/hcbench/experiments/inputs"
	"github.com/hcbench/hcbench/experiments/item"
	"github.com/hcbench/hcbench/experiments/memory"
	"github.com/hcbench/hcbench/experiments/registry"
	"github.com/hcbench/hcbench/experiments/results"
)

// Cost is the expected time and memory of the tasks of one algorithm variant on one data set.
type Cost struct {
	Dataset   string
	Algorithm string // the variant's label
	Tasks     int
	// MinLeaves and MaxLeaves are the leaf counts the estimate averages over: the data set's
	// bounds, or where it has no upper bound, up to the count its memory estimate uses.
	MinLeaves, MaxLeaves int
	// Seconds is the expected time of all the tasks on one worker of the reference machine
	// (registry.ReferenceMachine): their algorithm's Cost averaged over the leaf counts, each
	// equally likely; a leaf count the variant cannot run on fails at once and costs nothing.
	Seconds float64
	// Memory is the working memory of one task on the largest items it runs on.
	Memory int64
}

// Costs returns the expected cost of the tasks keep selects (nil: all), by data set and variant
// in plan order.
func (p *Plan) Costs(keep func(k int) bool) []Cost {
	type key struct {
		d     *inputs.Dataset
		label string
	}
	at := map[key]int{}
	var out []Cost
	perTask := map[key]float64{}
	for k, t := range p.Tasks {
		if keep != nil && !keep(k) {
			continue
		}
		kk := key{t.Dataset, t.Algorithm.Label}
		s := t.Dataset.Size()
		i, ok := at[kk]
		if !ok {
			lo, hi := max(s.MinLeaves, 1), s.MaxLeaves
			if hi == 0 {
				hi = typicalLeaves(s)
			}
			hi = max(hi, lo)
			i = len(out)
			at[kk] = i
			secs, mem := expectedTask(t.Algorithm, s, lo, hi)
			perTask[kk] = secs
			c := Cost{Dataset: t.Dataset.Name, Algorithm: t.Algorithm.Label, MinLeaves: lo, MaxLeaves: hi, Memory: mem}
			if t.Dataset.Leaves(t.Item) > 0 {
				// Items of known sizes (each a data set of its own, from 1,000 to 100,000
				// points) are costed one by one below, over the items that have tasks.
				c.MinLeaves, c.MaxLeaves, c.Memory = 0, 0, 0
			}
			out = append(out, c)
		}
		c := &out[i]
		c.Tasks++
		if n := t.Dataset.Leaves(t.Item); n > 0 {
			secs, mem := expectedTask(t.Algorithm, s, n, n)
			c.Seconds += secs
			c.Memory = max(c.Memory, mem)
			if c.MinLeaves == 0 || n < c.MinLeaves {
				c.MinLeaves = n
			}
			c.MaxLeaves = max(c.MaxLeaves, n)
			continue
		}
		c.Seconds += perTask[kk]
	}
	return out
}

// expectedTask returns the mean expected seconds of a task of variant a on items of lo to hi
// leaves, and its working memory on the largest it can run on.
func expectedTask(a config.Algorithm, s item.Size, lo, hi int) (seconds float64, mem int64) {
	alg, ok := registry.LookupAlgorithm(a.Name)
	if !ok {
		return 0, 0
	}
	// A wide range (vectors of thousands of points) is sampled at up to 64 leaf counts.
	step := max(1, (hi-lo)/64)
	count := 0
	for n := lo; n <= hi; n += step {
		count++
		if cannotRun(a, s, n) != "" {
			continue
		}
		seconds += alg.TaskSeconds(a.Params, n)
		mem = max(mem, taskBytes(a, s, n))
	}
	return seconds / float64(count) * float64(max(a.Repeat, 1)), mem
}

// WriteCosts prints the expected time and memory of the tasks keep selects (nil: all), by data
// set and variant, and the expected time of the whole on workers.
func (p *Plan) WriteCosts(w io.Writer, workers int, keep func(k int) bool) error {
	costs := p.Costs(keep)
	tw := tabwriter.NewWriter(w, 2, 4, 2, ' ', 0)
	fmt.Fprintf(tw, "# expected time and working memory (times on the reference machine: %s)\n", registry.ReferenceMachine)
	fmt.Fprintf(tw, "dataset\talgorithm\ttasks\tN\ttime/task\ttime\tmemory/task\n")
	var total float64
	for _, c := range costs {
		leaves := fmt.Sprint(c.MinLeaves)
		if c.MaxLeaves > c.MinLeaves {
			leaves = fmt.Sprintf("%d–%d", c.MinLeaves, c.MaxLeaves)
		}
		per := c.Seconds / float64(max(c.Tasks, 1))
		fmt.Fprintf(tw, "%s\t%s\t%d\t%s\t%s\t%s\t%s\n", c.Dataset, c.Algorithm, c.Tasks, leaves, FormatSeconds(per), FormatSeconds(c.Seconds), memory.Format(c.Memory))
		total += c.Seconds
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	_, err := fmt.Fprintf(w, "# expected time: about %s on %d %s (%s of task time; a run's progress calibrates it on this machine)\n",
		FormatSeconds(expectedWall(costs, workers)), workers, results.Plural(workers, "worker", "workers"), FormatSeconds(total))
	return err
}

// ExpectedSeconds is the expected wall time of the tasks keep selects (nil: all) on workers, on
// the reference machine: what plan prints as the expected time.
func (p *Plan) ExpectedSeconds(workers int, keep func(k int) bool) float64 {
	return expectedWall(p.Costs(keep), workers)
}

// expectedWall is the wall time of costs on workers: their task time shared by the workers, but
// never less than the longest task.
func expectedWall(costs []Cost, workers int) float64 {
	var total, longest float64
	for _, c := range costs {
		total += c.Seconds
		longest = max(longest, c.Seconds/float64(max(c.Tasks, 1)))
	}
	return max(total/float64(max(workers, 1)), longest)
}

// FormatSeconds writes a time for a reader: "40 µs", "3.2 ms", "4.1 s", "3m20s", "5h10m".
func FormatSeconds(s float64) string {
	switch {
	case s <= 0 || math.IsNaN(s):
		return "0 s"
	case s < 1e-3:
		return twoDigits(s*1e6) + " µs"
	case s < 1:
		return twoDigits(s*1e3) + " ms"
	case s < 60:
		return twoDigits(s) + " s"
	case s < 1e9:
		d := time.Duration(s * float64(time.Second))
		if d < time.Hour {
			return d.Round(time.Second).String()
		}
		return trimZero(d.Round(time.Minute).String())
	}
	return fmt.Sprintf("%.3g years", s/(365.25*24*3600))
}

// twoDigits writes x (0 < x < 1000) with two significant digits, or as an integer from 10.
func twoDigits(x float64) string {
	if x < 9.95 {
		return strconv.FormatFloat(x, 'f', 1, 64)
	}
	return strconv.FormatFloat(x, 'f', 0, 64)
}

// trimZero drops a duration's trailing "0s": "5h10m0s" → "5h10m".
func trimZero(s string) string {
	if len(s) > 2 && s[len(s)-2:] == "0s" && s[len(s)-3] == 'm' {
		return s[:len(s)-2]
	}
	return s
}

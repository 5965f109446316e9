// Command planted is hcbench with one more algorithm, spin, for measuring the nightly gate
// (go run ./internal/gatecheck): spin's task is deterministic CPU work whose amount grows with
// the item's leaves and which, when the environment says so (PlantEnv), is slowed by the
// entry's slowdown. The config, its hash and the task keys are therefore the same in a baseline
// run and a planted run of one measurement; only the process's environment differs. It is
// not part of the shipped hcbench, which does not link this package.
package main

import (
	"context"
	"fmt"
	"math"
	"os"

	"github.com/hcbench/hcbench/algorithms/tree"
	"github.com/hcbench/hcbench/experiments/cli"
	"github.com/hcbench/hcbench/experiments/registry"
)

// PlantEnv is the environment variable that plants the slowdowns: with PlantEnv=1 every spin
// entry does 1 + slowdown times its work; unset (or anything else), it does its work.
const PlantEnv = "HCBENCH_GATECHECK_PLANT"

func init() {
	registry.RegisterAlgorithm(registry.Algorithm{
		Name:      "spin",
		Help:      "test-only (internal/gatecheck): deterministic CPU work, work × leaves steps, slowed by slowdown when " + PlantEnv + "=1; returns a caterpillar tree",
		NewParams: func() registry.Params { return &SpinParams{} },
		Start:     registry.Simple(solveSpin),
	})
}

// SpinParams: the work per leaf, and the planted slowdown.
type SpinParams struct {
	Work     int     `yaml:"work" default:"200000" help:"steps of work per leaf of the item (a step is a few CPU cycles)"`
	Slowdown float64 `yaml:"slowdown" default:"0" help:"relative slowdown planted when HCBENCH_GATECHECK_PLANT=1 (0.1: 10 % more work)"`
}

// Check checks the parameters.
func (p *SpinParams) Check(c registry.Checker) {
	if p.Work < 1 || p.Work > 1e9 {
		c.Bad("work", "must be 1 to 1e9, got %d", p.Work)
	}
	if !(p.Slowdown >= 0 && p.Slowdown <= 10) {
		c.Bad("slowdown", "must be 0 to 10, got %g", p.Slowdown)
	}
}

// planted reports whether this process plants the slowdowns.
var planted = os.Getenv(PlantEnv) == "1"

// steps is the work of a task on n leaves: Work·n steps, times 1 + Slowdown when planted.
func (p *SpinParams) steps(n int) int {
	s := float64(p.Work) * float64(n)
	if planted {
		s *= 1 + p.Slowdown
	}
	return int(math.Round(s))
}

func solveSpin(ctx context.Context, p *SpinParams, t registry.Task, _ registry.Run) (registry.Solution, error) {
	n := t.Item.Leaves()
	if spin(ctx, p.steps(n)) == 0 {
		// xorshift never reaches 0 from a non-zero state; the test keeps the loop's result
		// live, so that no compiler drops the work.
		return registry.Solution{}, fmt.Errorf("spin: the xorshift state reached 0")
	}
	if err := ctx.Err(); err != nil {
		return registry.Solution{}, err
	}
	merges := make([][2]int, 0, n-1)
	for k := 1; k < n; k++ {
		prev := 0
		if k > 1 {
			prev = n + k - 2 // the node the previous merge made
		}
		merges = append(merges, [2]int{prev, k})
	}
	tr, err := tree.FromMerges(n, merges)
	return registry.Solution{Tree: tr, LogLikelihood: math.NaN()}, err
}

// spin runs steps of a xorshift generator and returns its state; it stops early when ctx is
// cancelled.
func spin(ctx context.Context, steps int) uint64 {
	x := uint64(88172645463325252)
	for i := 0; i < steps; i++ {
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
		if i&(1<<20-1) == 0 && ctx.Err() != nil {
			break
		}
	}
	return x
}

func main() {
	os.Exit(cli.Main(os.Args[1:], os.Stdout, os.Stderr))
}

package runner

import (
	"fmt"
	"slices"
	"testing"

	"github.com/hcbench/hcbench/experiments/config"
	"github.com/hcbench/hcbench/experiments/plan"
)

// orderTasks are n tasks of repeat k (a k of 0 is an entry without repeat), keyed by index.
func orderTasks(n int, repeat func(j int) int) []plan.Task {
	tasks := make([]plan.Task, n)
	for j := range tasks {
		tasks[j] = plan.Task{Key: fmt.Sprintf("dataset=d|item=%d|algorithm=a", j), Algorithm: config.Algorithm{Repeat: repeat(j)}}
	}
	return tasks
}

func keysOf(tasks []plan.Task, order []repetition) []string {
	var out []string
	for _, u := range order {
		out = append(out, fmt.Sprintf("%s#%d", tasks[u.task].Key, u.n))
	}
	return out
}

// TestRepetitionOrder: the order of the repetitions is repetition-major (round r holds every task
// whose repeat is at least r, once), each round in a seeded order that differs between rounds
// and seeds and is the same for the same seed; a subset of the tasks (a shard, a resume that
// skips finished repetitions) is ordered as the whole restricted to it; tasks that all run once
// keep their order.
func TestRepetitionOrder(t *testing.T) {
	const n = 40
	tasks := orderTasks(n, func(j int) int { return []int{3, 3, 1, 0}[j%4] })
	none := make([]int, n)
	order := repetitionOrder(7, tasks, none)
	if !slices.Equal(keysOf(tasks, order), keysOf(tasks, repetitionOrder(7, tasks, none))) {
		t.Error("the same seed gave two orders")
	}
	if slices.Equal(keysOf(tasks, order), keysOf(tasks, repetitionOrder(8, tasks, none))) {
		t.Error("seeds 7 and 8 gave the same order")
	}
	var rounds [3][]int
	for i, u := range order {
		if i > 0 && u.n < order[i-1].n {
			t.Fatalf("position %d: repetition %d after %d: not repetition-major", i, u.n, order[i-1].n)
		}
		rounds[u.n] = append(rounds[u.n], u.task)
	}
	want := []int{n, n / 2, n / 2} // tasks of repeat 1 and none run in round 1 only
	for r, tasksOf := range rounds {
		if len(tasksOf) != want[r] || len(slices.Compact(slices.Sorted(slices.Values(tasksOf)))) != want[r] {
			t.Errorf("round %d: %d repetitions of %d tasks, want %d each once", r+1, len(tasksOf), len(slices.Compact(slices.Sorted(slices.Values(tasksOf)))), want[r])
		}
		if slices.IsSorted(tasksOf) {
			t.Errorf("round %d in plan order, not shuffled", r+1)
		}
	}
	if slices.Equal(rounds[1], rounds[2]) {
		t.Error("rounds 2 and 3 in the same order")
	}

	// Every other task (a shard), its first repetition done (a resume): the whole's order
	// restricted.
	var sub []plan.Task
	for j := 0; j < n; j += 2 {
		sub = append(sub, tasks[j])
	}
	from := make([]int, len(sub))
	for j := range from {
		from[j] = 1
	}
	var restricted []string
	for _, k := range keysOf(tasks, order) {
		var j, rep int
		fmt.Sscanf(k, "dataset=d|item=%d|algorithm=a#%d", &j, &rep)
		if j%2 == 0 && rep >= 1 {
			restricted = append(restricted, k)
		}
	}
	if got := keysOf(sub, repetitionOrder(7, sub, from)); !slices.Equal(got, restricted) {
		t.Errorf("a shard resumed after round 1: order\n%q\nwant the whole's restricted\n%q", got, restricted)
	}

	// Tasks that run once keep the plan's order.
	once := orderTasks(n, func(int) int { return 1 })
	for i, u := range repetitionOrder(7, once, none) {
		if u.task != i || u.n != 0 {
			t.Fatalf("repeat 1: position %d holds task %d repetition %d", i, u.task, u.n)
		}
	}
}

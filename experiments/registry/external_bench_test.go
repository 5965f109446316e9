package registry

import (
	"context"
	"testing"
)

// BenchmarkExternalNoop measures the external protocol's own cost per item: Solve on a 9-leaf
// jet (build the request, write it, read the answer, parse and check the tree, score it) with a
// program that answers a fixed caterpillar at once (internal/externaltest's noop mode), on one
// worker. The program is started before the timing.
func BenchmarkExternalNoop(b *testing.B) {
	var task Task
	for _, it := range testJets(b, 20) {
		if it.Leaves() == 9 {
			task = extTask(it)
			break
		}
	}
	if task.Item == nil {
		b.Fatal("no 9-leaf jet among 20")
	}
	s, _ := startExt(b, "noop", extOptions{})
	ctx := context.Background()
	if _, err := s.Solve(ctx, task); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, err := s.Solve(ctx, task); err != nil {
			b.Fatal(err)
		}
	}
}

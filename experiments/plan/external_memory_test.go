package plan

import (
	"strings"
	"testing"
)

// TestExternalMemory: the memory estimate counts an external algorithm's extra and counters at
// their bounds in each of its records (a run keeps them all), and its program's buffers and lines in the working
// memory of a task.
func TestExternalMemory(t *testing.T) {
	const jets = 10
	estimate := func(second string) (records, work int64) {
		p := newPlan(t, "version: 1\nname: e\ndatasets:\n  - {name: q, generator: ginkgo, jets: 10, min_leaves: 5, max_leaves: 9, t_cut: 16}\nalgorithms:\n  - greedy\n  - "+second+"\n")
		for _, part := range p.Memory(1, nil).Parts {
			switch {
			case strings.HasSuffix(part.What, " records"):
				records = part.Bytes
			case strings.HasPrefix(part.What, "the working memory"):
				work = part.Bytes
			}
		}
		return records, work
	}
	rg, wg := estimate("{name: greedy, label: g2}")
	re, we := estimate("{name: external, command: [sh]}")
	// 16 KiB: registry's extraRecordBytes, what an extra of 64 keys and 4 KiB holds; 8 KiB:
	// counterRecordBytes, what 64 counters of 64-byte names hold.
	if re-rg != jets*24<<10 {
		t.Errorf("records with an external algorithm %d, without %d: %d more, want %d (16 KiB of extra and 8 KiB of counters in each of its %d records)", re, rg, re-rg, jets*24<<10, jets)
	}
	if we < wg+100<<10 {
		t.Errorf("working memory with an external algorithm %d, without %d: want at least 100 KiB more (its program's buffers and an extra)", we, wg)
	}
}

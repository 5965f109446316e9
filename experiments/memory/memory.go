// Package memory says how much memory an hcbench process may use, and holds the run's budget
// that memory estimates are checked against before anything large is allocated: the machine's
// RAM, or less when the process's cgroup sets a lower limit (Slurm's --mem, Kubernetes memory
// limits, systemd's MemoryMax), since going over a cgroup's limit gets the process killed, not
// swapped.
package memory

import (
	"fmt"
	"math"
	"sync"
)

// Available returns the bytes this process may use: the RAM, or the cgroup's limit when lower;
// 0 when neither can be read. It is read once per process (reading the cgroup files costs about
// 0.2 ms, more than a whole small task).
func Available() int64 { return available() }

var available = sync.OnceValue(availableMemory)

// unknownBudget is the budget when the memory cannot be read.
const unknownBudget = 4 << 30

// Budget returns the memory that the tasks of a run may share for their large tables (the
// default of the trellis's memory_limit, and what trellis tasks running at once share): half of
// Available, or 4 GiB when that is unknown. The other half is left to the items, the records,
// the Go runtime and the system.
func Budget() int64 {
	if m := Available(); m > 0 {
		return m / 2
	}
	return unknownBudget
}

// Limit returns what a whole run may be estimated to take before it is refused: Available, or
// 8 GiB when that is unknown (the platform gives no simple answer).
func Limit() int64 {
	if m := Available(); m > 0 {
		return m
	}
	return 2 * unknownBudget
}

// Describe names Available for messages: "23.4 GiB (the machine's RAM)" or "… (the cgroup's
// limit)".
func Describe() string {
	m := Available()
	switch {
	case m <= 0:
		return Format(Limit()) + " (assumed: the memory available could not be read)"
	case cgroupLimit() > 0 && cgroupLimit() <= m:
		return Format(m) + " (the limit of the process's cgroup)"
	}
	return Format(m) + " (the machine's RAM)"
}

var cgroupLimit = sync.OnceValue(processCgroupLimit)

// Format writes a byte count in binary units: "512 KiB", "1.5 MiB", "23.4 GiB", "2.0 TiB".
func Format(b int64) string {
	switch {
	case b >= 1<<40:
		return fmt.Sprintf("%.1f TiB", float64(b)/(1<<40))
	case b >= 1<<30:
		return fmt.Sprintf("%.1f GiB", float64(b)/(1<<30))
	case b >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(b)/(1<<20))
	}
	return fmt.Sprintf("%d KiB", (b+1023)>>10)
}

// Add returns a + b, or math.MaxInt64 where that would overflow: estimates of absurd configs
// (jets: 1e12, beam_size: 2^59) saturate instead of wrapping round to small numbers.
func Add(a, b int64) int64 {
	if a > math.MaxInt64-b {
		return math.MaxInt64
	}
	return a + b
}

// Mul returns a·b for non-negative a and b, saturating as Add does.
func Mul(a, b int64) int64 {
	if a != 0 && b > math.MaxInt64/a {
		return math.MaxInt64
	}
	return a * b
}

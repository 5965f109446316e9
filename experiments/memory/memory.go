// Package memory says how much memory an hcbench process may use, and holds the run's budget
// that memory estimates are checked against before anything large is allocated: the machine's
// RAM, or less when the process's cgroup sets a lower limit (Slurm's --mem, Kubernetes memory
// limits, systemd's MemoryMax), since going over a cgroup's limit gets the process killed, not
// swapped, or when its address space is limited (RLIMIT_AS: ulimit -v, SGE's h_vmem), where an
// allocation past the limit ends a Go program with "fatal error: out of memory".
package memory

import (
	"fmt"
	"math"
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
)

// Limits are what bounds the memory of this process, each 0 where unknown or unset.
type Limits struct {
	RAM    int64 // the machine's RAM
	Cgroup int64 // the lowest memory limit of the process's cgroup and its ancestors
	// AddressSpace is what RLIMIT_AS leaves for the memory the estimates count, once the
	// address space that is mapped but not used is set aside (Reserved, and room for it to grow):
	// a Go program reserves far more address space than it touches (about 1.7 GiB before its
	// first allocation, on linux/amd64 with cgo: the runtime's page-allocator summaries, C
	// allocator arenas, thread stacks), all of which counts against RLIMIT_AS.
	AddressSpace int64
	Reserved     int64 // that address space, mapped when the limits were read
}

// Read returns the limits of this process, read once (reading the cgroup files costs about
// 0.2 ms, more than a whole small task), at the first call: LimitRuntime's, at the start of
// hcbench, before anything large is allocated.
func Read() Limits { return limits() }

var limits = sync.OnceValue(readLimits)

// Available returns the bytes this process may use: the least of the RAM, the cgroup's limit
// and what RLIMIT_AS leaves; 0 when none can be read.
func Available() int64 {
	l := Read()
	return minKnown(minKnown(l.RAM, l.Cgroup), l.AddressSpace)
}

// unknownBudget is the budget when the memory cannot be read.
const unknownBudget = 4 << 30

// Budget returns the memory that the tasks of a run may share for their large tables (the
// default of the trellis's memory_limit, and what trellis tasks running at once share), and
// that a data file's parsed contents may take: half of Available, or 4 GiB when that is unknown.
// The other half is left to the items, the records, the Go runtime and the system.
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

// Describe names Available for messages: "23.4 GiB (the machine's RAM)", "… (the limit of the
// process's cgroup)" or "… (what the address-space limit, ulimit -v, of 1.9 GiB leaves: the
// process has reserved 1.6 GiB of address space it does not use)".
func Describe() string {
	m, l := Available(), Read()
	switch {
	case m <= 0:
		return Format(Limit()) + " (assumed: the memory available could not be read)"
	case l.AddressSpace > 0 && l.AddressSpace == m:
		return fmt.Sprintf("%s (what the address-space limit, ulimit -v, of %s leaves: the process has reserved %s of address space that it does not use, and keeps room for more)",
			Format(m), Format(l.AddressSpace+l.Reserved+addressSpaceGrowth()), Format(l.Reserved))
	case l.Cgroup > 0 && l.Cgroup == m:
		return Format(m) + " (the limit of the process's cgroup)"
	}
	return Format(m) + " (the machine's RAM)"
}

// LimitRuntime sets the Go runtime's soft memory limit (debug.SetMemoryLimit) to what this
// process may use where a limit below the RAM binds it (a cgroup's, or RLIMIT_AS's), unless the
// GOMEMLIMIT environment variable sets one. The garbage collector then collects more often as
// the heap nears the limit, instead of letting the heap grow to twice what is live (GOGC=100),
// past a limit that kills the process (a cgroup's) or fails its next mapping (RLIMIT_AS). It
// reads the limits (see Read); hcbench calls it first thing, which also lets SetEstimate lower
// the limit.
func LimitRuntime() {
	l := Read()
	if _, set := os.LookupEnv("GOMEMLIMIT"); set {
		return
	}
	runtimeLimited.Store(true)
	bound := minKnown(l.Cgroup, l.AddressSpace)
	if bound <= 0 || l.RAM > 0 && bound >= l.RAM {
		return
	}
	// The runtime's limit counts only the memory it manages: the binary's pages and C
	// allocations are left out of the cgroup's limit (RLIMIT_AS's set them aside already).
	if bound == l.Cgroup {
		bound -= outsideRuntime()
	}
	debug.SetMemoryLimit(max(bound, 1))
}

// addressSpaceLeft returns what an address-space limit of limit bytes leaves for the memory the
// estimates count, in a process that has mapped vmSize bytes of which the Go runtime manages
// goMapped (its heap, stacks and metadata, which the estimates count), and the address space
// mapped but not counted: reservations the runtime never touches, C allocator arenas, thread
// stacks, the binary. Room is kept for those to grow (addressSpaceGrowth). It returns at least
// 1 byte: a limit already spent leaves nothing, but is a limit.
func addressSpaceLeft(limit, vmSize, goMapped int64) (left, reserved int64) {
	reserved = max(vmSize-goMapped, 0)
	return max(limit-reserved-addressSpaceGrowth(), 1), reserved
}

// addressSpaceGrowth is the room kept under RLIMIT_AS for address space that grows beside what
// the estimates count: the heap is mapped in 64 MiB arenas, and each new thread reserves its
// stack (8 MiB with cgo): one per processor and a few blocked in system calls.
func addressSpaceGrowth() int64 { return 64<<20 + int64(runtime.GOMAXPROCS(0)+4)*(8<<20) }

// goRuntimeMapped returns the bytes the Go runtime has mapped read-write (its heap, stacks and
// metadata), and of those the heap's free pages it has returned to the system.
func goRuntimeMapped() (mapped, released int64) {
	s := []metrics.Sample{{Name: "/memory/classes/total:bytes"}, {Name: "/memory/classes/heap/released:bytes"}}
	metrics.Read(s)
	v := func(x metrics.Value) int64 {
		if x.Kind() != metrics.KindUint64 {
			return 0
		}
		return int64(min(x.Uint64(), math.MaxInt64))
	}
	return v(s[0].Value), v(s[1].Value)
}

// runtimeLimited records that LimitRuntime ran: the process is hcbench, not a test that calls its
// commands, whose own heap an estimate does not describe.
var runtimeLimited atomic.Bool

// SetEstimate lowers the Go runtime's soft memory limit to a run's estimate of its peak resident
// memory (less the resident memory that the runtime does not manage), in a process that called
// LimitRuntime, unless GOMEMLIMIT sets the limit. The garbage collector then keeps the heap within
// what plan printed: where it would let the heap grow to twice what is live (GOGC=100) past the
// estimate, as freed tables waiting for a collection and free pages not yet returned can make it,
// it collects and returns memory sooner. A batch system's limit sized from the estimate (Slurm's
// --mem) then holds the run.
func SetEstimate(b int64) {
	if !runtimeLimited.Load() {
		return
	}
	cur := debug.SetMemoryLimit(-1)
	debug.SetMemoryLimit(min(cur, max(b-outsideRuntime(), 1)))
}

// outsideRuntime returns the resident memory that the Go runtime's soft limit does not count:
// the binary's pages (which grow as more of its code runs: 15 MiB in a run), C allocations; and
// room for those to grow.
func outsideRuntime() int64 { return residentOutsideRuntime() + 4<<20 }

// Peak returns the peak resident memory of this process (its high-water mark, VmHWM on Linux),
// and false where the platform does not say. Unlike the children's usage a parent reads with
// wait4, it does not count the memory of the process that started this one, whose peak Linux
// carries over into the child's across exec.
func Peak() (int64, bool) { return peakResident() }

// HeapGrowth returns how far the heap may grow past what is live before the garbage collector
// runs: 1 + GOGC/100, 2 by default. GOGC=off gives 2 as well: the collector then runs only at
// the soft memory limit (GOMEMLIMIT), and no estimate bounds what it lets the heap reach.
func HeapGrowth() float64 {
	gogc := 100
	if v, err := strconv.Atoi(strings.TrimSpace(os.Getenv("GOGC"))); err == nil && v >= 0 {
		gogc = v // as the runtime reads it: a number, else the default (off aside)
	}
	return 1 + float64(gogc)/100
}

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

// minKnown returns the smaller of a and b, where 0 means unknown.
func minKnown(a, b int64) int64 {
	switch {
	case a <= 0:
		return b
	case b <= 0:
		return a
	}
	return min(a, b)
}

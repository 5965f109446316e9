package memory

import (
	"runtime"
	"testing"
)

// TestAddressSpaceLeft: RLIMIT_AS less what is mapped and not counted (the Go runtime's
// reservations) and room for it to grow; never less than a byte, so that a spent limit is still a
// limit.
func TestAddressSpaceLeft(t *testing.T) {
	growth := addressSpaceGrowth()
	if want := int64(64<<20 + (runtime.GOMAXPROCS(0)+4)*(8<<20)); growth != want {
		t.Errorf("growth %d, want %d", growth, want)
	}
	for _, c := range []struct {
		limit, vm, goMapped, left, reserved int64
	}{
		// ulimit -v 2000000: 1.7 GiB mapped at start, 20 MiB of it the runtime's own.
		{2000000 << 10, 1700 << 20, 20 << 20, 2000000<<10 - (1680 << 20) - growth, 1680 << 20},
		{1 << 40, 1 << 30, 1 << 30, 1<<40 - growth, 0}, // everything mapped is counted
		{1 << 30, 2 << 30, 1 << 20, 1, 2<<30 - 1<<20},  // spent
		{1 << 30, 1 << 20, 2 << 20, 1<<30 - growth, 0}, // more counted than mapped (raced)
	} {
		left, reserved := addressSpaceLeft(c.limit, c.vm, c.goMapped)
		if left != c.left || reserved != c.reserved {
			t.Errorf("addressSpaceLeft(%d, %d, %d) = %d, %d, want %d, %d", c.limit, c.vm, c.goMapped, left, reserved, c.left, c.reserved)
		}
	}
}

func TestHeapGrowth(t *testing.T) {
	for v, want := range map[string]float64{"": 2, "100": 2, "50": 1.5, "400": 5, "0": 1, "off": 2, "-1": 2, "x": 2, " 200 ": 3} {
		t.Setenv("GOGC", v)
		if got := HeapGrowth(); got != want {
			t.Errorf("GOGC=%q: %v, want %v", v, got, want)
		}
	}
}

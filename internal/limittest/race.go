//go:build race

package limittest

// Race reports whether the race detector is on: it multiplies what a process holds and reserves,
// so tests of memory bounds skip under it.
const Race = true

//go:build !amd64

package trellis

// runSplits runs the Go split loop for p: there are no others here.
func runSplits(p *parentSweep, mapOnly, _ bool) { runSplitsGo(p, mapOnly) }

// wideMAPParents leaves every parent to the caller (see the amd64 version).
func wideMAPParents(_ *parentSweep, _ []acc, xl, _ uint32) uint32 { return xl }

package trellis

import "math"

// The split loops in assembly (kernel_ginkgo_amd64.s). They read the float constants from
// asmConsts, computed here by the same constant expressions as the Go loops, so both round alike.
//
//go:noescape
func splitsFullAsm(p *parentSweep)

//go:noescape
func splitsMAPAsm(p *parentSweep)

// asmConsts are the constants of the split loops, in the order kernel_ginkgo_amd64.s reads them.
var asmConsts = [...]float64{
	0:  1,
	1:  64 / math.Ln2,
	2:  0.5,
	3:  ln2Hi / 64,
	4:  ln2Lo / 64,
	5:  1.0 / 720,
	6:  1.0 / 120,
	7:  1.0 / 24,
	8:  1.0 / 6,
	9:  -708,
	10: math.Ln2,
	11: logBoundSlack,
	12: 0.25,
	13: 1.0 / 3,
	14: ln2Hi,
	15: ln2Lo,
	16: 0,
}

func init() {
	splitsFull, splitsMAP = splitsFullAsm, splitsMAPAsm
}

package trellis

import (
	"math"

	"github.com/hcbench/hcbench/algorithms/model"
)

// genericKernel scores splits through a model.SubsetScorer: one interface call per split, so it
// is several times slower than a model's own kernel, and serves every model without one.
type genericKernel struct {
	t   *Trellis
	psi model.SubsetScorer
}

func (k *genericKernel) prepare(xh uint32, sc []acc) {}

func (k *genericKernel) sweep(lBase, rBase, lo, hi uint32, zero bool, sc []acc) (energies int64) {
	for xl := lo; xl < hi; xl++ {
		a := &sc[xl]
		if xl == 0 {
			if zero {
				k.split(a, lBase, rBase)
				energies++
			}
			continue
		}
		low := xl & -xl
		rest := xl ^ low
		for u := rest; ; u = (u - 1) & rest {
			r := rBase | (rest ^ u)
			if r != 0 {
				k.split(a, lBase|low|u, r)
				energies++
			}
			if u == 0 {
				break
			}
		}
	}
	return energies
}

func (k *genericKernel) split(a *acc, l, r uint32) {
	t := k.t
	s := k.psi.LogPsi(l, r)
	if math.IsInf(s, -1) {
		a.add(l, s, s, 0)
		return
	}
	nl, nr := &t.nodes[l], &t.nodes[r]
	vz := math.Inf(-1)
	if !t.opts.MAPOnly {
		vz = s + nl.z + nr.z
	}
	cnt := 0.0
	if t.count != nil {
		cnt = t.count[l] * t.count[r]
	}
	a.add(l, s+nl.m+nr.m, vz, cnt)
}

package registry

import (
	"context"

	"github.com/hcbench/hcbench/algorithms/beam"
	"github.com/hcbench/hcbench/experiments/item"
	"github.com/hcbench/hcbench/experiments/memory"
	"github.com/hcbench/hcbench/experiments/results"
)

func init() {
	RegisterAlgorithm(Algorithm{
		Name:       "beam",
		Help:       "beam search over merges (the trellis papers' baseline): keeps the B best partial hierarchies level by level",
		NewParams:  func() Params { return &BeamParams{} },
		Start:      Simple(solveBeam),
		Memory:     func(p Params, _ item.Size, n int) int64 { return beamBytes(p.(*BeamParams).BeamSize, n) },
		MemoryHint: "lower beam_size, or use smaller items (points, rows, subsamples)",
		// B partial hierarchies, each scoring its n² candidate merges a level (beamSeconds).
		Cost: func(p Params, n int) float64 {
			return beamSeconds * float64(p.(*BeamParams).BeamSize.Of(n)) * square(n)
		},
		Counters: beamCounters,
	})
}

// beamSeconds is beam search's time per partial hierarchy and pair of leaves (Algorithm.Cost
// B·n²): 5e-7 s on jets of 6 to 80 leaves in the shipped configs (1.2 to 1.8 times the former
// 3.3e-7, on the machine ReferenceMachine names).
const beamSeconds = 5e-7

// BeamParams: `beam` is beam search over merges (StandardHC beamSearchOptimal_invM).
type BeamParams struct {
	BeamSize BeamSize `yaml:"beam_size" default:"n(n-1)/2" help:"beam size B: a number, or n(n-1)/2 (the ML4PS paper), 3n, max(3n, n(n-1)/2) or min(3n, n(n-1)/2), with n the number of leaves"`
	Dedup    string   `yaml:"dedup" default:"structure" help:"how equal partial hierarchies are kept once: structure (ours: by their sets of clusters) or float (the reference: by the exact float value of their total, which float rounding can fool)"`
}

// Check checks the beam's parameters.
func (p *BeamParams) Check(c Checker) {
	OneOf(c, "dedup", p.Dedup, "structure", "float")
}

// beamCounters are beam search's work counters (beam.Counters).
var beamCounters = []Counter{
	{"states_expanded", "partial hierarchies whose best merges were offered as candidates, summed over the N − 1 levels"},
	{"candidates_ranked", "candidate merges taken from the ranking, at most beam_size a partial hierarchy, whether kept or dropped as a duplicate"},
	{"states_kept", "candidates kept as the next level's partial hierarchies, summed over the levels"},
	{"energies", "split log ψ evaluations: the N(N−1)/2 pairs of leaves, then each kept candidate's new cluster against the other current clusters"},
}

// beamCounterValues are the values of beamCounters.
func beamCounterValues(c beam.Counters) map[string]int64 {
	return map[string]int64{"states_expanded": c.Expanded, "candidates_ranked": c.Ranked, "states_kept": c.Kept, "energies": c.Energies}
}

// beamBytes estimates beam search's live memory at its peak, the step from the first full beam
// to the next: two beams of B partial hierarchies, each with its own sorted list of the pairs of
// its clusters (16 bytes a pair, n²/2 pairs) and its per-node slices (sets, clusters, merges:
// 200 bytes a leaf, copied each step at up to twice their length). Measured on linux/amd64: 56 MB
// live at n = 100, B = 300 (this gives 72 MB: beam search makes garbage faster than the other
// algorithms, and its peak resident memory is 2.4 times its live beams at n = 50, 1.9 at 100).
func beamBytes(b BeamSize, n int) int64 {
	nn := int64(n)
	path := memory.Add(memory.Mul(8, memory.Mul(nn, nn)), memory.Mul(400, nn))
	return memory.Mul(memory.Mul(2, int64(b.Of(n))), path)
}

// beamDedup is the beam rule a config's dedup value names (checked: structure or float).
func beamDedup(name string) beam.Dedup {
	if name == "float" {
		return beam.Float
	}
	return beam.Structure
}

func solveBeam(ctx context.Context, p *BeamParams, t Task, _ Run) (Solution, error) {
	m, err := NeedModel("beam", t.Item)
	if err != nil {
		return Solution{}, err
	}
	size := p.BeamSize.Of(t.Item.Leaves())
	r, err := beam.Run(ctx, m, beam.Options{Size: size, Dedup: beamDedup(p.Dedup)})
	if err != nil {
		return Solution{}, err
	}
	return Solution{Tree: r.Tree, LogLikelihood: r.LogLikelihood, Counters: beamCounterValues(r.Counters), Fill: func(rec *results.Record) {
		rec.Params["beam_size_used"] = size
	}}, nil
}

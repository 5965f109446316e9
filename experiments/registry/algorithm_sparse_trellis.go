package registry

import (
	"context"
	"math"

	"github.com/hcbench/hcbench/algorithms/beam"
	"github.com/hcbench/hcbench/algorithms/greedy"
	"github.com/hcbench/hcbench/algorithms/sparsetrellis"
	"github.com/hcbench/hcbench/algorithms/tree"
	"github.com/hcbench/hcbench/experiments/item"
	"github.com/hcbench/hcbench/experiments/memory"
	"github.com/hcbench/hcbench/experiments/results"
)

func init() {
	RegisterAlgorithm(Algorithm{
		Name:       "sparse_trellis",
		Help:       "approximate MAP for large N: the exact dynamic program on the clusters of greedy and beam-search trees, all splits of small clusters and the best of random cuts of large ones; never worse than its seeds",
		NewParams:  func() Params { return &SparseTrellisParams{} },
		Start:      Simple(solveSparse),
		Memory:     func(p Params, s item.Size, n int) int64 { return p.(*SparseTrellisParams).memory(s, n) },
		MemoryHint: "lower max_clusters or beam_size, or use smaller items (points, rows, subsamples)",
		// Its seeds' clusters and the splits of its small clusters grow about as n⁵ (1.3e-7 s·n⁵
		// from 8 to 26 leaves) until max_clusters bounds them (32 leaves took less than 26).
		Cost: func(p Params, n int) float64 {
			sp := p.(*SparseTrellisParams)
			seeds := beamSeconds * float64(sp.BeamSize.Of(n)) * square(n)
			return seeds + 1.3e-7*min(math.Pow(float64(n), 5), 250*float64(sp.MaxClusters))
		},
		Counters: []Counter{
			{"subsets", "clusters of two or more leaves in the sparse trellis, whose splits the dynamic program visits"},
			{"splits", "splits of the sparse trellis, each visited once by the dynamic program"},
			{"energies", "split log ψ evaluations building the sparse trellis: the seeds' splits, every split of the small clusters and every random cut drawn"},
			{"seed_energies", "split log ψ evaluations of the seed searches: greedy's pair evaluations plus beam search's energies"},
		},
	})
}

// SparseTrellisParams: `sparse_trellis` is the trellis's dynamic program on a sparse trellis
// seeded with greedy and beam-search trees (our construction, see docs/algorithms.md).
type SparseTrellisParams struct {
	Seeds           []string `yaml:"seeds" default:"[greedy, beam]" help:"seed trees whose clusters and splits the sparse trellis holds: greedy and/or beam (every tree of the final beam)"`
	BeamSize        BeamSize `yaml:"beam_size" default:"3n" help:"beam size of the beam seed, as for beam"`
	BeamDedup       string   `yaml:"beam_dedup" default:"structure" help:"how the beam seed keeps equal partial hierarchies, as beam's dedup: structure (no seed slot spent on a forest already held) or float"`
	AllPairsMaxSize int      `yaml:"all_pairs_max_size" default:"8" help:"clusters of at most this many items get all their splits (1 to 20); at N or more the sparse trellis is the full one"`
	SplitsTried     int      `yaml:"splits_tried" default:"25" help:"random 2-cuts drawn for each larger cluster"`
	SplitsKept      int      `yaml:"splits_kept" default:"15" help:"the best of the drawn cuts kept as splits"`
	MaxClusters     int      `yaml:"max_clusters" default:"100000" help:"most clusters (vertices); beyond it, splits that need new clusters are left out (the seeds' never are)"`
}

// Check checks the sparse trellis's parameters.
func (p *SparseTrellisParams) Check(c Checker) {
	if len(p.Seeds) == 0 {
		c.Bad("seeds", "give at least one of greedy, beam")
	}
	seen := map[string]bool{}
	for _, s := range p.Seeds {
		if s != "greedy" && s != "beam" {
			c.Bad("seeds", "unknown seed %q (want greedy or beam)", s)
		} else if seen[s] {
			c.Bad("seeds", "%q listed twice", s)
		}
		seen[s] = true
	}
	if p.AllPairsMaxSize < 1 || p.AllPairsMaxSize > 20 {
		c.Bad("all_pairs_max_size", "must be 1 to 20, got %d", p.AllPairsMaxSize)
	}
	if p.SplitsTried < 0 {
		c.Bad("splits_tried", "must be 0 or positive, got %d", p.SplitsTried)
	}
	if p.SplitsKept < 0 {
		c.Bad("splits_kept", "must be 0 or positive, got %d", p.SplitsKept)
	}
	if p.MaxClusters < 1 {
		c.Bad("max_clusters", "must be positive, got %d", p.MaxClusters)
	}
	OneOf(c, "beam_dedup", p.BeamDedup, "structure", "float")
}

// memory estimates the sparse trellis's live memory at its peak on an item of n leaves: the
// beam seed's search, or the sparse trellis with its seed trees, whichever is larger. The
// trellis takes sparseClusterBytes a cluster (and a correlation-clustering cluster its items)
// and 16 bytes a split; the clusters are all 2^n − 1 subsets up to all_pairs_max_size leaves,
// else max_clusters (which the defaults reach from about 24 leaves), and the splits are the
// full trellis's up to all_pairs_max_size, else sparseSplitsPerCluster a cluster.
func (p *SparseTrellisParams) memory(s item.Size, n int) int64 {
	nn := int64(n)
	trees := int64(0)
	var beamPeak int64
	for _, seed := range p.Seeds {
		switch seed {
		case "greedy":
			trees++
		case "beam":
			trees = memory.Add(trees, int64(p.BeamSize.Of(n)))
			beamPeak = beamBytes(p.BeamSize, n)
		}
	}
	seedClusters := memory.Add(nn, memory.Mul(trees, nn-1))
	var clusters, splits int64
	switch {
	case n <= p.AllPairsMaxSize: // at most 20: the full trellis, or what max_clusters keeps of it
		clusters, splits = min(1<<n-1, max(int64(p.MaxClusters), seedClusters)), (pow3(n)+1)/2-1<<n
	default:
		clusters = max(int64(p.MaxClusters), seedClusters)
		if n < 62 {
			clusters = min(clusters, 1<<n-1)
		}
		splits = memory.Add(int64(float64(clusters)*sparseSplitsPerCluster(p.AllPairsMaxSize, p.SplitsKept, n)), seedClusters)
	}
	perCluster := int64(sparseClusterBytes)
	if !s.Jets {
		perCluster += 4 * nn // a correlation-clustering cluster lists its items: n/2 on average
	}
	trellis := memory.Add(memory.Mul(clusters, perCluster), memory.Mul(16, splits))
	// The seed trees: 2n − 1 nodes each.
	trellis = memory.Add(trellis, memory.Mul(trees, memory.Mul(96, nn)))
	return max(trellis, beamPeak)
}

// sparseClusterBytes is the memory of a cluster of the sparse trellis beside its splits: its
// vertex, its entry in the map of clusters by item set, its summary in the model's store
// (measured on linux/amd64: 246 to 252 bytes on Ginkgo jets of 26 to 60 leaves).
const sparseClusterBytes = 260

// sparseSplitsPerCluster is the splits a cluster of the sparse trellis holds on average on an
// item of n leaves, when it has more than allPairs leaves: kept sampled splits and a seed split
// or two each, and the clusters of at most allPairs leaves all their splits (the full trellis's
// ((3^a+1)/2 − 2^a) / (2^a − 1) a cluster, on a leaves), fewer once max_clusters is reached
// early in the expansion, as it is on larger items. Measured on Ginkgo jets at the defaults
// (all_pairs_max_size 8, splits_kept 15, max_clusters 100 000): 25 to 29 up to 27 leaves, then
// falling (22 at 31, 19 at 35, 16 at 40, 15 to 16 from 44 to 60, 8.5 at 90); this gives 29.2 up
// to 27 leaves, falling to 17 from 45.
func sparseSplitsPerCluster(allPairs, kept, n int) float64 {
	full := float64((pow3(allPairs)+1)/2-1<<allPairs) / float64(int64(1)<<allPairs-1)
	early := min(max(float64(45-n)/18, 0), 1)
	return float64(kept) + 2 + 1.2*full*early
}

// pow3 returns 3^k for 0 ≤ k ≤ 39.
func pow3(k int) int64 {
	p := int64(1)
	for range k {
		p *= 3
	}
	return p
}

// solveSparse seeds the sparse trellis with greedy and the final beam of a beam search, and records
// the beam size it used beside the config's parameters.
func solveSparse(ctx context.Context, p *SparseTrellisParams, t Task, _ Run) (Solution, error) {
	it := t.Item
	if _, err := NeedModel("sparse_trellis", it); err != nil {
		return Solution{}, err
	}
	var seeds []*tree.Tree
	var seedEnergies int64
	used := map[string]any{}
	for _, s := range p.Seeds {
		switch s {
		case "greedy":
			g, err := greedy.Run(ctx, it.Model)
			if err != nil {
				return Solution{}, err
			}
			seeds = append(seeds, g.Tree)
			seedEnergies += g.Energies
		case "beam":
			opts := beam.Options{Size: p.BeamSize.Of(it.Leaves()), Dedup: beamDedup(p.BeamDedup), All: true}
			b, err := beam.Run(ctx, it.Model, opts)
			if err != nil {
				return Solution{}, err
			}
			seeds = append(seeds, b.Trees...)
			seedEnergies += b.Counters.Energies
			used["beam_size_used"] = opts.Size
		}
	}
	r, err := sparsetrellis.Run(ctx, it.Model, t.RNG, sparsetrellis.Options{
		Seeds: seeds, AllPairsMaxSize: p.AllPairsMaxSize, SplitsTried: p.SplitsTried, SplitsKept: p.SplitsKept, MaxClusters: p.MaxClusters,
	})
	if err != nil {
		return Solution{}, err
	}
	// r.LogLikelihood is the MAP tree re-scored by model.TreeLogLikelihood, as greedy and beam
	// report theirs, not the dynamic program's sum.
	counters := map[string]int64{"subsets": int64(r.Subsets), "splits": int64(r.Splits), "energies": r.Energies, "seed_energies": seedEnergies}
	return Solution{Tree: r.Tree, LogLikelihood: r.LogLikelihood, Counters: counters, Fill: func(rec *results.Record) {
		rec.SparseClusters, rec.SparseSplits = r.Clusters, r.Splits
		for k, v := range used {
			rec.Params[k] = v
		}
	}}, nil
}

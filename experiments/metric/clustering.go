package metric

import (
	"math"

	"github.com/hcbench/hcbench/reports/metrics"
)

// Keys of the metrics that score a tree as a clustering: against the reference partitions at
// their numbers of clusters (the ClustBench suite's scores), and as a hierarchy of the points.
const (
	NCA                   = "nca"
	ARI                   = "ari"
	AMI                   = "ami"
	FowlkesMallows        = "fowlkes_mallows"
	DasguptaCost          = "dasgupta_cost"
	CopheneticCorrelation = "cophenetic_correlation"
)

// MaxPairLeaves bounds the items on which the metrics over all pairs of points (Dasgupta's
// cost, the cophenetic correlation) are computed: n(n−1)/2 distances each, for every tree. At
// 10,000 points Dasgupta's cost alone took 3.5 s of a loaded reference machine, more than most
// linkages of the set, so that the metrics, not the algorithms, set the run's time; at 4,000
// points it is about a sixth of that.
const MaxPairLeaves = 4_000

// partitionNote is what every partition metric's definition says of the cut.
const partitionNote = " The tree is cut at each reference partition's number of clusters k (reports/metrics.Cut: undoing the k−1 highest merges where the algorithm gives heights, as scipy's cut_tree; else splitting the largest cluster first), noise points (0) are left out, and the best score over the reference partitions is kept, as the ClustBench suite scores."

func init() {
	Register(Metric{
		Key: NCA, Name: "mean normalised clustering accuracy", Short: "NCA", Better: HigherIsBetter, Order: 72,
		Needs: NeedsReferences, Range: []float64{-1, 1},
		Definition: "Gagolewski's normalised clustering accuracy (NCA), the ClustBench suite's default score: the mean share of each reference cluster recovered by its matched cluster (optimal one-to-one matching), rescaled so that 1 is a perfect match and 0 is what equal shares give." + partitionNote,
		Partition:  metrics.NormalizedClusteringAccuracy,
		Threshold:  0.001, ThresholdHelp: "largest drop of the mean normalised clustering accuracy",
		Track: Compare | History | Page | Summary,
	})
	Register(Metric{
		Key: ARI, Name: "mean adjusted Rand index", Short: "ARI", Better: HigherIsBetter, Order: 73,
		Needs: NeedsReferences, Range: []float64{-1, 1},
		Definition: "the adjusted Rand index (Hubert & Arabie 1985) of the cut against the reference partition: 1 for the same partition, 0 at chance." + partitionNote,
		Partition:  metrics.AdjustedRand,
		Threshold:  0.001, ThresholdHelp: "largest drop of the mean adjusted Rand index",
		Track: Compare | History | Page | Summary,
	})
	Register(Metric{
		Key: AMI, Name: "mean adjusted mutual information", Short: "AMI", Better: HigherIsBetter, Order: 74,
		Needs: NeedsReferences, Range: []float64{-1, 1},
		Definition: "the adjusted mutual information (Vinh, Epps & Bailey 2010; arithmetic-mean normalisation, as scikit-learn's default) of the cut against the reference partition: 1 for the same partition, 0 at chance." + partitionNote,
		Partition:  metrics.AdjustedMutualInfo,
	})
	Register(Metric{
		Key: FowlkesMallows, Name: "mean Fowlkes–Mallows index", Short: "FM", Better: HigherIsBetter, Order: 75,
		Needs: NeedsReferences, Range: []float64{0, 1},
		Definition: "the Fowlkes–Mallows index (1983) of the cut against the reference partition: the geometric mean of the pair precision and recall, 1 for the same partition." + partitionNote,
		Partition:  metrics.FowlkesMallows,
	})
	Register(Metric{
		Key: DasguptaCost, Name: "mean Dasgupta cost ratio", Short: "Dasgupta", Better: LowerIsBetter, Order: 76,
		Needs: NeedsVectors, Range: []float64{0, 1},
		Definition: "Dasgupta's cost of the tree (2016), Σ over pairs of points of their similarity times the number of points under their lowest common ancestor, divided by that of the flat tree, so it lies in (0, 1], lower is better; the similarity is the Gaussian kernel exp(−‖x_i − x_j‖²/(2σ²)) with σ² the mean squared distance (reports/metrics.GaussianSimilarity); items of at most 4,000 points.",
		Compute: func(in Input) (float64, bool) {
			if len(in.Vectors) > MaxPairLeaves {
				return 0, false
			}
			_, ratio := metrics.DasguptaCost(in.Tree, metrics.GaussianSimilarity(in.Vectors))
			return ratio, true
		},
	})
	Register(Metric{
		Key: CopheneticCorrelation, Name: "mean cophenetic correlation", Short: "cophenetic r", Better: HigherIsBetter, Order: 77,
		Needs: NeedsVectors | NeedsHeights, Range: []float64{-1, 1},
		Definition: "the cophenetic correlation of the tree (Sokal & Rohlf 1962, as scipy's cophenet): the Pearson correlation over pairs of points of their Euclidean distance and the height of their lowest common ancestor; trees with heights (linkage), items of at most 4,000 points.",
		Compute: func(in Input) (float64, bool) {
			if len(in.Vectors) > MaxPairLeaves {
				return 0, false
			}
			r, err := metrics.CopheneticCorrelation(in.Tree, in.Heights, func(i, j int) float64 { return euclidean(in.Vectors[i], in.Vectors[j]) })
			return r, err == nil
		},
	})
}

// euclidean is the Euclidean distance of two vectors of one length.
func euclidean(a, b []float64) float64 {
	s := 0.0
	for k := range a {
		d := a[k] - b[k]
		s += d * d
	}
	return math.Sqrt(s)
}

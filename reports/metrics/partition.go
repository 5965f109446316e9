package metrics

import (
	"fmt"
	"math"
)

// The partition scores compare a predicted partition pred with a reference one ref, both given as
// one label per point. A reference label of 0 marks a noise point: such points are left out of
// both partitions before scoring, as ClustBench's get_score does. Other labels are any integers
// (Cut gives 1..k, the suite's references are 1..K); only which points share a label matters, and
// a label that no remaining point carries is no cluster. Each score panics when pred and ref
// differ in length or ref has a negative label, and is NaN when every point is noise.

// contingency is the confusion matrix of the non-noise points: counts[i][j] points are in the
// i-th reference cluster and the j-th predicted one (clusters numbered by first appearance), with
// the row sums a, the column sums b and the number of points n.
type contingency struct {
	counts [][]int
	a, b   []int
	n      int
}

func newContingency(pred, ref []int) contingency {
	if len(pred) != len(ref) {
		panic(fmt.Sprintf("metrics: %d predicted labels for %d reference labels", len(pred), len(ref)))
	}
	rows, cols := map[int]int{}, map[int]int{}
	var c contingency
	for p, r := range ref {
		if r < 0 {
			panic(fmt.Sprintf("metrics: point %d has reference label %d, want ≥ 0 (0 is noise)", p, r))
		}
		if r == 0 {
			continue
		}
		i, ok := rows[r]
		if !ok {
			i = len(rows)
			rows[r] = i
			c.a = append(c.a, 0)
			c.counts = append(c.counts, make([]int, len(c.b)))
		}
		j, ok := cols[pred[p]]
		if !ok {
			j = len(cols)
			cols[pred[p]] = j
			c.b = append(c.b, 0)
			for r := range c.counts {
				c.counts[r] = append(c.counts[r], 0)
			}
		}
		c.counts[i][j]++
		c.a[i]++
		c.b[j]++
		c.n++
	}
	return c
}

// NormalizedClusteringAccuracy is Gagolewski's normalised clustering accuracy (NCA, formerly
// adjusted asymmetric accuracy; Journal of Classification 42, 2025), ClustBench's default score:
// with K reference clusters of sizes a_i and c_ij points of reference cluster i in predicted
// cluster j,
//
//	NCA = (max_σ Σ_i c_{i,σ(i)}/a_i − 1) / (K − 1),
//
// σ ranging over the one-to-one matchings of the reference clusters to the predicted ones: the
// mean over reference clusters of the share of the cluster recovered by its matched predicted
// cluster, rescaled so that 1 is a perfect match and 0 the share 1/K that every cluster gets when
// each predicted cluster holds the same share of every reference cluster. It is not symmetric.
//
// With fewer predicted clusters than K (a cut's cluster may hold only noise points), the
// reference clusters left unmatched count 0, as genieclust 1.1.5's compare_partitions does when
// it fills the missing columns of the confusion matrix with zeros; later genieclust refuses
// non-square matrices. With more, only K of them are matched. The matching is solved exactly
// (Hungarian algorithm, O(K²·L) for L predicted clusters). NCA is NaN for a single reference
// cluster (K = 1, where its normalisation is 0/0) and when every point is noise. Genieclust takes
// K as the range of the reference labels, which is the number of clusters when they are 1..K, as
// in the suite's files; here K counts the clusters.
func NormalizedClusteringAccuracy(pred, ref []int) float64 {
	c := newContingency(pred, ref)
	k := len(c.a)
	if k < 2 {
		return math.NaN()
	}
	share := make([][]float64, k)
	cols := max(k, len(c.b)) // zero columns stand for missing predicted clusters
	for i, row := range c.counts {
		share[i] = make([]float64, cols)
		for j, x := range row {
			share[i][j] = float64(x) / float64(c.a[i])
		}
	}
	sum := 0.0
	for i, j := range maxAssignment(share) {
		sum += share[i][j]
	}
	return (sum - 1) / float64(k-1)
}

// maxAssignment returns, for a matrix w of r rows and c ≥ r columns, a column per row, all
// distinct, of largest total weight: the Hungarian algorithm with potentials (shortest
// augmenting paths, one row at a time), O(r²·c).
func maxAssignment(w [][]float64) []int {
	r, c := len(w), len(w[0])
	// Minimise −w. Rows and columns are 1-based inside; column 0 is the virtual start.
	u := make([]float64, r+1)
	v := make([]float64, c+1)
	match := make([]int, c+1) // match[j]: the row assigned to column j, 0 for none
	way := make([]int, c+1)
	minv := make([]float64, c+1)
	used := make([]bool, c+1)
	for i := 1; i <= r; i++ {
		match[0] = i
		j0 := 0
		for j := range minv {
			minv[j] = math.Inf(1)
			used[j] = false
		}
		for {
			used[j0] = true
			i0, delta, j1 := match[j0], math.Inf(1), 0
			for j := 1; j <= c; j++ {
				if used[j] {
					continue
				}
				if cur := -w[i0-1][j-1] - u[i0] - v[j]; cur < minv[j] {
					minv[j], way[j] = cur, j0
				}
				if minv[j] < delta {
					delta, j1 = minv[j], j
				}
			}
			for j := 0; j <= c; j++ {
				if used[j] {
					u[match[j]] += delta
					v[j] -= delta
				} else {
					minv[j] -= delta
				}
			}
			j0 = j1
			if match[j0] == 0 {
				break
			}
		}
		for j0 != 0 {
			j1 := way[j0]
			match[j0] = match[j1]
			j0 = j1
		}
	}
	col := make([]int, r)
	for j := 1; j <= c; j++ {
		if match[j] != 0 {
			col[match[j]-1] = j - 1
		}
	}
	return col
}

// pairCounts returns the pair confusion of scikit-learn's pair_confusion_matrix, over ordered
// pairs of distinct points: both in one cluster of each partition (tp), together only in the
// predicted one (fp), only in the reference one (fn), apart in both (tn). Counts are exact
// integers up to n² < 2⁶³, that is n < 3·10⁹ points.
func (c contingency) pairCounts() (tp, fp, fn, tn int) {
	sq := 0
	for _, row := range c.counts {
		for _, x := range row {
			sq += x * x
		}
	}
	sa, sb := 0, 0
	for _, x := range c.a {
		sa += x * x
	}
	for _, x := range c.b {
		sb += x * x
	}
	tp = sq - c.n
	fp = sb - sq
	fn = sa - sq
	tn = c.n*c.n - fp - fn - sq
	return tp, fp, fn, tn
}

// AdjustedRand is the adjusted Rand index of Hubert & Arabie (1985), the Rand index corrected
// for chance under the permutation model, computed as scikit-learn's adjusted_rand_score (1.2):
//
//	ARI = 2(tp·tn − fn·fp) / ((tp+fn)(fn+tn) + (tp+fp)(fp+tn))
//
// over the pairs of non-noise points (see pairCounts); 1 for identical partitions and when both
// put all points in one cluster or each in its own (no pair is split differently), about 0 for
// independent ones, and possibly negative. NaN when every point is noise.
func AdjustedRand(pred, ref []int) float64 {
	c := newContingency(pred, ref)
	if c.n == 0 {
		return math.NaN()
	}
	tp, fp, fn, tn := c.pairCounts()
	if fn == 0 && fp == 0 {
		return 1
	}
	// Products in float64: they may pass 2⁶³ for a million points.
	ftp, ffp, ffn, ftn := float64(tp), float64(fp), float64(fn), float64(tn)
	return 2 * (ftp*ftn - ffn*ffp) / ((ftp+ffn)*(ffn+ftn) + (ftp+ffp)*(ffp+ftn))
}

// FowlkesMallows is the Fowlkes–Mallows index (1983), the geometric mean of the pair precision
// and recall, as scikit-learn's fowlkes_mallows_score: with tk the pairs together in both, pk in
// the predicted partition and qk in the reference one, FM = √(tk/pk)·√(tk/qk), and 0 when tk = 0.
// It is not adjusted for chance. NaN when every point is noise.
func FowlkesMallows(pred, ref []int) float64 {
	c := newContingency(pred, ref)
	if c.n == 0 {
		return math.NaN()
	}
	tp, fp, fn, _ := c.pairCounts()
	if tp == 0 {
		return 0
	}
	tk := float64(tp)
	return math.Sqrt(tk/float64(tp+fp)) * math.Sqrt(tk/float64(tp+fn))
}

// AdjustedMutualInfo is the adjusted mutual information of Vinh, Epps & Bailey (JMLR 2010) in
// scikit-learn's default form (adjusted_mutual_info_score, average_method "arithmetic", 1.2),
// which is the AMI_sum of Vinh et al. and genieclust's adjusted_mi_score:
//
//	AMI = (MI − E[MI]) / ((H(ref) + H(pred))/2 − E[MI]),
//
// entropies and mutual information in nats, E[MI] the expected mutual information of two
// partitions with the same cluster sizes drawn at random (the hypergeometric model of Vinh et
// al., eq. 24a, summed with log-gamma terms). As scikit-learn does, it is 1 when both partitions
// have a single cluster, and a denominator smaller in magnitude than the float64 machine epsilon
// is replaced by ±epsilon of its sign. NaN when every point is noise. When both partitions put
// every point in a cluster of its own, AMI is 0/0 (every matching is a permutation, so MI equals
// its expectation) and the value returned, like scikit-learn's, is rounding noise. The expectation costs
// O(Σ_ij min(a_i, b_j)), at most O(K·n) for K reference clusters and n points.
func AdjustedMutualInfo(pred, ref []int) float64 {
	c := newContingency(pred, ref)
	if c.n == 0 {
		return math.NaN()
	}
	if len(c.a) == 1 && len(c.b) == 1 {
		return 1
	}
	n := float64(c.n)
	mi := 0.0
	for i, row := range c.counts {
		for j, x := range row {
			if x > 0 {
				fx := float64(x)
				mi += fx / n * (math.Log(fx) + math.Log(n) - math.Log(float64(c.a[i])) - math.Log(float64(c.b[j])))
			}
		}
	}
	mi = max(mi, 0) // rounding can make a zero MI slightly negative
	emi := expectedMutualInfo(c.a, c.b, c.n)
	norm := (entropy(c.a, c.n) + entropy(c.b, c.n)) / 2
	den := norm - emi
	if eps := 0x1p-52; den < 0 {
		den = min(den, -eps)
	} else {
		den = max(den, eps)
	}
	return (mi - emi) / den
}

// entropy is the entropy in nats of a partition with cluster sizes sizes over n points.
func entropy(sizes []int, n int) float64 {
	h := 0.0
	for _, s := range sizes {
		if s > 0 {
			p := float64(s) / float64(n)
			h -= p * math.Log(p)
		}
	}
	return h
}

// expectedMutualInfo is E[MI] under the hypergeometric model for row sums a and column sums b
// over n points (Vinh et al. 2010, eq. 24a): for each cell, the sum over its possible counts
// x = max(1, a_i+b_j−n)..min(a_i, b_j) of (x/n)·log(n·x/(a_i·b_j)) times the hypergeometric
// probability of x, a_i! b_j! (n−a_i)! (n−b_j)! / (n! x! (a_i−x)! (b_j−x)! (n−a_i−b_j+x)!),
// taken in log space.
func expectedMutualInfo(a, b []int, n int) float64 {
	lf := func(x int) float64 { v, _ := math.Lgamma(float64(x) + 1); return v }
	fn := float64(n)
	lfn := lf(n)
	emi := 0.0
	for _, ai := range a {
		for _, bj := range b {
			base := lf(ai) + lf(bj) + lf(n-ai) + lf(n-bj) - lfn
			for x := max(1, ai+bj-n); x <= min(ai, bj); x++ {
				fx := float64(x)
				logP := base - lf(x) - lf(ai-x) - lf(bj-x) - lf(n-ai-bj+x)
				emi += fx / fn * math.Log(fn*fx/(float64(ai)*float64(bj))) * math.Exp(logP)
			}
		}
	}
	return emi
}

// ReferenceClusters returns the number of clusters of a reference labelling: its distinct
// non-zero labels (0 is noise), the k at which the partition scores cut a tree.
func ReferenceClusters(ref []int) int {
	seen := map[int]bool{}
	for _, c := range ref {
		if c != 0 {
			seen[c] = true
		}
	}
	return len(seen)
}

// BestOverReferences scores a tree's partitions against several reference labellings the way
// ClustBench's get_score does: for each reference ref (0 = noise), the partition cut(k) at that
// reference's number of clusters k (its distinct non-zero labels; for the suite's labels 1..K,
// get_score's max label) is scored by score(pred, ref), and the largest score is returned with
// the index of its reference. NaN scores are skipped (get_score's nanmax), as is a reference of
// noise only, which has no k; when every score is NaN, best is NaN and bestRef −1. cut is
// called once per distinct k. An error from cut is returned as is, with the reference's index.
func BestOverReferences(cut func(k int) ([]int, error), refs [][]int, score func(pred, ref []int) float64) (best float64, bestRef int, err error) {
	best, bestRef = math.NaN(), -1
	cuts := map[int][]int{}
	for r, ref := range refs {
		k := ReferenceClusters(ref)
		if k == 0 {
			continue
		}
		pred, ok := cuts[k]
		if !ok {
			if pred, err = cut(k); err != nil {
				return math.NaN(), -1, fmt.Errorf("reference labelling %d (k = %d): %w", r, k, err)
			}
			cuts[k] = pred
		}
		if s := score(pred, ref); !math.IsNaN(s) && (bestRef < 0 || s > best) {
			best, bestRef = s, r
		}
	}
	return best, bestRef, nil
}

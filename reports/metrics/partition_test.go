package metrics

import (
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

func digits(s string) []int {
	out := make([]int, len(s))
	for i, c := range s {
		out[i] = int(c - '0')
	}
	return out
}

// partitionRefs are labellings (one digit per point, reference 0 = noise) with their scores from
// Debian's python3-sklearn 1.2.1 (adjusted_rand_score, adjusted_mutual_info_score with its default
// arithmetic normalisation, fowlkes_mallows_score, on the non-noise points) and the NCA of a
// Python brute force over all injective matchings of the formula of genieclust 1.1.5's
// Ccompare_partitions_nca (missing predicted clusters as zero columns), numpy default_rng(2024).
// The cases have K = L, K > L (4 reference clusters, 3 predicted) and K < L.
var partitionRefs = []struct {
	pred, ref          string
	nca, ari, ami, fmi float64
}{
	{"131111331313311131112232312131", "131111333311311132112232312231", 0.7476190476190476, 0.6064594924684489, 0.5765780122889268, 0.7530067018203285},
	{"2111311231331112113311323121332321123322", "2110433130401003400311323122002321343022", 0.45, 0.30187409401532406, 0.29873369691139146, 0.5001848646349907},
	{"2213225122152152142312124", "2213222122222012132012123", 0.6428571428571428, 0.5890542645937614, 0.5638967169614061, 0.7460117946909428},
	{"11312152151523441414242141421532353353143514233153", "10310152150000401324240100020514353550153012033053", 0.7159722222222222, 0.5642629384351239, 0.5598703689856191, 0.6481481481481481},
	{"12111131113211322214", "22121121111211122211", 0.375, 0.30317848410757947, 0.276659994532985, 0.600375351929112},
	{"534626225334263256633464145224151315534522616166511621624511", "461602324363262256603460145520365010414126610145415022655040", 0.3822727272727272, 0.18200486002329597, 0.1892540007450761, 0.31088082901554404},
}

func TestPartitionScoresReference(t *testing.T) {
	// Sums of at most a few hundred terms of size ≤ 1: 1e-12 absolute. AMI divides by a
	// difference of entropies; the same tolerance holds for these cases.
	const tol = 1e-12
	for _, c := range partitionRefs {
		pred, ref := digits(c.pred), digits(c.ref)
		for _, s := range []struct {
			name      string
			got, want float64
		}{
			{"NCA", NormalizedClusteringAccuracy(pred, ref), c.nca},
			{"ARI", AdjustedRand(pred, ref), c.ari},
			{"AMI", AdjustedMutualInfo(pred, ref), c.ami},
			{"FM", FowlkesMallows(pred, ref), c.fmi},
		} {
			if math.Abs(s.got-s.want) > tol {
				t.Errorf("%s(%s, %s) = %.17g, reference %.17g", s.name, c.pred, c.ref, s.got, s.want)
			}
		}
	}
}

// ncaBrute is NCA by its definition, over every injective matching of the reference clusters to
// the predicted ones padded with empty clusters. Exponential; for a few clusters only.
func ncaBrute(pred, ref []int) float64 {
	var refs, preds []int
	for i, r := range ref {
		if r == 0 {
			continue
		}
		if !slices.Contains(refs, r) {
			refs = append(refs, r)
		}
		if !slices.Contains(preds, pred[i]) {
			preds = append(preds, pred[i])
		}
	}
	k := len(refs)
	if k < 2 {
		return math.NaN()
	}
	for len(preds) < k {
		preds = append(preds, math.MinInt) // an empty cluster
	}
	share := func(r, p int) float64 {
		in, all := 0, 0
		for i := range ref {
			if ref[i] == r {
				all++
				if pred[i] == p {
					in++
				}
			}
		}
		return float64(in) / float64(all)
	}
	best := math.Inf(-1)
	used := make([]bool, len(preds))
	var rec func(i int, sum float64)
	rec = func(i int, sum float64) {
		if i == k {
			best = max(best, sum)
			return
		}
		for j, p := range preds {
			if !used[j] {
				used[j] = true
				rec(i+1, sum+share(refs[i], p))
				used[j] = false
			}
		}
	}
	rec(0, 0)
	return (best - 1) / float64(k-1)
}

// pairsBrute counts unordered pairs of non-noise points together in both, in pred only, in ref
// only, and all pairs, by enumeration.
func pairsBrute(pred, ref []int) (both, predOnly, refOnly, all int) {
	for i := range ref {
		for j := i + 1; j < len(ref); j++ {
			if ref[i] == 0 || ref[j] == 0 {
				continue
			}
			all++
			p, r := pred[i] == pred[j], ref[i] == ref[j]
			switch {
			case p && r:
				both++
			case p:
				predOnly++
			case r:
				refOnly++
			}
		}
	}
	return
}

func randomPartition(rng *rand.Rand, n, k int, noise float64) []int {
	out := make([]int, n)
	for i := range out {
		if rng.Float64() >= noise {
			out[i] = 1 + rng.IntN(k)
		}
	}
	return out
}

func TestPartitionScoresBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for range 400 {
		n := 2 + rng.IntN(30)
		ref := randomPartition(rng, n, 1+rng.IntN(5), []float64{0, 0.2}[rng.IntN(2)])
		pred := randomPartition(rng, n, 1+rng.IntN(6), 0)
		if got, want := NormalizedClusteringAccuracy(pred, ref), ncaBrute(pred, ref); !same(got, want) {
			t.Fatalf("NCA(%v, %v) = %v, brute force %v", pred, ref, got, want)
		}
		// Hubert & Arabie's formula from the unordered pair counts, and FM as the geometric mean of
		// pair precision and recall.
		both, predOnly, refOnly, all := pairsBrute(pred, ref)
		if all == 0 {
			continue
		}
		p, r := float64(both+predOnly), float64(both+refOnly)
		expected := p * r / float64(all)
		wantARI := (float64(both) - expected) / ((p+r)/2 - expected)
		if predOnly == 0 && refOnly == 0 {
			wantARI = 1
		}
		if got := AdjustedRand(pred, ref); math.Abs(got-wantARI) > 1e-12 {
			t.Fatalf("ARI(%v, %v) = %v, Hubert–Arabie %v", pred, ref, got, wantARI)
		}
		wantFM := 0.0
		if both > 0 {
			wantFM = float64(both) / math.Sqrt(p*r)
		}
		if got := FowlkesMallows(pred, ref); math.Abs(got-wantFM) > 1e-12 {
			t.Fatalf("FM(%v, %v) = %v, brute force %v", pred, ref, got, wantFM)
		}
	}
}

func TestPartitionScoresEdgeCases(t *testing.T) {
	scores := []struct {
		name string
		f    func(pred, ref []int) float64
	}{
		{"NCA", NormalizedClusteringAccuracy}, {"ARI", AdjustedRand},
		{"AMI", AdjustedMutualInfo}, {"FM", FowlkesMallows},
	}
	nan := math.NaN()
	for _, c := range []struct {
		name      string
		pred, ref []int
		want      [4]float64 // NCA, ARI, AMI, FM
	}{
		// Relabelled identical partitions; the noise point's prediction is ignored.
		{"identical", []int{3, 3, 1, 1, 2, 9}, []int{1, 1, 2, 2, 3, 0}, [4]float64{1, 1, 1, 1}},
		{"all noise", []int{1, 2, 1}, []int{0, 0, 0}, [4]float64{nan, nan, nan, nan}},
		// One reference cluster: NCA's normalisation is 0/0; scikit-learn's conventions for the
		// others (one cluster each: ARI = AMI = 1 and FM = 1).
		{"one cluster each", []int{1, 1, 1}, []int{1, 1, 1}, [4]float64{nan, 1, 1, 1}},
		// A cut with k > K: reference cluster 1 is split in halves, so its matched share is 1/2
		// and NCA = (1/2 + 1 − 1)/1; of the 15 pairs, 3 are together in both, 3 in pred, 7 in ref: FM = 3/√(3·7),
		// ARI = (3 − 3·7/15)/((3+7)/2 − 3·7/15) = 4/9.
		{"k > K", []int{1, 1, 2, 2, 3, 3}, []int{1, 1, 1, 1, 2, 2}, [4]float64{0.5, 4.0 / 9, nan, math.Sqrt(3.0 / 7)}},
		// The cut's third cluster holds only the noise point: K = 3 reference clusters against
		// 2 predicted, so one reference cluster is unmatched: (1 + 1 + 0 − 1)/2.
		{"cluster of noise", []int{1, 1, 2, 2, 2, 2, 3}, []int{1, 1, 2, 2, 3, 3, 0}, [4]float64{0.5, nan, nan, nan}},
	} {
		for s, sc := range scores {
			want := c.want[s]
			if c.name == "k > K" && sc.name == "AMI" || c.name == "cluster of noise" && s > 0 {
				continue // not checked by hand
			}
			if got := sc.f(c.pred, c.ref); !same(got, want) {
				t.Errorf("%s: %s = %v, want %v", c.name, sc.name, got, want)
			}
		}
	}
}

func TestAdjustedMutualInfoProperties(t *testing.T) {
	// AMI is symmetric and 1 for equal partitions of more than one cluster, unless all clusters
	// are singletons (0/0, see the doc).
	rng := rand.New(rand.NewPCG(9, 10))
	for range 100 {
		n := 2 + rng.IntN(40)
		a, b := randomPartition(rng, n, 1+rng.IntN(5), 0), randomPartition(rng, n, 1+rng.IntN(5), 0)
		if x, y := AdjustedMutualInfo(a, b), AdjustedMutualInfo(b, a); math.Abs(x-y) > 1e-12 {
			t.Fatalf("AMI(%v, %v) = %v but %v swapped", a, b, x, y)
		}
		if x := AdjustedMutualInfo(a, a); math.Abs(x-1) > 1e-12 && len(countLabels(a)) < n {
			t.Fatalf("AMI(%v, itself) = %v", a, x)
		}
	}
}

func TestMaxAssignment(t *testing.T) {
	// Against all permutations, on random integer weights (exact in float64).
	rng := rand.New(rand.NewPCG(11, 12))
	for range 300 {
		r := 1 + rng.IntN(5)
		c := r + rng.IntN(3)
		w := make([][]float64, r)
		for i := range w {
			w[i] = make([]float64, c)
			for j := range w[i] {
				w[i][j] = float64(rng.IntN(10))
			}
		}
		col := maxAssignment(w)
		got := 0.0
		seen := map[int]bool{}
		for i, j := range col {
			if seen[j] {
				t.Fatalf("%v: column %d used twice in %v", w, j, col)
			}
			seen[j] = true
			got += w[i][j]
		}
		best := math.Inf(-1)
		used := make([]bool, c)
		var rec func(i int, s float64)
		rec = func(i int, s float64) {
			if i == r {
				best = max(best, s)
				return
			}
			for j := range c {
				if !used[j] {
					used[j] = true
					rec(i+1, s+w[i][j])
					used[j] = false
				}
			}
		}
		rec(0, 0)
		if got != best {
			t.Fatalf("%v: assignment %v sums to %v, best %v", w, col, got, best)
		}
	}
}

func TestBestOverReferences(t *testing.T) {
	tr := newick(t, "(((0,1),(2,3)),(4,5));", 6)
	cut := func(k int) ([]int, error) { return Cut(tr, nil, k) }
	refs := [][]int{
		{1, 1, 1, 1, 2, 2}, // k = 2: the cut matches exactly
		{1, 2, 1, 2, 3, 0}, // k = 3: the cut {0,1},{2,3},{4,5} halves clusters 1 and 2: NCA 1/2
		{0, 0, 0, 0, 0, 0}, // noise only: skipped
	}
	best, which, err := BestOverReferences(cut, refs, NormalizedClusteringAccuracy)
	if err != nil || best != 1 || which != 0 {
		t.Errorf("got (%v, %d, %v), want (1, 0, nil)", best, which, err)
	}
	// The second reference alone: the cut at k = 3 splits the largest cluster {0,1,2,3}.
	best, which, err = BestOverReferences(cut, refs[1:], NormalizedClusteringAccuracy)
	if err != nil || best != 0.5 || which != 0 {
		t.Errorf("got (%v, %d, %v), want (0.5, 0, nil)", best, which, err)
	}
	// Only noise: NaN and −1.
	if best, which, err = BestOverReferences(cut, refs[2:], NormalizedClusteringAccuracy); err != nil || !math.IsNaN(best) || which != -1 {
		t.Errorf("noise only: got (%v, %d, %v)", best, which, err)
	}
	// The cut's error is returned.
	boom := errors.New("boom")
	if _, _, err = BestOverReferences(func(int) ([]int, error) { return nil, boom }, refs, AdjustedRand); !errors.Is(err, boom) {
		t.Errorf("cut error: got %v", err)
	}
}

// countLabels maps each label to its number of points.
func countLabels(l []int) map[int]int {
	m := map[int]int{}
	for _, x := range l {
		m[x]++
	}
	return m
}

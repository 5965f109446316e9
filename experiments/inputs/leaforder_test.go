package inputs

import (
	"context"
	"fmt"
	"maps"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/hcbench/hcbench/algorithms/model"
	"github.com/hcbench/hcbench/algorithms/model/correlation"
	"github.com/hcbench/hcbench/algorithms/trellis"
	"github.com/hcbench/hcbench/datasets/datadir/datatest"
	"github.com/hcbench/hcbench/experiments/item"
	"github.com/hcbench/hcbench/experiments/registry"
)

// TestLeafOrder: every source's items give their leaves in an order drawn from the item's seed
// (not the data's, and the same on every load), and renumbered back they are the data's items to
// the bit: vectors, labels, names, positions, the jet, the truth tree and its log-likelihood, the
// correlation weights; and the exact trellis's log Z is the same to 1e-12 relative (it sums the
// same terms in another order). An algorithm is given none of what places the leaves in the data.
func TestLeafOrder(t *testing.T) {
	dir := t.TempDir()
	writeJets(t, filepath.Join(dir, "jets.jsonl"), generatedJets(t, 3))
	if err := os.WriteFile(filepath.Join(dir, "d.csv"), []byte(labelledCSV), 0o644); err != nil {
		t.Fatal(err)
	}
	entries := map[string]string{
		"ginkgo":  "{name: ginkgo, generator: ginkgo, jets: 3, min_leaves: 7, max_leaves: 9, t_cut: 16}",
		"jets":    "{name: jets, file: jets.jsonl}",
		"csv":     "{name: csv, file: d.csv, name_column: name, unknown_label: Unknown}",
		"mixture": "{name: mixture, generator: mixture, items: 3, points: 12, components: 3}",
	}
	if p, ok := datatest.Optional(t, "pam50/220arrays_nonUBCcommon+12normal_50g.txt", "the pam50 source"); ok {
		entries["pam50"] = fmt.Sprintf("{name: pam50, file: %q, format: pam50, subsamples: 3}", p)
	}
	if _, ok := datatest.Optional(t, "clustbench/wut/x1.data.gz", "the clustbench source"); ok {
		entries["clustbench"] = "{name: clustbench, generator: clustbench, datasets: [wut/x1, sipu/compound], jitter: 1e-6, split_model: correlation}"
	}
	for _, s := range registry.Sources() {
		if _, ok := entries[s.Name]; !ok && s.Name != "pam50" && s.Name != "clustbench" {
			t.Errorf("source %s has no entry in this test", s.Name)
		}
	}
	var b strings.Builder
	b.WriteString("version: 1\nname: o\nseed: 7\ndatasets:\n")
	for _, name := range slices.Sorted(maps.Keys(entries)) {
		b.WriteString("  - " + entries[name] + "\n")
	}
	b.WriteString("algorithms: [truth]\n")
	cfg := parse(t, dir, b.String())
	ctx := context.Background()
	for _, ds := range cfg.Datasets {
		d, err := Open(ctx, cfg, ds)
		if err != nil {
			t.Fatal(err)
		}
		shuffled := 0
		for i := range d.Len() {
			it, err := d.Load(ctx, i)
			if err != nil {
				t.Fatal(err)
			}
			ref, err := d.load(ctx, i) // the item in its data's order
			if err != nil {
				t.Fatal(err)
			}
			checkPresented(t, fmt.Sprintf("%s item %d", d.Name, i), it, ref)
			if !slices.Equal(it.Order, identity(len(it.Order))) {
				shuffled++
			}
			again, err := d.Load(ctx, i)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(again.Order, it.Order) || again.OrderSeed != it.OrderSeed || it.OrderSeed == 0 {
				t.Errorf("%s item %d: order %v (seed %d), then %v (seed %d)", d.Name, i, it.Order, it.OrderSeed, again.Order, again.OrderSeed)
			}
		}
		// Every item has 4 or more leaves: all of them kept in the data's order by chance is at
		// most (1/24)^items.
		if shuffled == 0 {
			t.Errorf("%s: every item gives its leaves in the data's order", d.Name)
		}
	}
}

// checkPresented checks that it, as Load returns it, is ref (the item in its data's order) with
// its leaves renumbered by it.Order.
func checkPresented(t *testing.T, what string, it, ref *item.Item) {
	t.Helper()
	n := ref.Leaves()
	if it.Leaves() != n || !slices.Equal(slices.Sorted(slices.Values(it.Order)), identity(n)) {
		t.Fatalf("%s: order %v over %d leaves is not a permutation of its %d", what, it.Order, it.Leaves(), n)
	}
	for _, c := range []struct {
		field     string
		got, want any
	}{
		{"vectors", item.InData(it, it.Vectors), ref.Vectors},
		{"labels", item.InData(it, it.Labels), ref.Labels},
		{"names", item.InData(it, it.Names), ref.Names},
		{"positions", item.InData(it, it.Positions), ref.Positions},
		{"jet", it.Jet, ref.Jet},
		{"truth", it.DataTree(it.Truth), ref.Truth},
		{"warnings", it.Warnings, ref.Warnings},
	} {
		if !reflect.DeepEqual(c.got, c.want) {
			t.Errorf("%s: %s in the data's order %v, want %v", what, c.field, c.got, c.want)
		}
	}
	if len(it.References) != len(ref.References) {
		t.Errorf("%s: %d references, %d in the data's order", what, len(it.References), len(ref.References))
	}
	for k := range it.References {
		if got := item.InData(it, it.References[k]); !slices.Equal(got, ref.References[k]) {
			t.Errorf("%s: reference %d in the data's order %v, want %v", what, k, got, ref.References[k])
		}
	}
	if math.Float64bits(it.TruthLogLikelihood) != math.Float64bits(ref.TruthLogLikelihood) {
		t.Errorf("%s: truth log-likelihood %v, %v in the data's order", what, it.TruthLogLikelihood, ref.TruthLogLikelihood)
	}
	if it.Truth != nil {
		// Scored by the renumbered model, the renumbered truth scores as before, to the bit.
		ll, err := model.TreeLogLikelihood(it.Model, it.Truth)
		if err != nil || math.Float64bits(ll) != math.Float64bits(ref.TruthLogLikelihood) {
			t.Errorf("%s: the renumbered truth scores %v (%v), %v in the data's order", what, ll, err, ref.TruthLogLikelihood)
		}
	}
	if cm, ok := it.Model.(*correlation.Model); ok {
		w, rw := cm.Weights(), ref.Model.(*correlation.Model).Weights()
		for i := range n {
			for j := range n {
				if w[i][j] != rw[it.Order[i]][it.Order[j]] {
					t.Fatalf("%s: w[%d][%d] = %v, the data's w[%d][%d] = %v", what, i, j, w[i][j], it.Order[i], it.Order[j], rw[it.Order[i]][it.Order[j]])
				}
			}
		}
	}
	if it.Model != nil && n <= 12 {
		// The exact trellis sums over every tree: the same log Z, up to the order of the sums.
		z, zr := logZ(t, it.Model), logZ(t, ref.Model)
		if !(math.Abs(z-zr) <= 1e-12*math.Abs(zr)) {
			t.Errorf("%s: log Z %v, %v in the data's order", what, z, zr)
		}
	}
	given := it.ForAlgorithm()
	if given.Names != nil || given.Positions != nil || given.Order != nil || given.References != nil || given.Model != it.Model || !reflect.DeepEqual(given.Labels, it.Labels) {
		t.Errorf("%s: an algorithm is given names %v, positions %v, order %v", what, given.Names, given.Positions, given.Order)
	}
	if it.Jet != nil {
		leaves := make([][4]float64, n)
		for i, o := range it.Order {
			leaves[i] = ref.Jet.Leaves[o]
		}
		if !reflect.DeepEqual(given.Jet.Leaves, leaves) || given.Jet.HasTruth() || given.Jet.Content != nil {
			t.Errorf("%s: an algorithm is given the jet %+v, want its leaves in the item's order and no tree", what, given.Jet)
		}
	}
}

func logZ(t *testing.T, m model.Model) float64 {
	t.Helper()
	tr, err := trellis.Build(t.Context(), m, trellis.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return tr.LogZ()
}

func identity(n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = i
	}
	return out
}

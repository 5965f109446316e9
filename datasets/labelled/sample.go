package labelled

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/hcbench/hcbench/internal/english"
)

// groups returns the row indices of each known label, in file order, the known labels in sorted
// order, and the rows with an unknown label. Without labels every row is unknown.
func groups(d *Data) (byLabel map[string][]int, labels []string, unknown []int, err error) {
	if d == nil {
		return nil, nil, nil, errors.New("no data")
	}
	if d.Labels != nil && len(d.Labels) != len(d.X) {
		return nil, nil, nil, fmt.Errorf("data have %d labels for %d items", len(d.Labels), len(d.X))
	}
	byLabel = map[string][]int{}
	for i := range d.X {
		l := ""
		if d.Labels != nil {
			l = d.Labels[i]
		}
		if l == "" {
			unknown = append(unknown, i)
			continue
		}
		if byLabel[l] == nil {
			labels = append(labels, l)
		}
		byLabel[l] = append(byLabel[l], i)
	}
	slices.Sort(labels)
	return byLabel, labels, unknown, nil
}

// checkCounts reports a label, or the unknown group, with fewer rows than asked for.
func checkCounts(byLabel map[string][]int, labels []string, unknownRows []int, perLabel, unknown int) error {
	if perLabel < 0 || unknown < 0 {
		return fmt.Errorf("per-label count %d and unknown count %d must not be negative", perLabel, unknown)
	}
	for _, l := range labels {
		if n := len(byLabel[l]); n < perLabel {
			return fmt.Errorf("label %q has %s, fewer than the %d asked for per label", l, english.Count(n, "item", "items"), perLabel)
		}
	}
	if n := len(unknownRows); n < unknown {
		return fmt.Errorf("%s an unknown label, fewer than the %d asked for", english.Count(n, "item has", "items have"), unknown)
	}
	return nil
}

// Stratified draws, for each known label in sorted order, perLabel items without replacement, then
// unknown items among those with the unknown label "", using rng (pam50.md §6: two of each of the
// five subtypes and two unknown give 12 items). It returns row indices sorted ascending (pam50.md
// §6), which lists rows grouped by label where the file is: hcbench gives them to its algorithms
// in an order drawn from the item's seed instead (experiments/item).
//
// It never returns two items whose vectors are identical as X holds them now (NaN matching NaN):
// a drawn item identical to one already chosen is discarded and another is drawn, as pam50.md §6
// asks for the duplicated pair 55/56 (0-based 54/55). It fails with an error when a label, or the
// unknown group, has fewer than the requested items, or too few distinct vectors. Data without
// labels (Labels nil) have only unknown items; perLabel is then unused.
//
// The draw depends only on d and on what rng yields, so a seeded rng gives a reproducible sample.
func Stratified(d *Data, rng *rand.Rand, perLabel, unknown int) ([]int, error) {
	if rng == nil {
		return nil, errors.New("stratified sample: no random number generator")
	}
	byLabel, labels, unknownRows, err := groups(d)
	if err != nil {
		return nil, fmt.Errorf("stratified sample: %w", err)
	}
	if err := checkCounts(byLabel, labels, unknownRows, perLabel, unknown); err != nil {
		return nil, fmt.Errorf("stratified sample: %w", err)
	}
	var chosen []int
	draw := func(rows []int, want int, group string) error {
		pool := slices.Clone(rows)
		got := 0
		for k := 0; got < want; k++ {
			if k == len(pool) {
				return fmt.Errorf("stratified sample: %s has %d items but only %d with vectors distinct from each other and from the items already drawn, fewer than the %d asked for",
					group, len(rows), got, want)
			}
			// Partial Fisher–Yates: pool[k] becomes a uniform pick among pool[k:].
			j := k + rng.IntN(len(pool)-k)
			pool[k], pool[j] = pool[j], pool[k]
			c := pool[k]
			if slices.ContainsFunc(chosen, func(i int) bool { return sameVector(d.X[i], d.X[c]) }) {
				continue // redraw
			}
			chosen = append(chosen, c)
			got++
		}
		return nil
	}
	for _, l := range labels {
		if err := draw(byLabel[l], perLabel, fmt.Sprintf("label %q", l)); err != nil {
			return nil, err
		}
	}
	if err := draw(unknownRows, unknown, "the unknown label"); err != nil {
		return nil, err
	}
	slices.Sort(chosen)
	return chosen, nil
}

// FirstPerLabel is the deterministic alternative to Stratified (pam50.md §6, `first_two`): the
// first perLabel items of each known label and the first unknown items with the unknown label, in
// file order, returned as row indices sorted ascending. It fails when a label, or the unknown
// group, has too few items. Unlike Stratified it does not skip identical vectors: it takes the
// first items whatever they hold (for pam50 the duplicated Basal pair, rows 54 and 55, is reached
// only with perLabel ≥ 44).
func FirstPerLabel(d *Data, perLabel, unknown int) ([]int, error) {
	byLabel, labels, unknownRows, err := groups(d)
	if err != nil {
		return nil, fmt.Errorf("first items per label: %w", err)
	}
	if err := checkCounts(byLabel, labels, unknownRows, perLabel, unknown); err != nil {
		return nil, fmt.Errorf("first items per label: %w", err)
	}
	out := slices.Clone(unknownRows[:unknown])
	for _, l := range labels {
		out = append(out, byLabel[l][:perLabel]...)
	}
	slices.Sort(out)
	return out, nil
}

// sameVector reports whether a and b hold the same values, a NaN matching a NaN.
func sameVector(a, b []float64) bool {
	if len(a) != len(b) {
		return false
	}
	for k := range a {
		if a[k] != b[k] && !(math.IsNaN(a[k]) && math.IsNaN(b[k])) {
			return false
		}
	}
	return true
}

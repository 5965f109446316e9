package significance

import (
	"fmt"
	"testing"
)

// benchTables is the size the issue bounds: 69 data sets × 8 algorithms × 4 metrics, a few
// failed cells, ties in two of the metrics.
func benchTables() []Table {
	var tables []Table
	for m := range 4 {
		value := func(p, a int) float64 {
			v := formulaValue(p+m, a)
			if m%2 == 1 {
				v = float64(int(v*20)) / 20 // coarse scores: ties and zero differences
			}
			return v
		}
		tables = append(tables, formulaTable(fmt.Sprintf("metric%d", m), m != 3, 69, 8, value, formulaOK))
	}
	return tables
}

// BenchmarkCompareAll times the whole comparison of the size with the default options
// (DefaultResamples bootstrap resamples, DefaultBayesSamples posterior samples per pair).
func BenchmarkCompareAll(b *testing.B) {
	tables := benchTables()
	for b.Loop() {
		if _, err := CompareAll(tables, Options{Seed: 1}); err != nil {
			b.Fatal(err)
		}
	}
}

package significance

import (
	"fmt"
	"math"
)

func nan() float64         { return math.NaN() }
func isNaN(x float64) bool { return math.IsNaN(x) }

// formulaValue is algorithm a's value on problem p of the formula table, the same expression in
// the Python scripts that produced the references (integer arithmetic, then one correctly
// rounded division and one product and sum, so Go and numpy agree bit for bit).
func formulaValue(p, a int) float64 {
	return float64((p*37+a*101+p*a*7)%97)/97 + 0.01*float64(a)
}

// formulaOK marks a few cells of the formula table failed.
func formulaOK(p, a int) bool { return (p*13+a*5)%29 != 0 }

// formulaGrid is the formula table as value[p][a] with NaN for failed cells.
func formulaGrid(problems, algorithms int) [][]float64 {
	return valueGrid(problems, algorithms, formulaValue, formulaOK)
}

// valueGrid is value(p, a) as value[p][a], NaN where ok(p, a) is false.
func valueGrid(problems, algorithms int, value func(p, a int) float64, ok func(p, a int) bool) [][]float64 {
	g := make([][]float64, problems)
	for p := range g {
		g[p] = make([]float64, algorithms)
		for a := range g[p] {
			g[p][a] = math.NaN()
			if ok(p, a) {
				g[p][a] = value(p, a)
			}
		}
	}
	return g
}

// completeBlocks keeps the rows without NaN.
func completeBlocks(g [][]float64) [][]float64 {
	var out [][]float64
rows:
	for _, row := range g {
		for _, v := range row {
			if math.IsNaN(v) {
				continue rows
			}
		}
		out = append(out, row)
	}
	return out
}

// gridTable turns value[p][a] (NaN = failed) into a Table named a0, a1, … and p00, p01, ….
func gridTable(m Metric, g [][]float64) Table {
	t := Table{Metric: m}
	for a := range g[0] {
		t.Algorithms = append(t.Algorithms, fmt.Sprintf("a%d", a))
	}
	for p, row := range g {
		t.Problems = append(t.Problems, fmt.Sprintf("p%02d", p))
		for a, v := range row {
			t.Cells = append(t.Cells, Cell{Problem: t.Problems[p], Algorithm: t.Algorithms[a], Value: v, OK: !math.IsNaN(v)})
		}
	}
	return t
}

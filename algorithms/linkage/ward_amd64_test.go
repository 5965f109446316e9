package linkage

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestWardSpan compares Ward merges with wardSpan's vector loop and with wardSpanGo bit for bit,
// the whole condensed array afterwards: m slots with random distances over seven decades and
// random cluster sizes, about a fifth of the slots retired, a random pair x < y merged at
// distances dxy from 0 to beyond all others (where the update's square is negative and clamps to
// 0). Spans of every length mod 4 occur, so the scalar tails are compared too.
func TestWardSpan(t *testing.T) {
	if !useAVX2 {
		t.Skip("no AVX2")
	}
	defer func(v bool) { useAVX2 = v }(useAVX2)
	rng := rand.New(rand.NewPCG(5, 6))
	for rep := range 400 {
		m := 2 + rng.IntN(60)
		d := make([]float64, m*(m-1)/2)
		for k := range d {
			d[k] = rng.Float64() * math.Pow(10, float64(rng.IntN(7)-3))
		}
		size := make([]float64, m)
		for s := range size {
			size[s] = float64(1 + rng.IntN(50))
		}
		x := rng.IntN(m - 1)
		y := x + 1 + rng.IntN(m-1-x)
		retired := make([]bool, m)
		for s := range retired {
			retired[s] = s != x && s != y && rng.IntN(5) == 0
		}
		dxy := []float64{0, 1e-9, 0.3, 2, 1e4}[rep%5]
		var out [2][]float64
		for k, vector := range []bool{true, false} {
			useAVX2 = vector
			c := newChainState(m, slices.Clone(d), Ward)
			copy(c.size, size)
			c.inv = make([]float64, 151) // sizes up to 50: nx + ny + ns ≤ 150
			for k := 1; k < len(c.inv); k++ {
				c.inv[k] = 1 / float64(k)
			}
			c.act = c.act[:0]
			for s := range m {
				if retired[s] {
					c.size[s] = 0
				} else {
					c.act = append(c.act, int32(s))
				}
			}
			c.merge(x, y, dxy, Ward)
			out[k] = c.d
		}
		for k := range d {
			if math.Float64bits(out[0][k]) != math.Float64bits(out[1][k]) {
				i, j := pairOf(m, k)
				t.Fatalf("rep %d, m = %d, merge (%d, %d): entry (%d, %d) is %v, want %v", rep, m, x, y, i, j, out[0][k], out[1][k])
			}
		}
	}
}

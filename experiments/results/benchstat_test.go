package results

import (
	"bytes"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"testing"

	"golang.org/x/perf/benchfmt"
	"golang.org/x/perf/benchmath"
	"golang.org/x/perf/benchproc"
)

// benchstatCell is one cell of benchstat's default comparison (-table .config,.unit -row
// .fullname -col .file): a row's samples in the first file and in the second, and benchstat's
// comparison of them under the unit's assumption at the default alpha.
type benchstatCell struct {
	unit, row string
	old, new  []float64
	cmp       benchmath.Comparison
}

// benchstatDefault groups the results of two benchmark files as benchstat does with its default
// flags (its benchtab builder is internal, so the projections are made here with the same
// benchproc calls) and compares each row of each table. It also checks benchstat's hidden-
// variation warning: the residue of every cell (the keys no projection takes) is one value.
func benchstatDefault(t *testing.T, old, new []byte) (cells []benchstatCell, tables int) {
	t.Helper()
	dir := t.TempDir()
	paths := []string{filepath.Join(dir, "old.txt"), filepath.Join(dir, "new.txt")}
	for i, b := range [][]byte{old, new} {
		if err := os.WriteFile(paths[i], b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	filter, err := benchproc.NewFilter("*")
	if err != nil {
		t.Fatal(err)
	}
	var parser benchproc.ProjectionParser
	tableBy, unitField, err := parser.ParseWithUnit(".config", filter)
	if err != nil {
		t.Fatal(err)
	}
	rowBy, err := parser.Parse(".fullname", filter)
	if err != nil {
		t.Fatal(err)
	}
	colBy, err := parser.Parse(".file", filter)
	if err != nil {
		t.Fatal(err)
	}
	residue := parser.Residue()

	type cellKey struct {
		table, row benchproc.Key
	}
	values := map[cellKey]map[string][]float64{}
	residues := map[cellKey]map[benchproc.Key]bool{}
	var order []cellKey
	tableSet := map[benchproc.Key]bool{}
	files := benchfmt.Files{Paths: paths}
	for files.Scan() {
		switch r := files.Result().(type) {
		case *benchfmt.SyntaxError:
			t.Errorf("syntax error: %v", r)
		case *benchfmt.Result:
			col := colBy.Project(r).Get(colBy.Fields()[0])
			for i, tk := range tableBy.ProjectValues(r) {
				k := cellKey{tk, rowBy.Project(r)}
				if values[k] == nil {
					values[k], residues[k] = map[string][]float64{}, map[benchproc.Key]bool{}
					order = append(order, k)
				}
				values[k][col] = append(values[k][col], r.Values[i].Value)
				residues[k][residue.Project(r)] = true
				tableSet[tk] = true
			}
		}
	}
	if err := files.Err(); err != nil {
		t.Fatal(err)
	}
	units := benchfmt.UnitMetadataMap(files.Units())
	for _, k := range order {
		if len(residues[k]) != 1 {
			t.Errorf("row %s of table %s varies in keys no projection takes (benchstat would warn)", k.row, k.table)
		}
		unit := k.table.Get(unitField)
		c := benchstatCell{unit: unit, row: k.row.Get(rowBy.Fields()[0]), old: values[k][paths[0]], new: values[k][paths[1]]}
		if len(c.old) > 0 && len(c.new) > 0 {
			th := benchmath.DefaultThresholds
			c.cmp = units.GetAssumption(unit).Compare(benchmath.NewSample(c.old, &th), benchmath.NewSample(c.new, &th))
		}
		cells = append(cells, c)
	}
	return cells, len(tableSet)
}

// repeatedRun is a run of three algorithms on two data sets of six items each, every task run
// five times. An item's time grows with its index (as with its leaves: the last takes 2.25
// times the first), and each run of it varies by a few per cent (a deterministic jitter that
// differs by run), as timings do; factor slows the algorithm slow on every item. Every task
// reports two work counters, the same in every run.
func repeatedRun(run int, slow string, factor float64) (Manifest, []Record) {
	m := Manifest{Experiment: "rep", Revision: "abc", OS: "linux", Arch: "amd64", ConfigHash: "h",
		Datasets: []string{"jets", "mix"}, Algorithms: []string{"trellis", "greedy", "bhc"}}
	var recs []Record
	for _, ds := range m.Datasets {
		for i := range 6 {
			item := fmt.Sprint(i)
			for a, alg := range m.Algorithms {
				r := Record{Schema: RecordSchema, Key: "dataset=" + ds + "|item=" + item + "|algorithm=" + alg, Dataset: ds, Item: item,
					Algorithm: alg, AlgorithmName: alg, N: 5 + i, LogLikelihood: Log(-20 - float64(i) - 0.5*float64(a))}
				if alg == "bhc" {
					r.LogEvidence, r.Metrics = Log(-30-float64(i)), map[string]float64{"dendrogram_purity": 0.9 - 0.01*float64(i)}
				}
				r.Counters = map[string]int64{"pair_evals": int64(100 * (i + 1) * (a + 1)), "merges": int64(4 + i)}
				base := 0.001 * float64(1+a) * (1 + 0.25*float64(i))
				if alg == slow {
					base *= factor
				}
				for k := range 5 {
					// A deterministic jitter within ±4%, different in each run and repeat.
					jitter := 1 + 0.04*math.Sin(float64(1+run*97+k*13+i*7+a*3))
					r.Times = append(r.Times, base*jitter)
				}
				r.Seconds = Median(r.Times)
				recs = append(recs, r)
			}
		}
	}
	return m, recs
}

func benchFiles(t *testing.T, m Manifest, recs []Record) (times, quality []byte) {
	t.Helper()
	var b, q bytes.Buffer
	if err := writeBench(t.Context(), &b, m, recs); err != nil {
		t.Fatal(err)
	}
	if err := writeBenchQuality(t.Context(), &q, m, recs); err != nil {
		t.Fatal(err)
	}
	return b.Bytes(), q.Bytes()
}

// TestBenchstatRowPerDatasetAndAlgorithm: with benchstat's defaults, bench.txt of two runs of one
// config gives one row per data set and algorithm, with every run of every item as its samples
// (6 items × 5 runs = 30), no hidden variation, and no significant change between two runs
// whose times differ only by jitter; each work counter a table of its own with one row per data
// set and algorithm, one exact value per run (its total over the items), unchanged ("0.00%");
// bench-quality.txt one row per data set and algorithm per metric, each unchanged. Before
// repeats, bench.txt had a row per item with n = 1.
func TestBenchstatRowPerDatasetAndAlgorithm(t *testing.T) {
	m, old := repeatedRun(1, "", 1)
	_, new := repeatedRun(2, "", 1)
	oldB, oldQ := benchFiles(t, m, old)
	newB, newQ := benchFiles(t, m, new)

	cells, tables := benchstatDefault(t, oldB, newB)
	if tables != 3 || len(cells) != 3*6 {
		t.Fatalf("bench.txt: %d tables, %d rows; want 3 tables (sec/op, merges, pair-evals) of 6 rows (2 data sets × 3 algorithms)", tables, len(cells))
	}
	for _, c := range cells {
		switch c.unit {
		case UnitTime:
			if len(c.old) != 30 || len(c.new) != 30 {
				t.Errorf("row %s: n = %d and %d; want 30 samples each", c.row, len(c.old), len(c.new))
			}
			if c.cmp.P < c.cmp.Alpha {
				t.Errorf("row %s: significant change (p = %.3g) between runs that differ by jitter only", c.row, c.cmp.P)
			}
		case "merges", "pair-evals":
			// 6 items: merges 4+…+9 = 39.
			if len(c.old) != 1 || len(c.new) != 1 || c.cmp.FormatDelta(c.old[0], c.new[0]) != "0.00%" || c.unit == "merges" && c.old[0] != 39 {
				t.Errorf("counter row %s %s: %v → %v, want one equal total each", c.row, c.unit, c.old, c.new)
			}
		default:
			t.Errorf("row %s: unit %s", c.row, c.unit)
		}
	}

	cells, tables = benchstatDefault(t, oldQ, newQ)
	// neg-loglik on 6 rows, exact-gap on greedy and bhc of both data sets, neg-log-evidence and
	// purity on bhc of both.
	if tables != 4 || len(cells) != 6+4+2+2 {
		t.Errorf("bench-quality.txt: %d tables, %d rows; want 4 tables of 14 rows in all", tables, len(cells))
	}
	for _, c := range cells {
		// assume=exact: benchstat prints "0.00%" for equal values, a signed change otherwise.
		if len(c.old) != 1 || len(c.new) != 1 || c.cmp.FormatDelta(c.old[0], c.new[0]) != "0.00%" {
			t.Errorf("quality row %s %s: %v → %v, want one equal value each", c.row, c.unit, c.old, c.new)
		}
	}
}

// TestBenchstatFlagsSlowdown: a run in which one algorithm takes 1.5 times as long on every item
// is flagged by benchstat's defaults on that algorithm's rows, and on no other; a quality metric
// that changes on one item shows as a change of its row's mean, and a work counter one unit
// higher on one item as a rise of its row's total (4200 → 4201: an exact unit, never "~"), the other
// counters' rows unchanged.
func TestBenchstatFlagsSlowdown(t *testing.T) {
	m, old := repeatedRun(1, "", 1)
	_, new := repeatedRun(2, "greedy", 1.5)
	new[1].LogLikelihood = Log(new[1].LogLikelihood.Value() - 0.01) // jets, item 0, greedy
	new[1].Counters["pair_evals"]++
	oldB, oldQ := benchFiles(t, m, old)
	newB, newQ := benchFiles(t, m, new)
	cells, _ := benchstatDefault(t, oldB, newB)
	for _, c := range cells {
		if c.unit != UnitTime {
			d := c.cmp.FormatDelta(c.old[0], c.new[0])
			planted := c.row == "Hcbench/dataset=jets/algorithm=greedy" && c.unit == "pair-evals"
			if want := map[bool]string{true: "+0.02%", false: "0.00%"}[planted]; d != want {
				t.Errorf("counter row %s %s: %v → %v reads %s, want %s", c.row, c.unit, c.old, c.new, d, want)
			}
			continue
		}
		slowed := c.row == "Hcbench/dataset=jets/algorithm=greedy" || c.row == "Hcbench/dataset=mix/algorithm=greedy"
		if sig := c.cmp.P < c.cmp.Alpha; sig != slowed {
			t.Errorf("row %s: p = %.3g; want significant %v", c.row, c.cmp.P, slowed)
		}
		if slowed {
			if d := c.cmp.FormatDelta(Median(c.old), Median(c.new)); d[0] != '+' {
				t.Errorf("row %s: delta %s, want a rise", c.row, d)
			}
		}
	}
	cells, _ = benchstatDefault(t, oldQ, newQ)
	changed := 0
	for _, c := range cells {
		if c.cmp.FormatDelta(c.old[0], c.new[0]) != "0.00%" {
			changed++
			if c.row != "Hcbench/dataset=jets/algorithm=greedy" || c.unit != UnitNegLogLikelihood && c.unit != UnitExactGap {
				t.Errorf("quality row %s %s changed: %v → %v", c.row, c.unit, c.old, c.new)
			}
		}
	}
	if changed != 2 {
		t.Errorf("%d quality rows changed, want 2 (jets/greedy neg-loglik and exact-gap)", changed)
	}
}

package cli

import (
	"database/sql"
	"math"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"testing"

	"github.com/hcbench/hcbench/experiments/metric"
	"github.com/hcbench/hcbench/experiments/results"
)

// TestHistoryDocQuery runs docs/history.md's worked query, as the doc writes it, against a
// database of two real quickstart runs, and checks its answer against the runs' summary.csv:
// one row per algorithm that has a gap to the truth (greedy and the trellis; the truth has
// none), over 2 runs, with summary.csv's truth_gap_mean, sign and all (the same code gives the
// same gaps in both runs), lowest first.
func TestHistoryDocQuery(t *testing.T) {
	doc := mustRead(t, filepath.Join("..", "..", "docs", "history.md"))
	m := regexp.MustCompile("(?s)### A worked query\n.*?```sql\n(.*?)```").FindStringSubmatch(doc)
	if m == nil {
		t.Fatal("docs/history.md has no sql block under \"### A worked query\"")
	}
	query := m[1]

	dir := t.TempDir()
	dirs := smallQuickstarts(t, dir, 2)
	dbPath := filepath.Join(dir, "history.db")
	runOK(t, append([]string{"history", "-db", dbPath, "-o", filepath.Join(dir, "history.html")}, dirs...)...)

	// summary.csv's truth_gap_mean per algorithm.
	rows := readCSVFile(t, filepath.Join(dirs[1], results.ReportsDir, "summary.csv"))
	col := slices.Index(rows[0], metric.TruthGap+"_mean")
	want := map[string]float64{}
	for _, r := range rows[1:] {
		if r[col] != "" {
			v, err := strconv.ParseFloat(r[col], 64)
			if err != nil {
				t.Fatal(err)
			}
			want[r[1]] = v
		}
	}
	if len(want) != 2 {
		t.Fatalf("summary.csv has gaps to the truth for %v, want greedy and trellis", want)
	}

	db, err := sql.Open("sqlite3", dbPath)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	res, err := db.Query(query)
	if err != nil {
		t.Fatalf("the doc's query: %v\n%s", err, query)
	}
	defer res.Close()
	var got []string
	last := math.Inf(-1)
	for res.Next() {
		var ds, alg string
		var runs int
		var gap float64
		if err := res.Scan(&ds, &alg, &runs, &gap); err != nil {
			t.Fatal(err)
		}
		t.Logf("%s %s: %d runs, truth_gap %.6g", ds, alg, runs, gap)
		got = append(got, alg)
		w, ok := want[alg]
		if ds != "q" || runs != 2 || !ok || math.Abs(gap-w) > 1e-9*max(1, math.Abs(w)) {
			t.Errorf("row %s %s: %d runs, gap %v; want q, 2 runs, summary.csv's %v", ds, alg, runs, gap, w)
		}
		if gap < last {
			t.Errorf("rows not in ascending gap: %v after %v", gap, last)
		}
		last = gap
	}
	if err := res.Err(); err != nil {
		t.Fatal(err)
	}
	if len(got) != len(want) {
		t.Errorf("the query gives %v, want a row for each of %v", got, want)
	}
}

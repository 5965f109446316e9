package significance

import (
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"

	"github.com/hcbench/hcbench/reports/table"
)

// PairsHeader and RanksHeader are the columns of comparison/pairs.csv and comparison/ranks.csv.
var (
	PairsHeader = []string{"metric", "algorithm_a", "algorithm_b", "datasets", "wins", "ties", "losses",
		"wilcoxon_statistic", "p_value", "p_holm", "median_difference", "ci_low", "ci_high",
		"p_a_better", "p_equivalent", "p_b_better"}
	RanksHeader = []string{"metric", "algorithm", "datasets", "mean_rank", "friedman_statistic", "friedman_p"}
)

// WritePairs writes pairs as CSV with the PairsHeader line. Floats are in the shortest form that
// parses back to the same float64; NaN (not tested) is an empty cell.
func WritePairs(w io.Writer, pairs []Pair) error {
	t := table.Table{Header: PairsHeader}
	for _, p := range pairs {
		t.Rows = append(t.Rows, []string{p.Metric, p.A, p.B, strconv.Itoa(p.Datasets),
			strconv.Itoa(p.Wins), strconv.Itoa(p.Ties), strconv.Itoa(p.Losses),
			number(p.WilcoxonStatistic), number(p.P), number(p.PHolm),
			number(p.MedianDifference), number(p.CILow), number(p.CIHigh),
			number(p.PABetter), number(p.PEquivalent), number(p.PBBetter)})
	}
	return table.WriteCSV(w, t)
}

// WriteRanks writes ranks as CSV with the RanksHeader line, numbers as WritePairs does.
func WriteRanks(w io.Writer, ranks []Rank) error {
	t := table.Table{Header: RanksHeader}
	for _, r := range ranks {
		t.Rows = append(t.Rows, []string{r.Metric, r.Algorithm, strconv.Itoa(r.Datasets),
			number(r.MeanRank), number(r.FriedmanStatistic), number(r.FriedmanP)})
	}
	return table.WriteCSV(w, t)
}

// WriteFiles writes dir/pairs.csv and dir/ranks.csv, creating dir.
func WriteFiles(dir string, r Result) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for name, write := range map[string]func(io.Writer) error{
		"pairs.csv": func(w io.Writer) error { return WritePairs(w, r.Pairs) },
		"ranks.csv": func(w io.Writer) error { return WriteRanks(w, r.Ranks) },
	} {
		if err := writeFile(filepath.Join(dir, name), write); err != nil {
			return err
		}
	}
	return nil
}

func writeFile(path string, write func(io.Writer) error) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := write(f); err != nil {
		f.Close()
		return fmt.Errorf("%s: %w", path, err)
	}
	return f.Close()
}

func number(x float64) string {
	if math.IsNaN(x) {
		return ""
	}
	return strconv.FormatFloat(x, 'g', -1, 64)
}

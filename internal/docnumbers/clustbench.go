package main

import (
	"encoding/csv"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/hcbench/hcbench/experiments/results"
	"github.com/hcbench/hcbench/reports"
)

// clustbenchRegions are the numbers of configs/clustbench.yaml's section of docs/experiments.md,
// read from its run's comparison report (comparison/ranks.csv and pairs.csv).
func clustbenchRegions() []region {
	return []region{
		{name: "clustbench.time", configs: []string{"clustbench"}, machine: true, render: wallOf("clustbench")},
		{name: "clustbench.ranks", configs: []string{"clustbench"}, render: clustbenchRanks},
		{name: "clustbench.verdict", configs: []string{"clustbench"}, render: clustbenchVerdict},
	}
}

// comparisonCSV reads a CSV file of a run's comparison report as rows keyed by its header.
func comparisonCSV(r *configRun, name string) ([]map[string]string, error) {
	f, err := os.Open(filepath.Join(r.dir, results.ReportsDir, reports.ComparisonDir, name))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil || len(rows) == 0 {
		return nil, fmt.Errorf("%s: %v", name, err)
	}
	var out []map[string]string
	for _, row := range rows[1:] {
		m := map[string]string{}
		for i, h := range rows[0] {
			m[h] = row[i]
		}
		out = append(out, m)
	}
	return out, nil
}

// clustbenchRanks is the table of mean ranks by NCA and ARI, each algorithm's median NCA, and
// the data sets each algorithm ran on.
func clustbenchRanks(e *env) (string, error) {
	r, err := e.run("clustbench")
	if err != nil {
		return "", err
	}
	ranks, err := comparisonCSV(r, "ranks.csv")
	if err != nil {
		return "", err
	}
	rank := map[[2]string]float64{}
	blocks := map[string]string{}
	var algs []string
	for _, row := range ranks {
		v, _ := strconv.ParseFloat(row["mean_rank"], 64)
		rank[[2]string{row["metric"], row["algorithm"]}] = v
		blocks[row["metric"]] = row["datasets"]
		if !slices.Contains(algs, row["algorithm"]) {
			algs = append(algs, row["algorithm"])
		}
	}
	ran := map[string]int{}
	for _, rec := range r.records {
		if rec.Error == "" {
			ran[rec.Algorithm]++
		}
	}
	slices.SortStableFunc(algs, func(a, b string) int { return cmpFloat(rank[[2]string{"nca", a}], rank[[2]string{"nca", b}]) })
	var rows [][]string
	for _, a := range algs {
		if _, ok := rank[[2]string{"nca", a}]; !ok {
			r.missing("the NCA rank of " + a)
		}
		rows = append(rows, []string{a, strconv.Itoa(ran[a]), fmt.Sprintf("%.2f", rank[[2]string{"nca", a}]), fmt.Sprintf("%.2f", rank[[2]string{"ari", a}])})
	}
	t := markdownTable([]string{"algorithm", "data sets run", "mean rank, NCA", "mean rank, ARI"}, rows)
	return t + fmt.Sprintf("\n\nMean ranks (1 is the best) over the %s data sets that every algorithm completed.", blocks["nca"]), nil
}

// clustbenchVerdict says what the tests found on NCA: the Friedman test and the pairs whose
// Holm-corrected Wilcoxon test is significant at 0.05.
func clustbenchVerdict(e *env) (string, error) {
	r, err := e.run("clustbench")
	if err != nil {
		return "", err
	}
	ranks, err := comparisonCSV(r, "ranks.csv")
	if err != nil {
		return "", err
	}
	pairs, err := comparisonCSV(r, "pairs.csv")
	if err != nil {
		return "", err
	}
	var friedman string
	for _, row := range ranks {
		if row["metric"] == "nca" {
			p, _ := strconv.ParseFloat(row["friedman_p"], 64)
			friedman = fmt.Sprintf("the Friedman test over the %s complete data sets gives p %s", row["datasets"], pText(p))
			break
		}
	}
	var sig []string
	for _, row := range pairs {
		p, err := strconv.ParseFloat(row["p_holm"], 64)
		if row["metric"] != "nca" || err != nil || math.IsNaN(p) || p >= 0.05 {
			continue
		}
		d, _ := strconv.ParseFloat(row["median_difference"], 64)
		better, worse := row["algorithm_a"], row["algorithm_b"]
		if d < 0 {
			better, worse = worse, better
		}
		sig = append(sig, fmt.Sprintf("%s over %s (Holm p %s, %s data sets)", better, worse, pText(p), row["datasets"]))
	}
	if friedman == "" {
		r.missing("the Friedman test of NCA")
	}
	out := "By NCA, " + friedman + "; "
	if len(sig) == 0 {
		return out + "no pair differs significantly after Holm's correction", nil
	}
	return out + "the pairs that differ significantly after Holm's correction are " + strings.Join(sig, ", "), nil
}

// pText writes "= p" with three decimals, or "< 0.001", as the comparison report does.
func pText(p float64) string {
	if p < 0.001 {
		return "< 0.001"
	}
	return "= " + strconv.FormatFloat(p, 'f', 3, 64)
}

// cmpFloat orders floats, NaN last.
func cmpFloat(a, b float64) int {
	switch {
	case math.IsNaN(a) && math.IsNaN(b):
		return 0
	case math.IsNaN(a):
		return 1
	case math.IsNaN(b), a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

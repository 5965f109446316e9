package config

import (
	"fmt"
	"strings"
	"testing"
)

// TestComparisonOptionProblems: the comparison report's options are checked as the config is
// decoded, with the file, the line and the entry: an unknown metric with the key meant, a metric
// without a direction, a negative ROPE, a scatter of one algorithm and an unknown width.
func TestComparisonOptionProblems(t *testing.T) {
	line := strings.Count(good[:strings.Index(good, "reports:")], "\n") + 1
	for _, c := range []struct{ entry, want string }{
		{"reports: [{name: comparison, metrics: [nac]}]", `reports[0].metrics: unknown metric "nac" (did you mean "nca"?)`},
		{"reports: [{name: comparison, metrics: [nca, nca]}]", `reports[0].metrics: metric "nca" listed twice`},
		{"reports: [{name: comparison, rope: {nca: -0.5}}]", `reports[0].rope: rope of nca: want a non-negative number, got "-0.5"`},
		{"reports: [{name: comparison, rope: {aari: 0.1}}]", `reports[0].rope: unknown metric "aari" (did you mean "ari"?)`},
		{"reports: [{name: comparison, scatter: [ward]}]", `reports[0]: scatter names two different algorithms`},
		{"reports: [{name: comparison, width: wide}]", `reports[0]: width must be column or page, got "wide"`},
		{"reports: [{name: comparison, resamples: 5}]", `reports[0]: resamples must be 100 to 1000000, got 5`},
	} {
		_, err := Parse("r.yaml", withReports(c.entry))
		if err == nil || !strings.Contains(err.Error(), fmt.Sprintf("r.yaml:%d: ", line)) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want r.yaml:%d: … %q", c.entry, err, line, c.want)
		}
	}
	cfg, err := Parse("r.yaml", withReports("reports: [summary, {name: comparison, metrics: [nca, ari], rope: {nca: 0.02}, scatter: [single, ward], width: page}]"))
	if err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprintf("%+v", cfg.ReportOptions["comparison"]); !strings.Contains(got, "Metrics:[nca ari] ROPE:{nca: 0.02}") || !strings.Contains(got, "Scatter:[single ward] Width:page") {
		t.Errorf("options %s", got)
	}
}

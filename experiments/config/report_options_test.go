package config

import (
	"fmt"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/hcbench/hcbench/reports"
)

// withReports is the good config with its reports entry replaced.
func withReports(entry string) []byte {
	return []byte(strings.Replace(good, "reports: [summary]", entry, 1))
}

// TestReportOptions decodes a report entry with options (a mapping of the report's name and its
// options, as algorithm entries have parameters): given, defaulted when the report is only named,
// kept by the resolved config, and read back from it alone by ReportOptions, which rebuilds a
// run's reports.
func TestReportOptions(t *testing.T) {
	cfg, err := Parse("r.yaml", withReports("reports: [summary, {name: dendrograms, height: log_odds}]"))
	if err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprintf("%+v", cfg.ReportOptions["dendrograms"]); got != "&{Height:log_odds}" || len(cfg.ReportOptions) != 1 {
		t.Errorf("options %v, dendrograms %s; want only dendrograms, height log_odds", cfg.ReportOptions, got)
	}
	if strings.Join(cfg.Reports, ",") != "summary,dendrograms" {
		t.Errorf("reports %v", cfg.Reports)
	}
	resolved, err := cfg.Resolved()
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(resolved), "reports: [summary, {name: dendrograms, height: log_odds}]") {
		t.Errorf("resolved config lacks the options:\n%s", resolved)
	}
	opts, err := ReportOptions("config.yaml", resolved)
	if err != nil || !reflect.DeepEqual(opts, cfg.ReportOptions) {
		t.Errorf("read back %v, %v; want %v", opts, err, cfg.ReportOptions)
	}

	// Named alone, the report gets its defaults, which the resolved config writes out.
	cfg, err = Parse("r.yaml", withReports("reports: [dendrograms]"))
	if err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprintf("%+v", cfg.ReportOptions["dendrograms"]); got != "&{Height:merges}" {
		t.Errorf("default options %s", got)
	}
	// A config without reports, or without options, has none.
	for _, src := range []string{"version: 1\n", "reports: [summary]\n", ""} {
		if opts, err := ReportOptions("c.yaml", []byte(src)); err != nil || len(opts) != 0 {
			t.Errorf("%q: options %v, %v", src, opts, err)
		}
	}
}

// TestReportOptionProblems checks that a bad report entry is reported with its file, line and
// entry, as other keys are.
func TestReportOptionProblems(t *testing.T) {
	line := strings.Count(good[:strings.Index(good, "reports:")], "\n") + 1
	for _, c := range []struct{ entry, want string }{
		{"reports: [{name: dendrograms, height: tall}]", `reports[0].height: want one of merges, log_odds, r; got "tall"`},
		{"reports: [{name: dendrograms, heigth: r}]", `reports[0]: unknown key "heigth" (did you mean "height"?)`},
		{"reports: [{name: summary, height: r}]", `reports[0]: unknown key "height"`},
		{"reports: [{height: r}]", `reports[0]: a report with options needs its name`},
		{"reports: [{name: dendrogram}]", `reports[0]: unknown report "dendrogram" (did you mean "dendrograms"?)`},
		{"reports: [[dendrograms]]", `reports[0]: want a report name or a mapping {name: REPORT, OPTION: VALUE}, got a list`},
	} {
		_, err := Parse("r.yaml", withReports(c.entry))
		want := fmt.Sprintf("r.yaml:%d: %s", line, c.want)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: error %v, want %q", c.entry, err, want)
		}
		if _, rerr := ReportOptions("r.yaml", withReports(c.entry)); rerr == nil || !strings.Contains(rerr.Error(), want) {
			t.Errorf("ReportOptions, %s: error %v, want %q", c.entry, rerr, want)
		}
	}
}

// TestHelpListsReportOptions: help config lists every option of every report, with its values in
// words and its default.
func TestHelpListsReportOptions(t *testing.T) {
	var b strings.Builder
	if err := WriteHelp(&b); err != nil {
		t.Fatal(err)
	}
	// The columns of a report's options are padded to its widest option: compare with the runs
	// of spaces squeezed to two.
	squeeze := regexp.MustCompile(" {2,}")
	help := squeeze.ReplaceAllString(b.String(), "  ")
	n := 0
	for _, r := range reports.All() {
		if r.NewOptions == nil {
			continue
		}
		if !strings.Contains(help, "Report "+r.Name+" options") {
			t.Errorf("help config has no section of %s's options", r.Name)
		}
		for _, f := range fieldsOf(reflect.TypeOf(r.NewOptions()).Elem()) {
			n++
			want := fmt.Sprintf("  %s  %s  %s  ", f.key, typeName(f.typ), defaultText(f))
			if !strings.Contains(help, want) {
				t.Errorf("help config lacks %q", want)
			}
		}
	}
	if n == 0 {
		t.Fatal("no report has options; the test checks nothing")
	}
}

package config

import (
	"errors"
	"github.com/hcbench/hcbench/datasets/datadir"
	"github.com/hcbench/hcbench/experiments/registry"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// problemsOf parses src and returns its problems as "file:line: message" strings.
func problemsOf(t *testing.T, src string) []string {
	t.Helper()
	_, err := Parse("bad.yaml", []byte(src))
	if err == nil {
		return nil
	}
	var ps Problems
	if !errors.As(err, &ps) {
		t.Fatalf("got %v, want Problems", err)
	}
	var out []string
	for _, p := range ps {
		out = append(out, p.String())
	}
	return out
}

// checkExact fails unless got is exactly want: every problem expected, and no other.
func checkExact(t *testing.T, got, want []string) {
	t.Helper()
	if !slices.Equal(got, want) {
		t.Errorf("problems:\n  %s\nwant exactly:\n  %s", strings.Join(got, "\n  "), strings.Join(want, "\n  "))
	}
}

// TestEntryPaths: an entry is named by its position in the YAML list, so a malformed entry before
// it (which decoding skips) does not shift the name that validation gives it.
func TestEntryPaths(t *testing.T) {
	src := `version: 1
name: x
datasets:
  - just-a-name
  - name: a
    generator: ginkgo
    jets: 0
    t_cut: 16
  - name: b
    generator: ginkgo
    t_cut: 16
algorithms:
  - truht
  - greedy
  - {name: greedy}
`
	checkExact(t, problemsOf(t, src), []string{
		`bad.yaml:4: datasets[0]: want a mapping with a name and a generator or file, got "just-a-name"`,
		`bad.yaml:7: datasets[1].jets: must be at least 1, got 0`,
		`bad.yaml:9: datasets[2].jets: missing required key`,
		`bad.yaml:13: algorithms[0]: unknown algorithm "truht" (did you mean "truth"?)`,
		`bad.yaml:15: algorithms[2]: label "greedy" is already used on line 14; give each variant its own label`,
	})
}

// TestNoFollowOnProblems: a key that fails reports one problem; checks of values derived from it
// (defaults that depend on it, cross-key rules) and of a config that is not a mapping at all stay
// silent, so every message is about something the user wrote.
func TestNoFollowOnProblems(t *testing.T) {
	const head = "version: 1\nname: x\ndatasets:\n"
	const jets = "  - name: a\n    generator: ginkgo\n    jets: 2\n    t_cut: 16\n"
	const algs = "algorithms: [greedy]\n"
	cases := []struct {
		name, src string
		want      []string
	}{
		{"quoted lambda", head + jets + "    lambda: \"1.5\"\n" + algs, []string{
			`bad.yaml:8: datasets[0].lambda: want a number, got "1.5" (a quoted number is a string in YAML; write it without quotes)`}},
		{"lambda a word", head + jets + "    lambda: fast\n" + algs, []string{
			`bad.yaml:8: datasets[0].lambda: want a number, got "fast"`}},
		{"unknown jet_type", head + jets + "    jet_type: z\n" + algs, []string{
			`bad.yaml:8: datasets[0].jet_type: must be qcd or w, got "z"`}},
		{"jet_type a list", head + jets + "    jet_type: [qcd]\n" + algs, []string{
			`bad.yaml:8: datasets[0].jet_type: want a string, got a list`}},
		{"top-level list", "- version: 1\n- name: x\n", []string{
			`bad.yaml:1: config: want a mapping of keys to values, got a list`}},
		{"generator a list", head + "  - name: a\n    generator: [ginkgo]\n    jets: 2\n" + algs, []string{
			`bad.yaml:5: datasets[0].generator: want a string, got a list`}},
		{"file a list", head + "  - name: a\n    file: [a.jsonl]\n" + algs, []string{
			`bad.yaml:5: datasets[0].file: want a string, got a list`}},
		{"algorithm name a list", head + jets + "algorithms:\n  - {name: [greedy]}\n", []string{
			`bad.yaml:9: algorithms[0].name: want a string, got a list`}},
		{"label a list", head + jets + "algorithms:\n  - {name: greedy, label: [g]}\n  - greedy\n", []string{
			`bad.yaml:9: algorithms[0].label: want a string, got a list`}},
		{"niw kappa0 a word", head + "  - {name: m, generator: mixture, points: 8}\nalgorithms:\n  - {name: bhc, niw: {kappa0: tiny}}\n", []string{
			`bad.yaml:6: algorithms[0].niw.kappa0: want a number, got "tiny"`}},
		{"niw mu0 entry a word", head + "  - {name: m, generator: mixture, points: 8}\nalgorithms:\n  - {name: bhc, niw: {nu0: 3, mu0: [0, x], lambda0: [[1, 0], [0, 1]]}}\n", []string{
			`bad.yaml:6: algorithms[0].niw.mu0[1]: want a number, got "x"`}},
		// The malformed entry might be named d, so the reference to d is not an error.
		{"reference after a malformed data set", head + "  - 3\n" + jets + "algorithms:\n  - {name: greedy, datasets: [d]}\n", []string{
			`bad.yaml:4: datasets[0]: want a mapping with a name and a generator or file, got "3"`}},
		{"empty lists", "version: 1\nname: x\ndatasets: []\nalgorithms: []\n", []string{
			`bad.yaml:3: datasets: the list is empty`, `bad.yaml:4: algorithms: the list is empty`}},
		{"per_label a word", head + "  - {name: p, file: load_test.go, format: csv, subsamples: 2, per_label: two, unknown: 0}\n" + algs, []string{
			`bad.yaml:4: datasets[0].per_label: want an integer, got "two"`}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { checkExact(t, problemsOf(t, c.src), c.want) })
	}
}

// TestYAMLDocuments: a config is one document; a second one is an error at its start, an empty
// one after a lone --- is nothing, and an empty file says so.
func TestYAMLDocuments(t *testing.T) {
	const cfg = "version: 1\nname: x\ndatasets:\n  - {name: a, generator: ginkgo, jets: 2, t_cut: 16}\nalgorithms: [greedy]\n"
	checkExact(t, problemsOf(t, cfg+"---\nversion: 2\n"), []string{
		`bad.yaml:6: another YAML document starts here; a config is one document (remove the --- line, or split the file into two configs)`})
	checkExact(t, problemsOf(t, "---\n"+cfg+"---\n"), nil)
	checkExact(t, problemsOf(t, cfg+"---\n---\nseed: 3\n"), []string{
		`bad.yaml:7: another YAML document starts here; a config is one document (remove the --- line, or split the file into two configs)`})
	checkExact(t, problemsOf(t, "# nothing\n"), []string{`bad.yaml: the config is empty`})
}

// TestYAMLAliases: anchors, aliases and merge keys work as YAML defines them: a merged mapping
// gives its keys, the keys written beside << win, and of several merged mappings the first wins.
func TestYAMLAliases(t *testing.T) {
	src := `version: &one 1
name: x
workers: *one
datasets:
  - &qcd {name: a, generator: ginkgo, jets: 2, t_cut: 16}
  - {<<: *qcd, name: b, lambda: 2}
algorithms:
  - &map {name: trellis, mode: map, threads: 1}
  - {<<: *map, label: t2}
  - {<<: [{mode: full, label: t3}, *map], threads: 2}
`
	cfg, err := Parse("a.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Workers != 1 || len(cfg.Datasets) != 2 || len(cfg.Algorithms) != 3 {
		t.Fatalf("workers %d, %d data sets, %d algorithms", cfg.Workers, len(cfg.Datasets), len(cfg.Algorithms))
	}
	// b takes jets and t_cut from a, and its lambda_root follows its own lambda (QCD).
	b := cfg.Datasets[1].Source.(*registry.GinkgoSource)
	if cfg.Datasets[1].Name != "b" || b.Jets != 2 || b.TCut != 16 || b.Lambda != 2 || b.LambdaRoot != 2 {
		t.Errorf("data set b: %s %+v", cfg.Datasets[1].Name, b)
	}
	for i, want := range []struct {
		label, mode string
		threads     int
	}{{"trellis", "map", 1}, {"t2", "map", 1}, {"t3", "full", 2}} {
		a := cfg.Algorithms[i]
		p := a.Params.(*registry.TrellisParams)
		if a.Label != want.label || p.Mode != want.mode || p.Threads != want.threads {
			t.Errorf("algorithm %d: label %s, mode %s, threads %d; want %+v", i, a.Label, p.Mode, p.Threads, want)
		}
	}

	// A problem inside an aliased value is reported at the anchor's line, for each use.
	bad := strings.Replace(src, "jets: 2", "jets: 0", 1)
	checkExact(t, problemsOf(t, bad), []string{
		"bad.yaml:5: datasets[0].jets: must be at least 1, got 0",
		"bad.yaml:5: datasets[1].jets: must be at least 1, got 0",
	})
	checkExact(t, problemsOf(t, strings.Replace(src, "{<<: *map, label: t2}", "{<<: 3, name: greedy}", 1)), []string{
		`bad.yaml:9: <<: a merge key takes a mapping or a list of mappings (usually aliases such as *defaults), got "3"`})

	// Aliases of aliases grow exponentially; past a bound the config is refused before decoding.
	var lol strings.Builder
	lol.WriteString("l0: &l0 [1, 1, 1, 1, 1, 1, 1, 1, 1, 1]\n")
	for k := 1; k <= 7; k++ {
		lol.WriteString("l" + string(rune('0'+k)) + ": &l" + string(rune('0'+k)) + " [")
		for r := range 10 {
			if r > 0 {
				lol.WriteString(", ")
			}
			lol.WriteString("*l" + string(rune('0'+k-1)))
		}
		lol.WriteString("]\n")
	}
	checkExact(t, problemsOf(t, lol.String()), []string{"bad.yaml:1: the config expands to more than 1048576 YAML nodes through its aliases"})
}

// TestQuotedNumbers: a quoted number is a string in YAML, and is refused for integer and float
// keys alike.
func TestQuotedNumbers(t *testing.T) {
	src := `version: 1
name: x
seed: !!str 5
datasets:
  - {name: a, generator: ginkgo, jets: "2", t_cut: "16"}
algorithms: [greedy]
`
	checkExact(t, problemsOf(t, src), []string{
		`bad.yaml:3: seed: want a non-negative integer, got "5" (a quoted number is a string in YAML; write it without quotes)`,
		`bad.yaml:5: datasets[0].jets: want an integer, got "2" (a quoted number is a string in YAML; write it without quotes)`,
		`bad.yaml:5: datasets[0].t_cut: want a number, got "16" (a quoted number is a string in YAML; write it without quotes)`,
	})
	// YAML's own integer forms are integers.
	cfg, err := Parse("ok.yaml", []byte(strings.NewReplacer(`!!str 5`, `0x10`, `"2"`, `1_000`, `"16"`, `16`).Replace(src)))
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Seed != 16 || cfg.Datasets[0].Source.(*registry.GinkgoSource).Jets != 1000 {
		t.Errorf("seed %d, jets %d; want 16 and 1000", cfg.Seed, cfg.Datasets[0].Source.(*registry.GinkgoSource).Jets)
	}
}

// TestSuggestionsNameTheirKind: an unknown name lists the known names of its kind.
func TestSuggestionsNameTheirKind(t *testing.T) {
	src := "version: 1\nname: x\ndatasets:\n  - {name: a, generator: pythia, jets: 2}\nalgorithms: [quicksort]\nreports: [everything]\n"
	checkExact(t, problemsOf(t, src), []string{
		`bad.yaml:4: datasets[0].generator: unknown generator "pythia" (known generators: clustbench, ginkgo, mixture)`,
		`bad.yaml:5: algorithms[0]: unknown algorithm "quicksort" (known algorithms: beam, bhc, bhc_exact, brt, embhc, external, greedy, linkage, rbhc, sparse_trellis, trellis, truth)`,
		`bad.yaml:6: reports[0]: unknown report "everything" (known reports: clustbench_results, comparison, dendrograms, evidence, likelihood_gap, purity, runtime, summary, z_vs_map)`,
	})
}

// writeConfig writes src as exp.yaml in a new directory, with empty files at the given relative
// paths, and returns the config's path.
func writeConfig(t *testing.T, src string, files ...string) string {
	t.Helper()
	dir := t.TempDir()
	for _, f := range files {
		p := filepath.Join(dir, f)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	path := filepath.Join(dir, "exp.yaml")
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestVectorSampling: sample_key defaults to the data set's name, so that a config without it
// draws as before; sampling: first with more than one subsample would give identical items and
// is refused at the subsamples line.
func TestVectorSampling(t *testing.T) {
	src := `version: 1
name: x
datasets:
  - {name: cos, file: d.csv}
  - {name: pearson, file: d.csv, similarity: pearson, sample_key: cos}
  - {name: first, file: d.csv, sampling: first, subsamples: 1}
algorithms: [greedy]
`
	path := writeConfig(t, src, "d.csv")
	cfg, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	for i, want := range []string{"cos", "cos", "first"} {
		if got := cfg.Datasets[i].Source.(*registry.CSVFile).SampleKey; got != want {
			t.Errorf("data set %d: sample_key %q, want %q", i, got, want)
		}
	}
	// The resolved config names every sample_key, and reads back to itself.
	resolved, err := cfg.Resolved()
	if err != nil {
		t.Fatal(err)
	}
	again, err := Parse(filepath.Join(filepath.Dir(path), "resolved.yaml"), resolved)
	if err != nil {
		t.Fatalf("the resolved config does not parse: %v\n%s", err, resolved)
	}
	if r2, _ := again.Resolved(); string(r2) != string(resolved) || strings.Count(string(resolved), "sample_key: cos") != 2 {
		t.Errorf("resolved config:\n%s\nresolved again:\n%s", resolved, r2)
	}
	bad := strings.Replace(strings.Replace(src, "subsamples: 1", "subsamples: 3", 1), "sample_key: cos", "sample_key: a|b", 1)
	_, err = Load(writeConfig(t, bad, "d.csv"))
	for _, want := range []string{
		`exp.yaml:5: datasets[1].sample_key: "a|b" must start with a letter or digit`,
		`exp.yaml:6: datasets[2].subsamples: sampling: first takes the same rows for every subsample, so 3 subsamples would be 3 identical items; use subsamples: 1, or sampling: stratified`,
	} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("error %v does not contain %q", err, want)
		}
	}
}

// TestJetsFileLikelihood: a jets file's likelihood keys default to stored (resolved against the
// file when it is read) and accept the likelihood names.
func TestJetsFileLikelihood(t *testing.T) {
	src := "version: 1\nname: x\ndatasets:\n  - {name: a, file: j.jsonl}\n  - {name: b, file: j.jsonl, likelihood: ginkgo2021, root_lambda: uniform}\nalgorithms: [greedy]\n"
	cfg, err := Load(writeConfig(t, src, "j.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	a, b := cfg.Datasets[0].Source.(*registry.JetsFile), cfg.Datasets[1].Source.(*registry.JetsFile)
	if a.Likelihood != registry.Stored || a.RootLambda != registry.Stored || b.Likelihood != "ginkgo2021" || b.RootLambda != "uniform" {
		t.Errorf("likelihood keys: %+v, %+v", a, b)
	}
	if !cfg.Datasets[1].Has("likelihood") || cfg.Datasets[0].Has("likelihood") || cfg.Datasets[1].KeyLine("likelihood") != 5 {
		t.Errorf("Has/KeyLine do not say which keys were written")
	}
	bad := strings.Replace(src, "ginkgo2021", "ginkgo2019", 1)
	_, err = Load(writeConfig(t, bad, "j.jsonl"))
	if want := `exp.yaml:5: datasets[1].likelihood: must be stored, ginkgo2020 or ginkgo2021, got "ginkgo2019"`; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("error %v does not contain %q", err, want)
	}
}

// TestMissingFileHints: a missing file of the data directory names its data set and the command
// that fetches it, and the data directory with the setting that chose it; a missing file named
// relative to the config says so; a data reference that leaves the data directory is refused.
func TestMissingFileHints(t *testing.T) {
	dataDir := t.TempDir()
	t.Setenv(datadir.EnvDir, dataDir)
	src := `version: 1
name: x
datasets:
  - {name: p, file: data:pam50/pam50_232x50_zerofilled.csv}
  - {name: w, file: data:uci/wine_data.csv, header: sklearn}
  - {name: j, file: nowhere/j.jsonl}
  - {name: o, file: data:../outside.csv}
  - {name: u, file: data:other/x.csv}
algorithms: [greedy]
`
	_, err := Load(writeConfig(t, src))
	for _, want := range []string{
		"exp.yaml:4: datasets[0].file: " + filepath.Join(dataDir, "pam50", "pam50_232x50_zerofilled.csv") + " does not exist; it belongs to the data set pam50 (UNC PAM50",
		"fetch it with `hcbench data fetch pam50`",
		"the data directory " + dataDir + " ($HCBENCH_DATA)",
		"exp.yaml:5: datasets[1].file: " + filepath.Join(dataDir, "uci", "wine_data.csv") + " does not exist; it belongs to the data set uci",
		"`hcbench data fetch uci`",
		"exp.yaml:6: datasets[2].file: ",
		"j.jsonl does not exist; paths are relative to the config file",
		`exp.yaml:7: datasets[3].file: "data:../outside.csv": a data reference names a file inside the data directory`,
		"exp.yaml:8: datasets[4].file: ",
		"no data set of `hcbench data list` holds other/x.csv",
	} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("error %v does not contain %q", err, want)
		}
	}
}

// TestThresholdKeys: the thresholds' keys are the metric table's (those compare tracks): a
// misspelt one is suggested, one of no tracked metric listed with the known keys, a negative or
// repeated one refused, each at its line; an old key is read as its metric's, and keys not
// given take their defaults.
func TestThresholdKeys(t *testing.T) {
	head := "version: 1\nname: x\ndatasets: [{name: q, generator: ginkgo, jets: 2, t_cut: 16}]\nalgorithms: [greedy]\n"
	checkExact(t, problemsOf(t, head+"thresholds:\n  exact_gaps: 1\n  map_share: 1\n  time: -1\n  purity: 0.1\n  dendrogram_purity: 0.2\n"), []string{
		`bad.yaml:6: thresholds: unknown key "exact_gaps" (did you mean "exact_gap"?)`,
		`bad.yaml:7: thresholds: unknown key "map_share" (known keys: ari, counters, dendrogram_purity, exact_gap, log_evidence, log_likelihood, nca, time)`,
		`bad.yaml:8: thresholds.time: want a non-negative number, got -1`,
		`bad.yaml:10: thresholds: key "dendrogram_purity" given twice (first on line 9)`,
	})
	c, err := Parse("ok.yaml", []byte(head+"thresholds: {purity: 0.1, time: 0.5}\n"))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]float64{"log_likelihood": 1e-6, "exact_gap": 1e-6, "log_evidence": 1e-6, "dendrogram_purity": 0.1, "nca": 0.001, "ari": 0.001, "time": 0.5, "counters": 0}
	if got := map[string]float64(c.Thresholds); !maps.Equal(got, want) {
		t.Errorf("thresholds %v, want %v", got, want)
	}
	if c, err := Parse("ok.yaml", []byte(head)); err != nil || c.Thresholds["dendrogram_purity"] != 0.001 {
		t.Errorf("no thresholds: %v %v", c, err)
	}
}

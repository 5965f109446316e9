package config

import (
	"errors"
	"fmt"
	"github.com/hcbench/hcbench/experiments/registry"
	"github.com/hcbench/hcbench/reports"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

const good = `version: 1
name: quickstart
seed: 7
datasets:
  - name: qcd-small
    generator: ginkgo
    jets: 20
    jet_type: qcd
    min_leaves: 5
    max_leaves: 9
    t_cut: 16
  - name: w-jets
    generator: ginkgo
    jets: 3
    jet_type: w
    t_cut: 16
algorithms:
  - truth
  - {name: greedy, label: greedy-2}
reports: [summary]
`

func TestParseGood(t *testing.T) {
	cfg, err := Parse("good.yaml", []byte(good))
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Name != "quickstart" || cfg.Seed != 7 || len(cfg.Datasets) != 2 || len(cfg.Algorithms) != 2 {
		t.Fatalf("decoded %+v", cfg)
	}
	q := cfg.Datasets[0].Source.(*registry.GinkgoSource)
	if q.Mass != 30 || q.LambdaRoot != 1.5 || q.MinLeaves != 5 || q.MaxLeaves != 9 || q.MaxTries != 20000 || q.Likelihood != "ginkgo2020" {
		t.Errorf("qcd defaults: %+v", q)
	}
	// jet_type w sets mass 80 and lambda_root 3 (ginkgo.md §2), and min_leaves defaults to 2.
	w := cfg.Datasets[1].Source.(*registry.GinkgoSource)
	if w.Mass != 80 || w.LambdaRoot != 3 || w.Lambda != 1.5 || w.MinLeaves != 2 || w.MaxLeaves != 0 {
		t.Errorf("w defaults: %+v", w)
	}
	if a := cfg.Algorithms[1]; a.Name != "greedy" || a.Label != "greedy-2" {
		t.Errorf("algorithm %+v", a)
	}
	if a := cfg.Algorithms[0]; a.Label != "truth" {
		t.Errorf("default label %q, want the name", a.Label)
	}
}

func TestResolvedRoundTrip(t *testing.T) {
	cfg, err := Parse("good.yaml", []byte(good))
	if err != nil {
		t.Fatal(err)
	}
	b, err := cfg.Resolved()
	if err != nil {
		t.Fatal(err)
	}
	again, err := Parse("resolved.yaml", b)
	if err != nil {
		t.Fatalf("the resolved config does not parse: %v\n%s", err, b)
	}
	b2, _ := again.Resolved()
	if string(b) != string(b2) {
		t.Errorf("resolving twice changed the config:\n%s\n---\n%s", b, b2)
	}
	if !strings.Contains(string(b), "mass: 80") || !strings.Contains(string(b), "max_tries: 20000") {
		t.Errorf("defaults are not explicit:\n%s", b)
	}
}

// TestProblems checks that each bad input gives a message with the file, the line and the key,
// and that all problems of a config are reported together.
func TestProblems(t *testing.T) {
	cases := []struct {
		name, src string
		want      []string // substrings, one per expected problem, in line order
	}{
		// Syntax errors: the line is where the broken construct starts (an unclosed list), or
		// where the error is found.
		{"syntax unclosed", "version: 1\nname: [x\n", []string{"bad.yaml:2: YAML syntax error: did not find expected ',' or ']'"}},
		{"syntax indent", "version: 1\nname: x\n  seed: 3\n", []string{"bad.yaml:3: YAML syntax error: mapping values are not allowed"}},
		{"syntax dedent", "version: 1\ndatasets:\n  - a\n  - b\n seed: 2\n", []string{"bad.yaml:5: YAML syntax error: did not find expected key"}},
		{"unknown key", strings.Replace(good, "    t_cut: 16\n  - name: w-jets", "    t_cut: 16\n    beam_sise: 3\n  - name: w-jets", 1),
			[]string{`bad.yaml:12: datasets[0]: unknown key "beam_sise"`}},
		{"typo suggestion", strings.Replace(good, "jet_type: qcd", "jet_typ: qcd", 1),
			[]string{`bad.yaml:8: datasets[0]: unknown key "jet_typ" (did you mean "jet_type"?)`}},
		{"wrong type", strings.Replace(good, "jets: 20", "jets: many", 1),
			[]string{`bad.yaml:7: datasets[0].jets: want an integer, got "many"`}},
		{"wrong type float", strings.Replace(good, "t_cut: 16\n  - name: w", "t_cut: [16]\n  - name: w", 1),
			[]string{`bad.yaml:11: datasets[0].t_cut: want a number, got a list`}},
		{"missing required", strings.Replace(good, "    jets: 3\n", "", 1),
			[]string{`bad.yaml:12: datasets[1].jets: missing required key`}},
		{"missing top-level", strings.Replace(good, "name: quickstart\n", "", 1),
			[]string{`bad.yaml:1: name: missing required key`}},
		{"min > max", strings.Replace(good, "min_leaves: 5", "min_leaves: 12", 1),
			[]string{`bad.yaml:9: datasets[0].min_leaves: 12 is greater than max_leaves 9`}},
		{"negative t_cut", strings.Replace(good, "t_cut: 16\n  - name: w", "t_cut: -4\n  - name: w", 1),
			[]string{`bad.yaml:11: datasets[0].t_cut: must be positive, got -4`}},
		{"t_cut above mass²", strings.Replace(good, "t_cut: 16\n  - name: w", "t_cut: 900\n  - name: w", 1),
			[]string{`bad.yaml:11: datasets[0].t_cut: 900 is not below the root mass² 900`}},
		{"version", strings.Replace(good, "version: 1", "version: 2", 1),
			[]string{`bad.yaml:1: version: this hcbench reads config version 1, got 2`}},
		{"unknown algorithm", strings.Replace(good, "  - truth\n", "  - truht\n", 1),
			[]string{`bad.yaml:18: algorithms[0]: unknown algorithm "truht" (did you mean "truth"?)`}},
		{"duplicate label", strings.Replace(good, "label: greedy-2", "label: truth", 1),
			[]string{`bad.yaml:19: algorithms[1]: label "truth" is already used on line 18`}},
		{"unknown report", strings.Replace(good, "[summary]", "[summary, sumary2]", 1),
			[]string{`bad.yaml:20: reports[1]: unknown report "sumary2"`}},
		{"duplicate key", strings.Replace(good, "seed: 7\n", "seed: 7\nseed: 8\n", 1),
			[]string{`bad.yaml:4: config: key "seed" given twice (first on line 3)`}},
		{"generator and file", strings.Replace(good, "generator: ginkgo\n    jets: 3", "generator: ginkgo\n    file: x.jsonl\n    jets: 3", 1),
			[]string{`bad.yaml:12: datasets[1]: give either generator or file, not both`}},
		{"missing data file", strings.Replace(good, "generator: ginkgo\n    jets: 3\n    jet_type: w\n    t_cut: 16", "file: no/such/jets.jsonl", 1),
			[]string{`bad.yaml:13: datasets[1].file: no/such/jets.jsonl does not exist`}},
		{"several at once", strings.Replace(strings.Replace(good, "jets: 20", "jets: 0", 1), "min_leaves: 5", "min_leaves: 1", 1),
			[]string{`bad.yaml:7: datasets[0].jets: must be at least 1, got 0`, `bad.yaml:9: datasets[0].min_leaves: must be at least 2, got 1`}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Parse("bad.yaml", []byte(c.src))
			var ps Problems
			if !errors.As(err, &ps) {
				t.Fatalf("got %v, want Problems", err)
			}
			if len(ps) != len(c.want) {
				t.Fatalf("got %d problems, want %d:\n%v", len(ps), len(c.want), err)
			}
			for i, w := range c.want {
				if !strings.Contains(ps[i].String(), w) {
					t.Errorf("problem %d = %q, want it to contain %q", i, ps[i], w)
				}
			}
		})
	}
}

func TestJetsFileRelativeToConfig(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "jets.jsonl"), []byte("{}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	src := "version: 1\nname: f\ndatasets:\n  - name: mine\n    file: jets.jsonl\n    limit: 3\nalgorithms: [greedy]\n"
	path := filepath.Join(dir, "exp.yaml")
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	jf := cfg.Datasets[0].Source.(*registry.JetsFile)
	if got := cfg.Resolve(jf.Path); got != filepath.Join(dir, "jets.jsonl") || jf.Limit != 3 || cfg.Datasets[0].Kind != "jets" {
		t.Errorf("file %q (resolved %q), limit %d, kind %q", jf.Path, got, jf.Limit, cfg.Datasets[0].Kind)
	}
	if cfg.Reports[0] != "summary" {
		t.Errorf("default reports %v", cfg.Reports)
	}
}

// TestHelpListsEveryKey: `help config` lists every key of the schema, nested ones under their
// parent (niw.kappa0), each with a meaning, and says what its values are in words: no Go type
// name (registry.BeamSize, registry.CC, registry.ByteSize, …) and no empty list of file extensions.
func TestHelpListsEveryKey(t *testing.T) {
	var b strings.Builder
	if err := WriteHelp(&b); err != nil {
		t.Fatal(err)
	}
	help := b.String()
	types := []reflect.Type{reflect.TypeFor[Header](), reflect.TypeFor[datasetKeys](), reflect.TypeFor[algorithmKeys]()}
	for _, src := range registry.Sources() {
		types = append(types, reflect.TypeOf(src.NewParams()).Elem())
	}
	for _, a := range registry.Algorithms() {
		types = append(types, reflect.TypeOf(a.NewParams()).Elem())
	}
	goNames := map[string]bool{}
	var check func(prefix string, typ reflect.Type)
	check = func(prefix string, typ reflect.Type) {
		for _, f := range fieldsOf(typ) {
			for e := f.typ; ; e = e.Elem() {
				if e.Name() != "" && e.PkgPath() != "" {
					goNames[e.Name()] = true
				}
				if e.Kind() != reflect.Slice && e.Kind() != reflect.Pointer {
					break
				}
			}
			if f.help == "" {
				t.Errorf("%s.%s has no help text", typ.Name(), f.key)
			}
			if !strings.Contains(help, "  "+prefix+f.key+" ") {
				t.Errorf("help config does not list %s%s", prefix, f.key)
			}
			if isNested(f.typ) {
				check(prefix+f.key+".", f.typ)
			}
		}
	}
	for _, typ := range types {
		check("", typ)
	}
	for _, name := range append(registry.AlgorithmNames(), reports.Names()...) {
		if !strings.Contains(help, name) {
			t.Errorf("help config does not mention %q", name)
		}
	}
	// The schema's own types (registry.BeamSize, registry.CC, registry.ByteSize, registry.NIWPrior, …) must not leak as type names.
	if len(goNames) < 3 {
		t.Fatalf("found only the Go types %v in the schema; the check below would prove nothing", goNames)
	}
	words := strings.FieldsFunc(help, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_')
	})
	for _, w := range words {
		if goNames[w] {
			t.Errorf("help config shows the Go type name %s", w)
		}
	}
	if strings.Contains(help, "default for )") {
		t.Error("help config lists a format as the default for no extension")
	}
}

func TestTrellisParams(t *testing.T) {
	src := `version: 1
name: t
datasets:
  - {name: d, generator: ginkgo, jets: 1, t_cut: 16}
algorithms:
  - {name: trellis, memory_limit: 1.5GiB, samples: 10, marginals: 5}
  - {name: trellis, label: m, mode: map}
`
	cfg, err := Parse("t.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	p := cfg.Algorithms[0].Params.(*registry.TrellisParams)
	if p.Mode != "full" || !p.CountTrees || p.MemoryLimit != 3<<29 || p.Samples != 10 || p.Marginals != 5 {
		t.Errorf("params %+v", p)
	}
	if m := cfg.Algorithms[1].Params.(*registry.TrellisParams); m.Mode != "map" || m.MemoryLimit != 0 {
		t.Errorf("params %+v", m)
	}
	bad := strings.Replace(src, "mode: map}", "mode: map, samples: 3, memory_limit: lots}", 1)
	bad = strings.Replace(bad, "samples: 10", "samples: -1", 1)
	_, err = Parse("t.yaml", []byte(bad))
	for _, want := range []string{
		"t.yaml:6: algorithms[0].samples: must be 0 (none) or positive, got -1",
		`t.yaml:7: algorithms[1].memory_limit: want a size such as 8GiB or 512MiB, got "lots"`,
		"t.yaml:7: algorithms[1].samples: need log Z, which mode: map skips; use mode: full",
	} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("error %v does not contain %q", err, want)
		}
	}
	big := strings.Replace(src, "samples: 10, marginals: 5", "samples: 100001, marginals: 10001, count_map_trees: 1", 1)
	_, err = Parse("t.yaml", []byte(big))
	for _, want := range []string{
		"t.yaml:6: algorithms[0].samples: at most 100000 (each sample is a tree in the record), got 100001",
		"t.yaml:6: algorithms[0].marginals: at most 10000 (each cluster is listed in the record), got 10001",
		"t.yaml:6: algorithms[0].count_map_trees:",
	} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("error %v does not contain %q", err, want)
		}
	}
}

func TestParseByteSize(t *testing.T) {
	for in, want := range map[string]registry.ByteSize{"0": 0, "1024": 1024, "1KiB": 1024, "512MiB": 512 << 20, "1.5 GiB": 3 << 29, "2GB": 2e9, "7B": 7} {
		if got, err := registry.ParseByteSize(in); err != nil || got != want {
			t.Errorf("registry.ParseByteSize(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, in := range []string{"", "-1", "lots", "1XB", "1e30GiB", "NaN", "NaN GiB", "Inf", "-0.5KiB"} {
		if _, err := registry.ParseByteSize(in); err == nil {
			t.Errorf("registry.ParseByteSize(%q) succeeded", in)
		}
	}
}

func TestBeamParams(t *testing.T) {
	src := "version: 1\nname: b\ndatasets:\n  - {name: d, generator: ginkgo, jets: 1, t_cut: 16}\nalgorithms:\n" +
		"  - beam\n  - {name: beam, label: a, beam_size: 36, dedup: float}\n  - {name: beam, label: c, beam_size: \"max(3N, N(N-1)/2)\"}\n"
	cfg, err := Parse("b.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	sizes := []int{}
	for _, a := range cfg.Algorithms {
		sizes = append(sizes, a.Params.(*registry.BeamParams).BeamSize.Of(10))
	}
	if fmt.Sprint(sizes) != "[45 36 45]" || cfg.Algorithms[0].Params.(*registry.BeamParams).Dedup != "structure" {
		t.Errorf("beam sizes at n = 10: %v; params %+v", sizes, cfg.Algorithms[0].Params)
	}
	bad := strings.Replace(strings.Replace(src, "beam_size: 36", "beam_size: 0", 1), "dedup: float", "dedup: bits", 1)
	bad = strings.Replace(bad, `"max(3N, N(N-1)/2)"`, "n^2", 1)
	bad += "  - {name: beam, label: q, beam_size: \"36\"}\n"
	_, err = Parse("b.yaml", []byte(bad))
	for _, want := range []string{
		"b.yaml:7: algorithms[1].beam_size: must be at least 1, got 0",
		`b.yaml:7: algorithms[1].dedup: must be structure or float, got "bits"`,
		`b.yaml:8: algorithms[2].beam_size: want a number or one of 3n, max(3n, n(n-1)/2), min(3n, n(n-1)/2), n(n-1)/2, got "n^2"`,
		`b.yaml:9: algorithms[3].beam_size: want a number or a formula in n, got "36" (a quoted number is a string in YAML; write it without quotes)`,
	} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("error %v does not contain %q", err, want)
		}
	}
}

func TestBeamSizeFormulas(t *testing.T) {
	// The named conventions of trellis.md §7 evaluated by hand: 3n; the StandardHC notebook's
	// min(3n, n(n-1)/2), which is n(n-1)/2 below n = 7 and 3n from there; and neither below 1
	// (min(3, 0) at n = 1 is raised to 1). Spellings with N and spaces are the same convention.
	cases := []struct {
		spelling string
		want     map[int]int // n → B
	}{
		{"3n", map[int]int{1: 3, 2: 6, 9: 27, 60: 180}},
		{"3N", map[int]int{9: 27}},
		{"min(3n, n(n-1)/2)", map[int]int{1: 1, 2: 1, 5: 10, 6: 15, 7: 21, 8: 24, 9: 27, 60: 180}},
		{"min(3N,N(N-1)/2)", map[int]int{5: 10, 9: 27}},
	}
	for _, c := range cases {
		src := "version: 1\nname: b\ndatasets:\n  - {name: d, generator: ginkgo, jets: 1, t_cut: 16}\nalgorithms:\n" +
			"  - {name: beam, beam_size: \"" + c.spelling + "\"}\n"
		cfg, err := Parse("b.yaml", []byte(src))
		if err != nil {
			t.Fatalf("%s: %v", c.spelling, err)
		}
		size := cfg.Algorithms[0].Params.(*registry.BeamParams).BeamSize
		for n, want := range c.want {
			if got := size.Of(n); got != want {
				t.Errorf("%s at n = %d: %d, want %d", c.spelling, n, got, want)
			}
		}
	}
}

func TestSparseTrellisParams(t *testing.T) {
	src := `version: 1
name: s
datasets:
  - {name: d, generator: ginkgo, jets: 1, t_cut: 16}
algorithms:
  - sparse_trellis
  - {name: sparse_trellis, label: g, seeds: [greedy], beam_size: "min(3n, n(n-1)/2)", all_pairs_max_size: 20, splits_tried: 0, splits_kept: 0, max_clusters: 1}
`
	cfg, err := Parse("s.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	// The defaults of schema.go, and the bounds of validate.go accepted at their edges.
	if p := cfg.Algorithms[0].Params.(*registry.SparseTrellisParams); fmt.Sprint(p.Seeds) != "[greedy beam]" || p.BeamSize.Of(10) != 30 ||
		p.AllPairsMaxSize != 8 || p.SplitsTried != 25 || p.SplitsKept != 15 || p.MaxClusters != 100000 || p.BeamDedup != "structure" {
		t.Errorf("defaults %+v", p)
	}
	if p := cfg.Algorithms[1].Params.(*registry.SparseTrellisParams); fmt.Sprint(p.Seeds) != "[greedy]" || p.BeamSize.Of(5) != 10 || p.AllPairsMaxSize != 20 || p.MaxClusters != 1 {
		t.Errorf("params %+v", p)
	}
	bad := strings.Replace(src, "  - sparse_trellis\n", "  - {name: sparse_trellis, seeds: [], all_pairs_max_size: 0, splits_tried: -1, splits_kept: -2, max_clusters: 0}\n", 1)
	bad = strings.Replace(bad, "seeds: [greedy], beam_size: \"min(3n, n(n-1)/2)\", all_pairs_max_size: 20", "seeds: [greedy, beam, greedy], beam_size: 0, all_pairs_max_size: 21", 1)
	bad += "  - {name: sparse_trellis, label: u, seeds: [greedy, astar], beam_dedup: bits}\n"
	_, err = Parse("s.yaml", []byte(bad))
	for _, want := range []string{
		"s.yaml:6: algorithms[0].seeds: give at least one of greedy, beam",
		"s.yaml:6: algorithms[0].all_pairs_max_size: must be 1 to 20, got 0",
		"s.yaml:6: algorithms[0].splits_tried: must be 0 or positive, got -1",
		"s.yaml:6: algorithms[0].splits_kept: must be 0 or positive, got -2",
		"s.yaml:6: algorithms[0].max_clusters: must be positive, got 0",
		`s.yaml:7: algorithms[1].seeds: "greedy" listed twice`,
		"s.yaml:7: algorithms[1].beam_size: must be at least 1, got 0",
		"s.yaml:7: algorithms[1].all_pairs_max_size: must be 1 to 20, got 21",
		`s.yaml:8: algorithms[2].seeds: unknown seed "astar" (want greedy or beam)`,
		`s.yaml:8: algorithms[2].beam_dedup: must be structure or float, got "bits"`,
	} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("error %v does not contain %q", err, want)
		}
	}
}

func TestBayesianParams(t *testing.T) {
	src := `version: 1
name: b
datasets:
  - {name: g, generator: mixture, points: 40, items: 2}
  - {name: c, generator: mixture, kind: bernoulli, points: 30, dims: 6, split_model: none}
algorithms:
  - bhc
  - {name: bhc, label: explicit, niw: {kappa0: 0.1, nu0: 3, mu0: [0, 0], lambda0: [[1, 0], [0, 1]]}}
  - {name: rbhc, label: r, prior: fixed, pi: 0.3, m: 10, filter: logodds}
  - {name: embhc, label: e, m: 4, steps: 2}
  - {name: bhc_exact, label: x, pi: 0.4}
  - {name: brt, gamma: 0.3, model: bernoulli, cc: optimise}
  - {name: bhc, label: cat, model: categorical, cc: 0.5, cut: cut_every, merges: true, datasets: [c]}
`
	cfg, err := Parse("b.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	p := cfg.Algorithms[0].Params.(*registry.BHCParams)
	// An absent niw mapping still gets its defaults: the data recipe with g 20 for the BHC family.
	if p.Prior != "dp" || p.Alpha != 1 || p.Model != "niw" || p.NIW.Recipe != "data" || p.NIW.G != 20 || p.NIW.Kappa0 != 0.001 || p.Cut != "top_down" || p.CC.Value != 1 {
		t.Errorf("bhc defaults: %+v", p)
	}
	if e := cfg.Algorithms[1].Params.(*registry.BHCParams).NIW; e.Recipe != "explicit" || e.Nu0 != 3 || e.Kappa0 != 0.1 || len(e.Lambda0) != 2 {
		t.Errorf("explicit niw: %+v", e)
	}
	if r := cfg.Algorithms[2].Params.(*registry.RBHCParams); r.Prior != "fixed" || r.Pi != 0.3 || r.M != 10 || r.Filter != "logodds" || r.Base != 4 {
		t.Errorf("rbhc: %+v", r)
	}
	for _, c := range []struct{ entry, want string }{
		{"rbhc, base: 1", ""},
		{"rbhc, base: 0", "r.yaml:5: algorithms[0].base: must be 1 or more, got 0"},
		{"rbhc, base: -2", "r.yaml:5: algorithms[0].base: must be 1 or more, got -2"},
		{"embhc, resolve_base: 2", ""},
		{"embhc, resolve_base: 0", "r.yaml:5: algorithms[0].resolve_base: must be 1 or more, got 0"},
	} {
		_, err := Parse("r.yaml", []byte("version: 1\nname: r\ndatasets: [{name: g, generator: mixture, points: 40}]\nalgorithms:\n  - {name: "+c.entry+"}\n"))
		if (err == nil) != (c.want == "") || err != nil && !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want %q", c.entry, err, c.want)
		}
	}
	if e := cfg.Algorithms[3].Params.(*registry.EMBHCParams); e.M != 4 || e.Steps != 2 || e.ResolveM != 100 || e.ResolveBase != 4 {
		t.Errorf("embhc: %+v", e)
	}
	if b := cfg.Algorithms[5].Params.(*registry.BRTParams); b.Gamma != 0.3 || !b.CC.Optimise || b.NIW.G != 10 || b.JoinOnly {
		t.Errorf("brt: %+v", b)
	}
	if a := cfg.Algorithms[6]; len(a.Datasets) != 1 || a.Datasets[0] != "c" || len(cfg.Algorithms[0].Datasets) != 0 {
		t.Errorf("datasets of %s: %v", a.Label, a.Datasets)
	}
	if m := cfg.Datasets[0].Source.(*registry.MixtureSource); m.Kind != "gaussian" || m.Components != 4 || m.Dims != 2 || m.Items != 2 || m.SplitModel.Model != "correlation" {
		t.Errorf("mixture defaults: %+v", m)
	}
	// Nested parameters reach records as maps keyed by config key, and survive Resolved.
	if niw, ok := ParamsMap(p)["niw"].(map[string]any); !ok || niw["recipe"] != "data" || niw["g"] != 20.0 {
		t.Errorf("ParamsMap niw: %#v", ParamsMap(p)["niw"])
	}
	b, err := cfg.Resolved()
	if err != nil {
		t.Fatal(err)
	}
	again, err := Parse("resolved.yaml", b)
	if err != nil {
		t.Fatalf("the resolved config does not parse: %v\n%s", err, b)
	}
	if b2, _ := again.Resolved(); string(b) != string(b2) {
		t.Errorf("resolving twice changed the config:\n%s\n---\n%s", b, b2)
	}
	if !strings.Contains(string(b), "cc: optimise") || !strings.Contains(string(b), "recipe: explicit") {
		t.Errorf("resolved config:\n%s", b)
	}

	bad := `version: 1
name: b
datasets:
  - {name: g, generator: mixture, points: 2, components: 3, kind: poisson, split_model: maybe}
  - {name: u, file: data.csv, binarize: half, classes: [a, a]}
algorithms:
  - {name: bhc, prior: dirichlet}
  - {name: bhc, label: a, alpha: 0}
  - {name: bhc, label: b, niw: {nu0: 1, mu0: [0, 0], lambda0: [[1, 0], [0, 1]]}}
  - {name: bhc, label: c, niw: {recipe: data, mu0: [1]}}
  - {name: bhc, label: d, cc: -1}
  - {name: brt, gamma: 1}
  - {name: rbhc, filter: middle}
  - {name: bhc_exact, pi: 0}
  - {name: bhc, label: z, datasets: [g, nope]}
`
	_, err = Parse("bad.yaml", []byte(bad))
	for _, want := range []string{
		`bad.yaml:4: datasets[0].kind: must be gaussian or bernoulli, got "poisson"`,
		"bad.yaml:4: datasets[0].points: must be at least components (3), got 2",
		`bad.yaml:4: datasets[0].split_model: must be correlation or none, got "maybe"`,
		`bad.yaml:5: datasets[1].binarize: must be none or a number, got "half"`,
		`bad.yaml:5: datasets[1].classes: "a" listed twice`,
		`bad.yaml:7: algorithms[0].prior: must be dp or fixed, got "dirichlet"`,
		"bad.yaml:8: algorithms[1].alpha: must be positive, got 0",
		"bad.yaml:9: algorithms[2].niw: nu0 must exceed d − 1 = 1, got 1",
		"bad.yaml:10: algorithms[3].niw: nu0, mu0 and lambda0 are for recipe: explicit",
		`bad.yaml:11: algorithms[4].cc: want a positive number or optimise, got "-1"`,
		"bad.yaml:12: algorithms[5].gamma: must lie in (0, 1), got 1",
		`bad.yaml:13: algorithms[6].filter: must be note or logodds, got "middle"`,
		"bad.yaml:14: algorithms[7].pi: must lie in (0, 1), got 0",
		`bad.yaml:15: algorithms[8].datasets: no data set is named "nope"`,
	} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("error does not contain %q:\n%v", want, err)
		}
	}
}

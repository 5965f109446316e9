package config

import (
	"strconv"
	"strings"
	"testing"

	"github.com/hcbench/hcbench/experiments/registry"
)

// overrideBase is a config for the -set tests: two data sets, the second merging the first's
// keys through an alias, and algorithms written as a bare name and as mappings.
const overrideBase = `version: 1
name: ov
datasets:
  - &d {name: q, generator: ginkgo, jets: 2, t_cut: 16}
  - {<<: *d, name: r}
algorithms: [greedy, {name: beam, label: beam2, beam_size: 2}, beam]
`

// TestOverridesApply: -set values replace and add keys as if the file wrote them; the aliased
// data set keeps its own value; a bare algorithm name takes parameters; flow lists are values;
// the resolved config (config.yaml, and so the config hash) holds them, and the config records
// the flags.
func TestOverridesApply(t *testing.T) {
	sets := []string{"seed=3", "datasets[0].jets=50", "algorithms[2].beam_size=3n", "reports=[summary, runtime]", "algorithms[1].beam_size=5", "algorithms[1].beam_size=6"}
	cfg, err := ParseOptions("ov.yaml", []byte(overrideBase), Options{Set: sets})
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Seed != 3 {
		t.Errorf("seed %d, want 3", cfg.Seed)
	}
	if q, r := cfg.Datasets[0].Source.(*registry.GinkgoSource), cfg.Datasets[1].Source.(*registry.GinkgoSource); q.Jets != 50 || r.Jets != 2 {
		t.Errorf("jets: q %d, r %d; want 50 and 2 (r merges q's keys through an alias, and must not follow the override)", q.Jets, r.Jets)
	}
	if got := strings.Join(cfg.Reports, ","); got != "summary,runtime" {
		t.Errorf("reports %s", got)
	}
	res, err := cfg.Resolved()
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"seed: 3\n", "jets: 50\n", "beam_size: 3n\n", "beam_size: 6\n", "label: beam\n"} {
		if !strings.Contains(string(res), want) {
			t.Errorf("resolved config has no %q:\n%s", want, res)
		}
	}
	if strings.Join(cfg.Overrides, " ") != strings.Join(sets, " ") {
		t.Errorf("Overrides %q, want %q", cfg.Overrides, sets)
	}
	plain, err := Parse("ov.yaml", []byte(overrideBase))
	if err != nil {
		t.Fatal(err)
	}
	if plain.Seed != 1 || plain.Datasets[0].Source.(*registry.GinkgoSource).Jets != 2 {
		t.Errorf("the config without -set changed")
	}
}

// TestOverrideProblems: a bad -set is reported like the same key in the file, naming the flag
// instead of a line: an unknown key with the file's suggestion, a bad value, a path that leads
// nowhere, a malformed flag. Problems of the file are still reported with their lines.
func TestOverrideProblems(t *testing.T) {
	for _, tc := range []struct{ set, want string }{
		{"algorithms[2].beam_size=x", `-set algorithms[2].beam_size=x: want a number or one of 3n,`},
		{"sed=3", `-set sed=3: unknown key "sed" (did you mean "seed"?)`},
		{"datasets[1].jest=5", `-set datasets[1].jest=5: unknown key "jest" (did you mean "jets"?)`},
		{"datasets[0].t_cut=-1", `-set datasets[0].t_cut=-1: must be positive, got -1`},
		{"seed=", `-set seed=: no value given`},
		{"datasets[5].jets=1", `-set datasets[5].jets=1: datasets has 2 entries, so [5] is past its end`},
		{"name.x=1", `-set name.x=1: name is not a mapping (it is "ov"), so it has no key "x"`},
		{"seed[0]=1", `-set seed[0]=1: seed is not a list`},
		{"bad", `-set bad: want PATH=VALUE`},
		{"datasets[0]jets=3", `-set datasets[0]jets=3: "datasets[0]jets" is not a key path`},
		{"seed=[1", `-set seed=[1: the value "[1" is not YAML`},
		{"algorithms[2].label=beam2", `-set algorithms[2].label=beam2: label "beam2" is already used on line 6`},
	} {
		_, err := ParseOptions("ov.yaml", []byte(overrideBase), Options{Set: []string{tc.set}})
		if err == nil || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("-set %s: error %v\nwant one starting %q", tc.set, err, tc.want)
		}
	}
	// A problem of the file that names a key an override wrote says so, not a line past the file.
	_, err := ParseOptions("ov.yaml", []byte(overrideBase), Options{Set: []string{"algorithms[1]={name: beam, beam_size: 7}"}})
	if want := `ov.yaml:6: algorithms[2]: label "beam" is already used in -set algorithms[1]={name: beam, beam_size: 7}`; err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Errorf("error %v\nwant %q", err, want)
	}
	// A problem found after loading (reading a data file) at a key an override wrote names it.
	cfg, err := ParseOptions("ov.yaml", []byte(overrideBase), Options{Set: []string{"datasets[1].jets=4"}})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := cfg.Problem(&cfg.Datasets[1], "jets", "too many").Error(), "-set datasets[1].jets=4: too many"; got != want {
		t.Errorf("Problem: %q, want %q", got, want)
	}
	if got, want := cfg.Problem(&cfg.Datasets[0], "jets", "too many").Error(), "ov.yaml:4: datasets[0].jets: too many"; got != want {
		t.Errorf("Problem: %q, want %q", got, want)
	}
}

// FuzzOverride: any -set flag on a valid config gives a config or problems, never a panic, and
// every problem of the flag names it.
func FuzzOverride(f *testing.F) {
	for _, s := range []string{"seed=3", "datasets[0].jets=50", "algorithms[0]={name: external, command: [p], params: {a: .nan}}", "algorithms[2].beam_size=3n", "algorithms[0]={name: beam}", "datasets[1]=[1,2]", "a.b.c[0][1]=x", "=", "datasets[99999999999999999999].x=1", "reports=*x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, set string) {
		_, err := ParseOptions("ov.yaml", []byte(overrideBase), Options{Set: []string{set}})
		if ps, ok := err.(Problems); ok {
			for _, p := range ps {
				if p.Line >= overrideLine || strings.Contains(p.Msg, strconv.Itoa(overrideLine)) {
					t.Fatalf("problem at an override's line: %v", p)
				}
			}
		}
	})
}

// TestOverrideParamsLine: a bad value under an external algorithm's params, whose messages note
// the line of the value, names the -set flag that wrote it and no line past the file (a sentinel
// line number, 1073741824, used to leak into them). The command is go, which go test puts on PATH.
func TestOverrideParamsLine(t *testing.T) {
	const base = "version: 1\nname: ext\ndatasets:\n  - {name: q, generator: ginkgo, jets: 2, t_cut: 16}\nalgorithms:\n  - {name: external, command: [go], params: {noise: 0}}\n"
	for _, tc := range []struct{ set, want string }{
		{"algorithms[0].params={a: .nan}", "-set algorithms[0].params={a: .nan}: a: .nan is not a number JSON can hold"},
		{"algorithms[0].params={a: 1, a: 2}", `-set algorithms[0].params={a: 1, a: 2}: the mapping: key "a" given twice`},
		{"algorithms[0].params={a: [1, !!binary x]}", "-set algorithms[0].params={a: [1, !!binary x]}: a[1]: a value tagged !!binary"},
		// A key added to the file's mapping: the problem is the file's, at the mapping's line,
		// and the note names the flag.
		{"algorithms[0].params.x=.inf", "ext.yaml:6: algorithms[0].params: x (in -set algorithms[0].params.x=.inf): .inf is not a number JSON can hold"},
	} {
		_, err := ParseOptions("ext.yaml", []byte(base), Options{Set: []string{tc.set}})
		if err == nil || !strings.HasPrefix(err.Error(), tc.want) || strings.Contains(err.Error(), strconv.Itoa(overrideLine)) {
			t.Errorf("-set %s: error %v\nwant one starting %q, without line %d", tc.set, err, tc.want, overrideLine)
		}
	}
}

package config

import (
	"slices"
	"strings"
	"testing"
)

const repeatConfig = `version: 1
name: r
datasets:
  - {name: q, generator: ginkgo, jets: 2, t_cut: 16}
algorithms:
  - greedy
  - {name: beam, repeat: 3}
  - {name: truth, label: t2}
`

// TestRepeat: an algorithm entry's repeat is 1 unless it writes one; Options.Repeat (run's
// -count) sets it for the entries that do not, the one written winning; the resolved config
// writes repeat only where it is not 1 (so that configs without it keep their hash) and reads
// back to the same repeats.
func TestRepeat(t *testing.T) {
	repeats := func(c *Config) []int {
		var out []int
		for _, a := range c.Algorithms {
			out = append(out, a.Repeat)
		}
		return out
	}
	for _, c := range []struct {
		count int
		want  []int
	}{{0, []int{1, 3, 1}}, {1, []int{1, 3, 1}}, {5, []int{5, 3, 5}}} {
		cfg, err := ParseOptions("r.yaml", []byte(repeatConfig), Options{Repeat: c.count})
		if err != nil {
			t.Fatal(err)
		}
		if got := repeats(cfg); !slices.Equal(got, c.want) {
			t.Errorf("count %d: repeats %v, want %v", c.count, got, c.want)
		}
		resolved, err := cfg.Resolved()
		if err != nil {
			t.Fatal(err)
		}
		if n, want := strings.Count(string(resolved), "repeat:"), map[int]int{0: 1, 1: 1, 5: 3}[c.count]; n != want {
			t.Errorf("count %d: the resolved config writes repeat %d times, want %d:\n%s", c.count, n, want, resolved)
		}
		again, err := Parse("resolved.yaml", resolved)
		if err != nil {
			t.Fatalf("count %d: the resolved config does not parse: %v", c.count, err)
		}
		if got := repeats(again); !slices.Equal(got, c.want) {
			t.Errorf("count %d: resolved config's repeats %v, want %v", c.count, got, c.want)
		}
	}

	// Without repeat the resolved config is what it was before repeats existed.
	cfg, err := Parse("r.yaml", []byte(strings.Replace(repeatConfig, "repeat: 3", "beam_size: 2", 1)))
	if err != nil {
		t.Fatal(err)
	}
	if resolved, _ := cfg.Resolved(); strings.Contains(string(resolved), "repeat") {
		t.Errorf("a config without repeats resolves with one:\n%s", resolved)
	}
}

// TestRepeatProblems: repeat must be 1 to MaxRepeat, at its line; so must Options.Repeat.
func TestRepeatProblems(t *testing.T) {
	src := strings.Replace(repeatConfig, "repeat: 3", "repeat: 0", 1) + "  - {name: greedy, label: g2,\n     repeat: 1001}\n  - {name: greedy, label: g3, repeat: x}\n"
	checkExact(t, problemsOf(t, src), []string{
		"bad.yaml:7: algorithms[1].repeat: must be 1 to 1000, got 0",
		"bad.yaml:10: algorithms[3].repeat: must be 1 to 1000, got 1001",
		`bad.yaml:11: algorithms[4].repeat: want an integer, got "x"`,
	})
	_, err := ParseOptions("r.yaml", []byte(repeatConfig), Options{Repeat: MaxRepeat + 1})
	if err == nil || !strings.Contains(err.Error(), "-count must be 1 to 1000, got 1001") {
		t.Errorf("Options.Repeat 1001: %v", err)
	}
}

// TestConfigCount: the config's count is the repeat of the entries without their own, -count
// overrides it, it is checked at its line, and it leaves the config hash as -count does.
func TestConfigCount(t *testing.T) {
	withCount := strings.Replace(repeatConfig, "datasets:", "count: 4\ndatasets:", 1)
	if withCount == repeatConfig {
		t.Fatal("the fixture has no datasets line")
	}
	repeats := func(c *Config) []int {
		var out []int
		for _, a := range c.Algorithms {
			out = append(out, a.Repeat)
		}
		return out
	}
	c, err := ParseOptions("c.yaml", []byte(withCount), Options{})
	if err != nil {
		t.Fatal(err)
	}
	flag, err := ParseOptions("c.yaml", []byte(repeatConfig), Options{Repeat: 4})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := repeats(c), repeats(flag); !slices.Equal(got, want) || !slices.Contains(got, 4) {
		t.Errorf("count: 4 gives repeats %v, -count 4 gives %v", got, want)
	}
	over, err := ParseOptions("c.yaml", []byte(withCount), Options{Repeat: 2})
	if err != nil {
		t.Fatal(err)
	}
	if got := repeats(over); slices.Contains(got, 4) || !slices.Contains(got, 2) {
		t.Errorf("-count 2 over count: 4 gives repeats %v", got)
	}
	bad := strings.Replace(repeatConfig, "datasets:", "count: 1001\ndatasets:", 1)
	if _, err := ParseOptions("bad.yaml", []byte(bad), Options{}); err == nil || !strings.Contains(err.Error(), "count: must be 0 (each entry's repeat) or 1 to 1000, got 1001") {
		t.Errorf("count 1001: %v", err)
	}
}

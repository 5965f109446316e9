package config

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/hcbench/hcbench/internal/limittest"
)

// expandedNodes returns the number of YAML nodes of src once its aliases are expanded (each use of
// an alias counting the nodes of its value), up to maxExpandedNodes+1; 0 when src is not YAML.
func expandedNodes(src []byte) int {
	var doc yaml.Node
	if err := yaml.NewDecoder(bytes.NewReader(src)).Decode(&doc); err != nil {
		return 0
	}
	size := map[*yaml.Node]int{}
	var walk func(n *yaml.Node) int
	walk = func(n *yaml.Node) int {
		for n.Kind == yaml.AliasNode && n.Alias != nil {
			n = n.Alias
		}
		if s, ok := size[n]; ok {
			return s
		}
		size[n] = 0 // a cycle, which yaml.v3 refuses anyway, counts nothing
		s := 1
		for _, c := range n.Content {
			s = min(s+walk(c), maxExpandedNodes+1)
		}
		size[n] = s
		return s
	}
	return walk(&doc)
}

// Allocation bound of Parse: allocPerByte times the text, plus allocPerNode times the YAML nodes
// of the config once its aliases are expanded, plus allocConst.
//
// Per byte: yaml.v3 builds a Node (some 150 bytes) for every scalar, list and mapping, with its
// tokens and events on the way; a flow list "[x,x,…]" has a node per 2 bytes, and decoding an
// unknown algorithm name costs some 600 bytes more. TestAllocBound measures such configs, at
// most 392 per byte.
//
// Per expanded node: decoding walks every node once its aliases are expanded, so that a few bytes
// ("*d, ") stand for a whole data set entry decoded again at each use, some 6 KB for the 9 nodes
// of the smallest entry (a data set written out costs as much). TestAllocBound measures at most
// 992 bytes per node. Since more than maxExpandedNodes (1048576) nodes are refused before
// decoding, and text beyond MaxConfigBytes (4 MiB) before parsing, Parse allocates at most some
// 1 GB for the nodes and 1.6 GB for the text of the most hostile config, and of a real config
// (a few KB) a few MB.
//
// The constant covers the schema's reflection caches, the problems' messages and the suggestions
// in them (maxProblems of them), and yaml.v3's parser state.
const (
	allocPerByte = 512
	allocPerNode = 1024
	allocConst   = 2 << 20
)

func checkAlloc(t *testing.T, what string, a uint64, src []byte) {
	t.Helper()
	nodes := expandedNodes(src)
	if a > uint64(allocPerByte*len(src)+allocPerNode*nodes+allocConst) {
		t.Fatalf("%s allocated %d bytes for %d bytes of text, %d nodes expanded, more than %d per byte, %d per node and %d", what, a, len(src), nodes, allocPerByte, allocPerNode, allocConst)
	}
}

// FuzzParse: Parse never panics, allocates within the bound, and gives either problems, each
// naming the file, or a config with data sets and algorithms, whose resolved form (Resolved, what
// a run directory stores) parses to a config that resolves to the same text.
func FuzzParse(f *testing.F) {
	f.Add([]byte(good))
	files, _ := filepath.Glob("../../configs/*.yaml")
	for _, p := range files {
		if b, err := os.ReadFile(p); err == nil {
			f.Add(b)
		}
	}
	for _, s := range []string{
		`version: &one 1
name: x
workers: *one
datasets:
  - &qcd {name: a, generator: ginkgo, jets: 2, t_cut: 16}
  - {<<: *qcd, name: b, lambda: 2}
algorithms:
  - &map {name: trellis, mode: map, threads: 1}
  - {<<: *map, label: t2}
  - {<<: [{mode: full, label: t3}, *map], threads: 2}
`,
		"version: 1\nname: x\ndatasets: [{name: a, generator: ginkgo, jets: 2, t_cut: 16}]\nalgorithms: [greedy]\n",
		"version: 1\nname: x\ndatasets: [{name: a, generator: ginkgo, jets: \"2\", t_cut: 16}]\nalgorithms: [greedy, {name: nope}]\nreports: [summary, summary]\n",
		"version: 1\nname: x\ndatasets: [{name: p, file: data:pam50/x.csv, header: sklearn}]\nalgorithms: [bhc]\n",
		"version: 1\nname: x\ndatasets: [{name: j, file: j.jsonl}]\nalgorithms: [greedy]\nthresholds: {}\n",
		"a: &a [1, 1, 1]\nb: &b [*a, *a, *a]\nc: [*b, *b, *b]\n",
		"<<: 3\n",
		"---\n---\nseed: 3\n",
		"# nothing\n",
		"version: 1\n\tname: x\n",
		"[1, 2]\n",
		"version: !!str 1\nmemory_limit: 1.5 GiB\n",
	} {
		f.Add([]byte(s))
	}
	// An aliased entry of unknown keys used many times: before the problems were capped, and
	// their suggestions skipped past the cap, such configs made messages and allocations
	// thousands of times their size (TestProblemsCapped).
	var bomb strings.Builder
	bomb.WriteString("version: 1\nname: x\nx: &d {name: a, generator: ginkgo")
	for k := range 40 {
		bomb.WriteString(", k" + itoa(k) + ": 1")
	}
	bomb.WriteString("}\ndatasets: [*d" + strings.Repeat(", *d", 40) + "]\nalgorithms: [x, y, z]\n")
	f.Add([]byte(bomb.String()))
	f.Fuzz(func(t *testing.T, src []byte) {
		var cfg *Config
		var err error
		a := limittest.Allocated(func() { cfg, err = Parse("f.yaml", src) })
		checkAlloc(t, "Parse", a, src)
		if err != nil {
			ps, ok := err.(Problems)
			if !ok || len(ps) == 0 {
				t.Fatalf("error %v (%T), want Problems", err, err)
			}
			for _, p := range ps {
				if p.File != "f.yaml" || p.Msg == "" {
					t.Fatalf("problem %+v", p)
				}
			}
			return
		}
		if cfg.Path != "f.yaml" || len(cfg.Datasets) == 0 || len(cfg.Algorithms) == 0 {
			t.Fatalf("config of %d data sets, %d algorithms", len(cfg.Datasets), len(cfg.Algorithms))
		}
		for i, a := range cfg.Algorithms {
			if a.Params == nil || a.Name == "" {
				t.Fatalf("algorithm %d: %+v", i, a)
			}
		}
		for i, d := range cfg.Datasets {
			if d.Source == nil || d.Name == "" {
				t.Fatalf("data set %d: %+v", i, d)
			}
		}
		r1, err := cfg.Resolved()
		if err != nil {
			t.Fatalf("Resolved: %v", err)
		}
		again, err := Parse("f.yaml", r1)
		if err != nil {
			t.Fatalf("the resolved config does not parse: %v\n%s", err, r1)
		}
		r2, err := again.Resolved()
		if err != nil || !bytes.Equal(r1, r2) {
			t.Fatalf("resolving twice changed the config (%v):\n%s\n---\n%s", err, r1, r2)
		}
	})
}

// TestAllocBound holds Parse to the fuzz target's allocation bound on the configs that allocate
// most per byte and per expanded node: fuzzing explores small inputs, where the constant hides
// the slopes.
func TestAllocBound(t *testing.T) {
	if testing.Short() {
		t.Skip("parses some MiB")
	}
	const size = 1 << 18
	head := "version: 1\nname: x\ndatasets: [{name: a, generator: ginkgo, jets: 2, t_cut: 16}]\nalgorithms: [greedy]\n"
	aliased := func(keys, uses int, value string) string {
		var b strings.Builder
		b.WriteString("version: 1\nname: x\nx: &d {name: a, generator: ginkgo, jets: 2, t_cut: 16")
		for k := range keys {
			b.WriteString(", k" + strings.Repeat("z", k%7) + string(rune('a'+k%26)) + itoa(k) + ": " + value)
		}
		b.WriteString("}\ndatasets: [*d" + strings.Repeat(", *d", uses-1) + "]\nalgorithms: [greedy]\n")
		return b.String()
	}
	for _, c := range []struct{ name, src string }{
		{"flow list", head + "x: [" + strings.Repeat("1,", size/2) + "1]\n"},
		{"block list", head + "x:\n" + strings.Repeat("- 1\n", size/4)},
		{"flow mapping", head + "x: {" + strings.Repeat("a: 1,", size/5) + "b: 1}\n"},
		{"nested lists", head + "x: " + strings.Repeat("[", 5000) + strings.Repeat("]", 5000) + "\n"},
		{"empty mappings", head + "x: [" + strings.Repeat("{},", size/3) + "{}]\n"},
		{"long scalar", head + "x: " + strings.Repeat("y", size) + "\n"},
		{"many data sets", head[:strings.Index(head, "datasets")] + "datasets: [" + strings.Repeat("{name: a, generator: ginkgo, jets: 2, t_cut: 16},", size/50) + "{}]\nalgorithms: [greedy]\n"},
		{"many bad algorithms", head[:strings.Index(head, "algorithms")] + "algorithms: [" + strings.Repeat("x,", size/2) + "x]\n"},
		// A quarter of maxExpandedNodes once expanded (an entry of k keys is 9+2k nodes), which
		// measures the cost per node as well as the whole would, in a quarter of the time.
		{"aliased entries of unknown keys", aliased(1000, 130, "1")},
		{"aliased entries of many keys", aliased(100, 1250, "1")},
		{"aliased entries of bad values", aliased(2, 17000, "[1]")},
		{"aliased entries of aliased values", "v: &v [1, 2, 3, 4, 5, 6, 7, 8]\n" + aliased(4, 7500, "*v")},
		{"aliased small entries", aliased(0, 29000, "")},
		{"aliased lists in entries", "l: &l [" + strings.Repeat("a, ", 999) + "a]\n" + head[:strings.Index(head, "algorithms")] + "algorithms: [" + strings.Repeat("{name: greedy, datasets: *l},", 250) + "greedy]\n"},
	} {
		var err error
		a := limittest.Allocated(func() { _, err = Parse("f.yaml", []byte(c.src)) })
		checkAlloc(t, "Parse of "+c.name, a, []byte(c.src))
		n := expandedNodes([]byte(c.src))
		t.Logf("%s: %d bytes, %d nodes expanded: %.1f bytes per byte, %.1f per node (%d problems)", c.name, len(c.src), n, float64(a)/float64(len(c.src)), float64(a)/float64(n), problemCount(err))
	}
}

func itoa(k int) string { return strconv.Itoa(k) }

func problemCount(err error) int {
	ps, _ := err.(Problems)
	return len(ps)
}

package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode"

	"go.yaml.in/yaml/v3"

	"github.com/hcbench/hcbench/datasets/datadir"
	"github.com/hcbench/hcbench/experiments/cli"
	"github.com/hcbench/hcbench/experiments/config"
	"github.com/hcbench/hcbench/experiments/metric"
	"github.com/hcbench/hcbench/experiments/registry"
)

// The README is the front page; the rest of the documentation is in docs/. These tests keep both
// true to the code: every link resolves, every command names a subcommand, the README's config is
// valid, no page points a reader at notes they do not have, and the citation file parses.

// maxReadmeLines bounds the front page: what hcbench is, install, set-up, a config, a screenshot,
// where to read more. Anything longer belongs in docs/.
const maxReadmeLines = 200

// docPages returns README.md and every Markdown file under docs/.
func docPages(t *testing.T) []string {
	t.Helper()
	pages := []string{"README.md"}
	err := filepath.WalkDir("docs", func(path string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(path, ".md") {
			pages = append(pages, path)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(pages) < 5 {
		t.Fatalf("found only %v; the documentation is README.md and docs/*.md", pages)
	}
	return pages
}

// TestReadmeIsAFrontPage: the README is under maxReadmeLines lines, gives the install lines that
// work without a release (a clone and go install .) and the one of the module path that go.mod
// declares for when one is tagged, the Go version it needs, and the test command that CI runs
// (.ci/run: go test ./...).
func TestReadmeIsAFrontPage(t *testing.T) {
	readme := read(t, "README.md")
	if n := strings.Count(readme, "\n"); n >= maxReadmeLines {
		t.Errorf("README.md has %d lines; keep it under %d and move details to docs/", n, maxReadmeLines)
	}
	mod := regexp.MustCompile(`(?m)^module (\S+)$`).FindStringSubmatch(read(t, "go.mod"))
	if mod == nil {
		t.Fatal("go.mod names no module")
	}
	goVersion := regexp.MustCompile(`(?m)^go (\S+)$`).FindStringSubmatch(read(t, "go.mod"))
	if goVersion == nil {
		t.Fatal("go.mod names no Go version")
	}
	for _, want := range []string{"git clone https://" + mod[1], "go install .", "go install " + mod[1] + "@latest", "Go " + goVersion[1] + " or later", "go test ./...", "docs/images/index.png"} {
		if !strings.Contains(readme, want) {
			t.Errorf("README.md does not give %q", want)
		}
	}
	if !strings.Contains(read(t, ".ci/run"), "go test ./...") {
		t.Error(".ci/run no longer runs go test ./..., the README's test command")
	}
	if fi, err := os.Stat("docs/images/index.png"); err != nil {
		t.Error(err)
	} else if fi.Size() > 200<<10 {
		t.Errorf("docs/images/index.png is %d KiB; shrink it under 200 KiB", fi.Size()>>10)
	}
}

// linkRE matches a Markdown link or image target: [text](target) or ![alt](target).
var linkRE = regexp.MustCompile(`\]\(([^()\s]+)\)`)

// TestDocLinks: every relative link of README.md and docs/*.md names a file or folder of the
// repository, and a #fragment names a heading of the Markdown page it points to; and every page
// of docs/ is listed in docs/README.md, the index.
func TestDocLinks(t *testing.T) {
	pages := docPages(t)
	for _, page := range pages {
		text, _ := prose(read(t, page))
		for _, m := range linkRE.FindAllStringSubmatch(text, -1) {
			target := m[1]
			u, err := url.Parse(target)
			if err != nil {
				t.Errorf("%s: link %q: %v", page, target, err)
				continue
			}
			if u.Scheme != "" { // http, https, mailto: not checked here
				continue
			}
			file := page
			if u.Path != "" {
				file = filepath.Join(filepath.Dir(page), filepath.FromSlash(u.Path))
				if _, err := os.Stat(file); err != nil {
					t.Errorf("%s: link %q: %s does not exist", page, target, file)
					continue
				}
			}
			if u.Fragment == "" {
				continue
			}
			if !strings.HasSuffix(file, ".md") {
				t.Errorf("%s: link %q: a fragment on a file that is not Markdown", page, target)
				continue
			}
			if anchors := headingAnchors(read(t, file)); !anchors[u.Fragment] {
				t.Errorf("%s: link %q: %s has no heading #%s", page, target, file, u.Fragment)
			}
		}
	}
	index := read(t, "docs/README.md")
	for _, page := range pages {
		if rel, ok := strings.CutPrefix(filepath.ToSlash(page), "docs/"); ok && rel != "README.md" && !strings.Contains(index, "]("+rel+")") {
			t.Errorf("docs/README.md does not list %s", page)
		}
	}
}

// TestLayoutListsEveryPackage: the layout table of docs/README.md names every Go package of the
// repository, so that a reader finds a new package's job there.
func TestLayoutListsEveryPackage(t *testing.T) {
	index := read(t, "docs/README.md")
	dirs := map[string]bool{}
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && path != "." && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata") {
			return filepath.SkipDir
		}
		if !d.IsDir() && strings.HasSuffix(path, ".go") && !strings.HasSuffix(path, "_test.go") {
			dirs[filepath.ToSlash(filepath.Dir(path))] = true
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(dirs) < 20 {
		t.Fatalf("found %d packages; the walk missed the code", len(dirs))
	}
	for dir := range dirs {
		name := dir
		if dir == "." {
			name = "run.go"
		}
		if !strings.Contains(index, "`"+name+"`") {
			t.Errorf("docs/README.md's layout does not list the package %s", name)
		}
	}
}

// TestResultsDocDescribesEveryField: docs/results.md names every top-level field of a record and
// of a manifest (as `field`), as their JSON Schemas list them.
func TestResultsDocDescribesEveryField(t *testing.T) {
	doc := read(t, "docs/results.md")
	for name, schema := range map[string]string{"record": metric.RecordJSONSchema(), "manifest": metric.ManifestJSONSchema()} {
		var s struct{ Properties map[string]any }
		if err := json.Unmarshal([]byte(schema), &s); err != nil {
			t.Fatal(err)
		}
		if len(s.Properties) < 10 {
			t.Fatalf("the %s schema has %d properties", name, len(s.Properties))
		}
		for p := range s.Properties {
			if !strings.Contains(doc, "`"+p+"`") {
				t.Errorf("docs/results.md does not describe the %s field %s", name, p)
			}
		}
	}
}

// TestResultsDocListsMetrics: docs/results.md's rows between its metrics markers are the
// computed metrics of the metric table, in its order, each with its definition.
func TestResultsDocListsMetrics(t *testing.T) {
	doc := read(t, "docs/results.md")
	_, after, ok := strings.Cut(doc, "<!-- metrics:columns")
	region, _, ok2 := strings.Cut(after, "<!-- /metrics -->")
	if !ok || !ok2 {
		t.Fatal("docs/results.md has no metrics markers")
	}
	_, region, _ = strings.Cut(region, "-->\n")
	var want strings.Builder
	for _, m := range metric.All() {
		if m.Computed() {
			fmt.Fprintf(&want, "| `%s` | %s |\n", m.Key, m.Definition)
		}
	}
	if region != want.String() {
		t.Errorf("docs/results.md's metric rows:\n%s\nwant (the metric table):\n%s", region, want.String())
	}
}

// updateCounters rewrites docs/algorithms.md's table of work counters from the algorithms'
// table (TestAlgorithmsDocListsCounters).
var updateCounters = flag.Bool("update-counters", false, "rewrite docs/algorithms.md's table of work counters from the algorithms' table")

// countersDoc is the region of docs/algorithms.md between its counters markers: every declared
// counter of every algorithm, with its help, and the algorithms that name their own or none.
func countersDoc() string {
	var b strings.Builder
	b.WriteString("| algorithm | counter | one unit is |\n| --- | --- | --- |\n")
	var own, none []string
	for _, a := range registry.Algorithms() {
		for _, c := range a.Counters {
			fmt.Fprintf(&b, "| `%s` | `%s` | %s |\n", a.Name, c.Key, c.Help)
		}
		switch {
		case a.OwnCounters:
			own = append(own, "`"+a.Name+"`")
		case len(a.Counters) == 0:
			none = append(none, "`"+a.Name+"`")
		}
	}
	if len(own) > 0 {
		fmt.Fprintf(&b, "\nCounters that the program names, in its answers: %s.\n", strings.Join(own, ", "))
	}
	if len(none) > 0 {
		fmt.Fprintf(&b, "\nNo counters: %s.\n", strings.Join(none, ", "))
	}
	return b.String()
}

// TestAlgorithmsDocListsCounters: docs/algorithms.md's table of work counters is the algorithms'
// declarations (registry.Algorithm.Counters), for every algorithm; -update-counters rewrites it.
func TestAlgorithmsDocListsCounters(t *testing.T) {
	const path, begin, end = "docs/algorithms.md", "<!-- begin counters -->\n", "<!-- end counters -->"
	doc := read(t, path)
	before, after, ok := strings.Cut(doc, begin)
	region, rest, ok2 := strings.Cut(after, end)
	if !ok || !ok2 {
		t.Fatalf("%s has no counters markers", path)
	}
	want := countersDoc()
	if region == want {
		return
	}
	if *updateCounters {
		if err := os.WriteFile(path, []byte(before+begin+want+end+rest), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	t.Errorf("%s's table of work counters is not the algorithms' declarations; regenerate it with\n\tgo test -run TestAlgorithmsDocListsCounters . -update-counters\nwant:\n%s", path, want)
}

// prose returns a Markdown text without its fenced code blocks and inline code spans (whose
// brackets are not links), and the fenced code blocks' lines.
func prose(md string) (text string, code []string) {
	var b strings.Builder
	fenced := false
	for line := range strings.Lines(md) {
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			fenced = !fenced
			continue
		}
		if fenced {
			code = append(code, strings.TrimRight(line, "\n"))
			continue
		}
		b.WriteString(codeSpanRE.ReplaceAllString(line, "``"))
	}
	return b.String(), code
}

var codeSpanRE = regexp.MustCompile("`[^`]*`")

// headingAnchors returns the anchors GitHub gives the headings of a Markdown page: the heading
// text in lower case, without punctuation other than '-' and '_', spaces made '-', and a
// repeated anchor numbered -1, -2, ….
func headingAnchors(md string) map[string]bool {
	out := map[string]bool{}
	fenced := false
	for line := range strings.Lines(md) {
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			fenced = !fenced
		}
		h, ok := strings.CutPrefix(line, "#")
		if fenced || !ok {
			continue
		}
		h = strings.TrimSpace(strings.TrimLeft(h, "#"))
		var b strings.Builder
		for _, r := range strings.ToLower(h) {
			switch {
			case r == ' ':
				b.WriteRune('-')
			case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsMark(r):
				b.WriteRune(r)
			}
		}
		a := b.String()
		for i := 1; out[a]; i++ {
			a = fmt.Sprintf("%s-%d", b.String(), i)
		}
		out[a] = true
	}
	return out
}

// TestHeadingAnchors checks the anchor rule on headings of the kinds the docs use.
func TestHeadingAnchors(t *testing.T) {
	got := headingAnchors("# Results: the run directory\n## Records: results.jsonl\n```\n# a comment\n```\n### `sparse_trellis`\n## Shards\n## Shards\n")
	want := []string{"results-the-run-directory", "records-resultsjsonl", "sparse_trellis", "shards", "shards-1"}
	if len(got) != len(want) {
		t.Errorf("anchors %v, want %v", got, want)
	}
	for _, a := range want {
		if !got[a] {
			t.Errorf("no anchor %q in %v", a, got)
		}
	}
}

// TestDocCommands: every command line in the README's and the docs' code blocks (`go run . X`,
// `hcbench X`, `bin/hcbench X`) names a subcommand that `hcbench help` lists, and the README's
// config is valid (hcbench validate).
func TestDocCommands(t *testing.T) {
	var usage, stderr bytes.Buffer
	if code := cli.Run(context.Background(), []string{"help"}, &usage, &stderr); code != 0 {
		t.Fatalf("hcbench help: exit %d: %s", code, stderr.String())
	}
	commandRE := regexp.MustCompile("(?:^|[\\s\"$(`])(?:go run \\.|bin/hcbench|hcbench) ([a-z][a-z-]*)")
	seen := 0
	for _, page := range docPages(t) {
		_, code := prose(read(t, page))
		for _, line := range code {
			line = shellCommentRE.ReplaceAllString(line, "") // # comments are prose
			for _, m := range commandRE.FindAllStringSubmatch(line, -1) {
				seen++
				if !strings.Contains(usage.String(), "hcbench "+m[1]) {
					t.Errorf("%s: %q: hcbench has no command %s", page, strings.TrimSpace(line), m[1])
				}
			}
		}
	}
	if seen < 6 {
		t.Errorf("found %d commands in the docs' code blocks; the pattern no longer finds them", seen)
	}

	readme := read(t, "README.md")
	_, after, ok := strings.Cut(readme, "## A config")
	block := regexp.MustCompile("(?s)```yaml\n(.*?)```").FindStringSubmatch(after)
	if !ok || block == nil {
		t.Fatal("README.md has no yaml block under \"## A config\"")
	}
	if n := strings.Count(block[1], "\n"); n > 12 {
		t.Errorf("the README's config has %d lines; it is meant to be about 10", n)
	}
	path := filepath.Join(t.TempDir(), "first.yaml")
	if err := os.WriteFile(path, []byte(block[1]), 0o644); err != nil {
		t.Fatal(err)
	}
	var out, errOut bytes.Buffer
	if code := cli.Run(context.Background(), []string{"validate", path}, &out, &errOut); code != 0 {
		t.Errorf("the README's config does not validate (exit %d):\n%s%s", code, out.String(), errOut.String())
	}
}

// TestDocConfigs: every whole config that the docs show (a yaml code block with a version key)
// decodes and validates, so that every key, value and default it shows is one hcbench knows; the
// only problems allowed are the example's data files that do not exist here.
func TestDocConfigs(t *testing.T) {
	blockRE := regexp.MustCompile("(?s)```yaml\n(.*?)```")
	configs := 0
	for _, page := range docPages(t) {
		for _, m := range blockRE.FindAllStringSubmatch(read(t, page), -1) {
			if !regexp.MustCompile(`(?m)^version:`).MatchString(m[1]) {
				continue // a fragment: some entries of a config
			}
			configs++
			_, err := config.ParseOptions(page, []byte(m[1]), config.Options{DataDir: datadir.Location{Path: t.TempDir(), From: "-data"}})
			var problems config.Problems
			if err != nil && !errors.As(err, &problems) {
				t.Errorf("%s: %v", page, err)
				continue
			}
			for _, p := range problems {
				if !strings.Contains(p.Msg, "does not exist") {
					t.Errorf("%s: a config of the docs: %s", page, p)
				}
			}
		}
	}
	if configs < 2 {
		t.Errorf("found %d whole configs in the docs; want the README's and docs/configs.md's at least", configs)
	}
}

// otherToolsFlags are flags the docs give to tools other than hcbench (benchstat).
var otherToolsFlags = map[string]bool{"-ignore": true}

// TestDocFlags: every flag of every command (as `hcbench help COMMAND` lists it) is named
// somewhere in the README or docs, and every flag the docs write as code (`-name`) is a flag of
// some command, so a renamed or removed flag cannot leave its description behind.
func TestDocFlags(t *testing.T) {
	var docs strings.Builder
	for _, page := range docPages(t) {
		docs.WriteString(read(t, page))
	}
	// A flag's line of the flag list, or a flag of a usage line ([-name ARG]).
	flagRE := regexp.MustCompile(`(?m)^\s+(-[a-z][a-z-]*)|\[(-[a-z][a-z-]*)`)
	known := map[string]bool{"-h": true} // every command's: its usage
	for _, cmd := range []string{"run", "validate", "plan", "merge", "report", "compare", "history", "data", "version"} {
		var out bytes.Buffer
		if code := cli.Run(context.Background(), []string{"help", cmd}, &out, &out); code != 0 {
			t.Errorf("hcbench help %s: exit %d: %s", cmd, code, out.String())
			continue
		}
		for _, m := range flagRE.FindAllStringSubmatch(out.String(), -1) {
			flag := m[1] + m[2]
			known[flag] = true
			if !regexp.MustCompile("[`\\[ ]" + flag + "\\b").MatchString(docs.String()) {
				t.Errorf("hcbench %s %s: no page of the docs names it", cmd, flag)
			}
		}
	}
	if len(known) < 15 {
		t.Fatalf("found %d flags in the commands' help; the pattern no longer finds them", len(known))
	}
	for _, m := range regexp.MustCompile("`(-[a-z][a-z-]*)").FindAllStringSubmatch(docs.String(), -1) {
		if !known[m[1]] && !otherToolsFlags[m[1]] {
			t.Errorf("the docs describe a flag %s that no command has", m[1])
		}
	}
}

// shellCommentRE matches a comment of a shell, YAML or Python line.
var shellCommentRE = regexp.MustCompile(`(^|\s)#.*$`)

// designNoteRE matches the project's design notes and paper copies, which users do not have.
// (LICENSE-hoadley-lab-pam50.md, a file hcbench downloads, is not one: the name must start the
// word.)
var designNoteRE = regexp.MustCompile(`(^|[^\w-])(ginkgo|trellis|bayesian|pam50|trellis-performance|go-libraries)\.md|shared/design|shared/papers|design note`)

// TestNoDesignNotes: nothing a user reads points at the project's design notes: the README and
// docs, the shipped configs, `hcbench help` and `help config`, and every string literal of the
// program's Go code (error messages, help and warnings). Go comments are for developers and are
// not checked.
func TestNoDesignNotes(t *testing.T) {
	check := func(where, text string) {
		for i, line := range strings.Split(text, "\n") {
			if m := designNoteRE.FindString(line); m != "" {
				t.Errorf("%s:%d: refers to %q, a note users do not have; cite the paper or a docs/ page", where, i+1, strings.TrimSpace(m))
			}
		}
	}
	for _, page := range docPages(t) {
		check(page, read(t, page))
	}
	configs, _ := filepath.Glob("configs/*.yaml")
	if len(configs) == 0 {
		t.Fatal("no configs/*.yaml")
	}
	for _, c := range configs {
		check(c, read(t, c))
	}
	var help bytes.Buffer
	if err := config.WriteHelp(&help); err != nil {
		t.Fatal(err)
	}
	check("help config", help.String())
	help.Reset()
	cli.Run(context.Background(), []string{"help"}, &help, &help)
	check("help", help.String())

	literals := 0
	fset := token.NewFileSet()
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata") && path != "." {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		ast.Inspect(f, func(n ast.Node) bool {
			if lit, ok := n.(*ast.BasicLit); ok && lit.Kind == token.STRING {
				literals++
				if s, err := strconv.Unquote(lit.Value); err == nil {
					if m := designNoteRE.FindString(s); m != "" {
						t.Errorf("%s: a string refers to %q, a note users do not have", fset.Position(lit.Pos()), strings.TrimSpace(m))
					}
				}
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if literals < 1000 {
		t.Errorf("checked %d string literals; the walk missed the code", literals)
	}
}

// algorithmPapers names, for every registered algorithm, the title of the reference in
// CITATION.cff whose method it implements, or "" for one that implements no paper's
// method (a baseline the papers use, or the user's own). A new algorithm must be added here.
var algorithmPapers = map[string]string{
	"truth":          "",
	"greedy":         "Exact Inference on Hierarchical Clustering in Particle Physics and Cancer Genomics",
	"beam":           "Exact Inference on Hierarchical Clustering in Particle Physics and Cancer Genomics",
	"trellis":        "Cluster Trellis: Data Structures & Algorithms for Exact Inference in Hierarchical Clustering",
	"sparse_trellis": "Cluster Trellis: Data Structures & Algorithms for Exact Inference in Hierarchical Clustering",
	"linkage":        "",
	"bhc":            "Bayesian Hierarchical Clustering",
	"bhc_exact":      "Bayesian Hierarchical Clustering",
	"rbhc":           "Randomized Algorithms for Fast Bayesian Hierarchical Clustering",
	"embhc":          "Randomized Algorithms for Fast Bayesian Hierarchical Clustering",
	"brt":            "Bayesian Rose Trees",
	"external":       "",
}

// TestCitation: CITATION.cff is YAML with the keys that CFF 1.2.0 requires (cff-version,
// message, title, authors), a licence that LICENSE holds, and references each with a type, a
// title, authors and a year; and every registered algorithm's paper is among them.
func TestCitation(t *testing.T) {
	var cff struct {
		Version    string `yaml:"cff-version"`
		Message    string `yaml:"message"`
		Title      string `yaml:"title"`
		Type       string `yaml:"type"`
		License    string `yaml:"license"`
		Authors    []map[string]any
		References []struct {
			Type    string           `yaml:"type"`
			Title   string           `yaml:"title"`
			Authors []map[string]any `yaml:"authors"`
			Year    int              `yaml:"year"`
		} `yaml:"references"`
	}
	if err := yaml.Unmarshal([]byte(read(t, "CITATION.cff")), &cff); err != nil {
		t.Fatalf("CITATION.cff: %v", err)
	}
	if cff.Version != "1.2.0" || cff.Message == "" || cff.Title == "" || cff.Type != "software" {
		t.Errorf("CITATION.cff: cff-version %q, message %q, title %q, type %q: want 1.2.0 and the others set", cff.Version, cff.Message, cff.Title, cff.Type)
	}
	named := func(as []map[string]any) bool {
		for _, a := range as {
			if a["name"] == nil && a["family-names"] == nil {
				return false
			}
		}
		return len(as) > 0
	}
	if !named(cff.Authors) {
		t.Errorf("CITATION.cff: authors %v: each needs a name or family-names", cff.Authors)
	}
	license := read(t, "LICENSE")
	if cff.License != "BSD-3-Clause" || !strings.Contains(license, "Neither the name of the hcbench project") || !strings.Contains(license, "Redistribution and use in source and binary forms") {
		t.Errorf("CITATION.cff says licence %q; LICENSE must hold its text (BSD 3-Clause)", cff.License)
	}
	var titles []string
	for i, r := range cff.References {
		if r.Type == "" || r.Title == "" || !named(r.Authors) || r.Year < 1900 || r.Year > 2100 {
			t.Errorf("CITATION.cff: references[%d] %q: needs a type, a title, named authors and a year (type %q, year %d)", i, r.Title, r.Type, r.Year)
		}
		titles = append(titles, r.Title)
	}
	for _, a := range registry.Algorithms() {
		paper, ok := algorithmPapers[a.Name]
		if !ok {
			t.Errorf("algorithm %s: say in algorithmPapers which reference of CITATION.cff it implements (\"\" for none)", a.Name)
			continue
		}
		if paper != "" && !slices.Contains(titles, paper) {
			t.Errorf("algorithm %s: CITATION.cff has no reference titled %q", a.Name, paper)
		}
	}
}

func read(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

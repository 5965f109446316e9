package config

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"hcbench/generators/ginkgo"
)

// Load reads, decodes and validates the config file at path. An invalid config gives a Problems
// error listing every problem with its line.
func Load(path string) (*Config, error) {
	src, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("cannot read config: %w", err)
	}
	return Parse(path, src)
}

// Parse decodes and validates config text; path names the file in messages and anchors relative
// paths.
func Parse(path string, src []byte) (*Config, error) {
	d := &decoder{file: path}
	var doc yaml.Node
	if err := yaml.Unmarshal(src, &doc); err != nil {
		return nil, Problems{syntaxProblem(path, err)}
	}
	if doc.Kind == 0 || len(doc.Content) == 0 {
		return nil, Problems{{File: path, Msg: "the config is empty"}}
	}
	root := doc.Content[0]
	cfg := &Config{Path: path}
	top := d.mapping(root, &cfg.Header, "", "datasets", "algorithms", "reports")
	if root.Kind == yaml.MappingNode {
		d.datasets(cfg, root, top)
		d.algorithms(cfg, root, top)
		d.reports(cfg, root, top)
	}
	d.validate(cfg, top)
	if len(d.problems) > 0 {
		sort.SliceStable(d.problems, func(i, j int) bool { return d.problems[i].Line < d.problems[j].Line })
		return nil, d.problems
	}
	return cfg, nil
}

var yamlLine = regexp.MustCompile(`^yaml: line (\d+): (.*)$`)

// parserErrors start the messages of libyaml's parser (as opposed to its scanner). yaml.v3 reports
// their line 0-based, one less than the line a user counts; scanner errors are already 1-based.
var parserErrors = regexp.MustCompile(`^(did not find expected|found duplicate|found incompatible|found undefined tag handle)`)

func syntaxProblem(path string, err error) Problem {
	msg := err.Error()
	if m := yamlLine.FindStringSubmatch(msg); m != nil {
		line, _ := strconv.Atoi(m[1])
		if parserErrors.MatchString(m[2]) {
			line++
		}
		return Problem{File: path, Line: line, Msg: "YAML syntax error: " + m[2]}
	}
	return Problem{File: path, Msg: "YAML syntax error: " + strings.TrimPrefix(msg, "yaml: ")}
}

// child returns the value node of key in a mapping, or nil.
func child(m *yaml.Node, key string) *yaml.Node {
	if m.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			return m.Content[i+1]
		}
	}
	return nil
}

// keysExcept returns the keys of a mapping node that are not among the keys of type t.
func keysExcept(m *yaml.Node, t reflect.Type) []string {
	own := map[string]bool{}
	for _, f := range fieldsOf(t) {
		own[f.key] = true
	}
	var out []string
	for i := 0; i+1 < len(m.Content); i += 2 {
		if k := m.Content[i].Value; !own[k] {
			out = append(out, k)
		}
	}
	return out
}

func keyNames(t reflect.Type) []string {
	var out []string
	for _, f := range fieldsOf(t) {
		out = append(out, f.key)
	}
	return out
}

func (d *decoder) list(root *yaml.Node, key string) []*yaml.Node {
	n := child(root, key)
	if n == nil {
		return nil
	}
	if n.Kind != yaml.SequenceNode {
		d.fail(n.Line, key, "want a list, got %s", describe(n))
		return nil
	}
	return n.Content
}

func (d *decoder) datasets(cfg *Config, root *yaml.Node, top keyLines) {
	if !top.has("datasets") {
		d.addf(root.Line, "config: missing required key %q", "datasets")
		return
	}
	for i, n := range d.list(root, "datasets") {
		path := fmt.Sprintf("datasets[%d]", i)
		if n.Kind != yaml.MappingNode {
			d.addf(n.Line, "%s: want a mapping with a name and a generator or file, got %s", path, describe(n))
			continue
		}
		ds := Dataset{Line: n.Line}
		typ, kind := d.sourceType(n, path)
		var keys datasetKeys
		extra := keysExcept(n, reflect.TypeFor[datasetKeys]())
		if typ != nil {
			extra = keyNames(typ)
		}
		ds.lines = d.mapping(n, &keys, path, extra...)
		ds.Name, ds.Kind = keys.Name, kind
		if typ != nil {
			src := reflect.New(typ)
			d.mapping(n, src.Interface(), path, keysExcept(n, typ)...)
			ds.Source = src.Interface()
			if f, ok := ds.Source.(interface{ setPath(string) }); ok {
				f.setPath(keys.File)
			}
			resolveSource(ds.Source, ds.lines)
		}
		cfg.Datasets = append(cfg.Datasets, ds)
	}
}

// sourceType picks the source type of a data set entry from its generator, file and format keys.
func (d *decoder) sourceType(n *yaml.Node, path string) (reflect.Type, string) {
	gen, file, format := child(n, "generator"), child(n, "file"), child(n, "format")
	switch {
	case gen != nil && file != nil:
		d.addf(n.Line, "%s: give either generator or file, not both", path)
		return nil, ""
	case gen != nil:
		t, ok := generators[gen.Value]
		if !ok {
			d.addf(gen.Line, "%s.generator: unknown generator %q%s", path, gen.Value, suggest(gen.Value, sortedKeys(generators)))
			return nil, ""
		}
		if format != nil {
			d.addf(format.Line, "%s.format: only a file has a format", path)
		}
		return t, gen.Value
	case file != nil:
		name := ""
		if format != nil {
			name = format.Value
			if _, ok := fileFormats[name]; !ok {
				d.addf(format.Line, "%s.format: unknown format %q%s", path, name, suggest(name, sortedKeys(fileFormats)))
				return nil, ""
			}
		} else {
			var ok bool
			name, ok = defaultFormats[strings.ToLower(filepath.Ext(file.Value))]
			if !ok {
				d.addf(file.Line, "%s: cannot tell the format of %q from its extension; add format (one of %s)", path, file.Value, strings.Join(sortedKeys(fileFormats), ", "))
				return nil, ""
			}
		}
		return fileFormats[name], name
	}
	d.addf(n.Line, "%s: give a generator (%s) or a file", path, strings.Join(sortedKeys(generators), ", "))
	return nil, ""
}

// resolveSource fills defaults that depend on other keys.
func resolveSource(src any, lines keyLines) {
	g, ok := src.(*GinkgoSource)
	if !ok {
		return
	}
	p, err := ginkgo.Preset(g.JetType, g.TCut)
	if err != nil {
		return // reported by validation
	}
	if !lines.has("mass") {
		g.Mass = p.Mass
	}
	if !lines.has("lambda_root") {
		g.LambdaRoot = p.LambdaRoot
		if g.JetType == ginkgo.QCD {
			g.LambdaRoot = g.Lambda
		}
	}
}

func (d *decoder) algorithms(cfg *Config, root *yaml.Node, top keyLines) {
	if !top.has("algorithms") {
		d.addf(root.Line, "config: missing required key %q", "algorithms")
		return
	}
	for i, n := range d.list(root, "algorithms") {
		path := fmt.Sprintf("algorithms[%d]", i)
		a := Algorithm{Line: n.Line}
		switch n.Kind {
		case yaml.ScalarNode:
			a.Name, a.Label = n.Value, n.Value
			typ, ok := algorithmParams[a.Name]
			if !ok {
				d.addf(n.Line, "%s: unknown algorithm %q%s", path, a.Name, suggest(a.Name, sortedKeys(algorithmParams)))
				continue
			}
			p := reflect.New(typ)
			a.lines = d.mapping(&yaml.Node{Kind: yaml.MappingNode, Line: n.Line}, p.Interface(), path)
			a.Params = p.Interface()
		case yaml.MappingNode:
			name := child(n, "name")
			typ, ok := reflect.Type(nil), false
			if name != nil {
				typ, ok = algorithmParams[name.Value]
				if !ok {
					d.addf(name.Line, "%s.name: unknown algorithm %q%s", path, name.Value, suggest(name.Value, sortedKeys(algorithmParams)))
				}
			}
			var keys algorithmKeys
			extra := keysExcept(n, reflect.TypeFor[algorithmKeys]())
			if ok {
				extra = keyNames(typ)
			}
			d.mapping(n, &keys, path, extra...)
			if !ok {
				continue
			}
			a.Name, a.Label, a.Datasets = keys.Name, keys.Label, keys.Datasets
			if a.Label == "" {
				a.Label = a.Name
			}
			p := reflect.New(typ)
			a.lines = d.mapping(n, p.Interface(), path, keysExcept(n, typ)...)
			a.Params = p.Interface()
		default:
			d.addf(n.Line, "%s: want an algorithm name or a mapping with a name, got %s", path, describe(n))
			continue
		}
		cfg.Algorithms = append(cfg.Algorithms, a)
	}
}

func (d *decoder) reports(cfg *Config, root *yaml.Node, top keyLines) {
	if !top.has("reports") {
		cfg.Reports = []string{"summary"}
		return
	}
	seen := map[string]bool{}
	for i, n := range d.list(root, "reports") {
		if n.Kind != yaml.ScalarNode {
			d.addf(n.Line, "reports[%d]: want a report name, got %s", i, describe(n))
			continue
		}
		if _, ok := reportHelp[n.Value]; !ok {
			d.addf(n.Line, "reports[%d]: unknown report %q%s", i, n.Value, suggest(n.Value, ReportNames()))
			continue
		}
		if seen[n.Value] {
			d.addf(n.Line, "reports[%d]: report %q listed twice", i, n.Value)
			continue
		}
		seen[n.Value] = true
		cfg.Reports = append(cfg.Reports, n.Value)
	}
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// Dir returns the directory that relative paths in the config are resolved against.
func (c *Config) Dir() string { return filepath.Dir(c.Path) }

// Resolve returns p, a path from the config, relative to the working directory.
func (c *Config) Resolve(p string) string {
	if filepath.IsAbs(p) {
		return p
	}
	return filepath.Join(c.Dir(), p)
}

package config

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
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
// paths. A config is one YAML document; aliases (*name) and merge keys (<<) are resolved before
// decoding.
func Parse(path string, src []byte) (*Config, error) {
	d := &decoder{file: path}
	dec := yaml.NewDecoder(bytes.NewReader(src))
	var doc yaml.Node
	if err := dec.Decode(&doc); err == io.EOF {
		return nil, Problems{{File: path, Msg: "the config is empty"}}
	} else if err != nil {
		return nil, Problems{syntaxProblem(path, err)}
	}
	for {
		var next yaml.Node
		err := dec.Decode(&next)
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, Problems{syntaxProblem(path, err)}
		}
		if !emptyDocument(&next) {
			return nil, Problems{{File: path, Line: next.Line, Msg: "another YAML document starts here; a config is one document (remove the --- line, or split the file into two configs)"}}
		}
	}
	if emptyDocument(&doc) {
		return nil, Problems{{File: path, Msg: "the config is empty"}}
	}
	root, ok := d.expand(doc.Content[0])
	if !ok {
		return nil, d.problems
	}
	cfg := &Config{Path: path}
	top := d.mapping(root, &cfg.Header, "", "datasets", "algorithms", "reports")
	if root.Kind == yaml.MappingNode {
		d.datasets(cfg, root, top)
		d.algorithms(cfg, root, top)
		d.reports(cfg, root, top)
		d.validate(cfg, top)
	}
	if len(d.problems) > 0 {
		sort.SliceStable(d.problems, func(i, j int) bool { return d.problems[i].Line < d.problems[j].Line })
		return nil, d.problems
	}
	return cfg, nil
}

// emptyDocument reports whether a YAML document holds nothing (a lone "---", or only comments).
func emptyDocument(doc *yaml.Node) bool {
	if len(doc.Content) == 0 {
		return true
	}
	n := doc.Content[0]
	return n.Kind == yaml.ScalarNode && n.ShortTag() == "!!null" && n.Value == ""
}

// maxExpandedNodes bounds the size of a config once its aliases are expanded: aliases of aliases
// grow exponentially (the "billion laughs"), and no real config comes near this.
const maxExpandedNodes = 1 << 20

// expand returns n with every alias replaced by the node it names and every merge key (<<)
// applied, so that decoding sees only mappings, lists and scalars. As YAML defines merges, the
// keys a mapping writes win over merged ones, and of several merged mappings the earlier wins.
// Expanded nodes are shared, not copied, so a problem inside an aliased value is reported at the
// line of the anchored value. ok is false when the expanded config would be too large to decode.
func (d *decoder) expand(root *yaml.Node) (expanded *yaml.Node, ok bool) {
	done := map[*yaml.Node]bool{}
	size := map[*yaml.Node]int{}
	var walk func(n *yaml.Node) *yaml.Node
	walk = func(n *yaml.Node) *yaml.Node {
		for n.Kind == yaml.AliasNode {
			n = n.Alias // yaml.v3 refuses an anchor that contains its own alias
		}
		if done[n] {
			return n
		}
		done[n] = true
		for i, c := range n.Content {
			n.Content[i] = walk(c)
		}
		if n.Kind == yaml.MappingNode {
			d.merge(n)
		}
		size[n] = 1
		for _, c := range n.Content {
			size[n] += size[c]
		}
		size[n] = min(size[n], maxExpandedNodes+1)
		return n
	}
	root = walk(root)
	if size[root] > maxExpandedNodes {
		d.addf(root.Line, "the config expands to more than %d YAML nodes through its aliases", maxExpandedNodes)
		return nil, false
	}
	return root, true
}

// merge applies the merge keys (<<) of a mapping whose values are already expanded.
func (d *decoder) merge(m *yaml.Node) {
	var own, merged []*yaml.Node
	has := map[string]bool{}
	var sources []*yaml.Node
	found := false
	for i := 0; i+1 < len(m.Content); i += 2 {
		k, v := m.Content[i], m.Content[i+1]
		if k.Kind == yaml.ScalarNode && k.ShortTag() == "!!merge" {
			found = true
			switch {
			case v.Kind == yaml.MappingNode:
				sources = append(sources, v)
			case v.Kind == yaml.SequenceNode && !slices.ContainsFunc(v.Content, func(e *yaml.Node) bool { return e.Kind != yaml.MappingNode }):
				sources = append(sources, v.Content...)
			default:
				d.addf(k.Line, "<<: a merge key takes a mapping or a list of mappings (usually aliases such as *defaults), got %s", describe(v))
			}
			continue
		}
		own = append(own, k, v)
		has[k.Value] = true
	}
	if !found {
		return
	}
	for _, s := range sources {
		for i := 0; i+1 < len(s.Content); i += 2 {
			if k := s.Content[i]; !has[k.Value] {
				has[k.Value] = true
				merged = append(merged, k, s.Content[i+1])
			}
		}
	}
	m.Content = append(own, merged...)
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

// list returns the entries of the list at key of the top level; a list that must not be empty
// is reported when it is.
func (d *decoder) list(root *yaml.Node, key string, mustHave bool) []*yaml.Node {
	n := child(root, key)
	if n == nil {
		return nil
	}
	if n.Kind != yaml.SequenceNode {
		d.fail(n.Line, key, "want a list, got %s", describe(n))
		return nil
	}
	if mustHave && len(n.Content) == 0 {
		d.fail(n.Line, key, "the list is empty")
	}
	return n.Content
}

func (d *decoder) datasets(cfg *Config, root *yaml.Node, top keyLines) {
	if !top.has("datasets") {
		d.addf(root.Line, "config: missing required key %q", "datasets")
		return
	}
	for i, n := range d.list(root, "datasets", true) {
		path := fmt.Sprintf("datasets[%d]", i)
		if n.Kind != yaml.MappingNode {
			d.fail(n.Line, path, "want a mapping with a name and a generator or file, got %s", describe(n))
			d.unnamedDataset = true
			continue
		}
		ds := Dataset{Line: n.Line, Index: i}
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
			d.resolveSource(&ds)
		}
		cfg.Datasets = append(cfg.Datasets, ds)
	}
}

// sourceType picks the source type of a data set entry from its generator, file and format keys.
// A key that is not a scalar is left to the decoding of the entry's keys, which reports it.
func (d *decoder) sourceType(n *yaml.Node, path string) (reflect.Type, string) {
	gen, file, format := child(n, "generator"), child(n, "file"), child(n, "format")
	for _, k := range []*yaml.Node{gen, file, format} {
		if k != nil && k.Kind != yaml.ScalarNode {
			return nil, ""
		}
	}
	switch {
	case gen != nil && file != nil:
		d.addf(n.Line, "%s: give either generator or file, not both", path)
		return nil, ""
	case gen != nil:
		t, ok := generators[gen.Value]
		if !ok {
			d.addf(gen.Line, "%s.generator: unknown generator %q%s", path, gen.Value, suggest("generators", gen.Value, sortedKeys(generators)))
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
				d.addf(format.Line, "%s.format: unknown format %q%s", path, name, suggest("formats", name, sortedKeys(fileFormats)))
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

// resolveSource fills the defaults that depend on other keys. When what a default depends on
// could not be decoded or is invalid, the key is marked failed instead, so that validation does
// not report a value the user never wrote.
func (d *decoder) resolveSource(ds *Dataset) {
	switch s := ds.Source.(type) {
	case *GinkgoSource:
		p, err := ginkgo.Preset(s.JetType, s.TCut)
		typeOK := err == nil && !d.failed[ds.Path("jet_type")]
		if !ds.Has("mass") {
			if typeOK {
				s.Mass = p.Mass
			} else {
				d.skip(ds.Path("mass"))
			}
		}
		if !ds.Has("lambda_root") {
			switch {
			case !typeOK, s.JetType == ginkgo.QCD && d.failed[ds.Path("lambda")]:
				d.skip(ds.Path("lambda_root"))
			case s.JetType == ginkgo.QCD:
				s.LambdaRoot = s.Lambda
			default:
				s.LambdaRoot = p.LambdaRoot
			}
		}
	case vectorSource:
		if !ds.Has("sample_key") {
			if d.failed[ds.Path("name")] {
				d.skip(ds.Path("sample_key"))
			}
			s.vectorData().SampleKey = ds.Name
		}
	}
}

// vectorSource is a file source of labelled vectors.
type vectorSource interface{ vectorData() *VectorData }

func (f *PAM50File) vectorData() *VectorData { return &f.VectorData }
func (f *CSVFile) vectorData() *VectorData   { return &f.VectorData }

func (d *decoder) algorithms(cfg *Config, root *yaml.Node, top keyLines) {
	if !top.has("algorithms") {
		d.addf(root.Line, "config: missing required key %q", "algorithms")
		return
	}
	for i, n := range d.list(root, "algorithms", true) {
		path := fmt.Sprintf("algorithms[%d]", i)
		a := Algorithm{Line: n.Line, Index: i}
		switch n.Kind {
		case yaml.ScalarNode:
			a.Name, a.Label = n.Value, n.Value
			typ, ok := algorithmParams[a.Name]
			if !ok {
				d.fail(n.Line, path, "unknown algorithm %q%s", a.Name, suggest("algorithms", a.Name, sortedKeys(algorithmParams)))
				continue
			}
			p := reflect.New(typ)
			a.lines = d.mapping(&yaml.Node{Kind: yaml.MappingNode, Line: n.Line}, p.Interface(), path)
			a.Params = p.Interface()
		case yaml.MappingNode:
			name := child(n, "name")
			typ, ok := reflect.Type(nil), false
			if name != nil && name.Kind == yaml.ScalarNode {
				typ, ok = algorithmParams[name.Value]
				if !ok {
					d.fail(name.Line, path+".name", "unknown algorithm %q%s", name.Value, suggest("algorithms", name.Value, sortedKeys(algorithmParams)))
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
			p := reflect.New(typ)
			a.lines = d.mapping(n, p.Interface(), path, keysExcept(n, typ)...)
			a.Params = p.Interface()
			a.Name, a.Label, a.Datasets = keys.Name, keys.Label, keys.Datasets
			if !a.lines.has("label") {
				a.Label = a.Name
			}
		default:
			d.fail(n.Line, path, "want an algorithm name or a mapping with a name, got %s", describe(n))
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
	for i, n := range d.list(root, "reports", false) {
		if n.Kind != yaml.ScalarNode {
			d.addf(n.Line, "reports[%d]: want a report name, got %s", i, describe(n))
			continue
		}
		if _, ok := reportHelp[n.Value]; !ok {
			d.addf(n.Line, "reports[%d]: unknown report %q%s", i, n.Value, suggest("reports", n.Value, ReportNames()))
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

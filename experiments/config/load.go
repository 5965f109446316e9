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
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/hcbench/hcbench/datasets/datadir"
	"github.com/hcbench/hcbench/experiments/registry"
	"github.com/hcbench/hcbench/reports"
)

// Options are the settings of a config's loading that do not come from its file.
type Options struct {
	// DataDir is the data directory that the config's data: paths name (package datadir); the
	// zero Location means datadir.Locate("", os.Getenv): $HCBENCH_DATA, else the default.
	DataDir datadir.Location
	// Set are -set PATH=VALUE overrides, applied in order to the config's YAML before it is
	// decoded (see override.go); their problems name the flag.
	Set []string
	// Repeat is the repeat of the algorithm entries that do not write one (run's -count flag);
	// 0 leaves them at 1.
	Repeat int
}

// Load reads, decodes and validates the config file at path, with the default Options. An
// invalid config gives a Problems error listing every problem with its line.
func Load(path string) (*Config, error) { return LoadOptions(path, Options{}) }

// LoadOptions is Load with options.
//
// A file larger than MaxConfigBytes (4 MiB) is refused with its size before it is read (a file
// whose size is not known in advance, such as a FIFO, once more than that has been read), and so
// is a config of more than maxExpandedNodes YAML nodes (see Parse).
func LoadOptions(path string, o Options) (*Config, error) {
	src, err := readConfig(path)
	if err != nil {
		return nil, err
	}
	return ParseOptions(path, src, o)
}

// MaxConfigBytes bounds the size of a config file. A config names its data sets and algorithms in
// a few KB (those in configs/ are under 10 KB); 4 MiB is hundreds of times that, and keeps a
// wrong path (a data file, /dev/zero) from being read whole and parsed as YAML, which takes some
// hundred times the text in memory.
const MaxConfigBytes = 4 << 20

// readConfig reads the config file at path, refusing one larger than MaxConfigBytes having read at
// most MaxConfigBytes+1 bytes of it (none when its size is known).
func readConfig(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("cannot read config: %w", err)
	}
	defer f.Close()
	if fi, err := f.Stat(); err == nil && fi.Mode().IsRegular() && fi.Size() > MaxConfigBytes {
		return nil, tooLarge(path, fi.Size())
	}
	src, err := io.ReadAll(io.LimitReader(f, MaxConfigBytes+1))
	if err != nil {
		return nil, fmt.Errorf("cannot read config: %w", err)
	}
	if len(src) > MaxConfigBytes {
		return nil, tooLarge(path, -1)
	}
	return src, nil
}

// tooLarge is the problem of a config larger than MaxConfigBytes; size is -1 when only a lower
// bound is known.
func tooLarge(path string, size int64) Problems {
	what := fmt.Sprintf("more than %d bytes", MaxConfigBytes)
	if size >= 0 {
		what = fmt.Sprintf("%.1f MiB (%d bytes)", float64(size)/(1<<20), size)
	}
	return Problems{{File: path, Msg: fmt.Sprintf("the file is %s, larger than the %d MiB a config may be; a config names data sets and algorithms in a few KB, so is this the config? (keep data in data files, named by file: in a data set entry)", what, MaxConfigBytes>>20)}}
}

// Parse decodes and validates config text with the default Options; path names the file in
// messages and anchors relative paths. A config is one YAML document; aliases (*name) and merge
// keys (<<) are resolved before decoding.
func Parse(path string, src []byte) (*Config, error) { return ParseOptions(path, src, Options{}) }

// ParseOptions is Parse with options.
//
// Text longer than MaxConfigBytes (4 MiB) is refused without parsing it, and a config of more
// than maxExpandedNodes YAML nodes (1048576) is refused before decoding, either as written or once
// its aliases are expanded; the message says which.
func ParseOptions(path string, src []byte, o Options) (*Config, error) {
	if len(src) > MaxConfigBytes {
		return nil, tooLarge(path, int64(len(src)))
	}
	if o.DataDir.Path == "" {
		loc, err := datadir.Locate("", os.Getenv)
		if err != nil {
			return nil, Problems{{File: path, Msg: err.Error()}}
		}
		o.DataDir = loc
	}
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
	if len(o.Set) > 0 {
		root = d.applyOverrides(root, o.Set)
	}
	cfg := &Config{Path: path, DataDir: o.DataDir, Overrides: o.Set}
	top := d.mapping(root, &cfg.Header, "", "datasets", "algorithms", "reports")
	if root.Kind == yaml.MappingNode {
		d.datasets(cfg, root, top)
		d.algorithms(cfg, root, top)
		d.reports(cfg, root, top)
		d.validate(cfg, top)
	}
	count := cfg.Count // the config's count, which -count overrides
	switch {
	case o.Repeat < 0 || o.Repeat > MaxRepeat:
		d.addf(0, "-count must be 1 to %d, got %d", MaxRepeat, o.Repeat)
	case o.Repeat > 0:
		count = o.Repeat
	}
	if count > 0 && count <= MaxRepeat {
		for i := range cfg.Algorithms {
			if a := &cfg.Algorithms[i]; !a.lines.has("repeat") {
				a.Repeat = count
			}
		}
	}
	if len(d.problems) > 0 {
		ps := d.sorted()
		for i := range ps {
			ps[i] = relocate(ps[i], o.Set)
		}
		return nil, ps
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

// maxExpandedNodes bounds the size of a config, in YAML nodes, as written and once its aliases are
// expanded: aliases of aliases grow exponentially (the "billion laughs"), and no real config comes
// near this (a config of a hundred data sets and algorithms has a few thousand nodes). A config
// within MaxConfigBytes can still have more nodes as written (a flow list "[1,1,1,…]" has one per
// two bytes), which is refused as too large, not blamed on aliases.
const maxExpandedNodes = 1 << 20

// countNodes returns the number of nodes of the tree under n as written, an alias counting as one
// node, up to limit+1.
func countNodes(n *yaml.Node, limit int) int {
	count := 0
	var walk func(n *yaml.Node)
	walk = func(n *yaml.Node) {
		count++
		if n.Kind == yaml.AliasNode {
			return
		}
		for _, c := range n.Content {
			if count > limit {
				return
			}
			walk(c)
		}
	}
	walk(n)
	return min(count, limit+1)
}

// expand returns n with every alias replaced by the node it names and every merge key (<<)
// applied, so that decoding sees only mappings, lists and scalars. As YAML defines merges, the
// keys a mapping writes win over merged ones, and of several merged mappings the earlier wins.
// Expanded nodes are shared, not copied, so a problem inside an aliased value is reported at the
// line of the anchored value. ok is false when the config is too large to decode, as written or
// once expanded (see maxExpandedNodes); only the latter blames the aliases, which then caused it:
// without aliases, expanding merge keys (<<) never adds nodes.
func (d *decoder) expand(root *yaml.Node) (expanded *yaml.Node, ok bool) {
	if countNodes(root, maxExpandedNodes) > maxExpandedNodes {
		d.addf(root.Line, "the config has more than %d YAML nodes, too many for a config (which names its data sets and algorithms in a few thousand); is this the config? Keep data in data files, named by file: in a data set entry", maxExpandedNodes)
		return nil, false
	}
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
				d.addf(k.Line, "<<: a merge key takes a mapping or a list of mappings (usually aliases such as *defaults), got %s", registry.Describe(v))
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
		d.fail(n.Line, key, "want a list, got %s", registry.Describe(n))
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
			d.fail(n.Line, path, "want a mapping with a name and a generator or file, got %s", registry.Describe(n))
			d.unnamedDataset = true
			continue
		}
		ds := Dataset{Line: n.Line, Index: i}
		src := d.sourceOf(n, path)
		var keys datasetKeys
		var extra []string
		if src != nil {
			extra = keyNames(reflect.TypeOf(src.NewParams()).Elem())
		} else {
			extra = keysExcept(n, reflect.TypeFor[datasetKeys]())
		}
		ds.lines = d.mapping(n, &keys, path, extra...)
		ds.Name = keys.Name
		if src != nil {
			ds.Kind = src.Name
			params := src.NewParams()
			typ := reflect.TypeOf(params).Elem()
			d.mapping(n, params, path, keysExcept(n, typ)...)
			if f, ok := params.(registry.FileParams); ok {
				f.SetFile(keys.File)
			}
			if src.Defaults != nil {
				src.Defaults(params, defaults{d: d, ds: &ds})
			}
			ds.Source = params
		}
		cfg.Datasets = append(cfg.Datasets, ds)
	}
}

// sourceOf picks the source of a data set entry from its generator, file and format keys. A key
// that is not a scalar is left to the decoding of the entry's keys, which reports it.
func (d *decoder) sourceOf(n *yaml.Node, path string) *registry.Source {
	gen, file, format := child(n, "generator"), child(n, "file"), child(n, "format")
	for _, k := range []*yaml.Node{gen, file, format} {
		if k != nil && k.Kind != yaml.ScalarNode {
			return nil
		}
	}
	var generators, formats []string
	for _, s := range registry.Sources() {
		if s.File {
			formats = append(formats, s.Name)
		} else {
			generators = append(generators, s.Name)
		}
	}
	switch {
	case gen != nil && file != nil:
		d.addf(n.Line, "%s: give either generator or file, not both", path)
		return nil
	case gen != nil:
		s, ok := registry.LookupSource(gen.Value)
		if !ok || s.File {
			d.addf(gen.Line, "%s.generator: unknown generator %q%s", path, gen.Value, d.suggest("generators", gen.Value, generators))
			return nil
		}
		if format != nil {
			d.addf(format.Line, "%s.format: only a file has a format", path)
		}
		return s
	case file != nil:
		name := ""
		if format != nil {
			name = format.Value
		} else if name = registry.FormatOf(strings.ToLower(filepath.Ext(file.Value))); name == "" {
			d.addf(file.Line, "%s: cannot tell the format of %q from its extension; add format (one of %s)", path, file.Value, strings.Join(formats, ", "))
			return nil
		}
		s, ok := registry.LookupSource(name)
		if !ok || !s.File {
			d.addf(format.Line, "%s.format: unknown format %q%s", path, name, d.suggest("formats", name, formats))
			return nil
		}
		return s
	}
	d.addf(n.Line, "%s: give a generator (%s) or a file", path, strings.Join(generators, ", "))
	return nil
}

// defaults is what a source's Defaults sees of the entry being decoded (registry.Defaults).
type defaults struct {
	d  *decoder
	ds *Dataset
}

func (f defaults) Has(key string) bool    { return f.ds.Has(key) }
func (f defaults) Failed(key string) bool { return f.d.failed[f.ds.Path(key)] }
func (f defaults) Skip(key string)        { f.d.skip(f.ds.Path(key)) }
func (f defaults) Name() string           { return f.ds.Name }

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
			a.Name, a.Label, a.Repeat = n.Value, n.Value, 1
			alg, ok := registry.LookupAlgorithm(a.Name)
			if !ok {
				d.fail(n.Line, path, "unknown algorithm %q%s", a.Name, d.suggest("algorithms", a.Name, registry.AlgorithmNames()))
				continue
			}
			a.Params = alg.NewParams()
			a.lines = d.mapping(&yaml.Node{Kind: yaml.MappingNode, Line: n.Line}, a.Params, path)
		case yaml.MappingNode:
			name := child(n, "name")
			var alg *registry.Algorithm
			ok := false
			if name != nil && name.Kind == yaml.ScalarNode {
				alg, ok = registry.LookupAlgorithm(name.Value)
				if !ok {
					d.fail(name.Line, path+".name", "unknown algorithm %q%s", name.Value, d.suggest("algorithms", name.Value, registry.AlgorithmNames()))
				}
			}
			var keys algorithmKeys
			extra := keysExcept(n, reflect.TypeFor[algorithmKeys]())
			var params registry.Params
			if ok {
				params = alg.NewParams()
				extra = keyNames(reflect.TypeOf(params).Elem())
			}
			d.mapping(n, &keys, path, extra...)
			if !ok {
				continue
			}
			typ := reflect.TypeOf(params).Elem()
			a.lines = d.mapping(n, params, path, keysExcept(n, typ)...)
			a.Params = params
			a.Name, a.Label, a.Datasets, a.Repeat, a.MaxLeaves = keys.Name, keys.Label, keys.Datasets, keys.Repeat, keys.MaxLeaves
			if !a.lines.has("label") {
				a.Label = a.Name
			}
		default:
			d.fail(n.Line, path, "want an algorithm name or a mapping with a name, got %s", registry.Describe(n))
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
		// An entry is a report's name, or a mapping of its name and options.
		path, name := fmt.Sprintf("reports[%d]", i), n
		if n.Kind == yaml.MappingNode {
			if name = child(n, "name"); name == nil {
				d.addf(n.Line, "%s: a report with options needs its name: {name: REPORT, OPTION: VALUE}", path)
				continue
			}
		}
		if name.Kind != yaml.ScalarNode {
			d.addf(name.Line, "%s: want a report name or a mapping {name: REPORT, OPTION: VALUE}, got %s", path, registry.Describe(name))
			continue
		}
		r, ok := reports.Lookup(name.Value)
		if !ok {
			d.addf(name.Line, "%s: unknown report %q%s", path, name.Value, d.suggest("reports", name.Value, reports.Names()))
			continue
		}
		if seen[name.Value] {
			d.addf(name.Line, "%s: report %q listed twice", path, name.Value)
			continue
		}
		seen[name.Value] = true
		cfg.Reports = append(cfg.Reports, name.Value)
		if r.NewOptions == nil {
			if n.Kind == yaml.MappingNode {
				d.mapping(n, &struct{}{}, path, "name") // every other key is unknown
			}
			continue
		}
		opts := r.NewOptions()
		if n.Kind != yaml.MappingNode {
			n = &yaml.Node{Kind: yaml.MappingNode, Line: n.Line}
		}
		before := len(d.problems)
		d.mapping(n, opts, path, "name")
		// Options whose keys decoded may still disagree with each other or be out of range
		// (the comparison's width, scatter, resamples): checked here, so that the run refuses
		// them before it starts rather than fail as it writes its reports.
		if c, ok := opts.(interface{ Check() error }); ok && len(d.problems) == before {
			if err := c.Check(); err != nil {
				d.addf(n.Line, "%s: %v", path, err)
			}
		}
		if cfg.ReportOptions == nil {
			cfg.ReportOptions = map[string]any{}
		}
		cfg.ReportOptions[name.Value] = opts
	}
}

// ReportOptions decodes the report entries of a config, such as a run directory's resolved
// config.yaml, into the options of the reports that have them (reports.Report.NewOptions), by
// report name, checked as Load checks them; the rest of the config is not read. `hcbench report`
// rebuilds a run's reports with them.
func ReportOptions(path string, src []byte) (map[string]any, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(src, &doc); err != nil {
		return nil, Problems{syntaxProblem(path, err)}
	}
	if emptyDocument(&doc) {
		return nil, nil
	}
	d := &decoder{file: path}
	root, ok := d.expand(doc.Content[0])
	if !ok {
		return nil, d.problems
	}
	var cfg Config
	if root.Kind == yaml.MappingNode {
		top := keyLines{}
		if child(root, "reports") != nil {
			top["reports"] = root.Line
		}
		d.reports(&cfg, root, top)
	}
	if len(d.problems) > 0 {
		return nil, d.sorted()
	}
	return cfg.ReportOptions, nil
}

// Dir returns the directory that relative paths in the config are resolved against.
func (c *Config) Dir() string { return filepath.Dir(c.Path) }

// Resolve returns p, a path from the config, relative to the working directory: a data
// reference (data:SET/FILE) inside the data directory, an absolute path as it is, and any other
// path relative to the config file's directory. A malformed data reference, which validation
// refuses, resolves to a path that names it.
func (c *Config) Resolve(p string) string {
	if rel, ok, err := datadir.Rel(p); ok {
		if err != nil {
			return p
		}
		return filepath.Join(c.DataDir.Path, rel)
	}
	if filepath.IsAbs(p) {
		return p
	}
	return filepath.Join(c.Dir(), p)
}

// MissingHint says what to do about the config's data file p (as the config writes it) that does
// not exist: for a data reference, the data set it belongs to and the command that fetches it;
// for another path, where it was looked for.
func (c *Config) MissingHint(p string) string {
	if rel, ok, err := datadir.Rel(p); ok && err == nil {
		return datadir.MissingHint(c.DataDir, rel)
	}
	return "paths are relative to the config file; a file of the data directory is written data:SET/FILE (hcbench data list)"
}

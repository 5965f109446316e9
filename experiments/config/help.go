package config

import (
	"fmt"
	"github.com/hcbench/hcbench/experiments/registry"
	"github.com/hcbench/hcbench/reports"
	"io"
	"reflect"
	"strings"
	"text/tabwriter"

	"go.yaml.in/yaml/v3"
)

// WriteHelp prints every config key with its type, default and meaning, from the schema's tags.
func WriteHelp(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 2, 4, 2, ' ', 0)
	p := func(format string, args ...any) { fmt.Fprintf(tw, format, args...) }
	var keys func(prefix string, t reflect.Type)
	keys = func(prefix string, t reflect.Type) {
		for _, f := range fieldsOf(t) {
			if isNested(f.typ) {
				p("  %s%s\t%s\t%s\t%s\n", prefix, f.key, "mapping", "", f.help)
				keys(prefix+f.key+".", f.typ)
				continue
			}
			p("  %s%s\t%s\t%s\t%s\n", prefix, f.key, typeName(f.typ), defaultText(f), f.help)
		}
	}
	section := func(title string, t reflect.Type) {
		p("\n%s\n", title)
		keys("", t)
	}
	p("Experiment configs are YAML (version %d). Unknown keys are errors, and every problem is reported\n", SchemaVersion)
	p("with its file and line before any work starts. Paths are relative to the config file.\n")
	p("Columns: key, type, default, meaning.\n")
	section("Top level", reflect.TypeFor[Header]())
	for _, k := range []string{"datasets", "algorithms", "reports"} {
		p("  %s\t%s\t%s\t%s\n", k, "list", "", listKeys[k])
	}
	section("Data set entry (every source)", reflect.TypeFor[datasetKeys]())
	for _, src := range registry.Sources() {
		title := fmt.Sprintf("Data set with generator: %s", src.Name)
		if src.File {
			title = "Data set with file: PATH and format: " + src.Name
			if len(src.Extensions) > 0 {
				title += fmt.Sprintf(" (the default for %s files)", strings.Join(src.Extensions, ", "))
			}
		}
		p("\n%s: %s\n", title, src.Help)
		keys("", reflect.TypeOf(src.NewParams()).Elem())
	}
	p("\nAlgorithm entry: a name, or a mapping with these keys and the algorithm's parameters\n")
	for _, f := range fieldsOf(reflect.TypeFor[algorithmKeys]()) {
		p("  %s\t%s\t%s\t%s\n", f.key, typeName(f.typ), defaultText(f), f.help)
	}
	for _, a := range registry.Algorithms() {
		p("\nAlgorithm %s: %s\n", a.Name, a.Help)
		t := reflect.TypeOf(a.NewParams()).Elem()
		if len(fieldsOf(t)) == 0 {
			p("  (no parameters)\n")
		}
		keys("", t)
	}
	p("\nReports\n")
	for _, r := range reports.All() {
		p("  %s\t%s\n", r.Name, r.Help)
	}
	return tw.Flush()
}

// typeName says what a key's value is, in the user's words rather than Go's: a type with its own
// syntax names it (registry.YAMLDecoder's YAMLType).
func typeName(t reflect.Type) string {
	if d, ok := reflect.New(t).Interface().(registry.YAMLDecoder); ok {
		return d.YAMLType()
	}
	switch t.Kind() {
	case reflect.Int:
		return "integer"
	case reflect.Uint64:
		return "integer ≥ 0"
	case reflect.Float64:
		return "number"
	case reflect.Bool:
		return "true or false"
	case reflect.String:
		return "string"
	case reflect.Slice:
		return "list of " + plural(typeName(t.Elem()))
	case reflect.Pointer:
		return typeName(t.Elem())
	}
	return t.Name()
}

// plural turns a type name into the name of a list's elements: "number" into "numbers", "list of
// numbers" into "lists of numbers".
func plural(name string) string {
	first, rest, _ := strings.Cut(name, " ")
	if rest != "" {
		rest = " " + rest
	}
	return first + "s" + rest
}

func defaultText(f field) string {
	switch {
	case f.required:
		return "required"
	case f.def != "":
		return "default " + f.def
	}
	return ""
}

// ParamsMap returns the resolved parameters of an algorithm or source as a map keyed by config
// key, for result records.
func ParamsMap(params any) map[string]any {
	out := map[string]any{}
	if params == nil {
		return out
	}
	v := reflect.ValueOf(params)
	if v.Kind() == reflect.Pointer {
		v = v.Elem()
	}
	for _, f := range fieldsOf(v.Type()) {
		fv := v.FieldByIndex(f.index)
		if isNested(f.typ) {
			out[f.key] = ParamsMap(fv.Addr().Interface())
			continue
		}
		out[f.key] = fv.Interface()
	}
	return out
}

// Resolved returns the config as YAML with every default made explicit, keys in schema order.
// It is what a run directory stores as config.yaml.
func (c *Config) Resolved() ([]byte, error) {
	root := &yaml.Node{Kind: yaml.MappingNode}
	appendStruct(root, reflect.ValueOf(c.Header))
	ds := &yaml.Node{Kind: yaml.SequenceNode}
	for _, d := range c.Datasets {
		m := &yaml.Node{Kind: yaml.MappingNode}
		appendKV(m, "name", d.Name)
		if path := SourcePath(d.Source); path != "" {
			appendKV(m, "file", path)
			appendKV(m, "format", d.Kind)
		} else {
			appendKV(m, "generator", d.Kind)
		}
		appendStruct(m, reflect.ValueOf(d.Source).Elem())
		ds.Content = append(ds.Content, m)
	}
	as := &yaml.Node{Kind: yaml.SequenceNode}
	for _, a := range c.Algorithms {
		m := &yaml.Node{Kind: yaml.MappingNode}
		appendKV(m, "name", a.Name)
		appendKV(m, "label", a.Label)
		if len(a.Datasets) > 0 {
			appendKV(m, "datasets", a.Datasets)
		}
		appendStruct(m, reflect.ValueOf(a.Params).Elem())
		as.Content = append(as.Content, m)
	}
	rs := &yaml.Node{Kind: yaml.SequenceNode, Style: yaml.FlowStyle}
	for _, r := range c.Reports {
		rs.Content = append(rs.Content, scalar(r))
	}
	root.Content = append(root.Content, scalar("datasets"), ds, scalar("algorithms"), as, scalar("reports"), rs)
	var b strings.Builder
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	if err := enc.Encode(root); err != nil {
		return nil, err
	}
	if err := enc.Close(); err != nil {
		return nil, err
	}
	return []byte(b.String()), nil
}

func scalar(s string) *yaml.Node { return &yaml.Node{Kind: yaml.ScalarNode, Value: s} }

func appendKV(m *yaml.Node, key string, value any) {
	var v yaml.Node
	if err := v.Encode(value); err != nil {
		panic(fmt.Sprintf("config: cannot encode %s: %v", key, err)) // schema types always encode
	}
	m.Content = append(m.Content, scalar(key), &v)
}

func appendStruct(m *yaml.Node, v reflect.Value) {
	for _, f := range fieldsOf(v.Type()) {
		appendKV(m, f.key, v.FieldByIndex(f.index).Interface())
	}
}

// SourcePath returns the file of a file source, "" for a generator.
func SourcePath(src registry.Params) string {
	if f, ok := src.(registry.FileParams); ok {
		return f.File()
	}
	return ""
}

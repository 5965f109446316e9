package config

import (
	"fmt"
	"github.com/hcbench/hcbench/experiments/metric"
	"github.com/hcbench/hcbench/experiments/registry"
	"github.com/hcbench/hcbench/experiments/results"
	"github.com/hcbench/hcbench/reports"
	"io"
	"reflect"
	"strconv"
	"strings"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"
)

// WriteHelp prints every config key with its type, default and meaning, from the schema's tags.
// No line is wider than helpWidth: a section's keys, types and defaults stand in columns, and the
// meanings are wrapped below their own column (see helpWriter).
func WriteHelp(w io.Writer) error {
	h := &helpWriter{w: w}
	keys := func(prefix string, t reflect.Type) {
		var walk func(prefix string, t reflect.Type)
		walk = func(prefix string, t reflect.Type) {
			for _, f := range fieldsOf(t) {
				if f.typ == thresholdsType { // its keys are the metric table's
					h.row(prefix+f.key, "mapping", "", f.help)
					for _, m := range metric.Tracked(metric.Compare) {
						h.row(prefix+f.key+"."+m.Key, "number", "default "+strconv.FormatFloat(m.Threshold, 'g', -1, 64), m.ThresholdHelp)
					}
					continue
				}
				if isNested(f.typ) {
					h.row(prefix+f.key, "mapping", "", f.help)
					walk(prefix+f.key+".", f.typ)
					continue
				}
				h.row(prefix+f.key, typeName(f.typ), defaultText(f), f.help)
			}
		}
		walk(prefix, t)
	}
	section := func(title string, t reflect.Type) {
		h.text("")
		h.text(title)
		keys("", t)
	}
	h.text(fmt.Sprintf("Experiment configs are YAML (version %d). Unknown keys are errors, and every problem is reported "+
		"with its file and line before any work starts. Paths are relative to the config file.", SchemaVersion))
	h.text("Columns: key, type, default, meaning.")
	section("Top level", reflect.TypeFor[Header]())
	for _, k := range []string{"datasets", "algorithms", "reports"} {
		h.row(k, "list", "", listKeys[k])
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
		h.text("")
		h.text(title + ": " + src.Help)
		keys("", reflect.TypeOf(src.NewParams()).Elem())
	}
	h.text("")
	h.text("Algorithm entry: a name, or a mapping with these keys and the algorithm's parameters")
	for _, f := range fieldsOf(reflect.TypeFor[algorithmKeys]()) {
		h.row(f.key, typeName(f.typ), defaultText(f), f.help)
	}
	for _, a := range registry.Algorithms() {
		h.text("")
		h.text(fmt.Sprintf("Algorithm %s: %s", a.Name, a.Help))
		t := reflect.TypeOf(a.NewParams()).Elem()
		if len(fieldsOf(t)) == 0 {
			h.text("  (no parameters)")
		}
		keys("", t)
	}
	h.text("")
	h.text("Reports")
	for _, r := range reports.All() {
		h.row(r.Name, r.Help)
	}
	for _, r := range reports.All() {
		if r.NewOptions != nil {
			h.text("")
			h.text(fmt.Sprintf("Report %s options, set in its entry: {name: %s, OPTION: VALUE}", r.Name, r.Name))
			keys("", reflect.TypeOf(r.NewOptions()).Elem())
		}
	}
	h.flush()
	return h.err
}

// helpWidth is the widest line that WriteHelp writes, in characters (runes): terminals and
// pagers show it without wrapping, and a reader's eye finds the next row.
const helpWidth = 120

// helpMinMeaning is the narrowest column a meaning is wrapped to. A key, type or default so long
// that the meaning would get less is not given a column of its own width: its row writes its
// cells as they are and the meaning from the next line on, under the meaning column of the
// other rows (as argparse does with long options).
const helpMinMeaning = 50

// helpWriter writes WriteHelp's text: paragraphs, and rows of cells whose last cell is the
// meaning. The rows between two paragraphs are one section, aligned in columns of their own.
// It keeps the first write error.
type helpWriter struct {
	w    io.Writer
	rows [][]string
	err  error
}

func (h *helpWriter) row(cells ...string) { h.rows = append(h.rows, cells) }

// text writes the pending rows, then the paragraph s wrapped at helpWidth, every line indented
// as s is (a title flush left stands apart from the indented rows below it).
func (h *helpWriter) text(s string) {
	h.flush()
	lead := strings.Repeat(" ", len(s)-len(strings.TrimLeft(s, " ")))
	lines := wrapWords(s, helpWidth-len(lead))
	for _, l := range lines {
		h.printf("%s%s\n", lead, l)
	}
	if len(lines) == 0 {
		h.printf("\n")
	}
}

// flush writes the pending rows: each leading cell padded to its column's width, two spaces
// apart and indented by 2, and the meaning wrapped to what remains of helpWidth, its later lines
// under its first. A column is as wide as its widest cell, except that while the meaning would
// get less than helpMinMeaning the longest cell of all is left out of the widths (its row then
// writes the meaning from the next line on).
func (h *helpWriter) flush() {
	rows := h.rows
	h.rows = nil
	if len(rows) == 0 {
		return
	}
	lead := len(rows[0]) - 1
	long := map[[2]int]bool{} // {row, column} of the cells left out of the widths
	var widths []int
	var start int
	for {
		widths = make([]int, lead)
		for r, cells := range rows {
			for c := range lead {
				if !long[[2]int{r, c}] {
					widths[c] = max(widths[c], utf8.RuneCountInString(cells[c]))
				}
			}
		}
		start = 2
		for _, w := range widths {
			start += w + 2
		}
		if helpWidth-start >= helpMinMeaning {
			break
		}
		longest, at := -1, [2]int{}
		for r, cells := range rows {
			for c := range lead {
				if n := utf8.RuneCountInString(cells[c]); !long[[2]int{r, c}] && n > longest {
					longest, at = n, [2]int{r, c}
				}
			}
		}
		long[at] = true
	}
	indent := strings.Repeat(" ", start)
	for r, cells := range rows {
		var b strings.Builder
		b.WriteString("  ")
		stacked := false
		for c := range lead {
			b.WriteString(cells[c])
			if long[[2]int{r, c}] {
				stacked = true
			}
			if c < lead-1 || !stacked {
				b.WriteString(strings.Repeat(" ", max(widths[c]-utf8.RuneCountInString(cells[c]), 0)+2))
			}
		}
		meaning := wrapWords(cells[lead], helpWidth-start)
		if stacked {
			h.printf("%s\n", strings.TrimRight(b.String(), " "))
		} else if len(meaning) == 0 {
			h.printf("%s\n", strings.TrimRight(b.String(), " "))
		} else {
			h.printf("%s%s\n", b.String(), meaning[0])
			meaning = meaning[1:]
		}
		for _, l := range meaning {
			h.printf("%s%s\n", indent, l)
		}
	}
}

func (h *helpWriter) printf(format string, args ...any) {
	if h.err == nil {
		_, h.err = fmt.Fprintf(h.w, format, args...)
	}
}

// wrapWords breaks s at spaces into lines of at most width characters (runes); a word longer
// than width is cut at width. It returns no lines for an empty s.
func wrapWords(s string, width int) []string {
	var lines []string
	var line []rune
	for _, word := range strings.Fields(s) {
		w := []rune(word)
		if len(line) > 0 && len(line)+1+len(w) > width {
			lines = append(lines, string(line))
			line = line[:0]
		}
		for len(w) > width {
			if len(line) > 0 {
				lines = append(lines, string(line))
				line = line[:0]
			}
			lines = append(lines, string(w[:width]))
			w = w[width:]
		}
		if len(line) > 0 {
			line = append(line, ' ')
		}
		line = append(line, w...)
	}
	if len(line) > 0 {
		lines = append(lines, string(line))
	}
	return lines
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
		// repeat is written only when it is not 1, so that a config without repeats keeps the
		// config hash it had before repeats existed (resume and compare check the hash).
		if a.Repeat > 1 {
			appendKV(m, "repeat", a.Repeat)
		}
		// max_leaves likewise only when set: it is new, and 0 leaves the tasks as they were.
		if a.MaxLeaves > 0 {
			appendKV(m, "max_leaves", a.MaxLeaves)
		}
		appendStruct(m, reflect.ValueOf(a.Params).Elem())
		as.Content = append(as.Content, m)
	}
	rs := &yaml.Node{Kind: yaml.SequenceNode, Style: yaml.FlowStyle}
	for _, r := range c.Reports {
		opts, ok := c.ReportOptions[r]
		if !ok {
			rs.Content = append(rs.Content, scalar(r))
			continue
		}
		m := &yaml.Node{Kind: yaml.MappingNode, Style: yaml.FlowStyle}
		appendKV(m, "name", r)
		appendStruct(m, reflect.ValueOf(opts).Elem())
		rs.Content = append(rs.Content, m)
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
	if th, ok := value.(results.Thresholds); ok { // in the table's order, not the map's
		tn := &yaml.Node{Kind: yaml.MappingNode}
		for _, k := range metric.ThresholdKeys() {
			if v, ok := th[k]; ok {
				appendKV(tn, k, v)
			}
		}
		m.Content = append(m.Content, scalar(key), tn)
		return
	}
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

package config

import (
	"fmt"
	"github.com/hcbench/hcbench/experiments/metric"
	"github.com/hcbench/hcbench/experiments/registry"
	"github.com/hcbench/hcbench/experiments/results"
	"github.com/hcbench/hcbench/internal/english"
	"math"
	"reflect"
	"slices"
	"sort"
	"strings"
	"sync"

	"go.yaml.in/yaml/v3"
)

// A Problem is one thing wrong with a config, at a line of its file.
type Problem struct {
	File string
	Line int // 1-based; 0 when the problem has no line
	Msg  string
}

// Error makes a Problem found after loading (see Config.Problem) an error.
func (p Problem) Error() string { return p.String() }

func (p Problem) String() string {
	if p.Line > 0 {
		return fmt.Sprintf("%s:%d: %s", p.File, p.Line, p.Msg)
	}
	return fmt.Sprintf("%s: %s", p.File, p.Msg)
}

// Problems is every problem found in a config, in line order. It is the error that Load returns
// for an invalid config, so that a user sees all of them at once.
type Problems []Problem

func (ps Problems) Error() string {
	var b strings.Builder
	for i, p := range ps {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(p.String())
	}
	return b.String()
}

// decoder decodes YAML nodes into schema structs strictly, collecting problems instead of stopping
// at the first. Struct fields are described by tags:
//
//	yaml:"key"          the key (yaml:",inline" merges an embedded struct's keys)
//	help:"text"         shown by `help config`
//	default:"value"     applied when the key is absent, parsed like a YAML scalar
//	required:"true"     the key must be present
type decoder struct {
	file     string
	problems Problems
	// failed holds the paths (as in "datasets[0].t_cut") that could not be decoded or are missing,
	// so that validation does not report them a second time.
	failed map[string]bool
	// unnamedDataset is set when a data set entry is not a mapping, so its name is unknown.
	unnamedDataset bool
	// more counts the problems beyond maxProblems, which are not kept.
	more int
}

// maxProblems bounds the problems a config reports one by one; more are only counted (see
// decoder.sorted). Aliases let a small config repeat a bad value many times (a data set entry of a
// thousand unknown keys, aliased five hundred times in 11 KB, made half a million problems, a
// 100 MB message and 1.7 GB of allocation), and a user reads the first problems anyway.
const maxProblems = 100

func (d *decoder) addf(line int, format string, args ...any) {
	if len(d.problems) >= maxProblems {
		d.more++
		return
	}
	d.problems = append(d.problems, Problem{File: d.file, Line: line, Msg: fmt.Sprintf(format, args...)})
}

// sorted returns the problems in line order, with a last one counting those beyond maxProblems.
func (d *decoder) sorted() Problems {
	sort.SliceStable(d.problems, func(i, j int) bool { return d.problems[i].Line < d.problems[j].Line })
	if d.more > 0 {
		d.problems = append(d.problems, Problem{File: d.file, Msg: fmt.Sprintf("and %d more %s (only the first %d found are listed)", d.more, english.Plural(d.more, "problem", "problems"), maxProblems)})
	}
	return d.problems
}

// skip marks path as failed without a message: its value derives from a key that failed, so
// checking it would only report the same problem again, about a key the user may not have written.
func (d *decoder) skip(path string) {
	if d.failed == nil {
		d.failed = map[string]bool{}
	}
	d.failed[path] = true
}

// fail reports a problem with the value at path and remembers the path as failed.
func (d *decoder) fail(line int, path, format string, args ...any) {
	d.skip(path)
	d.addf(line, "%s: %s", path, fmt.Sprintf(format, args...))
}

// field is one key of a schema struct.
type field struct {
	key      string
	index    []int
	help     string
	def      string
	required bool
	typ      reflect.Type
}

// fieldsCache holds fieldsOf's lists by type: decoding a config asks for them at every mapping,
// and a large config (or an aliased entry used many times) would otherwise rebuild them each time,
// half of all it allocated.
var fieldsCache sync.Map // reflect.Type → []field

// fieldsOf lists the keys of a schema struct type, inline structs flattened, in declaration order.
// The list is shared: do not modify it.
func fieldsOf(t reflect.Type) []field {
	if fs, ok := fieldsCache.Load(t); ok {
		return fs.([]field)
	}
	fs := listFields(t)
	fs = fs[:len(fs):len(fs)] // an append copies
	fieldsCache.Store(t, fs)
	return fs
}

// byKeyCache holds fieldsByKey's maps by type, for the reason of fieldsCache.
var byKeyCache sync.Map // reflect.Type → map[string]field

// fieldsByKey maps the keys of a schema struct type to their fields (see fieldsOf). The map is
// shared: do not modify it.
func fieldsByKey(t reflect.Type) map[string]field {
	if m, ok := byKeyCache.Load(t); ok {
		return m.(map[string]field)
	}
	m := map[string]field{}
	for _, f := range fieldsOf(t) {
		m[f.key] = f
	}
	byKeyCache.Store(t, m)
	return m
}

func listFields(t reflect.Type) []field {
	var out []field
	for i := range t.NumField() {
		sf := t.Field(i)
		tag := sf.Tag.Get("yaml")
		if tag == "-" || !sf.IsExported() {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		if opts == "inline" {
			for _, f := range fieldsOf(sf.Type) {
				f.index = append([]int{i}, f.index...)
				out = append(out, f)
			}
			continue
		}
		if name == "" {
			continue
		}
		out = append(out, field{
			key:      name,
			index:    []int{i},
			help:     sf.Tag.Get("help"),
			def:      sf.Tag.Get("default"),
			required: sf.Tag.Get("required") == "true",
			typ:      sf.Type,
		})
	}
	return out
}

// keyLines maps each key given in a mapping to its line.
type keyLines map[string]int

// has reports whether key was given.
func (k keyLines) has(key string) bool { _, ok := k[key]; return ok }

// mapping decodes the mapping node into the struct that out points to. Keys listed in handled are
// accepted without being decoded (the caller reads them). path names the mapping in messages, as
// in "datasets[1]". It returns the line of every key given.
func (d *decoder) mapping(node *yaml.Node, out any, path string, handled ...string) keyLines {
	v := reflect.ValueOf(out).Elem()
	fs := fieldsOf(v.Type())
	lines := keyLines{}
	if node.Kind != yaml.MappingNode {
		d.fail(node.Line, orTop(path), "want a mapping of keys to values, got %s", registry.Describe(node))
		return lines
	}
	byKey := fieldsByKey(v.Type())
	var known []string // the keys for a suggestion, listed at the first unknown key
	for i := 0; i+1 < len(node.Content); i += 2 {
		k, val := node.Content[i], node.Content[i+1]
		key := k.Value
		if prev, dup := lines[key]; dup {
			d.addf(k.Line, "%s: key %q given twice (first on line %d)", orTop(path), key, prev)
			continue
		}
		lines[key] = k.Line
		if slices.Contains(handled, key) {
			continue
		}
		f, ok := byKey[key]
		if !ok {
			if known == nil && len(d.problems) < maxProblems {
				known = append(keyNames(v.Type()), handled...)
			}
			d.addf(k.Line, "%s: unknown key %q%s", orTop(path), key, d.suggest("keys", key, known))
			continue
		}
		d.value(val, v.FieldByIndex(f.index), join(path, key))
	}
	for _, f := range fs {
		if lines.has(f.key) {
			continue
		}
		if f.required {
			d.fail(node.Line, join(path, f.key), "missing required key")
			continue
		}
		if f.typ == thresholdsType {
			d.thresholds(&yaml.Node{Kind: yaml.MappingNode, Line: node.Line}, v.FieldByIndex(f.index), join(path, f.key))
			continue
		}
		if f.def == "" && isNested(f.typ) {
			// An absent nested mapping still gets its keys' defaults.
			d.mapping(&yaml.Node{Kind: yaml.MappingNode, Line: node.Line}, v.FieldByIndex(f.index).Addr().Interface(), join(path, f.key))
			continue
		}
		if f.def != "" {
			def := &yaml.Node{Kind: yaml.ScalarNode, Value: f.def, Line: node.Line}
			if strings.HasPrefix(f.def, "[") || strings.HasPrefix(f.def, "{") { // a list or mapping default, in YAML flow style
				var doc yaml.Node
				if err := yaml.Unmarshal([]byte(f.def), &doc); err != nil {
					panic(fmt.Sprintf("config: bad default of %s: %v", f.key, err)) // a schema bug
				}
				def = doc.Content[0]
			}
			d.value(def, v.FieldByIndex(f.index), join(path, f.key))
		}
	}
	return lines
}

// isNested reports whether a field of type t is a nested mapping of schema keys (a struct that
// does not parse its own YAML).
func isNested(t reflect.Type) bool {
	return t.Kind() == reflect.Struct && !reflect.PointerTo(t).Implements(reflect.TypeFor[registry.YAMLDecoder]())
}

func (d *decoder) value(n *yaml.Node, v reflect.Value, path string) {
	if v.CanAddr() {
		if nd, ok := v.Addr().Interface().(registry.YAMLDecoder); ok {
			if err := nd.DecodeYAML(n); err != nil {
				d.fail(n.Line, path, "%v", err)
			}
			return
		}
	}
	if n.Kind == yaml.ScalarNode && n.ShortTag() == "!!null" {
		d.fail(n.Line, path, "no value given")
		return
	}
	if v.Type() == thresholdsType {
		d.thresholds(n, v, path)
		return
	}
	switch v.Kind() {
	case reflect.String:
		if n.Kind != yaml.ScalarNode {
			d.fail(n.Line, path, "want a string, got %s", registry.Describe(n))
			return
		}
		v.SetString(n.Value)
	case reflect.Int:
		var x int
		if !registry.IsNumber(n, "!!int") || n.Decode(&x) != nil {
			d.fail(n.Line, path, "want an integer, got %s%s", registry.Describe(n), registry.QuotedNumber(n))
			return
		}
		v.SetInt(int64(x))
	case reflect.Uint64:
		var x uint64
		if !registry.IsNumber(n, "!!int") || n.Decode(&x) != nil {
			d.fail(n.Line, path, "want a non-negative integer, got %s%s", registry.Describe(n), registry.QuotedNumber(n))
			return
		}
		v.SetUint(x)
	case reflect.Float64:
		var x float64
		if !registry.IsNumber(n, "!!int", "!!float") || n.Decode(&x) != nil {
			d.fail(n.Line, path, "want a number, got %s%s", registry.Describe(n), registry.QuotedNumber(n))
			return
		}
		if math.IsNaN(x) || math.IsInf(x, 0) {
			d.fail(n.Line, path, "want a finite number, got %s", n.Value)
			return
		}
		v.SetFloat(x)
	case reflect.Bool:
		var x bool
		if n.Kind != yaml.ScalarNode || n.Decode(&x) != nil {
			d.fail(n.Line, path, "want true or false, got %s", registry.Describe(n))
			return
		}
		v.SetBool(x)
	case reflect.Slice:
		if n.Kind != yaml.SequenceNode {
			d.fail(n.Line, path, "want a list, got %s", registry.Describe(n))
			return
		}
		s := reflect.MakeSlice(v.Type(), len(n.Content), len(n.Content))
		for i, e := range n.Content {
			d.value(e, s.Index(i), fmt.Sprintf("%s[%d]", path, i))
		}
		v.Set(s)
	case reflect.Struct:
		d.mapping(n, v.Addr().Interface(), path)
	case reflect.Pointer:
		p := reflect.New(v.Type().Elem())
		d.value(n, p.Elem(), path)
		v.Set(p)
	default:
		panic(fmt.Sprintf("config: schema field %s has unsupported type %s", path, v.Type()))
	}
}

// thresholdsType is the type of the thresholds mapping, whose keys are not a struct's fields but
// package metric's table: the metrics that compare tracks (time among them).
var thresholdsType = reflect.TypeFor[results.Thresholds]()

// thresholds decodes the thresholds mapping n into v: a non-negative number per key, the keys
// those of the metrics that compare tracks (or an old key of one, read as its key), every key
// not given its metric's default.
func (d *decoder) thresholds(n *yaml.Node, v reflect.Value, path string) {
	th := metric.DefaultThresholds()
	defer func() { v.Set(reflect.ValueOf(th)) }()
	if n.Kind != yaml.MappingNode {
		d.fail(n.Line, path, "want a mapping of metric keys to thresholds, got %s", registry.Describe(n))
		return
	}
	lines := keyLines{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, val := n.Content[i], n.Content[i+1]
		m, ok := metric.Lookup(k.Value)
		if !ok || m.Track&metric.Compare == 0 {
			d.addf(k.Line, "%s: unknown key %q%s", path, k.Value, d.suggest("keys", k.Value, metric.ThresholdKeys()))
			continue
		}
		if prev, dup := lines[m.Key]; dup {
			d.addf(k.Line, "%s: key %q given twice (first on line %d)", path, m.Key, prev)
			continue
		}
		lines[m.Key] = k.Line
		var x float64
		at := join(path, m.Key)
		d.value(val, reflect.ValueOf(&x).Elem(), at)
		switch {
		case d.failed[at]:
		case x < 0:
			d.fail(val.Line, at, "want a non-negative number, got %s", val.Value)
		default:
			th[m.Key] = x
		}
	}
}

func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

func orTop(path string) string {
	if path == "" {
		return "config"
	}
	return path
}

// suggest returns ` (did you mean "x"?)` for the known name closest to key, within two edits, or
// the list of known names, which what names ("keys", "algorithms", …).
// suggest returns " (did you mean …?)" or the list of known names, for the message of an unknown
// key or name; nothing once maxProblems are listed, since the message is not kept then, and its
// edit distances would cost a large config (or an aliased entry used many times) much time and
// memory: a config of half a million unknown algorithm names allocated 1.3 GB.
func (d *decoder) suggest(what, key string, known []string) string {
	if len(d.problems) >= maxProblems {
		return ""
	}
	if best := Closest(key, known); best != "" {
		return fmt.Sprintf(" (did you mean %q?)", best)
	}
	sorted := slices.Clone(known)
	sort.Strings(sorted)
	return " (known " + what + ": " + strings.Join(sorted, ", ") + ")"
}

// Closest returns the name of known closest to name within two edits, or "" (english.Closest):
// the suggestion for a misspelt config key, algorithm or command.
func Closest(name string, known []string) string { return english.Closest(name, known) }

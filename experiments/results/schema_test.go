package results_test

import (
	"encoding/json"
	"math"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hcbench/hcbench/experiments/metric"
	"github.com/hcbench/hcbench/experiments/results"
	"github.com/hcbench/hcbench/experiments/results/resultstest"
)

// TestSchemasMatchGoTypes: the JSON Schemas and the Go types they describe name the same fields
// with the same JSON types, nested objects included: a field added to Record or Manifest (or to
// a type inside them) without its schema property, a property left behind by a removed field, a
// field that became optional (omitempty) or required, or a type that changed fails here, naming
// it. The schemas allow no other fields (additionalProperties: false) at every level.
func TestSchemasMatchGoTypes(t *testing.T) {
	for _, c := range []struct {
		name, schema string
		typ          reflect.Type
	}{
		{"record.schema.json", results.RecordJSONSchema, reflect.TypeFor[results.Record]()},
		{"manifest.schema.json", results.ManifestJSONSchema, reflect.TypeFor[results.Manifest]()},
	} {
		var root map[string]any
		if err := json.Unmarshal([]byte(c.schema), &root); err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if root["$schema"] != "https://json-schema.org/draft/2020-12/schema" {
			t.Errorf("%s: $schema %v, want draft 2020-12", c.name, root["$schema"])
		}
		compareSchema(t, c.name, root, root, c.typ)
	}
}

// jsonField is a field of a struct as encoding/json writes it.
type jsonField struct {
	name     string
	typ      reflect.Type
	optional bool // omitempty or omitzero: left out when empty
	quoted   bool // the ",string" option: a number written as a string
}

// jsonFields returns the fields encoding/json writes of struct type t, embedded structs'
// fields promoted.
func jsonFields(t reflect.Type) []jsonField {
	var out []jsonField
	for i := range t.NumField() {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		if !f.IsExported() || tag == "-" {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		if f.Anonymous && name == "" && f.Type.Kind() == reflect.Struct {
			out = append(out, jsonFields(f.Type)...)
			continue
		}
		if name == "" {
			name = f.Name
		}
		o := strings.Split(opts, ",")
		out = append(out, jsonField{name, f.Type, slices.Contains(o, "omitempty") || slices.Contains(o, "omitzero"), slices.Contains(o, "string")})
	}
	return out
}

// resolve follows a schema's local $ref ("#/$defs/name").
func resolve(root, s map[string]any) map[string]any {
	for {
		ref, ok := s["$ref"].(string)
		if !ok {
			return s
		}
		def, _ := root["$defs"].(map[string]any)[strings.TrimPrefix(ref, "#/$defs/")].(map[string]any)
		if def == nil {
			return map[string]any{"$ref-missing": ref}
		}
		s = def
	}
}

// schemaTypes returns the JSON types a schema allows, from its type, const or enum.
func schemaTypes(s map[string]any) []string {
	var out []string
	add := func(v any) {
		switch v.(type) {
		case nil:
			out = append(out, "null")
		case string:
			out = append(out, "string")
		case bool:
			out = append(out, "boolean")
		case float64:
			out = append(out, "integer") // the schemas' consts are integers or strings
		}
	}
	switch ty := s["type"].(type) {
	case string:
		out = append(out, ty)
	case []any:
		for _, x := range ty {
			out = append(out, x.(string))
		}
	}
	if c, ok := s["const"]; ok {
		add(c)
	}
	for _, e := range asSlice(s["enum"]) {
		add(e)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

func asSlice(v any) []any { s, _ := v.([]any); return s }

var (
	logProbType  = reflect.TypeFor[results.LogProb]()
	timeType     = reflect.TypeFor[time.Time]()
	rawValueType = reflect.TypeFor[any]()
)

// goTypes returns the JSON types that encoding/json writes for a value of type t.
func goTypes(t reflect.Type, quoted bool) []string {
	if t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch {
	case t == logProbType:
		return []string{"null", "number"} // −Inf is null
	case t == timeType:
		return []string{"string"}
	case quoted:
		return []string{"string"}
	}
	switch t.Kind() {
	case reflect.String:
		return []string{"string"}
	case reflect.Bool:
		return []string{"boolean"}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64, reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return []string{"integer"}
	case reflect.Float32, reflect.Float64:
		return []string{"number"}
	case reflect.Slice, reflect.Array:
		return []string{"array"}
	case reflect.Map, reflect.Struct:
		return []string{"object"}
	}
	return nil // an interface: any JSON value
}

// compareSchema checks schema s of root against Go type t at path.
func compareSchema(t *testing.T, path string, root, s map[string]any, typ reflect.Type) {
	t.Helper()
	s = resolve(root, s)
	for typ.Kind() == reflect.Pointer {
		typ = typ.Elem()
	}
	switch {
	case typ == logProbType || typ == timeType || typ == rawValueType:
		return
	case typ.Kind() == reflect.Slice || typ.Kind() == reflect.Array:
		items, ok := s["items"].(map[string]any)
		if !ok {
			t.Errorf("%s: an array without items; Go has %s", path, typ)
			return
		}
		checkTypes(t, path+"[]", resolve(root, items), typ.Elem(), false)
		compareSchema(t, path+"[]", root, items, typ.Elem())
		return
	case typ.Kind() != reflect.Struct:
		return
	}
	if s["additionalProperties"] != false {
		t.Errorf("%s: additionalProperties is %v, want false (a field the schema does not know must fail)", path, s["additionalProperties"])
	}
	props, _ := s["properties"].(map[string]any)
	var required []string
	for _, r := range asSlice(s["required"]) {
		required = append(required, r.(string))
	}
	fields := jsonFields(typ)
	seen := map[string]bool{}
	for _, f := range fields {
		seen[f.name] = true
		p, ok := props[f.name].(map[string]any)
		if !ok {
			t.Errorf("%s: %s.%s (json %q) has no property in the schema", path, typ.Name(), f.name, f.name)
			continue
		}
		if req := slices.Contains(required, f.name); req == f.optional {
			t.Errorf("%s.%s: the schema has required %v, Go's json tag omitempty %v; a field is required exactly when Go always writes it", path, f.name, req, f.optional)
		}
		checkTypes(t, path+"."+f.name, resolve(root, p), f.typ, f.quoted)
		compareSchema(t, path+"."+f.name, root, p, f.typ)
	}
	for name := range props {
		if !seen[name] {
			t.Errorf("%s: property %q has no field in Go's %s", path, name, typ.Name())
		}
	}
	for _, r := range required {
		if !seen[r] {
			t.Errorf("%s: required %q has no field in Go's %s", path, r, typ.Name())
		}
	}
}

func checkTypes(t *testing.T, path string, s map[string]any, typ reflect.Type, quoted bool) {
	t.Helper()
	want := goTypes(typ, quoted)
	if want == nil {
		return
	}
	if got := schemaTypes(s); !slices.Equal(got, want) {
		t.Errorf("%s: the schema allows %v, Go's %s writes %v", path, got, typ, want)
	}
}

// fill sets every field of v, recursively, to a value that is not empty, so that encoding/json
// writes all of them: two elements in every list, one key in every map.
func fill(v reflect.Value) {
	switch v.Kind() {
	case reflect.Pointer:
		v.Set(reflect.New(v.Type().Elem()))
		fill(v.Elem())
	case reflect.Struct:
		if v.Type() == timeType {
			v.Set(reflect.ValueOf(time.Date(2026, 1, 2, 3, 4, 5, 6, time.UTC)))
			return
		}
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				fill(v.Field(i))
			}
		}
	case reflect.Slice:
		v.Set(reflect.MakeSlice(v.Type(), 2, 2))
		for i := range 2 {
			fill(v.Index(i))
		}
	case reflect.Array:
		for i := range v.Len() {
			fill(v.Index(i))
		}
	case reflect.Map:
		m := reflect.MakeMap(v.Type())
		e := reflect.New(v.Type().Elem()).Elem()
		fill(e)
		m.SetMapIndex(reflect.ValueOf("k"), e)
		v.Set(m)
	case reflect.Interface:
		v.Set(reflect.ValueOf("v"))
	case reflect.String:
		v.SetString("x")
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Int, reflect.Int64:
		v.SetInt(1)
	case reflect.Uint64:
		v.SetUint(1)
	case reflect.Float64:
		v.SetFloat(0.5)
	}
}

// filledRecord is a Record with every field set, valid where the schema constrains a value.
func filledRecord() results.Record {
	var r results.Record
	fill(reflect.ValueOf(&r).Elem())
	r.Key = "dataset=x|item=x|algorithm=x"
	r.Seed = math.MaxUint64
	r.Metrics = map[string]float64{}
	for _, m := range metric.All() {
		if m.Computed() {
			r.Metrics[m.Key] = 0.5
		}
	}
	return r
}

// filledManifest is a Manifest with every field set, valid where the schema constrains a value.
func filledManifest() results.Manifest {
	var m results.Manifest
	fill(reflect.ValueOf(&m).Elem())
	m.Tool, m.Status, m.RevisionSource = "hcbench", results.StatusComplete, "buildinfo"
	m.Thresholds = metric.DefaultThresholds()
	m.Executable, m.ConfigHash = strings.Repeat("0a", 32), strings.Repeat("b1", 32)
	m.Repetitions.Count, m.Repetitions.Order = 5, results.OrderInterleaved
	for i := range m.Sessions {
		m.Sessions[i].Executable = m.Executable
	}
	for i := range m.DataFiles {
		m.DataFiles[i].SHA256 = m.ConfigHash
	}
	return m
}

// TestSchemaAcceptsEveryField: a record and a manifest with every field set validate, and their
// JSON holds every property of the schema (so the schema's types were checked against values).
func TestSchemaAcceptsEveryField(t *testing.T) {
	for _, c := range []struct {
		name     string
		value    any
		schema   string
		validate func([]byte) error
	}{
		{"record", filledRecord(), metric.RecordJSONSchema(), resultstest.ValidateRecord},
		{"manifest", filledManifest(), metric.ManifestJSONSchema(), resultstest.ValidateManifest},
	} {
		b, err := json.Marshal(c.value)
		if err != nil {
			t.Fatal(err)
		}
		if err := c.validate(b); err != nil {
			t.Errorf("%s with every field set: %v\n%s", c.name, err, b)
		}
		var doc, schema map[string]any
		json.Unmarshal(b, &doc)
		json.Unmarshal([]byte(c.schema), &schema)
		for p := range schema["properties"].(map[string]any) {
			if _, ok := doc[p]; !ok {
				t.Errorf("%s: the filled value does not write %q", c.name, p)
			}
		}
	}
}

// TestSchemaRejects: the record schema fails a record with a field it does not know, a wrong
// type, a missing required field, a log-likelihood that is not a number, a seed that is
// not a decimal string; −Inf log-likelihoods (null) pass. The manifest schema fails an unknown
// status and a field it does not know.
func TestSchemaRejects(t *testing.T) {
	r := filledRecord()
	r.LogLikelihood = results.Log(math.Inf(-1))
	r.Merges[0].LogR = results.LogProb(math.Inf(-1))
	good, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	if err := resultstest.ValidateRecord(good); err != nil {
		t.Fatalf("a record with −Inf (null) log-likelihoods: %v", err)
	}
	edit := func(b []byte, f func(map[string]any)) []byte {
		var doc map[string]any
		if err := json.Unmarshal(b, &doc); err != nil {
			t.Fatal(err)
		}
		f(doc)
		out, _ := json.Marshal(doc)
		return out
	}
	for name, f := range map[string]func(map[string]any){
		"an unknown field":            func(d map[string]any) { d["second_seconds"] = 1.5 },
		"n as a string":               func(d map[string]any) { d["n"] = "5" },
		"n not an integer":            func(d map[string]any) { d["n"] = 5.5 },
		"log_likelihood as a string":  func(d map[string]any) { d["log_likelihood"] = "-Inf" },
		"no key":                      func(d map[string]any) { delete(d, "key") },
		"a seed that is a number":     func(d map[string]any) { d["seed"] = 17 },
		"schema 2":                    func(d map[string]any) { d["schema"] = 2 },
		"an unknown field in a merge": func(d map[string]any) { d["merges"].([]any)[0].(map[string]any)["log_q"] = 0 },
		"a purity above 1":            func(d map[string]any) { d["dendrogram_purity"] = 1.5 },
		"times holding a string":      func(d map[string]any) { d["times"] = []any{0.1, "0.2"} },
		"a marginal without its p": func(d map[string]any) {
			delete(d["marginals"].(map[string]any)["map_clusters"].([]any)[0].(map[string]any), "p")
		},
		"extra holding a list":         func(d map[string]any) { d["extra"] = map[string]any{"a": []any{1}} },
		"warnings holding a number":    func(d map[string]any) { d["warnings"] = []any{1} },
		"a leaf position of 0":         func(d map[string]any) { d["leaf_positions"] = []any{0} },
		"a key that is not a task key": func(d map[string]any) { d["key"] = "greedy" },
	} {
		if err := resultstest.ValidateRecord(edit(good, f)); err == nil {
			t.Errorf("record with %s: valid, want an error", name)
		}
	}

	m, err := json.Marshal(filledManifest())
	if err != nil {
		t.Fatal(err)
	}
	for name, f := range map[string]func(map[string]any){
		"an unknown field":       func(d map[string]any) { d["hostname"] = "h" },
		"an unknown status":      func(d map[string]any) { d["status"] = "done" },
		"a start that is a date": func(d map[string]any) { d["start"] = "yesterday" },
		"a short sha256":         func(d map[string]any) { d["config_hash"] = "abc" },
		"a session's extra field": func(d map[string]any) {
			d["sessions"].([]any)[0].(map[string]any)["pid"] = 7
		},
	} {
		if err := resultstest.ValidateManifest(edit(m, f)); err == nil {
			t.Errorf("manifest with %s: valid, want an error", name)
		}
	}
}

// Package resultstest checks what a run writes against the JSON Schemas of package results, for
// tests: every line of a results file against metric.RecordJSONSchema, and every manifest
// against metric.ManifestJSONSchema. The validator is github.com/santhosh-tekuri/jsonschema
// (draft 2020-12, with formats such as date-time asserted), so a field that a schema does not
// know, a wrong type or a missing required field fails the test that wrote it.
package resultstest

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/hcbench/hcbench/experiments/metric"
	"github.com/hcbench/hcbench/experiments/results"
)

// schemas are the compiled record and manifest schemas; compiling the embedded text cannot
// fail unless the schema files are broken, which is then every caller's error.
var schemas = sync.OnceValue(func() (s struct {
	record, manifest *jsonschema.Schema
	err              error
}) {
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	compile := func(name, text string) *jsonschema.Schema {
		if s.err != nil {
			return nil
		}
		doc, err := jsonschema.UnmarshalJSON(strings.NewReader(text))
		if err == nil {
			err = c.AddResource(name, doc)
		}
		var sch *jsonschema.Schema
		if err == nil {
			sch, err = c.Compile(name)
		}
		if err != nil {
			s.err = fmt.Errorf("%s: %w", name, err)
		}
		return sch
	}
	s.record = compile("record.schema.json", metric.RecordJSONSchema())
	s.manifest = compile("manifest.schema.json", metric.ManifestJSONSchema())
	return s
})

func validate(sch *jsonschema.Schema, b []byte) error {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
	if err != nil {
		return err
	}
	return sch.Validate(doc)
}

// ValidateRecord checks one record, as JSON, against metric.RecordJSONSchema.
func ValidateRecord(b []byte) error {
	s := schemas()
	if s.err != nil {
		return s.err
	}
	return validate(s.record, b)
}

// ValidateManifest checks a manifest, as JSON, against metric.ManifestJSONSchema.
func ValidateManifest(b []byte) error {
	s := schemas()
	if s.err != nil {
		return s.err
	}
	return validate(s.manifest, b)
}

// CheckRunDir checks every results file (results.jsonl, shard-I-of-N.jsonl) of the run directory
// dir line by line, and every manifest in it, failing t with the file, line and the schema's
// complaint for each that does not validate; it fails t too when dir holds no results file or no
// manifest. It returns the number of records checked and how many records hold each field, so
// that a test can say which fields its run exercised.
func CheckRunDir(t testing.TB, dir string) (records int, fields map[string]int) {
	t.Helper()
	fields = map[string]int{}
	shardResults, _ := filepath.Glob(filepath.Join(dir, "shard-*-of-*.jsonl"))
	resultFiles := append(existing(filepath.Join(dir, results.ResultsFile)), shardResults...)
	shardManifests, _ := filepath.Glob(filepath.Join(dir, results.ShardManifests))
	manifests := append(existing(filepath.Join(dir, results.ManifestFile)), shardManifests...)
	if len(resultFiles) == 0 || len(manifests) == 0 {
		t.Fatalf("%s: %d results files and %d manifests; a run directory has at least one of each", dir, len(resultFiles), len(manifests))
	}
	for _, path := range resultFiles {
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		for i, line := range bytes.Split(b, []byte("\n")) {
			if len(bytes.TrimSpace(line)) == 0 {
				continue
			}
			records++
			if err := ValidateRecord(line); err != nil {
				t.Errorf("%s:%d: the record does not match record.schema.json: %v", path, i+1, err)
				continue
			}
			doc, _ := jsonschema.UnmarshalJSON(bytes.NewReader(line)) // it validated, so it is an object
			for k := range doc.(map[string]any) {
				fields[k]++
			}
		}
	}
	for _, path := range manifests {
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if err := ValidateManifest(b); err != nil {
			t.Errorf("%s: the manifest does not match manifest.schema.json: %v", path, err)
		}
	}
	return records, fields
}

func existing(path string) []string {
	if _, err := os.Stat(path); err != nil {
		return nil
	}
	return []string{path}
}

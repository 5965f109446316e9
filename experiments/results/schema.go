package results

import _ "embed"

// RecordJSONSchema is the JSON Schema (draft 2020-12) of a Record as results.jsonl writes it,
// one object per line: every field with its JSON type, the fields every record has, and no
// others (additionalProperties is false, so a reader's validator flags a field this build does
// not write). docs/results.md describes the fields; the tests check the schema against Record's
// fields and every record of a run against the schema.
//
//go:embed record.schema.json
var RecordJSONSchema string

// ManifestJSONSchema is the JSON Schema (draft 2020-12) of a Manifest as manifest.json (and a
// shard's manifest) writes it, in the same way as RecordJSONSchema.
//
//go:embed manifest.schema.json
var ManifestJSONSchema string

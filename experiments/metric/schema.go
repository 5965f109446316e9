package metric

import (
	"encoding/json"
	"fmt"

	"github.com/hcbench/hcbench/experiments/results"
)

// RecordJSONSchema returns the JSON Schema (draft 2020-12) of a record as results.jsonl writes
// it: results.RecordJSONSchema, the record's own fields, with a property for the column of every
// computed metric of the table (a number, described by the metric's definition).
func RecordJSONSchema() string {
	return withProperties(results.RecordJSONSchema, func(root map[string]any) map[string]any {
		return root
	}, func(props map[string]any, _ *[]any) {
		for _, m := range All() {
			if m.Computed() {
				p := map[string]any{"description": m.Definition, "type": "number"}
				if len(m.Range) == 2 {
					p["minimum"], p["maximum"] = m.Range[0], m.Range[1]
				}
				props[m.Key] = p
			}
		}
	})
}

// ManifestJSONSchema returns the JSON Schema (draft 2020-12) of a manifest: results.
// ManifestJSONSchema with a property of its thresholds for each metric compare tracks, every
// one required (a run records all, defaults applied).
func ManifestJSONSchema() string {
	return withProperties(results.ManifestJSONSchema, func(root map[string]any) map[string]any {
		return root["$defs"].(map[string]any)["thresholds"].(map[string]any)
	}, func(props map[string]any, required *[]any) {
		for _, m := range Tracked(Compare) {
			props[m.Key] = map[string]any{"description": m.ThresholdHelp, "type": "number"}
			*required = append(*required, m.Key)
		}
	})
}

// withProperties adds properties to the object schema that at picks out of the schema base.
func withProperties(base string, at func(root map[string]any) map[string]any, add func(props map[string]any, required *[]any)) string {
	var root map[string]any
	if err := json.Unmarshal([]byte(base), &root); err != nil {
		panic(fmt.Sprintf("metric: the embedded schema does not parse: %v", err)) // a build error
	}
	obj := at(root)
	props, _ := obj["properties"].(map[string]any)
	required, _ := obj["required"].([]any)
	add(props, &required)
	obj["required"] = required
	b, err := json.MarshalIndent(root, "", "  ")
	if err != nil {
		panic(fmt.Sprintf("metric: %v", err))
	}
	return string(b) + "\n"
}

package reports

import (
	"fmt"
	"slices"
	"strings"

	"github.com/hcbench/hcbench/experiments/results"
)

// Reports never pool unlike data: every number, row and point a report shows is of one data set,
// and of one model of it. A data set is one entry of the config, so its records share their
// model, except in runs put together from several (a resume or merge of a config whose data set
// entry changed its model keys); Write splits such a data set by model before any report sees it
// (splitModels), so that the reports need only group by Record.Dataset.

// modelKeys are the data_params keys that choose the model a data set's trees are scored and
// clustered under: the jets likelihood and its root term, and the split model of vectors with
// the keys that turn vectors into its weights. Two records of one data set that differ in any of
// them are not comparable. The other keys (sizes, sampling, a jet's own lambda in a jets file)
// describe the items, which may differ from item to item.
var modelKeys = []string{"likelihood", "root_lambda", "split_model", "similarity", "centering", "beta", "within_pairs", "binarize"}

// modelOf describes a record's model by the modelKeys its data_params hold: "likelihood=ginkgo2021,
// root_lambda=generative"; "" when it has none of them.
func modelOf(r *results.Record) string {
	var parts []string
	for _, k := range modelKeys {
		if v, ok := r.DataParams[k]; ok {
			parts = append(parts, fmt.Sprintf("%s=%v", k, v))
		}
	}
	return strings.Join(parts, ",")
}

// splitModels returns in with every data set whose records carry more than one model (modelOf)
// split into one data set per model, named "<data set> (<model keys that differ>)", e.g.
// "qcd (likelihood=ginkgo2021)", in place of the data set in in.Datasets and ordered by model.
// Records are copied before they are renamed; a data set of one model keeps its name.
func splitModels(in Input) Input {
	models := map[string][]string{} // data set → its distinct models, sorted
	for _, r := range in.Records {
		m := modelOf(&r)
		if !slices.Contains(models[r.Dataset], m) {
			models[r.Dataset] = append(models[r.Dataset], m)
		}
	}
	rename := map[[2]string]string{} // (data set, model) → name
	var datasets []string
	for _, ds := range in.Datasets {
		ms := models[ds]
		if len(ms) < 2 {
			datasets = append(datasets, ds)
			continue
		}
		slices.Sort(ms)
		differ := differingKeys(ms)
		for _, m := range ms {
			name := ds + " (" + onlyKeys(m, differ) + ")"
			rename[[2]string{ds, m}] = name
			datasets = append(datasets, name)
		}
	}
	if len(rename) == 0 {
		return in
	}
	out := in
	out.Datasets = datasets
	out.Records = slices.Clone(in.Records)
	for i := range out.Records {
		r := &out.Records[i]
		if name, ok := rename[[2]string{r.Dataset, modelOf(r)}]; ok {
			r.Dataset = name
		}
	}
	return out
}

// differingKeys returns the keys whose "key=value" parts are not the same in all the models.
func differingKeys(models []string) []string {
	values := map[string][]string{}
	for _, m := range models {
		for _, p := range strings.Split(m, ",") {
			k, v, _ := strings.Cut(p, "=")
			if k != "" && !slices.Contains(values[k], v) {
				values[k] = append(values[k], v)
			}
		}
	}
	var out []string
	for _, k := range modelKeys {
		if vs, ok := values[k]; ok && (len(vs) > 1 || countWith(models, k) < len(models)) {
			out = append(out, k)
		}
	}
	return out
}

// countWith counts the models that set key.
func countWith(models []string, key string) int {
	n := 0
	for _, m := range models {
		for _, p := range strings.Split(m, ",") {
			if k, _, _ := strings.Cut(p, "="); k == key {
				n++
				break
			}
		}
	}
	return n
}

// onlyKeys keeps the parts of model whose key is in keys; "no model keys" when none is left.
func onlyKeys(model string, keys []string) string {
	var parts []string
	for _, p := range strings.Split(model, ",") {
		if k, _, _ := strings.Cut(p, "="); slices.Contains(keys, k) {
			parts = append(parts, p)
		}
	}
	if len(parts) == 0 {
		return "no model keys"
	}
	return strings.Join(parts, ",")
}

// FileName makes a data set name usable in a file name: runs of characters other than ASCII
// letters, digits, '.', '-', '_' and '=' become one '_', with none at either end. Config data set
// names are already safe and pass unchanged; a data set split by model (splitModels) is not. A
// plot of one data set has it right after its report's prefix, "gap-<FileName>-…",
// "dendrograms-<FileName>", by which index.html shows the plot with the data set's tables.
func FileName(ds string) string {
	var b strings.Builder
	under := false
	for _, c := range ds {
		if 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || strings.ContainsRune(".-_=", c) {
			b.WriteRune(c)
			under = false
			continue
		}
		if !under {
			b.WriteByte('_')
			under = true
		}
	}
	return strings.Trim(b.String(), "_")
}

package reports

import (
	"encoding/json"
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

// sizeKeys are the data_params keys that set only how large a data set's items are and how many
// there are, or which random draws make them: the number of items (jets, items, subsamples, a
// jets file's limit), their leaves (min_leaves, max_leaves, points, per_label, unknown), the
// Ginkgo t_cut (the shower's resolution, which is how a config asks for jets of more leaves:
// configs/trellis-scaling.yaml and ginkgo-large.yaml pick one per range of N), the rejection
// sampler's max_tries, and sample_key (the name of a subsample's random streams, which defaults to
// the data set's name, as a generator's streams are keyed by it). Data sets whose records differ
// in these alone are one generator and model at several sizes, and the runtime report pools
// them (sizeGroups); any other key that differs keeps them apart.
var sizeKeys = []string{"jets", "items", "subsamples", "limit", "min_leaves", "max_leaves", "points", "per_label", "unknown", "t_cut", "max_tries", "sample_key"}

// sizeGroup is the data sets that differ only in size (sizeKeys), in config order, and the size
// keys whose values differ among them.
type sizeGroup struct {
	datasets []string
	differ   []string
}

// name is the group's name in titles: its data set's name, or for several "first, …, last (k data
// sets)", the first two and the last when there are more than three.
func (g sizeGroup) name() string {
	ds := g.datasets
	switch {
	case len(ds) == 1:
		return ds[0]
	case len(ds) <= 3:
		return strings.Join(ds, ", ") + fmt.Sprintf(" (%d data sets)", len(ds))
	}
	return fmt.Sprintf("%s, %s, …, %s (%d data sets)", ds[0], ds[1], ds[len(ds)-1], len(ds))
}

// sizeGroups partitions datasets (of in, in config order) into groups of data sets whose records
// agree on the values of every data_params key but sizeKeys, a key being the set of values its
// records hold (a jets file's per-jet λ takes several); a group is in the order of its first data
// set. A data set split by model (splitModels) differs from the others of its name in a model key,
// so it is never pooled with them.
func sizeGroups(in Input, datasets []string) []sizeGroup {
	values := map[string]map[string][]string{} // data set → key → its distinct values, as JSON
	for _, r := range in.Records {
		if !slices.Contains(datasets, r.Dataset) {
			continue
		}
		kv := values[r.Dataset]
		if kv == nil {
			kv = map[string][]string{}
			values[r.Dataset] = kv
		}
		for k, v := range r.DataParams {
			b, err := json.Marshal(v)
			if err != nil {
				b = []byte(fmt.Sprint(v))
			}
			if !slices.Contains(kv[k], string(b)) {
				kv[k] = append(kv[k], string(b))
			}
		}
	}
	// signature is what must agree: every key but the size keys, with its sorted values.
	signature := func(ds string) string {
		var parts []string
		for k, vs := range values[ds] {
			if !slices.Contains(sizeKeys, k) {
				vs = slices.Clone(vs)
				slices.Sort(vs)
				parts = append(parts, k+"="+strings.Join(vs, "|"))
			}
		}
		slices.Sort(parts)
		return strings.Join(parts, ",")
	}
	var out []sizeGroup
	index := map[string]int{}
	for _, ds := range datasets {
		sig := signature(ds)
		i, ok := index[sig]
		if !ok || len(values[ds]) == 0 { // a data set without data_params is pooled with none
			i = len(out)
			index[sig] = i
			out = append(out, sizeGroup{})
		}
		out[i].datasets = append(out[i].datasets, ds)
	}
	for i, g := range out {
		for _, k := range sizeKeys {
			var seen []string
			for _, ds := range g.datasets {
				for _, v := range values[ds][k] {
					if !slices.Contains(seen, v) {
						seen = append(seen, v)
					}
				}
			}
			if len(seen) > 1 {
				out[i].differ = append(out[i].differ, k)
			}
		}
	}
	return out
}

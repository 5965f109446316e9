package inputs

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/hcbench/hcbench/algorithms/model"
	"github.com/hcbench/hcbench/datasets/jets"
	"github.com/hcbench/hcbench/experiments/config"
	"github.com/hcbench/hcbench/experiments/item"
	"github.com/hcbench/hcbench/experiments/registry"
)

// parse writes src as exp.yaml into dir and loads it.
func parse(t *testing.T, dir, src string) *config.Config {
	t.Helper()
	path := filepath.Join(dir, "exp.yaml")
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg, err := config.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

// generatedJets draws n QCD jets with hcbench's generator, as -save-data would write them.
func generatedJets(t *testing.T, n int) []jets.Jet {
	t.Helper()
	cfg := parse(t, t.TempDir(), fmt.Sprintf("version: 1\nname: g\ndatasets:\n  - {name: q, generator: ginkgo, jets: %d, min_leaves: 4, max_leaves: 6, t_cut: 16}\nalgorithms: [truth]\n", n))
	d, err := Open(context.Background(), cfg, cfg.Datasets[0])
	if err != nil {
		t.Fatal(err)
	}
	var js []jets.Jet
	for i := range d.Len() {
		it, err := d.Load(context.Background(), i)
		if err != nil {
			t.Fatal(err)
		}
		js = append(js, *it.Jet)
	}
	return js
}

func writeJets(t *testing.T, path string, js []jets.Jet) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := jets.Write(f, js); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestJetsFileLikelihood: a jets file scores under the likelihood its jets were saved with unless
// the config says otherwise; jets that disagree, or a config that contradicts the file, are
// errors naming the file and line (and the config line).
func TestJetsFileLikelihood(t *testing.T) {
	dir := t.TempDir()
	js := generatedJets(t, 3)
	for i := range js {
		js[i].Likelihood, js[i].RootLambda = "ginkgo2021", "uniform"
	}
	writeJets(t, filepath.Join(dir, "saved.jsonl"), js)
	plain := slices.Clone(js)
	for i := range plain {
		plain[i].Likelihood, plain[i].RootLambda = "", ""
	}
	writeJets(t, filepath.Join(dir, "plain.jsonl"), plain)
	mixed := slices.Clone(js)
	mixed[2].Likelihood = "ginkgo2020"
	writeJets(t, filepath.Join(dir, "mixed.jsonl"), mixed)

	cfg := parse(t, dir, `version: 1
name: f
datasets:
  - {name: saved, file: saved.jsonl}
  - {name: plain, file: plain.jsonl}
  - {name: rescored, file: plain.jsonl, likelihood: ginkgo2021, root_lambda: uniform}
  - {name: mixed, file: mixed.jsonl}
  - {name: contradicted, file: saved.jsonl, likelihood: ginkgo2020}
algorithms: [truth]
`)
	for _, c := range []struct {
		ds         int
		likelihood string
		rootLambda string
	}{{0, "ginkgo2021", "uniform"}, {1, "ginkgo2020", "generative"}, {2, "ginkgo2021", "uniform"}} {
		d, err := Open(context.Background(), cfg, cfg.Datasets[c.ds])
		if err != nil {
			t.Fatal(err)
		}
		if p := d.Params(); p["likelihood"] != c.likelihood || p["root_lambda"] != c.rootLambda {
			t.Errorf("%s: data params say %v, %v; want %s, %s", d.Name, p["likelihood"], p["root_lambda"], c.likelihood, c.rootLambda)
		}
		// The truth score is the model's own, exactly: the item's model is the resolved one (and
		// the order the leaves are given in changes nothing).
		it, err := d.Load(context.Background(), 0)
		if err != nil {
			t.Fatal(err)
		}
		m, err := registry.JetModel(&js[0], registry.JetLikelihood{Likelihood: c.likelihood, RootLambda: c.rootLambda})
		if err != nil {
			t.Fatal(err)
		}
		want, err := model.TreeLogLikelihood(m, it.DataTree(it.Truth))
		if err != nil {
			t.Fatal(err)
		}
		if it.TruthLogLikelihood != want {
			t.Errorf("%s: truth log-likelihood %v, want %v under %s/%s", d.Name, it.TruthLogLikelihood, want, c.likelihood, c.rootLambda)
		}
		if it.DataParams["likelihood"] != c.likelihood || it.DataParams["lambda"] != js[0].Lambda || it.DataParams["t_cut"] != js[0].TCut {
			t.Errorf("%s: item data params %v", d.Name, it.DataParams)
		}
	}
	_, err := Open(context.Background(), cfg, cfg.Datasets[3])
	if want := filepath.Join(dir, "mixed.jsonl") + ":3: likelihood ginkgo2020 differs from ginkgo2021 on line 1"; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("mixed file: error %v, want %q", err, want)
	}
	_, err = Open(context.Background(), cfg, cfg.Datasets[4])
	if want := filepath.Join(dir, "exp.yaml") + ":8: datasets[4].likelihood: ginkgo2020, but the jets of " + filepath.Join(dir, "saved.jsonl") + " were saved with likelihood ginkgo2021 (" + filepath.Join(dir, "saved.jsonl") + ":1)"; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("contradicted file: error %v, want %q", err, want)
	}
}

// labelledCSV has three labels of three rows each and two unlabelled rows, all vectors distinct;
// row 4 (b1) has a missing cell.
const labelledCSV = `name,x,y,z,label
a1,1,0,0,a
a2,0.9,0.1,0,a
a3,0.8,0.2,0.1,a
b1,0,1,,b
b2,0.1,0.9,0,b
b3,0.2,0.8,0.1,b
c1,0.1,0,1,c
c2,0,0.1,0.9,c
c3,0.1,0.2,0.8,c
u1,1,1,0,Unknown
u2,0,1,1,Unknown
`

// TestSampleKey: data sets that read the same file with the same sample_key draw the same rows
// (their model keys may differ); the default key is the data set's name, so distinct data sets
// draw independently. Also checks what records of vector items carry.
func TestSampleKey(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "d.csv"), []byte(labelledCSV), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg := parse(t, dir, `version: 1
name: s
datasets:
  - {name: cos, file: d.csv, name_column: name, unknown_label: Unknown, subsamples: 20, per_label: 1, unknown: 1}
  - {name: pearson, file: d.csv, name_column: name, unknown_label: Unknown, subsamples: 20, per_label: 1, unknown: 1, similarity: pearson, centering: mean_without_diag, sample_key: cos}
  - {name: other, file: d.csv, name_column: name, unknown_label: Unknown, subsamples: 20, per_label: 1, unknown: 1}
  - {name: bc, file: d.csv, name_column: name, unknown_label: Unknown, classes: [b, c], missing: mask}
algorithms: [greedy]
`)
	names := map[string][]string{}
	for _, ds := range cfg.Datasets[:3] {
		d, err := Open(context.Background(), cfg, ds)
		if err != nil {
			t.Fatal(err)
		}
		for i := range d.Len() {
			it, err := d.Load(context.Background(), i)
			if err != nil {
				t.Fatal(err)
			}
			names[d.Name] = append(names[d.Name], strings.Join(it.Names, " "))
			// Records of vector data always carry the count, 0 included (b1 has the one missing cell).
			if want := strings.Count(strings.Join(it.Names, " "), "b1"); it.MissingCells == nil || *it.MissingCells != want {
				t.Errorf("%s item %d (%v): missing cells %v, want %d", d.Name, i, it.Names, it.MissingCells, want)
			}
		}
		if p := d.Params(); p["sample_key"] != ds.Source.(*registry.CSVFile).SampleKey || p["file"] != "d.csv" || p["format"] != "csv" {
			t.Errorf("%s: data params %v", d.Name, p)
		}
	}
	if !slices.Equal(names["cos"], names["pearson"]) {
		t.Errorf("cos and pearson share sample_key cos but drew\n%v\n%v", names["cos"], names["pearson"])
	}
	// 20 draws from 3·3·3·2 = 54 possible subsamples: two independent streams agree on all 20 with
	// probability far below 1e-20, so equality means the streams are not independent.
	if slices.Equal(names["cos"], names["other"]) {
		t.Errorf("cos and other have different sample keys but drew the same subsamples")
	}

	// The classes filter keeps rows 4..9; positions count the file's rows, 1-based.
	d, err := Open(context.Background(), cfg, cfg.Datasets[3])
	if err != nil {
		t.Fatal(err)
	}
	it, err := d.Load(context.Background(), 0)
	if err != nil {
		t.Fatal(err)
	}
	if pos, names := item.InData(it, it.Positions), item.InData(it, it.Names); fmt.Sprint(pos) != "[4 5 6 7 8 9]" || names[0] != "b1" || it.MissingCells == nil || *it.MissingCells != 1 {
		t.Errorf("positions %v, names %v, missing cells %v in the data's order", pos, names, it.MissingCells)
	}
	if p := it.DataParams; p["missing"] != "mask" || p["similarity"] != "cosine" || p["centering"] != "mean_with_diag" || p["within_pairs"] != "unordered" || p["beta"] != 1.0 || fmt.Sprint(p["classes"]) != "[b c]" {
		t.Errorf("data params %v", p)
	}
}

// TestOpenReportsEveryBadLine: a jets file's bad lines are all reported, each naming the data set,
// the file and the line.
func TestOpenReportsEveryBadLine(t *testing.T) {
	dir := t.TempDir()
	good := `{"leaves": [[1,0,0,1],[1,0,0,-1]], "Lambda": 1.5, "pt_cut": 0.1}`
	if err := os.WriteFile(filepath.Join(dir, "j.jsonl"), []byte(good+"\n{\n"+good+"\n"+`{"leaves": [], "Lambda": 1.5, "pt_cut": 1}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg := parse(t, dir, "version: 1\nname: b\ndatasets:\n  - {name: j, file: j.jsonl}\nalgorithms: [greedy]\n")
	_, err := Open(context.Background(), cfg, cfg.Datasets[0])
	path := filepath.Join(dir, "j.jsonl")
	want := []string{"data set j: " + path + ":2: not a jet in JSON", "data set j: " + path + ":4: missing or empty \"leaves\""}
	if err == nil {
		t.Fatal("no error")
	}
	got := strings.Split(err.Error(), "\n")
	if len(got) != len(want) {
		t.Fatalf("errors:\n%v\nwant %d lines", err, len(want))
	}
	for i := range want {
		if !strings.HasPrefix(got[i], want[i]) {
			t.Errorf("error line %d = %q, want it to start with %q", i, got[i], want[i])
		}
	}
}

// TestClassesErrorPointsAtTheLine: a `classes` label that no row of the file has is reported at
// the key's line of the config, naming the label and the file.
func TestClassesErrorPointsAtTheLine(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "v.csv"), []byte("a,b,label\n1,2,x\n3,4,y\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg := parse(t, dir, "version: 1\nname: c\ndatasets:\n  - name: v\n    file: v.csv\n    split_model: none\n    classes: [x, nine]\nalgorithms: [linkage]\n")
	_, err := Open(context.Background(), cfg, cfg.Datasets[0])
	want := filepath.Join(dir, "exp.yaml") + `:7: datasets[0].classes: no row has the label "nine"`
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("error %v, want one containing %q", err, want)
	}
}

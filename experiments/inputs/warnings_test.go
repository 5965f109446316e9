package inputs

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestJetItemWarnings: a jet the likelihood scores but the generator cannot make (a leaf heavier
// than t_cut; under ginkgo2021 a leaf of slightly negative mass²) is loaded, scored, and carries
// the model's warnings for its records; a jet within the rules carries none, nor do generated
// jets. A jet the model does not define (a space-like leaf) is refused at its line.
func TestJetItemWarnings(t *testing.T) {
	dir := t.TempDir()
	lines := strings.Join([]string{
		`{"id": "heavy", "leaves": [[30,0,0,1],[10,0,0,-10],[5,3,0,4]], "Lambda": 1.5, "pt_cut": 16}`,
		`{"id": "fine", "leaves": [[5,0,0,3],[5,0,0,-3],[5,3,0,4]], "Lambda": 1.5, "pt_cut": 16}`,
		`{"id": "rounded", "leaves": [[10,0,0,10.0000001],[10,0,0,-10],[5,3,0,4]], "Lambda": 1.5, "pt_cut": 16}`,
	}, "\n") + "\n"
	if err := os.WriteFile(filepath.Join(dir, "j.jsonl"), []byte(lines), 0o644); err != nil {
		t.Fatal(err)
	}
	bad := `{"id": "ok", "leaves": [[5,0,0,3]], "Lambda": 1.5, "pt_cut": 16}` + "\n" +
		`{"id": "spacelike", "leaves": [[5,0,0,3],[3,0,4,0]], "Lambda": 1.5, "pt_cut": 16}` + "\n"
	if err := os.WriteFile(filepath.Join(dir, "bad.jsonl"), []byte(bad), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg := parse(t, dir, `version: 1
name: w
datasets:
  - {name: j2020, file: j.jsonl}
  - {name: j2021, file: j.jsonl, likelihood: ginkgo2021}
  - {name: gen, generator: ginkgo, jets: 5, t_cut: 16, min_leaves: 3, max_leaves: 9}
  - {name: bad, file: bad.jsonl}
algorithms: [truth]
`)
	want := map[string]map[string]string{ // data set → jet → a substring of its warnings ("" none)
		"j2020": {"heavy": "leaf 0 has a mass² above t_cut 16 (the largest 899)", "fine": "", "rounded": ""},
		"j2021": {"heavy": "ginkgo2021 scores it all the same", "fine": "", "rounded": "leaf 0 has a mass² slightly below 0"},
	}
	for _, ds := range cfg.Datasets[:3] {
		d, err := Open(t.Context(), cfg, ds)
		if err != nil {
			t.Fatal(err)
		}
		for i := range d.Len() {
			it, err := d.Load(t.Context(), i)
			if err != nil {
				t.Fatalf("%s item %d: %v", ds.Name, i, err)
			}
			w := strings.Join(it.Warnings, "\n")
			switch exp := want[ds.Name][it.ID]; {
			case ds.Name == "gen" && w != "":
				t.Errorf("generated jet %s: warnings %q", it.ID, w)
			case ds.Name != "gen" && exp == "" && w != "":
				t.Errorf("%s %s: warnings %q, want none", ds.Name, it.ID, w)
			case ds.Name != "gen" && !strings.Contains(w, exp):
				t.Errorf("%s %s: warnings %q, want one containing %q", ds.Name, it.ID, w, exp)
			}
		}
	}
	_, err := Open(t.Context(), cfg, cfg.Datasets[3])
	if want := filepath.Join(dir, "bad.jsonl") + `:2: leaf 1 (the 2nd row of "leaves", [3 0 4 0]) is space-like`; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("space-like leaf: error %v, want one containing %q", err, want)
	}
}

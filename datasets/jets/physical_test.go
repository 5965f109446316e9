package jets_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hcbench/hcbench/datasets/jets"
)

// TestReadFileRefusesNonPhysicalLeaves writes jets files with one bad jet on line 2 (after a good
// one) and requires the error to give the file and line, name the leaf, and state the value and
// the rule; a file of good jets, some at the edges of the rules, reads without error.
func TestReadFileRefusesNonPhysicalLeaves(t *testing.T) {
	good := `{"id": "ok", "leaves": [[10,1,2,3],[5,3,0,4]], "Lambda": 1.5, "pt_cut": 16}`
	jet := func(leaves string, rest string) string {
		return `{"id": "bad", "leaves": ` + leaves + `, "Lambda": 1.5, "pt_cut": 16` + rest + `}`
	}
	for _, tc := range []struct {
		name string
		line string
		want []string
	}{
		{"negative energy", jet(`[[10,1,2,3],[-5,3,0,4]]`, ""),
			[]string{`leaf 1 (the 2nd row of "leaves", [-5 3 0 4]) has energy E = -5`, "a particle's energy is positive"}},
		{"zero energy", jet(`[[0,1,0,0],[10,1,2,3]]`, ""),
			[]string{`leaf 0 (the 1st row of "leaves"`, "energy E = 0"}},
		{"space-like leaf", jet(`[[10,1,2,3],[20,2,3,4],[3,0,4,0]]`, ""),
			[]string{`leaf 2 (the 3rd row of "leaves", [3 0 4 0]) is space-like: E = 3 < |p⃗| = 4 (mass² E² − |p⃗|² = -7`, "a particle has E ≥ |p⃗|"}},
		{"space-like beyond rounding", jet(`[[1,1.00001,0,0]]`, ""),
			[]string{`leaf 0 (the 1st row of "leaves"`, "is space-like", "1e-06·E²"}},
		{"zero four-momentum", jet(`[[10,1,2,3],[0,0,0,0]]`, ""),
			[]string{`leaf 1 (the 2nd row of "leaves", [0 0 0 0]) is the zero 4-momentum`, "no particle"}},
		{"1e308 components", jet(`[[1e308,0,0,1e308]]`, ""),
			[]string{`leaf 0 (the 1st row of "leaves", [1e+308 0 0 1e+308]) has E = 1e+308, beyond ±1e+100`}},
		{"1e200 momentum", jet(`[[10,1,2,3],[1e99,0,-2e200,0]]`, ""),
			[]string{`leaf 1 (the 2nd row of "leaves"`, "py = -2e+200, beyond ±1e+100"}},
		{"NaN or Inf (out of JSON's range)", jet(`[[1e400,0,0,1]]`, ""), []string{"not a jet in JSON"}},
		{"Lambda too small", `{"leaves": [[1,0,0,1]], "Lambda": 1e-300, "pt_cut": 16}`,
			[]string{`"Lambda" is 1e-300, outside [1e-40, 1e+40]`}},
		{"LambdaRoot too large", `{"leaves": [[1,0,0,1]], "Lambda": 1.5, "LambdaRoot": 1e300, "pt_cut": 16}`,
			[]string{`"LambdaRoot" is 1e+300, outside [1e-40, 1e+40]`}},
		{"pt_cut too small", `{"leaves": [[1,0,0,1]], "Lambda": 1.5, "pt_cut": 1e-300}`,
			[]string{`"pt_cut" is 1e-300, outside [1e-40, 1e+200]`}},
	} {
		dir := t.TempDir()
		path := filepath.Join(dir, "jets.jsonl")
		if err := os.WriteFile(path, []byte(good+"\n"+tc.line+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := jets.ReadFile(path)
		if err == nil {
			t.Errorf("%s: no error", tc.name)
			continue
		}
		for _, w := range append([]string{path + ":2: "}, tc.want...) {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: error %q does not contain %q", tc.name, err, w)
			}
		}
		if strings.Contains(err.Error(), ":1:") {
			t.Errorf("%s: the good jet on line 1 is blamed: %v", tc.name, err)
		}
	}

	// Accepted: massless leaves, a leaf at rest, a light leaf whose mass² rounding made slightly
	// negative (−2e-6, within 1e-6·E²), a leaf heavier than t_cut (scored, with a warning from the
	// model), components up to 1e100, and the range ends of the rates and t_cut.
	accepted := strings.Join([]string{
		`{"id": "massless", "leaves": [[5,3,0,4],[1,0,0,-1]], "Lambda": 1.5, "pt_cut": 16}`,
		`{"id": "rest", "leaves": [[1,0,0,0]], "Lambda": 1.5, "pt_cut": 16}`,
		`{"id": "rounded", "leaves": [[10,0,0,10.0000001],[10,0,0,-10]], "Lambda": 1.5, "pt_cut": 16}`,
		`{"id": "heavy", "leaves": [[30,0,0,1],[10,0,0,-10]], "Lambda": 1.5, "pt_cut": 16}`,
		`{"id": "huge", "leaves": [[1e100,0,0,-1e100],[1e100,0,0,0]], "Lambda": 1e-40, "LambdaRoot": 1e40, "pt_cut": 1e200}`,
		`{"id": "tiny", "leaves": [[1e-300,0,0,1e-300]], "Lambda": 1e40, "pt_cut": 1e-40}`,
	}, "\n")
	path := filepath.Join(t.TempDir(), "ok.jsonl")
	if err := os.WriteFile(path, []byte(accepted+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	js, err := jets.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(js) != 6 {
		t.Errorf("%d jets, want 6", len(js))
	}
}

// TestValidateJetInCode: Validate refuses what JSON cannot hold but a jet made in code can.
func TestValidateJetInCode(t *testing.T) {
	nan := 0.0
	nan /= nan
	j := jets.Jet{Leaves: [][4]float64{{1, 0, 0, 1}, {1, nan, 0, 0}}, Lambda: 1.5, TCut: 16}
	if err := j.Validate(); err == nil || !strings.Contains(err.Error(), "leaf 1") || !strings.Contains(err.Error(), "px = NaN, not a finite number") {
		t.Errorf("NaN component: %v", err)
	}
}

package jets_test

import (
	"bytes"
	"fmt"
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/hcbench/hcbench/datasets/badlines"
	"github.com/hcbench/hcbench/datasets/datadir/datatest"
	"github.com/hcbench/hcbench/datasets/jets"
)

// A valid 3-leaf jet with a truth tree: ((0,1),2) in Ginkgo's pre-order numbering. The momenta
// are arbitrary; only the structure is validated by the reader.
const jet3 = `{"id": "a", "leaves": [[10,1,2,3],[20,2,3,4],[30,3,4,5]], "Lambda": 1.5, "LambdaRoot": 3, "pt_cut": 16,` +
	` "root_id": 0, "tree": [[1,4],[2,3],[-1,-1],[-1,-1],[-1,-1]],` +
	` "content": [[60,6,9,12],[30,3,5,7],[10,1,2,3],[20,2,3,4],[30,3,4,5]], "deltas": [900, 100, 0, 0, 0]}`

// minimal has only the required keys.
const minimal = `{"leaves": [[1,0,0,1],[2,0,1,0]], "Lambda": 1.5, "pt_cut": 4}`

func TestRoundTrip(t *testing.T) {
	js := []jets.Jet{
		{
			ID:         "qcd-0",
			Leaves:     [][4]float64{{40.27664946512487, 21.976258251094844, 21.189003526221548, 26.180852610629344}, {math.Pi, -0.1, 1.0 / 3, 1e-300}},
			Lambda:     1.5,
			LambdaRoot: 3,
			TCut:       16,
			Delta0:     900,
			Tree:       [][2]int{{1, 2}, {-1, -1}, {-1, -1}},
			Content:    [][4]float64{{40.27664946512487, 21.876258251094844, 22.189003526221548, 29.32244530}, {40.27664946512487, 21.976258251094844, 21.189003526221548, 26.180852610629344}, {math.Pi, -0.1, 1.0 / 3, 1e-300}},
			Deltas:     []float64{900, 0, 0},
			LogLH:      []jets.LogLikelihood{-9.301348602829684, 0, jets.LogLikelihood(math.Inf(-1))},
			Schema:     jets.Schema, Generator: "ginkgo2020", JetType: "qcd", SeedKey: "k/0",
			MinLeaves: 2, MaxLeaves: 9, Tries: 3, Likelihood: "ginkgo2020", RootLambda: "generative", FlipChildren: true,
		},
		{Leaves: [][4]float64{{1, 0, 0, 1}}, Lambda: 0.5, TCut: 1e-3},
	}
	var buf bytes.Buffer
	if err := jets.Write(&buf, js); err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(buf.String(), "\n"); n != len(js) {
		t.Errorf("Write produced %d lines for %d jets", n, len(js))
	}
	got, err := jets.Read(&buf, "roundtrip")
	if err != nil {
		t.Fatal(err)
	}
	for i := range js {
		js[i].Line = i + 1 // Read records where each jet was
	}
	// Exact equality: encoding/json writes the shortest decimal that parses back to the same
	// float64.
	if !reflect.DeepEqual(got, js) {
		t.Errorf("round trip changed the jets:\n got %+v\nwant %+v", got, js)
	}
}

func TestReadAccepts(t *testing.T) {
	for _, tc := range []struct {
		name  string
		input string
		ids   []jets.ID
	}{
		{"minimal", minimal, []jets.ID{""}},
		{"truth tree", jet3, []jets.ID{"a"}},
		{"BOM on line 1", "\ufeff" + jet3 + "\n", []jets.ID{"a"}},
		{"BOM then blank line", "\ufeff\n" + jet3, []jets.ID{"a"}},
		{"blank and whitespace lines", "\n  \n" + jet3 + "\n\t\n\n" + minimal + "\n\n", []jets.ID{"a", ""}},
		{"CRLF", jet3 + "\r\n" + minimal + "\r\n", []jets.ID{"a", ""}},
		{"integer ids", `{"id": 7, "leaves": [[1,0,0,1]], "Lambda": 1, "pt_cut": 1}` + "\n" +
			`{"id": -3, "leaves": [[1,0,0,1]], "Lambda": 1, "pt_cut": 1}`, []jets.ID{"7", "-3"}},
		{"unknown keys ignored", `{"leaves": [[1,0,0,1]], "Lambda": 1, "pt_cut": 1, "dij": [[1,2,3,4]], "algorithm": "truth", "draws": [null]}`, []jets.ID{""}},
	} {
		js, err := jets.Read(strings.NewReader(tc.input), "in.jsonl")
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		var ids []jets.ID
		for _, j := range js {
			ids = append(ids, j.ID)
		}
		if !reflect.DeepEqual(ids, tc.ids) {
			t.Errorf("%s: ids %q, want %q", tc.name, ids, tc.ids)
		}
	}
}

// TestReadErrors: every error names the file and the 1-based physical line of the bad jet
// (blank lines count).
func TestReadErrors(t *testing.T) {
	for _, tc := range []struct {
		name  string
		input string
		want  []string // substrings of the error
	}{
		{"malformed JSON", minimal + "\n" + `{"leaves": [[1,0,0,1]], "Lambda": 1.5,`, []string{"in.jsonl:2:", "not a jet in JSON"}},
		{"not an object", "[1, 2]", []string{"in.jsonl:1:", "not a jet in JSON"}},
		{"missing leaves", minimal + "\n\n" + `{"Lambda": 1.5, "pt_cut": 16}`, []string{"in.jsonl:3:", `"leaves"`}},
		{"empty leaves", `{"leaves": [], "Lambda": 1.5, "pt_cut": 16}`, []string{"in.jsonl:1:", `"leaves"`}},
		// encoding/json would pad or truncate these rows into the fixed-size arrays of Jet.
		{"leaf of 3 numbers", `{"leaves": [[1,0,0,1],[1,2,3]], "Lambda": 1.5, "pt_cut": 16}`, []string{"in.jsonl:1:", `"leaves" row 1 has length 3, want 4`}},
		{"leaf of 5 numbers", `{"leaves": [[1,2,3,4,5]], "Lambda": 1.5, "pt_cut": 16}`, []string{"in.jsonl:1:", `"leaves" row 0 has length 5, want 4`}},
		{"null in a leaf", `{"leaves": [[1, null, 0, 1]], "Lambda": 1.5, "pt_cut": 16}`, []string{"in.jsonl:1:", `"leaves" row 0 has a null entry`}},
		{"null in a tree row", `{"leaves": [[1,0,0,1],[2,0,1,0]], "Lambda": 1.5, "pt_cut": 4, "tree": [[1,2],[-1, null],[-1,-1]]}`,
			[]string{"in.jsonl:1:", `"tree" row 1 has a null entry`}},
		{"null leaf", `{"leaves": [null], "Lambda": 1.5, "pt_cut": 16}`, []string{"in.jsonl:1:", `"leaves" row 0 has length 0`}},
		{"content row of 3 numbers", `{"leaves": [[1,0,0,1],[2,0,1,0]], "Lambda": 1.5, "pt_cut": 4, "tree": [[1,2],[-1,-1],[-1,-1]], "content": [[3,0,1,1],[1,0,0],[2,0,1,0]]}`,
			[]string{"in.jsonl:1:", `"content" row 1 has length 3, want 4`}},
		{"tree row of 1 index", `{"leaves": [[1,0,0,1],[2,0,1,0]], "Lambda": 1.5, "pt_cut": 4, "tree": [[1,2],[-1],[-1,-1]]}`,
			[]string{"in.jsonl:1:", `"tree" row 1 has length 1, want 2`}},
		{"wrong type", `{"leaves": [[1,0,0,1]], "Lambda": "1.5", "pt_cut": 16}`, []string{"in.jsonl:1:", `"Lambda"`, "wrong type"}},
		{"missing Lambda", `{"leaves": [[1,0,0,1]], "pt_cut": 16}`, []string{"in.jsonl:1:", `"Lambda"`}},
		{"missing pt_cut", `{"leaves": [[1,0,0,1]], "Lambda": 1.5}`, []string{"in.jsonl:1:", `"pt_cut"`}},
		{"negative LambdaRoot", `{"leaves": [[1,0,0,1]], "Lambda": 1.5, "LambdaRoot": -1, "pt_cut": 16}`, []string{"in.jsonl:1:", `"LambdaRoot"`}},
		// Jet cannot tell a LambdaRoot of 0 from an absent one, which means "as Lambda".
		{"zero LambdaRoot", `{"leaves": [[1,0,0,1]], "Lambda": 1.5, "LambdaRoot": 0, "pt_cut": 16}`, []string{"in.jsonl:1:", `"LambdaRoot" must be positive when present, got 0`}},
		{"null LambdaRoot", `{"leaves": [[1,0,0,1]], "Lambda": 1.5, "LambdaRoot": null, "pt_cut": 16}`, []string{"in.jsonl:1:", `"LambdaRoot" must be positive when present, got null`}},
		{"unknown likelihood", `{"leaves": [[1,0,0,1]], "Lambda": 1.5, "pt_cut": 16, "likelihood": "ginkgo2022"}`, []string{"in.jsonl:1:", `"likelihood" is "ginkgo2022"`}},
		{"unknown root_lambda", `{"leaves": [[1,0,0,1]], "Lambda": 1.5, "pt_cut": 16, "root_lambda": "root"}`, []string{"in.jsonl:1:", `"root_lambda" is "root"`}},
		// jet3 with its first two leaves swapped: the tree would give item 0 the momentum of leaf node 3.
		{"leaves out of order", strings.Replace(jet3, `"leaves": [[10,1,2,3],[20,2,3,4]`, `"leaves": [[20,2,3,4],[10,1,2,3]`, 1),
			[]string{"in.jsonl:1:", "leaf 0 is [20 2 3 4], but the 1st leaf node of \"tree\" in depth-first order, node 2, has \"content\" [10 1 2 3]"}},
		{"number out of range", `{"leaves": [[1e400,0,0,1]], "Lambda": 1.5, "pt_cut": 16}`, []string{"in.jsonl:1:"}},
		{"tree with the wrong node count", minimal + "\n" + `{"leaves": [[1,0,0,1],[2,0,1,0]], "Lambda": 1.5, "pt_cut": 4, "tree": [[1,2],[-1,-1]]}`,
			[]string{"in.jsonl:2:", `"tree" has 2 nodes, want 2n−1 = 3`}},
		{"tree with a cycle", `{"leaves": [[1,0,0,1],[2,0,1,0]], "Lambda": 1.5, "pt_cut": 4, "tree": [[1,2],[0,2],[-1,-1]]}`,
			[]string{"in.jsonl:1:", `"tree"`}},
		{"tree child out of range", `{"leaves": [[1,0,0,1],[2,0,1,0]], "Lambda": 1.5, "pt_cut": 4, "tree": [[1,3],[-1,-1],[-1,-1]]}`,
			[]string{"in.jsonl:1:", `"tree"`}},
		{"tree with half a leaf", `{"leaves": [[1,0,0,1],[2,0,1,0]], "Lambda": 1.5, "pt_cut": 4, "tree": [[1,-1],[-1,-1],[-1,-1]]}`,
			[]string{"in.jsonl:1:", `"tree"`}},
		{"root_id out of range", `{"leaves": [[1,0,0,1],[2,0,1,0]], "Lambda": 1.5, "pt_cut": 4, "root_id": 5, "tree": [[1,2],[-1,-1],[-1,-1]]}`,
			[]string{"in.jsonl:1:", `"tree"`}},
		{"content rows", `{"leaves": [[1,0,0,1],[2,0,1,0]], "Lambda": 1.5, "pt_cut": 4, "tree": [[1,2],[-1,-1],[-1,-1]], "content": [[3,0,1,1]]}`,
			[]string{"in.jsonl:1:", `"content" has 1 rows`}},
		{"duplicate ids", jet3 + "\n" + minimal + "\n" + jet3, []string{"in.jsonl:3:", `id "a" already used on line 1`}},
		{"duplicate integer and string id", `{"id": 4, "leaves": [[1,0,0,1]], "Lambda": 1, "pt_cut": 1}` + "\n" +
			`{"id": "4", "leaves": [[1,0,0,1]], "Lambda": 1, "pt_cut": 1}`, []string{"in.jsonl:2:", `id "4" already used on line 1`}},
		{"fractional id", `{"id": 1.5, "leaves": [[1,0,0,1]], "Lambda": 1, "pt_cut": 1}`, []string{"in.jsonl:1:", "id must be a string or an integer"}},
		{"BOM on line 2", minimal + "\n\ufeff" + minimal, []string{"in.jsonl:2:"}},
		{"empty", "", []string{"in.jsonl", "no jets"}},
		{"blank lines only", "\n \n\t\n", []string{"in.jsonl", "no jets"}},
	} {
		_, err := jets.Read(strings.NewReader(tc.input), "in.jsonl")
		if err == nil {
			t.Errorf("%s: no error", tc.name)
			continue
		}
		for _, w := range tc.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: error %q does not contain %q", tc.name, err, w)
			}
		}
	}
}

// TestLeafTolerance: "leaves" must equal the leaf nodes' "content" rows to 1e-6 relative (the
// documented tolerance), so a copy rounded at float32 precision (about 6e-8 relative) passes and
// one off by 1e-5 relative is refused.
func TestLeafTolerance(t *testing.T) {
	for _, tc := range []struct {
		leaf string
		ok   bool
	}{
		{"[10.0000006,1,2,3]", true},
		{"[10.0001,1,2,3]", false},
		{"[10,1.00002,2,3]", false},
	} {
		in := strings.Replace(jet3, `"leaves": [[10,1,2,3]`, `"leaves": [`+tc.leaf, 1)
		_, err := jets.Read(strings.NewReader(in), "in.jsonl")
		if (err == nil) != tc.ok {
			t.Errorf("leaf 0 = %s against content [10,1,2,3]: error %v, want ok %v", tc.leaf, err, tc.ok)
		}
	}
}

// TestReadReportsEveryBadLine: a file's bad lines are reported together, each with its line, up to
// badlines.Max, then counted; good lines between them do not stop the reading.
func TestReadReportsEveryBadLine(t *testing.T) {
	bad := `{"leaves": [], "Lambda": 1.5, "pt_cut": 16}`
	lines := []string{minimal, bad, minimal, bad}
	for range badlines.Max + 2 {
		lines = append(lines, "{")
	}
	_, err := jets.Read(strings.NewReader(strings.Join(lines, "\n")), "in.jsonl")
	if err == nil {
		t.Fatal("no error")
	}
	got := strings.Split(err.Error(), "\n")
	if len(got) != badlines.Max+1 {
		t.Fatalf("%d error lines, want %d:\n%v", len(got), badlines.Max+1, err)
	}
	for k, want := range map[int]string{0: "in.jsonl:2: ", 1: "in.jsonl:4: ", 2: "in.jsonl:5: not a jet in JSON", badlines.Max - 1: "in.jsonl:12: ", badlines.Max: "in.jsonl: and 4 more bad lines"} {
		if !strings.HasPrefix(got[k], want) {
			t.Errorf("error line %d = %q, want it to start with %q", k, got[k], want)
		}
	}
	if j, ok := err.(interface{ Unwrap() []error }); !ok || len(j.Unwrap()) != badlines.Max+1 {
		t.Errorf("the error does not list the %d errors it joins", badlines.Max+1)
	}
}

func TestJetMethods(t *testing.T) {
	js, err := jets.Read(strings.NewReader(jet3+"\n"+minimal), "in.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	withTree, plain := js[0], js[1]
	if !withTree.HasTruth() || plain.HasTruth() {
		t.Errorf("HasTruth: %v, %v; want true, false", withTree.HasTruth(), plain.HasTruth())
	}
	if got := withTree.RootLambdaOrDefault(); got != 3 {
		t.Errorf("RootLambdaOrDefault with LambdaRoot 3: %v", got)
	}
	if got := plain.RootLambdaOrDefault(); got != 1.5 {
		t.Errorf("RootLambdaOrDefault without LambdaRoot: %v, want Lambda = 1.5", got)
	}
	tr, err := withTree.TruthTree()
	if err != nil {
		t.Fatal(err)
	}
	// Leaves in DFS left-to-right order are items 0, 1, 2: ((0,1),2).
	if got := tr.Newick(nil); got != "((0,1),2);" {
		t.Errorf("truth tree %s, want ((0,1),2);", got)
	}
	if _, err := plain.TruthTree(); err == nil {
		t.Error("TruthTree of a jet without a tree: no error")
	}
}

// TestWriteErrors: JSON has no NaN, so such a jet cannot be written; the error names the jet. A
// −Inf logLH is written as null (the round trip above reads it back).
func TestWriteErrors(t *testing.T) {
	j := jets.Jet{ID: "bad", Leaves: [][4]float64{{1, 0, 0, 1}}, Lambda: 1, TCut: 1, Deltas: []float64{math.NaN()}}
	var buf bytes.Buffer
	if err := jets.WriteOne(&buf, &j); err == nil || !strings.Contains(err.Error(), `"bad"`) {
		t.Errorf("WriteOne of a jet with a NaN delta: error %v, want one naming the jet", err)
	}
}

// TestReadSharedData reads the 30 public ClusterTrellis jets (ClusterTrellis ab931e8,
// data/truth_{4,5,9}.pkl converted to JSON Lines): 10 jets of 4, 5 and 9 leaves each, with QCD
// parameters λ = λ_root = 1.5, t_cut = 16, Δ0 = 900 (ginkgo.md §2), and leaves equal to the content
// rows of the leaf nodes in DFS order.
func TestReadSharedData(t *testing.T) {
	for _, n := range []int{4, 5, 9} {
		path := datatest.Path(t, fmt.Sprintf("clustertrellis/truth_%d.jsonl", n))
		js, err := jets.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if len(js) != 10 {
			t.Fatalf("%s: %d jets, want 10", path, len(js))
		}
		for i, j := range js {
			if want := jets.ID(fmt.Sprintf("truth_%d-%d", n, i)); j.ID != want {
				t.Errorf("%s jet %d: id %q, want %q", path, i, j.ID, want)
			}
			if len(j.Leaves) != n || j.Lambda != 1.5 || j.RootLambdaOrDefault() != 1.5 || j.TCut != 16 || j.Delta0 != 900 {
				t.Errorf("%s: %d leaves, Lambda %v, LambdaRoot %v, pt_cut %v, Delta_0 %v", j.ID, len(j.Leaves), j.Lambda, j.LambdaRoot, j.TCut, j.Delta0)
			}
			tr, err := j.TruthTree()
			if err != nil {
				t.Fatal(err)
			}
			for v, nd := range tr.Nodes {
				if nd.IsLeaf() && j.Content[v] != j.Leaves[nd.Item] {
					t.Errorf("%s: leaf node %d (item %d) content %v, leaves %v", j.ID, v, nd.Item, j.Content[v], j.Leaves[nd.Item])
				}
			}
		}
	}
	if _, err := jets.ReadFile("no/such/file.jsonl"); err == nil {
		t.Error("ReadFile of a missing file: no error")
	}
}

func ExampleRead() {
	const file = "\ufeff" + `{"id": 1, "leaves": [[5, 0, 0, 3], [5, 0, 0, -3]], "Lambda": 1.5, "pt_cut": 16, "tree": [[1, 2], [-1, -1], [-1, -1]]}` + "\n\n" +
		`{"id": "b", "leaves": [[1, 0, 0, 1]], "Lambda": 1.5, "pt_cut": 16}` + "\n"
	js, err := jets.Read(strings.NewReader(file), "example.jsonl")
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, j := range js {
		fmt.Printf("jet %q: %d leaves, truth tree %v\n", j.ID, len(j.Leaves), j.HasTruth())
	}
	_, err = jets.Read(strings.NewReader(file+`{"id": "b", "leaves": [[1, 0, 0, 1]], "Lambda": 1.5, "pt_cut": 16}`), "example.jsonl")
	fmt.Println(err)
	// Output:
	// jet "1": 2 leaves, truth tree true
	// jet "b": 1 leaves, truth tree false
	// example.jsonl:4: id "b" already used on line 3
}

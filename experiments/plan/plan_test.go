package plan

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hcbench/hcbench/experiments/config"
)

// TestNewReportsEveryDataSet: problems in the files of several data sets are reported together,
// each naming its data set, file and line; a good data set between them does not hide them.
func TestNewReportsEveryDataSet(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"a.jsonl": `{"leaves": [[1,0,0,1]], "Lambda": 1.5}` + "\n",
		"b.csv":   "x,y,label\n1,2,a\n3,oops,b\n",
		"c.jsonl": `{"leaves": [[1,0,0,1],[1,0,0,-1]], "Lambda": 1.5, "pt_cut": 0.1}` + "\n",
	}
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	src := "version: 1\nname: p\ndatasets:\n  - {name: a, file: a.jsonl}\n  - {name: c, file: c.jsonl}\n  - {name: b, file: b.csv}\nalgorithms: [greedy]\n"
	path := filepath.Join(dir, "exp.yaml")
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg, err := config.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	_, err = New(context.Background(), cfg)
	if err == nil {
		t.Fatal("no error")
	}
	got := strings.Split(err.Error(), "\n")
	want := []string{
		"data set a: " + filepath.Join(dir, "a.jsonl") + `:1: "pt_cut" (the t_cut) must be present and positive`,
		"data set b: " + filepath.Join(dir, "b.csv") + `:3: column 2 (y): "oops" is not a number`,
	}
	if len(got) != len(want) {
		t.Fatalf("errors:\n%v\nwant %d lines", err, len(want))
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("error line %d = %q, want %q", i, got[i], want[i])
		}
	}
}

// TestNewTasks: tasks come in config order, and truth only where an item has a generating tree.
func TestNewTasks(t *testing.T) {
	cfg, err := config.Parse("t.yaml", []byte("version: 1\nname: t\ndatasets:\n  - {name: q, generator: ginkgo, jets: 2, t_cut: 16}\n  - {name: m, generator: mixture, points: 4}\nalgorithms: [truth, greedy]\n"))
	if err != nil {
		t.Fatal(err)
	}
	p, err := New(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	var keys []string
	for _, task := range p.Tasks {
		keys = append(keys, task.Key)
	}
	want := "dataset=q|item=0|algorithm=truth dataset=q|item=0|algorithm=greedy dataset=q|item=1|algorithm=truth dataset=q|item=1|algorithm=greedy dataset=m|item=0|algorithm=greedy"
	if got := strings.Join(keys, " "); got != want {
		t.Errorf("tasks:\n%s\nwant\n%s", got, want)
	}
}

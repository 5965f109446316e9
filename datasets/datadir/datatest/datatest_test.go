package datatest_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hcbench/hcbench/datasets/datadir"
	"github.com/hcbench/hcbench/datasets/datadir/datatest"
)

// recorder is a testing.TB that records what datatest asks of it: a skip, a failure or a log
// line. Skip and Fatal end the call as the real ones do (here by a panic that call recovers).
type recorder struct {
	testing.TB // nil: datatest calls only the methods below
	skipped    string
	failed     string
	logged     string
}

type stopped struct{}

func (r *recorder) Helper()           {}
func (r *recorder) Skip(args ...any)  { r.skipped = fmt.Sprint(args...); panic(stopped{}) }
func (r *recorder) Fatal(args ...any) { r.failed = fmt.Sprint(args...); panic(stopped{}) }
func (r *recorder) Fatalf(format string, a ...any) {
	r.failed = fmt.Sprintf(format, a...)
	panic(stopped{})
}
func (r *recorder) Log(args ...any) { r.logged += fmt.Sprint(args...) + "\n" }

// call runs f on a recorder and returns it with f's result (empty when f was stopped).
func call(f func(tb testing.TB) string) (r *recorder, got string) {
	r = &recorder{}
	defer func() {
		if p := recover(); p != nil {
			if _, ok := p.(stopped); !ok {
				panic(p)
			}
		}
	}()
	return r, f(r)
}

// moduleRoot is the folder of go.mod, two levels above this package's.
func moduleRoot(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs(filepath.Join("..", "..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		t.Fatalf("no go.mod at %s: %v", root, err)
	}
	return root
}

// fakeDataDir makes a data directory holding uci/iris.csv (datatest only looks for the file).
func fakeDataDir(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "uci"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "uci", "iris.csv"), []byte("150,4,a,b,c\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestRelativeDataDir: HCBENCH_DATA relative to the module root, as `HCBENCH_DATA=../shared/data
// go test ./...` in the module root sets it, finds the files from every package's folder (here
// three levels down), where resolving it from the working directory would find nothing and skip.
func TestRelativeDataDir(t *testing.T) {
	dir := fakeDataDir(t)
	rel, err := filepath.Rel(moduleRoot(t), dir)
	if err != nil {
		t.Fatal(err)
	}
	if fromHere, _ := filepath.Abs(rel); fromHere == dir {
		t.Fatalf("%s means %s from here too; the test cannot tell the two apart", rel, dir)
	}
	t.Setenv(datadir.EnvDir, rel)
	t.Setenv(datatest.EnvRequire, "1")
	want := filepath.Join(dir, "uci", "iris.csv")
	if got := datatest.Path(t, "uci/iris.csv"); got != want {
		t.Errorf("Path: %s, want %s", got, want)
	}
	if got, ok := datatest.Optional(t, "uci/iris.csv", "the iris part"); !ok || got != want {
		t.Errorf("Optional: %s %v, want %s", got, ok, want)
	}
	if loc := datatest.Dir(t); loc.Path != dir || !strings.Contains(loc.From, "from the module root "+moduleRoot(t)) {
		t.Errorf("Dir: %s, want %s from the module root", loc, dir)
	}
}

// TestMissingFile: a missing file skips the test, naming the set, the fetch command and
// HCBENCH_REQUIRE_DATA; with HCBENCH_REQUIRE_DATA=1 (or true) it fails it; a value that is no
// boolean fails too, rather than be taken as "skip".
func TestMissingFile(t *testing.T) {
	t.Setenv(datadir.EnvDir, fakeDataDir(t))
	for _, c := range []struct {
		require string
		skip    bool
		want    string
	}{
		{"", true, "skipped (HCBENCH_REQUIRE_DATA=1 fails it instead)"},
		{"0", true, "skipped"},
		{"1", false, "(HCBENCH_REQUIRE_DATA=1)"},
		{"true", false, "(HCBENCH_REQUIRE_DATA=true)"},
		{"yes", false, `HCBENCH_REQUIRE_DATA="yes": want 1`},
	} {
		t.Setenv(datatest.EnvRequire, c.require)
		r, got := call(func(tb testing.TB) string { return datatest.Path(tb, "pam50/pam50_centroids.txt") })
		msg := r.skipped + r.failed
		if got != "" || (r.skipped != "") != c.skip || (r.failed != "") == c.skip || !strings.Contains(msg, c.want) {
			t.Errorf("%s=%q: returned %q, skipped %q, failed %q; want skip %v with %q", datatest.EnvRequire, c.require, got, r.skipped, r.failed, c.skip, c.want)
		}
		named := strings.Contains(msg, "needs pam50/pam50_centroids.txt: it belongs to the data set pam50") && strings.Contains(msg, "`hcbench data fetch pam50`")
		if c.require != "yes" && !named {
			t.Errorf("%s=%q: %q does not name the set and the fetch command", datatest.EnvRequire, c.require, msg)
		}
	}

	t.Setenv(datatest.EnvRequire, "")
	r, _ := call(func(tb testing.TB) string {
		_, ok := datatest.Optional(tb, "pam50/pam50_centroids.txt", "the centroid check")
		return fmt.Sprint(ok)
	})
	if r.skipped != "" || r.failed != "" || !strings.HasPrefix(r.logged, "left out: the centroid check needs pam50/pam50_centroids.txt") {
		t.Errorf("Optional of a missing file: skipped %q, failed %q, logged %q", r.skipped, r.failed, r.logged)
	}
}

// TestNoDataDir: a HCBENCH_DATA that names no directory fails the test that asks for a file
// instead of skipping it silently, naming the directory and both ways out.
func TestNoDataDir(t *testing.T) {
	nowhere := filepath.Join(t.TempDir(), "nowhere")
	t.Setenv(datadir.EnvDir, nowhere)
	t.Setenv(datatest.EnvRequire, "")
	r, _ := call(func(tb testing.TB) string { return datatest.Path(tb, "uci/iris.csv") })
	if r.skipped != "" || !strings.Contains(r.failed, "the data directory "+nowhere+" ($HCBENCH_DATA) is no directory") ||
		!strings.Contains(r.failed, "hcbench data fetch -data "+nowhere) || !strings.Contains(r.failed, "unset HCBENCH_DATA to skip") {
		t.Errorf("skipped %q, failed %q", r.skipped, r.failed)
	}
}

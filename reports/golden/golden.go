// Package golden compares files written by a test with golden copies in the test's testdata
// directory, in the manner of benchstat's tests: `go test -update` rewrites the golden copies, and
// a mismatch leaves the new output beside the golden file as <name>.got for a diff.
package golden

import (
	"flag"
	"os"
	"path/filepath"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// Check compares the file at path with testdata/<name>; with -update it rewrites testdata/<name>
// instead.
func Check(t *testing.T, path, name string) {
	t.Helper()
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	want := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(want, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	w, err := os.ReadFile(want)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if string(w) != string(got) {
		_ = os.WriteFile(want+".got", got, 0o644)
		t.Errorf("%s differs from %s (new output in %s.got; go test -update accepts it):\n%s", path, want, want, got)
	}
}

package cli

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/hcbench/hcbench/datasets/datadir"
	"github.com/hcbench/hcbench/datasets/datadir/datatest"
)

// TestDataClustBench: `hcbench data` on the catalog's clustbench set, cut to a few of its real
// files (copied from the data directory into a temporary one) and the optional
// sipu/worms_64.data.gz. mirror writes them at OWNER/REPO/COMMIT/PATH; fetch from a web server
// over that folder installs them laid out as BATTERY/FILE, says the optional file is not fetched,
// and verify passes, saying it is absent. A changed file and a missing one are then named, each
// by its path in the data directory, and verify exits 1.
func TestDataClustBench(t *testing.T) {
	datatest.Path(t, "clustbench/wut/x1.data.gz")
	real := datatest.Dir(t).Path
	set := *datadir.Lookup(datadir.ClustBenchSetName)
	keep := []string{"wut/x1.data.gz", "wut/x1.labels0.gz", "wut/x1.txt", "sipu/worms_64.labels0.gz", "sipu/worms_64.data.gz", "LICENSE-clustering-data-v1.txt"}
	set.Files = slices.DeleteFunc(slices.Clone(set.Files), func(f datadir.File) bool { return !slices.Contains(keep, f.Name) })
	if len(set.Files) != len(keep) {
		t.Fatalf("the catalog's clustbench set lacks some of %q", keep)
	}
	useDataTestCatalog(t, nil)
	dataCatalog = []datadir.Set{set}

	root := t.TempDir()
	mirror := filepath.Join(root, "mirror")
	code, out, errOut := run(t, context.Background(), "data", "mirror", "-data", real, mirror, "clustbench")
	if code != ExitOK || !strings.Contains(out, "5 sources in the mirror (5 written, 0 there already)") {
		t.Fatalf("mirror: %d\n%s%s", code, out, errOut)
	}
	if _, err := os.Stat(filepath.Join(mirror, datadir.ClustBenchRepo, datadir.ClustBenchCommit, "LICENSE")); err != nil {
		t.Errorf("the mirror holds the suite's licence under another path: %v", err)
	}
	srv := httptest.NewServer(http.FileServer(http.Dir(mirror)))
	t.Cleanup(srv.Close)

	dir := filepath.Join(root, "data")
	code, out, errOut = run(t, context.Background(), "data", "fetch", "-data", dir, "-mirror", srv.URL, "clustbench")
	if code != ExitOK || !strings.Contains(out, "clustbench: present\n5 files installed, 0 already present\n") ||
		!strings.Contains(errOut, "clustbench/sipu/worms_64.data.gz: optional, not fetched: hcbench does not know its SHA-256") ||
		!strings.Contains(errOut, "GET "+srv.URL+"/"+datadir.ClustBenchRepo+"/"+datadir.ClustBenchCommit+"/wut/x1.data.gz") {
		t.Fatalf("fetch: %d\n%s%s", code, out, errOut)
	}
	for _, f := range keep[:4] {
		a, _ := os.ReadFile(filepath.Join(real, "clustbench", f))
		b, err := os.ReadFile(filepath.Join(dir, "clustbench", f))
		if err != nil || string(a) != string(b) {
			t.Errorf("%s: fetched %d bytes (%v), the data directory holds %d", f, len(b), err, len(a))
		}
	}
	code, out, errOut = run(t, context.Background(), "data", "verify", "-data", dir)
	want := "clustbench: ok (5 files; 1 optional absent)\n  clustbench/sipu/worms_64.data.gz: optional, absent (hcbench does not know its SHA-256"
	if code != ExitOK || !strings.Contains(out, want) || errOut != "" {
		t.Errorf("verify: %d\n%s%s", code, out, errOut)
	}

	if err := os.WriteFile(filepath.Join(dir, "clustbench", "wut", "x1.data.gz"), []byte("changed"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(dir, "clustbench", "wut", "x1.labels0.gz")); err != nil {
		t.Fatal(err)
	}
	code, out, errOut = run(t, context.Background(), "data", "verify", "-data", dir, "clustbench")
	for _, want := range []string{
		"clustbench/wut/x1.data.gz: modified: sha256 " + dataSum("changed") + ", expected ",
		"clustbench/wut/x1.labels0.gz: missing\n",
		"hcbench data verify: 2 problems; fetch the files again with: hcbench data fetch clustbench\n",
	} {
		if code != ExitFailure || !strings.Contains(errOut, want) {
			t.Errorf("verify of a changed and a missing file: %d, stderr lacks %q\n%s%s", code, want, out, errOut)
		}
	}
	if strings.Contains(errOut, "worms_64") {
		t.Errorf("the optional file is counted as a problem:\n%s", errOut)
	}
}

// TestDataVerifyClustBenchReal: the data directory's clustbench folder holds every file of the
// catalog with its sum, but the optional one.
func TestDataVerifyClustBenchReal(t *testing.T) {
	datatest.Path(t, "clustbench/wut/x1.data.gz")
	useDataTestCatalog(t, nil)
	dataCatalog = datadir.Catalog
	code, out, errOut := run(t, context.Background(), "data", "verify", "-data", datatest.Dir(t).Path, "clustbench")
	if code != ExitOK || !strings.Contains(out, "clustbench: ok (260 files; 1 optional absent)\n") {
		t.Errorf("verify: %d\n%s%s", code, out, errOut)
	}
}

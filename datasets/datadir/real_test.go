package datadir_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/hcbench/hcbench/datasets/datadir"
	"github.com/hcbench/hcbench/datasets/datadir/datatest"
)

func sha(b []byte) string {
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:])
}

// upstreamDigitsHeader is the gzip header of scikit-learn's sklearn/datasets/data/digits.csv.gz:
// deflate, FNAME set, time 2010-04-19 09:52:14 UTC, Unix, name "digits.csv". The data directory's
// copy (Debian's) has the same compressed data behind a 10-byte header without the name.
var upstreamDigitsHeader = append([]byte{0x1f, 0x8b, 8, 8, 0xce, 0x27, 0xcc, 0x4b, 0, 3}, "digits.csv\x00"...)

// TestFetchFromRealDataDir writes a mirror folder from the data directory (WriteMirror: every
// source it holds byte for byte, and the kept sources of derived files where it keeps them) and
// adds scikit-learn's digits.csv.gz, rebuilt from the installed copy when the data directory does
// not keep it; it then fetches every file whose sources are all in the folder into an empty
// directory, reading the folder as a mirror, and so checks the real downloads and the derived
// files against the catalog's sums. The files derived from sources that the data directory lacks
// (UNC's example files and the ClusterTrellis pickles, in a directory fetched before hcbench kept
// sources) are left out here: TestFetchCatalogFromMirror and `hcbench data fetch` check them.
func TestFetchFromRealDataDir(t *testing.T) {
	datatest.Path(t, "pam50/220arrays_nonUBCcommon+12normal_50g.txt")
	digits := datatest.Path(t, "uci/digits.csv.gz")
	dataDir := datatest.Dir(t).Path
	mirror := t.TempDir()
	rep, err := datadir.WriteMirror(context.Background(), dataDir, mirror, datadir.Catalog, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Written) < 8 {
		t.Errorf("the mirror of %s holds %d sources, want the 8 that every data directory has at least: %q", dataDir, len(rep.Written), rep.Written)
	}
	var missing []string
	for _, m := range rep.Missing {
		missing = append(missing, m.Problem())
	}
	t.Logf("the data directory lacks: %q", missing)

	installed, err := os.ReadFile(digits)
	if err != nil {
		t.Fatal(err)
	}
	upstream := append(slices.Clone(upstreamDigitsHeader), installed[10:]...)
	var digitsSrc datadir.Source
	for _, f := range datadir.Lookup("uci").Files {
		if f.Name == "digits.csv.gz" {
			digitsSrc = f.From[0]
		}
	}
	if got := sha(upstream); got != digitsSrc.SHA256 {
		t.Fatalf("scikit-learn's digits.csv.gz rebuilt from the installed copy: sha256 %s, want %s", got, digitsSrc.SHA256)
	}
	p := filepath.Join(mirror, filepath.FromSlash(digitsSrc.MirrorPath()))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, upstream, 0o644); err != nil {
		t.Fatal(err)
	}

	var sets []datadir.Set
	var left []string
	for _, s := range datadir.Catalog {
		kept := s
		kept.Files = nil
		for _, f := range s.Files {
			all := true
			for _, src := range f.From {
				_, err := os.Stat(filepath.Join(mirror, filepath.FromSlash(src.MirrorPath())))
				all = all && err == nil
			}
			if all {
				kept.Files = append(kept.Files, f)
			} else {
				left = append(left, s.Name+"/"+f.Name)
			}
		}
		sets = append(sets, kept)
	}
	t.Logf("left out, their sources are not in the data directory: %q", left)
	dir := t.TempDir()
	var progress bytes.Buffer
	fetched, err := datadir.Fetch(context.Background(), dir, sets, datadir.FetchOptions{Mirror: mirror, Progress: &progress})
	if err != nil {
		t.Fatalf("%v\n%s", err, progress.String())
	}
	for _, want := range []string{"pam50/pam50_232x50_zerofilled.csv", "uci/digits.csv.gz", "pam50/LICENSE-hoadley-lab-pam50.md", "uci/iris.csv"} {
		if !slices.Contains(fetched.Installed, want) {
			t.Errorf("%s was not installed (installed: %q)", want, fetched.Installed)
		}
	}
	if !slices.Contains(fetched.Kept, "uci/sources/digits.csv.gz") {
		t.Errorf("scikit-learn's digits.csv.gz was not kept (kept: %q)", fetched.Kept)
	}
	for i := range sets {
		if st := datadir.Check(dir, &sets[i]); st.State != datadir.SetPresent && len(sets[i].Files) > 0 {
			t.Errorf("%s: %v %q", sets[i].Name, st.State, st.Problems())
		}
	}
}

// TestFetchCatalogFromMirror fetches the whole catalog from the mirror that $HCBENCH_DATA_MIRROR
// names (for example python3 -m http.server over a folder laid out as OWNER/REPO/COMMIT/PATH), so
// every download and converter, the ClusterTrellis pickles included, is checked against the
// catalog's sums. Without the variable it is skipped.
func TestFetchCatalogFromMirror(t *testing.T) {
	mirror := os.Getenv(datadir.EnvMirror)
	if mirror == "" {
		t.Skipf("set $%s to a mirror of the sources (%s) to fetch the whole catalog", datadir.EnvMirror, datadir.MirrorLayout)
	}
	dir := t.TempDir()
	var progress bytes.Buffer
	if _, err := datadir.Fetch(context.Background(), dir, datadir.Catalog, datadir.FetchOptions{Mirror: mirror, Progress: &progress}); err != nil {
		t.Fatalf("%v\n%s", err, progress.String())
	}
	for i := range datadir.Catalog {
		if st := datadir.Check(dir, &datadir.Catalog[i]); st.State != datadir.SetPresent {
			t.Errorf("%s: %v %q", datadir.Catalog[i].Name, st.State, st.Problems())
		}
	}
}

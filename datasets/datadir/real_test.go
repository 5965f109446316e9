package datadir_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"net/http/httptest"
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

// TestFetchFromRealDataDir serves, through a local mirror, every source file that the data
// directory holds a byte-for-byte copy of (and scikit-learn's digits.csv.gz, rebuilt from the
// installed copy), fetches every file whose sources are all served into an empty directory, and
// so checks the real downloads and the derived pam50_232x50_zerofilled.csv and digits.csv.gz
// against the catalog's sums. The files derived from sources that the data directory lacks (UNC's
// example files, the ClusterTrellis pickles) are left out here: TestFetchCatalogFromMirror and
// `hcbench data fetch` check them.
func TestFetchFromRealDataDir(t *testing.T) {
	datatest.Path(t, "pam50/220arrays_nonUBCcommon+12normal_50g.txt")
	digits := datatest.Path(t, "uci/digits.csv.gz")
	dataDir := datatest.Dir(t).Path

	served := map[string][]byte{}
	key := func(s datadir.Source) string { return "/" + s.Repo + "/" + s.Commit + "/" + s.Path }
	for _, s := range datadir.Catalog {
		for _, f := range s.Files {
			b, err := os.ReadFile(filepath.Join(dataDir, s.Name, f.Name))
			if err != nil {
				continue
			}
			for _, g := range s.Files {
				for _, src := range g.From {
					if src.SHA256 == sha(b) {
						served[key(src)] = b
					}
				}
			}
		}
	}
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
	served[key(digitsSrc)] = upstream

	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, ok := served[r.URL.Path]
		if !ok {
			http.NotFound(w, r)
			return
		}
		w.Write(b)
	}))
	defer srv.Close()

	var sets []datadir.Set
	var left []string
	for _, s := range datadir.Catalog {
		kept := s
		kept.Files = nil
		for _, f := range s.Files {
			all := true
			for _, src := range f.From {
				_, ok := served[key(src)]
				all = all && ok
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
	rep, err := datadir.Fetch(context.Background(), dir, sets, datadir.FetchOptions{Mirror: srv.URL, Progress: &progress})
	if err != nil {
		t.Fatalf("%v\n%s", err, progress.String())
	}
	for _, want := range []string{"pam50/pam50_232x50_zerofilled.csv", "uci/digits.csv.gz", "pam50/LICENSE-hoadley-lab-pam50.md", "uci/iris.csv"} {
		if !slices.Contains(rep.Installed, want) {
			t.Errorf("%s was not installed (installed: %q)", want, rep.Installed)
		}
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

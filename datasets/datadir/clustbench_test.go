package datadir

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestClustBenchCatalog: the suite's set lists its 260 files with sums and the optional
// sipu/worms_64.data.gz without one; ClustBenchSets names 77 data sets (22, 20, 9, 10 and 8 in
// the recommended batteries: 69; 8 in uci), each with its data file and at least one labelling in
// the catalog, and the counts of labellings that the suite's files give (compound has 5).
func TestClustBenchCatalog(t *testing.T) {
	s := Lookup(ClustBenchSetName)
	if s == nil {
		t.Fatal("no clustbench set")
	}
	files := map[string]File{}
	optional := 0
	for _, f := range s.Files {
		files[f.Name] = f
		if f.Optional != "" {
			optional++
		}
		if src := f.From[0]; src.Repo != ClustBenchRepo || src.Commit != ClustBenchCommit || (src.Path != f.Name) != (clustbenchRenamed[f.Name] != "") {
			t.Errorf("%s: source %+v", f.Name, src)
		}
	}
	if len(s.Files) != 261 || optional != 1 || files["sipu/worms_64.data.gz"].Optional == "" || files["sipu/worms_64.data.gz"].SHA256 != "" {
		t.Errorf("%d files, %d optional; worms_64: %+v", len(s.Files), optional, files["sipu/worms_64.data.gz"])
	}
	if got := files["LICENSE-clustering-data-v1.txt"].From[0].Path; got != "LICENSE" {
		t.Errorf("the licence comes from %s", got)
	}
	per := map[string]int{}
	ids := map[string]bool{}
	for _, d := range ClustBenchSets {
		per[d.Battery]++
		if ids[d.ID()] || d.Points < 1 || d.Dims < 1 || d.Labels < 1 {
			t.Errorf("%+v: duplicate, or no points, dimensions or labels", d)
		}
		ids[d.ID()] = true
		for _, f := range []string{d.File(""), d.File("labels0"), d.ID() + ".txt", d.Battery + "/README.txt"} {
			if _, ok := files[f]; !ok {
				t.Errorf("%s: %s is not in the catalog", d.ID(), f)
			}
		}
	}
	want := map[string]int{"wut": 22, "sipu": 20, "fcps": 9, "graves": 10, "other": 8, "uci": 8}
	recommended := 0
	for b, n := range want {
		if per[b] != n {
			t.Errorf("battery %s: %d data sets, want %d", b, per[b], n)
		}
	}
	for _, b := range ClustBenchRecommended {
		recommended += per[b]
	}
	if len(ClustBenchSets) != 77 || recommended != 69 {
		t.Errorf("%d data sets, %d recommended; want 77 and 69", len(ClustBenchSets), recommended)
	}
	for _, d := range ClustBenchSets {
		if d.ID() == "sipu/compound" && d.Labels != 5 || d.ID() == "wut/x1" && d.Labels != 1 {
			t.Errorf("%s: %d labellings", d.ID(), d.Labels)
		}
	}
}

// TestOptionalFile: an optional file without a sum is not fetched (no request) and its absence is
// no problem of its set, which is present, with a note; present, it is not checked, and noted so.
func TestOptionalFile(t *testing.T) {
	set := testSet()
	opt := download("big.txt", Source{"owner/repo", testCommit, "big.txt", ""})
	opt.Optional = "too big"
	set.Files = append(set.Files, opt)
	srv := newServer(t, goodFiles())
	dir := t.TempDir()
	if _, err := Fetch(context.Background(), dir, []Set{set}, FetchOptions{Mirror: srv.URL}); err != nil {
		t.Fatal(err)
	}
	if n := srv.hitsOf(opt.From[0]); n != 0 {
		t.Errorf("the optional file was requested %d times", n)
	}
	st := Check(dir, &set)
	if st.State != SetPresent || len(st.Problems()) != 0 || st.Absent() != 1 || strings.Join(st.Notes(), "\n") != "tiny/big.txt: optional, absent (too big)" {
		t.Errorf("absent: %v %q %q", st.State, st.Problems(), st.Notes())
	}
	if err := os.WriteFile(filepath.Join(dir, "tiny", "big.txt"), []byte("anything"), 0o644); err != nil {
		t.Fatal(err)
	}
	st = Check(dir, &set)
	if st.State != SetPresent || st.Absent() != 0 || !strings.Contains(strings.Join(st.Notes(), "\n"), "tiny/big.txt: optional, present, not checked") {
		t.Errorf("present: %v %q %q", st.State, st.Problems(), st.Notes())
	}
	if !strings.Contains(Readme(&set), "`big.txt`, optional, not fetched: too big") {
		t.Errorf("README:\n%s", Readme(&set))
	}
	for _, src := range set.Sources() {
		if src.Path == "big.txt" {
			t.Error("a source without a sum is listed for the mirror")
		}
	}
}

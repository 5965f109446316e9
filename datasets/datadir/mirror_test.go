package datadir

import (
	"bytes"
	"context"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestFetchKeepsSources: Fetch keeps the source of a derived file that no file of the set
// installs (c.txt of ac.txt) in tiny/sources, downloads it when missing though ac.txt is present
// (a data directory fetched before sources were kept), replaces a modified copy, and Check
// reports a missing copy as no problem and a modified one as a problem.
func TestFetchKeepsSources(t *testing.T) {
	set := testSet()
	if kept := set.KeptSources(); len(kept) != 1 || kept[0].Name != "sources/c.txt" || kept[0].From[0] != srcC {
		t.Fatalf("kept sources %+v, want sources/c.txt from c.txt", kept)
	}
	srv := newServer(t, goodFiles())
	dir := t.TempDir()
	rep, err := Fetch(context.Background(), dir, []Set{set}, FetchOptions{Mirror: srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	kept := filepath.Join(dir, "tiny", "sources", "c.txt")
	if b, err := os.ReadFile(kept); err != nil || string(b) != "gamma\n" || !slices.Equal(rep.Kept, []string{"tiny/sources/c.txt"}) {
		t.Errorf("kept %q (%v), report %+v", b, err, rep)
	}
	if readme, _ := os.ReadFile(filepath.Join(dir, "tiny", "README.md")); !strings.Contains(string(readme), "- `sources/c.txt`, sha256 `"+srcC.SHA256+"`: downloaded from "+srcC.URL(DefaultBase)) {
		t.Errorf("README does not list the kept source:\n%s", readme)
	}
	st := Check(dir, &set)
	if k, w := st.KeptSources(); st.State != SetPresent || k != 1 || w != 1 {
		t.Errorf("after fetch: %v, %d of %d sources kept", st.State, k, w)
	}

	// An older data directory: every file, no kept source. It is present and has no problem; a
	// fetch downloads the source alone.
	os.RemoveAll(filepath.Join(dir, "tiny", "sources"))
	st = Check(dir, &set)
	if k, _ := st.KeptSources(); st.State != SetPresent || len(st.Problems()) != 0 || k != 0 || st.Sources[0].State != FileMissing {
		t.Errorf("without sources: %v %q, %d kept", st.State, st.Problems(), k)
	}
	before := srv.hitsOf(srcC)
	rep, err = Fetch(context.Background(), dir, []Set{set}, FetchOptions{Mirror: srv.URL})
	if err != nil || len(rep.Present) != 4 || len(rep.Installed) != 0 || !slices.Equal(rep.Kept, []string{"tiny/sources/c.txt"}) || srv.hitsOf(srcC) != before+1 {
		t.Errorf("fetch into an older directory: %v, report %+v, %d requests of c.txt", err, rep, srv.hitsOf(srcC)-before)
	}

	// A modified copy is a problem, and fetched again.
	os.WriteFile(kept, []byte("gammA\n"), 0o644)
	st = Check(dir, &set)
	if st.State != SetModified || len(st.Problems()) != 1 || !strings.HasPrefix(st.Problems()[0], "tiny/sources/c.txt: modified: sha256 ") {
		t.Errorf("a modified kept source: %v %q", st.State, st.Problems())
	}
	if rep, err = Fetch(context.Background(), dir, []Set{set}, FetchOptions{Mirror: srv.URL}); err != nil || !slices.Equal(rep.Kept, []string{"tiny/sources/c.txt"}) {
		t.Errorf("fetch over a modified kept source: %v %+v", err, rep)
	}
	if b, _ := os.ReadFile(kept); string(b) != "gamma\n" {
		t.Errorf("kept source holds %q after the fetch", b)
	}
	noTemporaries(t, dir)
}

// fetchedTiny fetches testSet from a test server into a new data directory.
func fetchedTiny(t *testing.T) (dir string, sets []Set, srv *server) {
	t.Helper()
	sets = []Set{testSet()}
	srv = newServer(t, goodFiles())
	dir = t.TempDir()
	if _, err := Fetch(context.Background(), dir, sets, FetchOptions{Mirror: srv.URL}); err != nil {
		t.Fatal(err)
	}
	return dir, sets, srv
}

// TestMirrorRoundTrip: a data directory fetched from a server is written out as a mirror folder;
// with the server gone, fetches from that folder, named by its path, by a relative path and by a
// file:// URL, install every file and kept source, and a mirror written from such a fetch holds
// the same bytes.
func TestMirrorRoundTrip(t *testing.T) {
	first, sets, srv := fetchedTiny(t)
	srv.Close()

	mirror := filepath.Join(t.TempDir(), "mirror")
	var progress bytes.Buffer
	rep, err := WriteMirror(context.Background(), first, mirror, sets, &progress)
	if err != nil || len(rep.Written) != 4 || len(rep.Present) != 0 || len(rep.Missing) != 0 {
		t.Fatalf("WriteMirror: %v, report %+v", err, rep)
	}
	for src, content := range goodFiles() {
		if b, err := os.ReadFile(filepath.Join(mirror, filepath.FromSlash(src.MirrorPath()))); err != nil || string(b) != content {
			t.Errorf("mirror's %s: %q, %v; want %q", src.MirrorPath(), b, err, content)
		}
	}
	if !strings.Contains(progress.String(), "owner/repo/"+testCommit+"/data/c.txt: written from tiny/sources/c.txt") {
		t.Errorf("progress:\n%s", progress.String())
	}
	t.Chdir(filepath.Dir(mirror))
	fileURL := (&url.URL{Scheme: "file", Path: filepath.ToSlash(mirror)}).String()
	for _, m := range []string{mirror, "mirror", fileURL} {
		dir := t.TempDir()
		var progress bytes.Buffer
		rep, err := Fetch(context.Background(), dir, sets, FetchOptions{Mirror: m, Progress: &progress})
		if err != nil || len(rep.Installed) != 4 || len(rep.Kept) != 1 {
			t.Errorf("fetch from %s: %v, report %+v\n%s", m, err, rep, progress.String())
		}
		if st := Check(dir, &sets[0]); st.State != SetPresent || len(st.Problems()) != 0 {
			t.Errorf("fetch from %s: %v %q", m, st.State, st.Problems())
		}
		if k, w := Check(dir, &sets[0]).KeptSources(); k != w {
			t.Errorf("fetch from %s kept %d of %d sources", m, k, w)
		}
		if !strings.Contains(progress.String(), "read "+filepath.Join(mirror, "owner", "repo", testCommit, "sub dir", "b+.txt")) {
			t.Errorf("fetch from %s read no file of the folder:\n%s", m, progress.String())
		}
		again, err := WriteMirror(context.Background(), dir, mirror, sets, nil)
		if err != nil || len(again.Present) != 4 || len(again.Written) != 0 {
			t.Errorf("the mirror of a fetch from %s: %v %+v; want the same 4 files", m, err, again)
		}
		noTemporaries(t, dir)
	}
}

// TestMirrorMissingSources: a data directory without its kept sources (fetched before they were
// kept) writes what it holds and lists the rest; a source whose file was modified is not
// written; a mirror file with the wrong bytes is replaced; a folder mirror that lacks a file
// says so.
func TestMirrorMissingSources(t *testing.T) {
	dir, sets, _ := fetchedTiny(t)
	os.RemoveAll(filepath.Join(dir, "tiny", "sources"))
	os.WriteFile(filepath.Join(dir, "tiny", "b.txt"), []byte("edited\n"), 0o644)
	mirror := t.TempDir()
	stale := filepath.Join(mirror, filepath.FromSlash(srcA.MirrorPath()))
	os.MkdirAll(filepath.Dir(stale), 0o755)
	os.WriteFile(stale, []byte("stale\n"), 0o644)

	rep, err := WriteMirror(context.Background(), dir, mirror, sets, nil)
	var missing []string
	for _, m := range rep.Missing {
		missing = append(missing, m.Problem())
	}
	if err != nil || !slices.Equal(rep.Written, []string{srcA.MirrorPath(), srcLic.MirrorPath()}) || len(missing) != 2 ||
		missing[0] != "tiny/sources/c.txt: missing" || !strings.HasPrefix(missing[1], "tiny/b.txt: modified: sha256 "+sum([]byte("edited\n"))) {
		t.Errorf("WriteMirror: %v, written %q, missing %q", err, rep.Written, missing)
	}
	if b, _ := os.ReadFile(stale); string(b) != "alpha\n" {
		t.Errorf("a stale mirror file holds %q", b)
	}
	for _, src := range []Source{srcB, srcC} {
		if _, err := os.Stat(filepath.Join(mirror, filepath.FromSlash(src.MirrorPath()))); err == nil {
			t.Errorf("%s is in the mirror, which the data directory lacks", src.Path)
		}
	}

	_, err = Fetch(context.Background(), t.TempDir(), sets, FetchOptions{Mirror: mirror})
	want := "tiny/b.txt: mirror file " + filepath.Join(mirror, "owner", "repo", testCommit, "sub dir", "b+.txt") + ": not in the mirror (" + MirrorLayout + ")"
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("fetch from a mirror without b.txt: %v, want %q", err, want)
	}
}

// TestCheckMirror: http, https and file URLs and folders are mirrors; other schemes, file URLs of
// another host, missing folders and files are refused, naming the layout.
func TestCheckMirror(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "f")
	os.WriteFile(file, nil, 0o644)
	for _, c := range []struct{ in, base, dir string }{
		{"http://example.org/m/", "http://example.org/m", ""},
		{"https://example.org", "https://example.org", ""},
		{dir, "", dir},
		{"file://" + filepath.ToSlash(dir), "", dir},
		{"file://localhost" + filepath.ToSlash(dir), "", dir},
	} {
		base, d, err := CheckMirror(c.in)
		if err != nil || base != c.base || d != c.dir {
			t.Errorf("CheckMirror(%q) = %q, %q, %v; want %q, %q", c.in, base, d, err, c.base, c.dir)
		}
	}
	for _, in := range []string{"ftp://example.org", "http://", "file://host/x", filepath.Join(dir, "nowhere"), "file://" + filepath.ToSlash(file), file} {
		if _, _, err := CheckMirror(in); err == nil || !strings.Contains(err.Error(), "MIRROR/OWNER/REPO/COMMIT/PATH") {
			t.Errorf("CheckMirror(%q): %v, want a refusal with the layout", in, err)
		}
	}
}

// TestFolderMirrorFIFO: a FIFO in a mirror folder is refused, not waited on (a wait would end
// only at go test's -timeout, with every goroutine's stack).
func TestFolderMirrorFIFO(t *testing.T) {
	mirror := t.TempDir()
	p := filepath.Join(mirror, filepath.FromSlash(srcLic.MirrorPath()))
	os.MkdirAll(filepath.Dir(p), 0o755)
	if err := mkfifo(p); err != nil {
		t.Skipf("no FIFO: %v", err)
	}
	set := Set{Name: "tiny", Files: []File{download("LICENSE-test.txt", srcLic)}}
	_, err := Fetch(context.Background(), t.TempDir(), []Set{set}, FetchOptions{Mirror: mirror})
	if err == nil || !strings.Contains(err.Error(), "is not a regular file") {
		t.Errorf("a FIFO in the mirror: %v", err)
	}
}

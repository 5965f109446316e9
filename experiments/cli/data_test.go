package cli

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hcbench/hcbench/datasets/datadir"
)

const dataTestCommit = "89abcdef0123456789abcdef0123456789abcdef"

func dataSum(s string) string {
	h := sha256.Sum256([]byte(s))
	return hex.EncodeToString(h[:])
}

// dataTestFiles are the files of the test repository owner/repo at dataTestCommit.
var dataTestFiles = map[string]string{
	"one.csv":    "a,b\n1,2\n",
	"two.txt":    "two\n",
	"LICENSE":    "licence text\n",
	"other.txt":  "other\n",
	"derived.in": "make me loud\n",
}

func dataTestSource(path string) datadir.Source {
	return datadir.Source{Repo: "owner/repo", Commit: dataTestCommit, Path: path, SHA256: dataSum(dataTestFiles[path])}
}

func dataTestDownload(name, path string) datadir.File {
	return datadir.File{Name: name, SHA256: dataSum(dataTestFiles[path]), From: []datadir.Source{dataTestSource(path)}}
}

// useDataTestCatalog makes the data command work on two small sets and an environment of env.
func useDataTestCatalog(t *testing.T, env map[string]string) {
	t.Helper()
	oldCat, oldEnv := dataCatalog, dataGetenv
	dataCatalog = []datadir.Set{
		{
			Name: "small", Title: "a small test set", Licence: "MIT (test)", About: "Made-up files.",
			Files: []datadir.File{
				dataTestDownload("one.csv", "one.csv"),
				dataTestDownload("two.txt", "two.txt"),
				{
					Name: "loud.txt", SHA256: dataSum("MAKE ME LOUD\n"), From: []datadir.Source{dataTestSource("derived.in")},
					Convert: func(src [][]byte) ([]byte, error) { return bytes.ToUpper(src[0]), nil }, How: "upper-cased",
				},
				dataTestDownload("LICENSE-small.txt", "LICENSE"),
			},
		},
		{
			Name: "other", Title: "another test set", Licence: "CC BY 4.0 (test)", About: "One file.",
			Files: []datadir.File{dataTestDownload("other.txt", "other.txt")},
		},
	}
	dataGetenv = func(k string) string { return env[k] }
	t.Cleanup(func() { dataCatalog, dataGetenv = oldCat, oldEnv })
}

// dataServer serves dataTestFiles (with overrides) at the mirror layout and counts requests.
func dataServer(t *testing.T, override map[string]string) (*httptest.Server, func() int) {
	t.Helper()
	var mu sync.Mutex
	hits := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		hits++
		mu.Unlock()
		p, ok := strings.CutPrefix(r.URL.Path, "/owner/repo/"+dataTestCommit+"/")
		content, known := dataTestFiles[p]
		if o, ok := override[p]; ok {
			content = o
		}
		if !ok || !known {
			http.NotFound(w, r)
			return
		}
		w.Write([]byte(content))
	}))
	t.Cleanup(srv.Close)
	return srv, func() int { mu.Lock(); defer mu.Unlock(); return hits }
}

func TestDataFetchVerifyList(t *testing.T) {
	useDataTestCatalog(t, nil)
	srv, hits := dataServer(t, nil)
	dir := filepath.Join(t.TempDir(), "data")

	code, out, errOut := run(t, context.Background(), "data", "list", "-data", dir)
	if code != ExitOK || !strings.Contains(out, "data directory: "+dir+" (-data)") || !strings.Contains(out, "small  missing") || !strings.Contains(out, "licence: MIT (test)") {
		t.Errorf("list before fetch: %d\n%s%s", code, out, errOut)
	}
	code, out, errOut = run(t, context.Background(), "data", "verify", "-data", dir)
	if code != ExitFailure || !strings.Contains(errOut, "no data set is in "+dir) {
		t.Errorf("verify of an empty directory: %d\n%s%s", code, out, errOut)
	}

	code, out, errOut = run(t, context.Background(), "data", "fetch", "-data", dir, "-mirror", srv.URL, "small")
	if code != ExitOK {
		t.Fatalf("fetch: %d\n%s%s", code, out, errOut)
	}
	for _, want := range []string{"mirror: " + srv.URL, "small: present", "4 files installed, 0 already present; 1 source kept for `hcbench data mirror`"} {
		if !strings.Contains(out, want) {
			t.Errorf("fetch output lacks %q:\n%s", want, out)
		}
	}
	if !strings.Contains(errOut, "small/loud.txt: derived from derived.in, installed (sha256 ok)") {
		t.Errorf("fetch progress:\n%s", errOut)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "small", "loud.txt")); string(b) != "MAKE ME LOUD\n" {
		t.Errorf("loud.txt holds %q", b)
	}
	if _, err := os.Stat(filepath.Join(dir, "small", "README.md")); err != nil {
		t.Errorf("no README: %v", err)
	}

	code, out, errOut = run(t, context.Background(), "data", "verify", "-data", dir)
	if code != ExitOK || out != "data directory: "+dir+" (-data)\nsmall: ok (4 files; 1 source kept)\nother: not fetched, skipped\n" {
		t.Errorf("verify: %d\n%q\n%s", code, out, errOut)
	}
	code, out, errOut = run(t, context.Background(), "data", "verify", "-data", dir, "other")
	if code != ExitFailure || errOut != "other/other.txt: missing\nhcbench data verify: 1 problem; fetch the files again with: hcbench data fetch other\n" {
		t.Errorf("verify of a set not fetched: %d\n%s%q", code, out, errOut)
	}

	// The mirror from the environment; the directory from $HCBENCH_DATA; present files are not
	// downloaded again.
	useDataTestCatalog(t, map[string]string{datadir.EnvDir: dir, datadir.EnvMirror: srv.URL})
	before := hits()
	code, out, errOut = run(t, context.Background(), "data", "fetch")
	if code != ExitOK || !strings.Contains(out, "data directory: "+dir+" ($HCBENCH_DATA)") || !strings.Contains(out, "1 file installed, 4 already present\n") {
		t.Errorf("second fetch: %d\n%s%s", code, out, errOut)
	}
	if hits()-before != 1 {
		t.Errorf("second fetch made %d requests, want 1 (other.txt)", hits()-before)
	}

	// Edit a file: list and verify name it; verify exits 1.
	os.WriteFile(filepath.Join(dir, "small", "two.txt"), []byte("changed\n"), 0o644)
	os.Remove(filepath.Join(dir, "other", "other.txt"))
	code, out, _ = run(t, context.Background(), "data", "list")
	want := "data directory: " + dir + " ($HCBENCH_DATA)\n\n" +
		"small  modified\n" +
		"       a small test set\n" +
		"       licence: MIT (test)\n" +
		"       small/two.txt: modified: sha256 " + dataSum("changed\n") + ", expected " + dataSum("two\n") + "\n\n" +
		"other  missing\n" +
		"       another test set\n" +
		"       licence: CC BY 4.0 (test)\n"
	if code != ExitOK || out != want {
		t.Errorf("list:\n%s\nwant:\n%s", out, want)
	}
	code, out, errOut = run(t, context.Background(), "data", "verify", "small")
	if code != ExitFailure || !strings.HasPrefix(errOut, "small/two.txt: modified: sha256 "+dataSum("changed\n")+", expected "+dataSum("two\n")+"\n") {
		t.Errorf("verify after an edit: %d\n%s%s", code, out, errOut)
	}
}

func TestDataFetchRefusesCorruptedFile(t *testing.T) {
	useDataTestCatalog(t, nil)
	srv, _ := dataServer(t, map[string]string{"two.txt": "tw0\n"})
	dir := t.TempDir()
	code, out, errOut := run(t, context.Background(), "data", "fetch", "-data", dir, "-mirror", srv.URL, "small")
	url := srv.URL + "/owner/repo/" + dataTestCommit + "/two.txt"
	if code != ExitFailure || !strings.Contains(errOut, "hcbench data fetch: small/two.txt: GET "+url+": sha256 mismatch: expected "+dataSum("two\n")+", got "+dataSum("tw0\n")) || !strings.Contains(out, "small: partly present") {
		t.Errorf("fetch of a corrupted file: %d\n%s%s", code, out, errOut)
	}
	if _, err := os.Stat(filepath.Join(dir, "small", "two.txt")); err == nil {
		t.Error("the corrupted file was installed")
	}
}

// TestDataFetchInterrupted: Ctrl-C while a download stalls (the server sent part of the file and
// holds the connection) stops the fetch, with exit 130 and nothing left behind.
func TestDataFetchInterrupted(t *testing.T) {
	useDataTestCatalog(t, nil)
	started := make(chan struct{})
	var once sync.Once
	stalled := make(chan struct{}) // the server stalls until the test ends
	defer close(stalled)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Length", "1000")
		w.Write([]byte("a,b\n"))
		w.(http.Flusher).Flush()
		once.Do(func() { close(started) })
		select {
		case <-r.Context().Done():
		case <-stalled:
		}
	}))
	defer srv.Close()
	dir := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	cancelled := make(chan time.Time, 1)
	go func() {
		<-started
		cancelled <- time.Now()
		cancel()
	}()
	type result struct {
		code        int
		out, errOut string
	}
	done := make(chan result, 1)
	go func() {
		code, out, errOut := run(t, ctx, "data", "fetch", "-data", dir, "-mirror", srv.URL)
		done <- result{code, out, errOut}
	}()
	var r result
	select {
	case r = <-done:
		select {
		case at := <-cancelled:
			t.Logf("the fetch returned %v after the cancel", time.Since(at).Round(time.Millisecond))
		default:
			t.Errorf("the fetch returned before the download started")
		}
	case <-time.After(startLimit + hangLimit):
		t.Fatalf("the fetch still runs %v after it started, the download stalled and Ctrl-C", startLimit+hangLimit)
	}
	if r.code != ExitInterrupted || !strings.Contains(r.errOut, "interrupted") {
		t.Errorf("interrupted fetch: exit %d\n%s%s", r.code, r.out, r.errOut)
	}
	entries, _ := os.ReadDir(filepath.Join(dir, "small"))
	for _, e := range entries {
		t.Errorf("%s left behind by an interrupted fetch", e.Name())
	}
}

func TestDataFetchUnreachableMirror(t *testing.T) {
	useDataTestCatalog(t, nil)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	code, out, errOut := run(t, context.Background(), "data", "fetch", "-data", t.TempDir(), "-mirror", "http://"+addr, "other")
	if code != ExitFailure || !strings.Contains(errOut, "GET http://"+addr+"/owner/repo/"+dataTestCommit+"/other.txt: cannot reach "+addr) || !strings.Contains(errOut, "MIRROR/OWNER/REPO/COMMIT/PATH") {
		t.Errorf("unreachable mirror: %d\n%s%s", code, out, errOut)
	}
}

func TestDataUsageErrors(t *testing.T) {
	useDataTestCatalog(t, nil)
	for _, args := range [][]string{
		{"data", "fetch", "-data", t.TempDir(), "nosuch"},
		{"data", "verify", "-data", t.TempDir(), "small", "nosuch"},
		{"data", "mirror", "-data", t.TempDir(), t.TempDir(), "nosuch"},
	} {
		code, _, errOut := run(t, context.Background(), args...)
		if code != ExitUsage || !strings.Contains(errOut, `unknown data set "nosuch" (known: small, other)`) {
			t.Errorf("%q: %d %s", args, code, errOut)
		}
	}
	for _, args := range [][]string{{"data"}, {"data", "frobnicate"}, {"data", "list", "extra"}, {"data", "fetch", "-mirror", "ftp://x", "small"}, {"data", "verify", "-bogus"}, {"data", "mirror"}, {"data", "mirror", "-data", t.TempDir()}} {
		if code, _, errOut := run(t, context.Background(), args...); code != ExitUsage {
			t.Errorf("%q: exit %d, want %d\n%s", args, code, ExitUsage, errOut)
		}
	}
	code, out, _ := run(t, context.Background(), "data", "help")
	if code != ExitOK || !strings.Contains(out, "MIRROR/OWNER/REPO/COMMIT/PATH") {
		t.Errorf("data help: %d\n%s", code, out)
	}
}

// TestDataMirrorOffline: the data sets fetched from a server are written out with `data mirror
// DIR`; with the server gone, `data fetch -mirror DIR` and `-mirror file://DIR` install every
// file into fresh data directories, which `data verify` passes and which can be mirrored again.
// A data directory without its kept sources (fetched before they were kept) mirrors what it holds
// and names the command that completes it.
func TestDataMirrorOffline(t *testing.T) {
	useDataTestCatalog(t, nil)
	srv, _ := dataServer(t, nil)
	root := t.TempDir()
	online := filepath.Join(root, "online")
	if code, out, errOut := run(t, context.Background(), "data", "fetch", "-data", online, "-mirror", srv.URL); code != ExitOK {
		t.Fatalf("fetch: %d\n%s%s", code, out, errOut)
	}
	if b, err := os.ReadFile(filepath.Join(online, "small", "sources", "derived.in")); err != nil || string(b) != dataTestFiles["derived.in"] {
		t.Errorf("the source of loud.txt is not kept: %q %v", b, err)
	}
	mirror := filepath.Join(root, "mirror")
	code, out, errOut := run(t, context.Background(), "data", "mirror", "-data", online, mirror)
	if code != ExitOK || !strings.Contains(out, "mirror: "+mirror+"\n5 sources in the mirror (5 written, 0 there already)\nfetch from it with: hcbench data fetch -mirror "+mirror+"\n") {
		t.Fatalf("mirror: %d\n%s%s", code, out, errOut)
	}
	for p, content := range dataTestFiles {
		if b, err := os.ReadFile(filepath.Join(mirror, "owner", "repo", dataTestCommit, p)); err != nil || string(b) != content {
			t.Errorf("mirror's %s: %q %v", p, b, err)
		}
	}
	srv.Close()

	fileURL := (&url.URL{Scheme: "file", Path: filepath.ToSlash(mirror)}).String()
	for i, m := range []string{mirror, fileURL} {
		dir := filepath.Join(root, fmt.Sprint("offline", i))
		code, out, errOut := run(t, context.Background(), "data", "fetch", "-data", dir, "-mirror", m)
		if code != ExitOK || !strings.Contains(out, "5 files installed, 0 already present; 1 source kept") {
			t.Errorf("fetch -mirror %s: %d\n%s%s", m, code, out, errOut)
		}
		code, out, errOut = run(t, context.Background(), "data", "verify", "-data", dir)
		if code != ExitOK || out != "data directory: "+dir+" (-data)\nsmall: ok (4 files; 1 source kept)\nother: ok (1 file)\n" {
			t.Errorf("verify after fetch -mirror %s: %d\n%q\n%s", m, code, out, errOut)
		}
		code, out, errOut = run(t, context.Background(), "data", "mirror", "-data", dir, filepath.Join(root, fmt.Sprint("again", i)))
		if code != ExitOK || !strings.Contains(out, "5 sources in the mirror (5 written, 0 there already)") {
			t.Errorf("mirror of a fetch from %s: %d\n%s%s", m, code, out, errOut)
		}
	}

	// A data directory without kept sources: list and verify say so (verify passes), mirror
	// writes the four it has and fails naming the fifth and the fix, which then completes it.
	os.RemoveAll(filepath.Join(online, "small", "sources"))
	code, out, _ = run(t, context.Background(), "data", "list", "-data", online)
	if code != ExitOK || !strings.Contains(out, "sources: 0 of 1 kept, so `hcbench data mirror` cannot serve small; `hcbench data fetch small` downloads the others") {
		t.Errorf("list without kept sources: %d\n%s", code, out)
	}
	code, out, _ = run(t, context.Background(), "data", "verify", "-data", online)
	if code != ExitOK || !strings.Contains(out, "small: ok (4 files; 0 of 1 sources kept)") {
		t.Errorf("verify without kept sources: %d\n%s", code, out)
	}
	partial := filepath.Join(root, "partial")
	code, out, errOut = run(t, context.Background(), "data", "mirror", "-data", online, partial)
	if code != ExitFailure || !strings.Contains(out, "4 sources in the mirror (4 written, 0 there already)") ||
		!strings.Contains(errOut, "small/sources/derived.in: missing\nhcbench data mirror: 1 source is not in the data directory, so the mirror lacks sources of small; `hcbench data fetch small` downloads them") ||
		!strings.Contains(errOut, "point -data at it") {
		t.Errorf("mirror without kept sources: %d\n%s%s", code, out, errOut)
	}
	code, out, errOut = run(t, context.Background(), "data", "fetch", "-data", online, "-mirror", mirror, "small")
	if code != ExitOK || !strings.Contains(out, "0 files installed, 4 already present; 1 source kept") {
		t.Errorf("fetch of the kept sources: %d\n%s%s", code, out, errOut)
	}
	code, out, errOut = run(t, context.Background(), "data", "mirror", "-data", online, partial, "small")
	if code != ExitOK || !strings.Contains(out, "4 sources in the mirror (1 written, 3 there already)") {
		t.Errorf("mirror after the fetch: %d\n%s%s", code, out, errOut)
	}

	// Offline without a mirror: the message offers -data and -mirror.
	code, _, errOut = run(t, context.Background(), "data", "fetch", "-data", filepath.Join(root, "none"), "-mirror", filepath.Join(root, "nowhere"))
	if code != ExitUsage || !strings.Contains(errOut, "want an http://, https:// or file:// URL or a folder") {
		t.Errorf("fetch from a missing folder: %d\n%s", code, errOut)
	}
}

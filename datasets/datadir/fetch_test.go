package datadir

import (
	"bytes"
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"
)

const testCommit = "0123456789abcdef0123456789abcdef01234567"

// testSource is a source file of the test repository owner/repo at testCommit.
func testSource(path, content string) Source {
	return Source{Repo: "owner/repo", Commit: testCommit, Path: path, SHA256: sum([]byte(content))}
}

var (
	srcA   = testSource("data/a.txt", "alpha\n")
	srcB   = testSource("sub dir/b+.txt", "beta\n")
	srcC   = testSource("data/c.txt", "gamma\n")
	srcLic = testSource("LICENSE", "a licence\n")
)

// upperJoin is the test converter: its sources joined and upper-cased.
func upperJoin(src [][]byte) ([]byte, error) { return bytes.ToUpper(bytes.Join(src, nil)), nil }

// testSet is a small set: two downloads, a licence and a file derived from an installed source
// (a.txt) and one that is no file of the set (c.txt).
func testSet() Set {
	return Set{
		Name: "tiny", Title: "a tiny test set", Licence: "a test licence", About: "Made-up files for tests.",
		Files: []File{
			{Name: "ac.txt", SHA256: sum([]byte("ALPHA\nGAMMA\n")), From: []Source{srcA, srcC}, Convert: upperJoin, How: "a and c upper-cased"},
			download("a.txt", srcA),
			download("b.txt", srcB),
			download("LICENSE-test.txt", srcLic),
		},
	}
}

// server serves the test repository at its URL layout and counts the requests for each path.
type server struct {
	*httptest.Server
	mu    sync.Mutex
	files map[string][]byte
	hits  map[string]int
}

func newServer(t *testing.T, files map[Source]string) *server {
	t.Helper()
	s := &server{files: map[string][]byte{}, hits: map[string]int{}}
	for src, content := range files {
		s.files["/"+src.Repo+"/"+src.Commit+"/"+src.Path] = []byte(content)
	}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.hits[r.URL.Path]++
		b, ok := s.files[r.URL.Path]
		s.mu.Unlock()
		if !ok {
			http.NotFound(w, r)
			return
		}
		w.Write(b)
	}))
	t.Cleanup(s.Close)
	return s
}

func (s *server) hitsOf(src Source) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.hits["/"+src.Repo+"/"+src.Commit+"/"+src.Path]
}

func (s *server) total() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for _, h := range s.hits {
		n += h
	}
	return n
}

func goodFiles() map[Source]string {
	return map[Source]string{srcA: "alpha\n", srcB: "beta\n", srcC: "gamma\n", srcLic: "a licence\n"}
}

// noTemporaries fails the test when a temporary file of Fetch is left in dir/tiny.
func noTemporaries(t *testing.T, dir string) {
	t.Helper()
	entries, _ := os.ReadDir(filepath.Join(dir, "tiny"))
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), tempPrefix) {
			t.Errorf("temporary file %s left behind", e.Name())
		}
	}
}

func TestFetchInstallsAndVerifies(t *testing.T) {
	srv := newServer(t, goodFiles())
	dir := t.TempDir()
	sets := []Set{testSet()}
	var progress bytes.Buffer
	rep, err := Fetch(context.Background(), dir, sets, FetchOptions{Mirror: srv.URL + "/", Progress: &progress})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Installed) != 4 || len(rep.Present) != 0 || len(rep.Failed) != 0 {
		t.Errorf("report %+v, want 4 installed", rep)
	}
	st := Check(dir, &sets[0])
	if st.State != SetPresent || len(st.Problems()) != 0 {
		t.Errorf("after fetch: %v, problems %q", st.State, st.Problems())
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "tiny", "ac.txt")); string(b) != "ALPHA\nGAMMA\n" {
		t.Errorf("derived file holds %q", b)
	}
	// The derived file read a.txt from its installed copy: a.txt was downloaded once.
	if srv.hitsOf(srcA) != 1 || srv.hitsOf(srcC) != 1 || srv.hitsOf(srcB) != 1 {
		t.Errorf("requests: a %d, b %d, c %d; want 1 each", srv.hitsOf(srcA), srv.hitsOf(srcB), srv.hitsOf(srcC))
	}
	readme, err := os.ReadFile(filepath.Join(dir, "tiny", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"# tiny", "a test licence", DefaultBase + "/owner/repo/" + testCommit + "/sub%20dir/b+.txt", srcC.SHA256, "a and c upper-cased"} {
		if !strings.Contains(string(readme), want) {
			t.Errorf("README lacks %q:\n%s", want, readme)
		}
	}
	for _, want := range []string{"GET " + srv.URL + "/owner/repo/" + testCommit + "/data/a.txt", "tiny/a.txt: installed", "tiny/ac.txt: derived from a.txt, c.txt, installed"} {
		if !strings.Contains(progress.String(), want) {
			t.Errorf("progress lacks %q:\n%s", want, progress.String())
		}
	}
	noTemporaries(t, dir)
}

func TestFetchKeepsPresentFiles(t *testing.T) {
	srv := newServer(t, goodFiles())
	dir := t.TempDir()
	sets := []Set{testSet()}
	if _, err := Fetch(context.Background(), dir, sets, FetchOptions{Mirror: srv.URL}); err != nil {
		t.Fatal(err)
	}
	before := srv.total()
	rep, err := Fetch(context.Background(), dir, sets, FetchOptions{Mirror: srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	if srv.total() != before || len(rep.Present) != 4 || len(rep.Installed) != 0 {
		t.Errorf("second fetch made %d requests, report %+v; want none and 4 present", srv.total()-before, rep)
	}
	// A modified file is reported and fetched again; the others are not.
	os.WriteFile(filepath.Join(dir, "tiny", "b.txt"), []byte("edited\n"), 0o644)
	st := Check(dir, &sets[0])
	if st.State != SetModified || len(st.Problems()) != 1 || !strings.Contains(st.Problems()[0], "tiny/b.txt: modified: sha256 "+sum([]byte("edited\n"))) {
		t.Errorf("after an edit: %v %q", st.State, st.Problems())
	}
	rep, err = Fetch(context.Background(), dir, sets, FetchOptions{Mirror: srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Installed) != 1 || rep.Installed[0] != "tiny/b.txt" || srv.hitsOf(srcB) != 2 || srv.total() != before+1 {
		t.Errorf("report %+v, %d requests", rep, srv.total()-before)
	}
	if st := Check(dir, &sets[0]); st.State != SetPresent {
		t.Errorf("after the second fetch: %v", st.State)
	}
}

func TestFetchRefusesCorruptedDownload(t *testing.T) {
	files := goodFiles()
	files[srcA] = "alphA\n" // one byte changed
	srv := newServer(t, files)
	dir := t.TempDir()
	sets := []Set{testSet()}
	rep, err := Fetch(context.Background(), dir, sets, FetchOptions{Mirror: srv.URL})
	if err == nil {
		t.Fatal("a corrupted download was accepted")
	}
	url := srv.URL + "/owner/repo/" + testCommit + "/data/a.txt"
	for _, want := range []string{"tiny/a.txt: GET " + url + ": sha256 mismatch: expected " + srcA.SHA256 + ", got " + sum([]byte("alphA\n")), "refused, not installed", "tiny/ac.txt: GET " + url} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error lacks %q:\n%v", want, err)
		}
	}
	for _, name := range []string{"a.txt", "ac.txt", "README.md"} {
		if _, err := os.Stat(filepath.Join(dir, "tiny", name)); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s is installed after a corrupted download (%v)", name, err)
		}
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "tiny", "b.txt")); string(b) != "beta\n" {
		t.Errorf("the good file b.txt was not installed beside the bad one")
	}
	if strings.Join(rep.Failed, " ") != "tiny/a.txt tiny/ac.txt" {
		t.Errorf("failed %q", rep.Failed)
	}
	noTemporaries(t, dir)
}

func TestFetchInterruptedInstallsNothing(t *testing.T) {
	started := make(chan struct{})
	var once sync.Once
	stalled := make(chan struct{}) // the server stalls until the test ends
	defer close(stalled)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body := strings.Repeat("x", 1<<16)
		w.Header().Set("Content-Length", "131072")
		w.Write([]byte(body)) // half the body, then a stall
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
		// Cancel once the half body is in the temporary file.
		for ctx.Err() == nil {
			entries, _ := os.ReadDir(filepath.Join(dir, "tiny"))
			for _, e := range entries {
				if info, err := e.Info(); err == nil && strings.HasPrefix(e.Name(), tempPrefix) && info.Size() >= 1<<16 {
					cancelled <- time.Now()
					cancel()
					return
				}
			}
			time.Sleep(time.Millisecond)
		}
	}()
	done := make(chan error, 1)
	go func() {
		_, err := Fetch(ctx, dir, []Set{testSet()}, FetchOptions{Mirror: srv.URL})
		done <- err
	}()
	var err error
	select {
	case err = <-done:
	case <-time.After(5 * time.Minute):
		t.Fatal("Fetch still runs 5 minutes after it started, the download stalled since")
	}
	if !errors.Is(err, context.Canceled) || !strings.Contains(err.Error(), "interrupted") {
		t.Fatalf("error %v, want an interruption", err)
	}
	t.Logf("Fetch returned %v after the cancel", time.Since(<-cancelled).Round(time.Millisecond))
	entries, _ := os.ReadDir(filepath.Join(dir, "tiny"))
	for _, e := range entries {
		t.Errorf("%s left in the set's folder after an interrupted download", e.Name())
	}
}

func TestFetchUnreachableHost(t *testing.T) {
	// No internet: every connection fails. The error names the URL, the host and -mirror.
	offline := &http.Client{Transport: &http.Transport{DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
		return nil, &net.OpError{Op: "dial", Net: network, Err: errors.New("network is unreachable")}
	}}}
	dir := t.TempDir()
	_, err := Fetch(context.Background(), dir, []Set{testSet()}, FetchOptions{Client: offline})
	want := "GET " + DefaultBase + "/owner/repo/" + testCommit + "/data/a.txt: cannot reach raw.githubusercontent.com:"
	if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "point -data (or $"+EnvDir+") at a data directory that holds the files") ||
		!strings.Contains(err.Error(), "-mirror DIR|URL (or $"+EnvMirror+")") || !strings.Contains(err.Error(), "MIRROR/OWNER/REPO/COMMIT/PATH") {
		t.Errorf("error %v, want one containing %q, the -data and the -mirror hints", err, want)
	}
	if n := strings.Count(err.Error(), "cannot reach"); n != 1 {
		t.Errorf("%d unreachable errors, want 1: Fetch stops at the first", n)
	}

	// A mirror that does not listen.
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	_, err = Fetch(context.Background(), dir, []Set{testSet()}, FetchOptions{Mirror: "http://" + addr})
	if err == nil || !strings.Contains(err.Error(), "GET http://"+addr+"/owner/repo/") || !strings.Contains(err.Error(), "cannot reach "+addr) || !strings.Contains(err.Error(), "is the mirror running") {
		t.Errorf("error %v, want one naming the mirror %s", err, addr)
	}
	noTemporaries(t, dir)
}

func TestFetchMirrorMissingFile(t *testing.T) {
	files := goodFiles()
	delete(files, srcLic)
	srv := newServer(t, files)
	_, err := Fetch(context.Background(), t.TempDir(), []Set{testSet()}, FetchOptions{Mirror: srv.URL})
	if err == nil || !strings.Contains(err.Error(), "/owner/repo/"+testCommit+"/LICENSE: 404 Not Found") || !strings.Contains(err.Error(), MirrorLayout) {
		t.Errorf("error %v, want a 404 with the mirror layout", err)
	}
	if _, err := Fetch(context.Background(), t.TempDir(), nil, FetchOptions{Mirror: "ftp://example.org"}); err == nil {
		t.Error("an ftp mirror was accepted")
	}
}

func TestFetchWrongConverterIsRefused(t *testing.T) {
	srv := newServer(t, goodFiles())
	set := testSet()
	set.Files[0].SHA256 = sum([]byte("something else"))
	dir := t.TempDir()
	_, err := Fetch(context.Background(), dir, []Set{set}, FetchOptions{Mirror: srv.URL})
	if err == nil || !strings.Contains(err.Error(), "tiny/ac.txt: converted from a.txt, c.txt: sha256 "+sum([]byte("ALPHA\nGAMMA\n"))) {
		t.Errorf("error %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "tiny", "ac.txt")); err == nil {
		t.Error("a converted file with the wrong sum was installed")
	}
}

func TestCheckStates(t *testing.T) {
	dir := t.TempDir()
	set := testSet()
	if st := Check(dir, &set); st.State != SetMissing || len(st.Problems()) != 4 || st.Problems()[0] != "tiny/ac.txt: missing" {
		t.Errorf("empty directory: %v %q", st.State, st.Problems())
	}
	os.MkdirAll(filepath.Join(dir, "tiny"), 0o755)
	os.WriteFile(filepath.Join(dir, "tiny", "a.txt"), []byte("alpha\n"), 0o644)
	if st := Check(dir, &set); st.State != SetPartial || len(st.Problems()) != 3 {
		t.Errorf("one file: %v %q", st.State, st.Problems())
	}
	os.WriteFile(filepath.Join(dir, "tiny", "b.txt"), []byte("beta?\n"), 0o644)
	if st := Check(dir, &set); st.State != SetModified || st.State.String() != "modified" {
		t.Errorf("a modified file: %v", st.State)
	}
}

// TestCheckFIFO: a FIFO in the data directory is reported as unreadable, not waited on (verify
// and list would block until a writer came, deaf to Ctrl-C).
func TestCheckFIFO(t *testing.T) {
	dir := t.TempDir()
	set := testSet()
	os.MkdirAll(filepath.Join(dir, "tiny"), 0o755)
	if err := mkfifo(filepath.Join(dir, "tiny", "a.txt")); err != nil {
		t.Skipf("no FIFO: %v", err)
	}
	done := make(chan SetStatus, 1)
	go func() { done <- Check(dir, &set) }()
	select {
	case st := <-done:
		if st.State != SetModified || !strings.Contains(strings.Join(st.Problems(), "\n"), "is not a regular file") {
			t.Errorf("a FIFO: %v %q", st.State, st.Problems())
		}
	case <-time.After(time.Minute): // a bound on a hang, which a loaded machine meets
		t.Fatal("Check waits on a FIFO")
	}
}

func TestCatalogWellFormed(t *testing.T) {
	hex := regexp.MustCompile(`^[0-9a-f]{64}$`)
	commit := regexp.MustCompile(`^[0-9a-f]{40}$`)
	names := map[string]bool{}
	for _, s := range Catalog {
		if names[s.Name] || s.Title == "" || s.Licence == "" || s.About == "" {
			t.Errorf("set %q: duplicate name or empty title, licence or about", s.Name)
		}
		names[s.Name] = true
		files := map[string]bool{"README.md": true}
		for _, f := range s.Files {
			// Only an optional file may lack a sum (it is then neither fetched nor checked).
			if files[f.Name] || !hex.MatchString(f.SHA256) && !(f.Optional != "" && f.SHA256 == "") || len(f.From) == 0 {
				t.Errorf("%s/%s: duplicate name, bad sum or no source", s.Name, f.Name)
			}
			files[f.Name] = true
			if !f.Derived() && (len(f.From) != 1 || f.From[0].SHA256 != f.SHA256) {
				t.Errorf("%s/%s: a download has one source with the installed sum", s.Name, f.Name)
			}
			if f.Derived() && f.How == "" {
				t.Errorf("%s/%s: a derived file says how it is made", s.Name, f.Name)
			}
			for _, src := range f.From {
				if !hex.MatchString(src.SHA256) && src.SHA256 != f.SHA256 || !commit.MatchString(src.Commit) || strings.Count(src.Repo, "/") != 1 {
					t.Errorf("%s/%s: source %+v", s.Name, f.Name, src)
				}
				// A mirror folder holds it at this path: no element may leave or skip a folder.
				for _, e := range strings.Split(src.MirrorPath(), "/") {
					if e == "" || e == "." || e == ".." || strings.ContainsRune(e, '\\') {
						t.Errorf("%s/%s: source path %q has an element %q", s.Name, f.Name, src.MirrorPath(), e)
					}
				}
			}
		}
		// Kept sources are named by the last element of their path: it must tell them apart.
		for _, k := range s.KeptSources() {
			if files[k.Name] {
				t.Errorf("%s: two kept sources, or a kept source and a file, are named %s", s.Name, k.Name)
			}
			files[k.Name] = true
		}
	}
	want := "https://raw.githubusercontent.com/hoadley-lab/pam50/17837fa54cfe7264e45d8aa3f02e16278ee1fb9a/.legacy/bioclassifier_R/220arrays_nonUBCcommon+12normal_50g.txt"
	if got := pam50Training.URL(DefaultBase); got != want {
		t.Errorf("URL %s, want %s", got, want)
	}
	if got := srcB.URL("http://mirror.example/x/"); got != "http://mirror.example/x/owner/repo/"+testCommit+"/sub%20dir/b+.txt" {
		t.Errorf("mirror URL %s", got)
	}
}

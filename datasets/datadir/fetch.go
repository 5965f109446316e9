package datadir

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"
)

// EnvMirror is the environment variable that names a mirror to fetch from (the -mirror flag
// overrides it); see Fetch for the layout a mirror serves.
const EnvMirror = "HCBENCH_DATA_MIRROR"

// DefaultTimeout bounds one download when FetchOptions.Timeout is 0.
const DefaultTimeout = 2 * time.Minute

// MirrorLayout says where a mirror holds a file, for messages and help texts.
const MirrorLayout = "a mirror replaces " + DefaultBase + ": it serves each source file at MIRROR/OWNER/REPO/COMMIT/PATH, " +
	"a folder or file:// URL laid out so (`hcbench data mirror DIR` writes one) or a web server over such a folder"

// OfflineHint says what to do without access to the sources, for messages.
const OfflineHint = "point -data (or $" + EnvDir + ") at a data directory that holds the files already (`hcbench data verify -data DIR` checks it), " +
	"or fetch from a mirror with -mirror DIR|URL (or $" + EnvMirror + ")"

// tempPrefix starts the names of the temporary files that Fetch writes in a set's folder.
const tempPrefix = ".hcbench-fetch-"

// FetchOptions configures Fetch.
type FetchOptions struct {
	// Mirror replaces DefaultBase (MIRROR/OWNER/REPO/COMMIT/PATH): an http or https URL, a
	// file:// URL or a folder (relative to the working directory); "" for none.
	Mirror string
	// Client makes the requests; nil for a plain http.Client.
	Client *http.Client
	// Timeout bounds each download; 0 for DefaultTimeout.
	Timeout time.Duration
	// Progress receives a line for each file: present, downloading, installed; nil for none.
	Progress io.Writer
}

// FetchReport lists what Fetch did, as paths relative to the data directory ("uci/iris.csv").
type FetchReport struct {
	Present   []string // there already with the right sum
	Installed []string // downloaded or derived, checked and moved into place
	Kept      []string // sources of derived files downloaded into SET/sources (Set.KeptSources)
	Failed    []string // not installed; the error says why
}

// schemeRE matches the start of a URL: a scheme and "://".
var schemeRE = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9+.-]*://`)

// CheckMirror checks a mirror: an http or https URL with a host, or a folder that exists, named
// by its path or a file:// URL. It returns the mirror's base URL, or its folder (absolute).
func CheckMirror(mirror string) (base, dir string, err error) {
	bad := func(why string) (string, string, error) {
		return "", "", fmt.Errorf("mirror %q: %s; want an http://, https:// or file:// URL or a folder (%s)", mirror, why, MirrorLayout)
	}
	dir = mirror
	if schemeRE.MatchString(mirror) {
		u, err := url.Parse(mirror)
		switch {
		case err != nil:
			return bad(err.Error())
		case (u.Scheme == "http" || u.Scheme == "https") && u.Host != "":
			return strings.TrimRight(mirror, "/"), "", nil
		case u.Scheme != "file":
			return bad("not an http, https or file URL with a host")
		case u.Host != "" && u.Host != "localhost":
			return bad("a file URL names a folder of this machine (file:///PATH)")
		}
		dir = filepath.FromSlash(u.Path)
	}
	if dir, err = filepath.Abs(dir); err != nil {
		return bad(err.Error())
	}
	if st, err := os.Stat(dir); err != nil {
		return bad(err.Error())
	} else if !st.IsDir() {
		return bad(dir + " is not a folder")
	}
	return "", dir, nil
}

// Fetch installs the files of sets into the data directory dir, each set in its folder dir/SET:
// a file that is there with the right SHA-256 is kept; any other is downloaded from its source
// (DefaultBase/OWNER/REPO/COMMIT/PATH, or the same path under opts.Mirror) into a temporary file
// of the set's folder and checked against the source's sum, or, for a derived file, converted
// from its checked sources; the result is checked against the file's installed sum and only then
// renamed into place. A download with the wrong sum is refused and nothing of it is installed;
// temporary files are removed whatever happens. The sources of derived files that are no file of
// the set are kept in dir/SET/sources (Set.KeptSources), downloaded when missing even if the
// derived files are present, so that the data directory can serve as a mirror (WriteMirror).
// An optional file without a sum (File.Optional) is not fetched. After a set is complete Fetch writes its README.md (what it is, sources, licence) when it
// installed or kept something or the README is missing.
//
// Fetch goes on with the other files after a failed one and returns every failure joined; it
// stops at the first host it cannot reach, and when ctx is cancelled it stops at once with an
// error that wraps ctx.Err().
func Fetch(ctx context.Context, dir string, sets []Set, opts FetchOptions) (*FetchReport, error) {
	f := &fetcher{base: DefaultBase, client: opts.Client, timeout: opts.Timeout, progress: opts.Progress}
	if opts.Mirror != "" {
		var err error
		if f.base, f.dir, err = CheckMirror(opts.Mirror); err != nil {
			return nil, err
		}
		f.mirrored = true
	}
	if f.client == nil {
		f.client = &http.Client{}
	}
	if f.timeout <= 0 {
		f.timeout = DefaultTimeout
	}
	if f.progress == nil {
		f.progress = io.Discard
	}
	rep := &FetchReport{}
	var errs []error
	for i := range sets {
		if err := f.fetchSet(ctx, dir, &sets[i], rep); err != nil {
			errs = append(errs, err)
			if ctx.Err() != nil || errors.Is(err, errUnreachable) {
				break
			}
		}
	}
	return rep, errors.Join(errs...)
}

// errUnreachable marks the error of a host that could not be reached: Fetch stops there rather
// than try every other file of the same host.
var errUnreachable = errors.New("host unreachable")

type unreachableError struct{ msg string }

func (e *unreachableError) Error() string        { return e.msg }
func (e *unreachableError) Is(target error) bool { return target == errUnreachable }

type fetcher struct {
	base     string // the base URL, when dir is ""
	dir      string // a mirror's folder, or ""
	mirrored bool
	client   *http.Client
	timeout  time.Duration
	progress io.Writer
}

func (f *fetcher) logf(format string, args ...any) { fmt.Fprintf(f.progress, format+"\n", args...) }

// fetchStep is one pass of fetchSet over files of a set: the downloads, the kept sources, or the
// derived files, in that order, so that the kept sources are downloaded once and the derived files
// read every source from the set's folder.
type fetchStep struct {
	files  []File
	source bool // the files keep sources (Set.KeptSources)
}

func (f *fetcher) fetchSet(ctx context.Context, dir string, s *Set, rep *FetchReport) error {
	setDir := filepath.Join(dir, s.Name)
	if err := os.MkdirAll(setDir, 0o755); err != nil {
		for _, file := range s.Files {
			rep.Failed = append(rep.Failed, s.Name+"/"+file.Name)
		}
		return fmt.Errorf("%s: %w", s.Name, err)
	}
	var downloads, derived []File
	for _, file := range s.Files {
		if file.Derived() {
			derived = append(derived, file)
		} else {
			downloads = append(downloads, file)
		}
	}
	var errs []error
	changed := 0
	for _, step := range []fetchStep{{downloads, false}, {s.KeptSources(), true}, {derived, false}} {
		for i := range step.files {
			file := &step.files[i]
			rel := s.Name + "/" + file.Name
			if ctx.Err() != nil {
				return errors.Join(append(errs, fmt.Errorf("%s: not fetched: %w", rel, ctx.Err()))...)
			}
			if file.SHA256 == "" {
				// An optional file whose sum the catalog lacks: nothing could check a download.
				f.logf("%s: optional, not fetched: %s", rel, file.Optional)
				continue
			}
			dst := filepath.Join(setDir, filepath.FromSlash(file.Name))
			got, err := fileSum(dst)
			if err == nil && got == file.SHA256 {
				if !step.source {
					f.logf("%s: present", rel)
					rep.Present = append(rep.Present, rel)
				}
				continue
			}
			if err == nil {
				f.logf("%s: modified (sha256 %s), fetching it again", rel, got)
			}
			if err := f.install(ctx, s, file, setDir); err != nil {
				rep.Failed = append(rep.Failed, rel)
				errs = append(errs, fmt.Errorf("%s: %w", rel, err))
				if ctx.Err() != nil || errors.Is(err, errUnreachable) {
					return errors.Join(errs...)
				}
				continue
			}
			changed++
			if step.source {
				rep.Kept = append(rep.Kept, rel)
			} else {
				rep.Installed = append(rep.Installed, rel)
			}
		}
	}
	if len(errs) > 0 {
		return errors.Join(errs...)
	}
	readme := filepath.Join(setDir, "README.md")
	if _, err := os.Stat(readme); changed > 0 || err != nil {
		if err := writeAtomic(setDir, "README.md", []byte(Readme(s))); err != nil {
			return fmt.Errorf("%s/README.md: %w", s.Name, err)
		}
		f.logf("%s/README.md: written", s.Name)
	}
	return nil
}

// install makes one file: downloads it, or converts it from its sources, checks it and renames
// it into place (a kept source into the set's SourcesDir, made when missing).
func (f *fetcher) install(ctx context.Context, s *Set, file *File, setDir string) error {
	if !file.Derived() {
		if len(file.From) != 1 || file.From[0].SHA256 != file.SHA256 {
			return fmt.Errorf("catalog: a downloaded file has one source with its own sum")
		}
		tmp, err := f.download(ctx, setDir, file.From[0])
		if err != nil {
			return err
		}
		dst := filepath.Join(setDir, filepath.FromSlash(file.Name))
		err = os.MkdirAll(filepath.Dir(dst), 0o755)
		if err == nil {
			err = os.Rename(tmp, dst)
		}
		if err != nil {
			os.Remove(tmp)
			return err
		}
		f.logf("%s/%s: installed (sha256 ok)", s.Name, file.Name)
		return nil
	}
	srcs := make([][]byte, len(file.From))
	for i, src := range file.From {
		b, err := f.source(ctx, s, setDir, src)
		if err != nil {
			return err
		}
		srcs[i] = b
	}
	out, err := file.Convert(srcs)
	if err != nil {
		return fmt.Errorf("converting %s: %w", sourceNames(file.From), err)
	}
	if got := sum(out); got != file.SHA256 {
		return fmt.Errorf("converted from %s: sha256 %s, expected %s; not installed (the converter does not reproduce the catalog's file)", sourceNames(file.From), got, file.SHA256)
	}
	if err := writeAtomic(setDir, file.Name, out); err != nil {
		return err
	}
	f.logf("%s/%s: derived from %s, installed (sha256 ok)", s.Name, file.Name, sourceNames(file.From))
	return nil
}

// source returns the checked bytes of a source: from the file of the set's folder that holds it
// byte for byte (Set.SourceFile), else downloaded.
func (f *fetcher) source(ctx context.Context, s *Set, setDir string, src Source) ([]byte, error) {
	held := s.SourceFile(src)
	if b, err := readChecked(filepath.Join(setDir, filepath.FromSlash(held.Name)), src.SHA256); err == nil {
		return b, nil
	}
	tmp, err := f.download(ctx, setDir, src)
	if err != nil {
		return nil, err
	}
	defer os.Remove(tmp)
	return readChecked(tmp, src.SHA256)
}

// readChecked reads a regular file and checks its bytes against a SHA-256.
func readChecked(path, want string) ([]byte, error) {
	fh, err := openRegular(path)
	if err != nil {
		return nil, err
	}
	defer fh.Close()
	b, err := io.ReadAll(fh)
	if err != nil {
		return nil, err
	}
	if got := sum(b); got != want {
		return nil, fmt.Errorf("%s: sha256 %s, expected %s", path, got, want)
	}
	return b, nil
}

// download copies a source from its URL or the mirror's folder into a temporary file of dir and
// checks its sum; it returns the temporary file's path, or an error and no file.
func (f *fetcher) download(ctx context.Context, dir string, src Source) (path string, err error) {
	var (
		body  io.ReadCloser
		where string
	)
	rctx, cancel := context.WithTimeout(ctx, f.timeout)
	defer cancel()
	if f.dir != "" {
		body, where, err = f.openLocal(rctx, src)
	} else {
		body, where, err = f.get(ctx, rctx, src)
	}
	if err != nil {
		return "", err
	}
	defer body.Close()
	t, err := os.CreateTemp(dir, tempPrefix+"*")
	if err != nil {
		return "", err
	}
	defer func() {
		if err != nil {
			t.Close()
			os.Remove(t.Name())
		}
	}()
	h := sha256.New()
	n, err := io.Copy(io.MultiWriter(t, h), body)
	if err != nil {
		var werr *os.PathError
		if errors.As(err, &werr) || f.dir != "" {
			return "", fmt.Errorf("%s: %w", where, err)
		}
		return "", f.netErr(ctx, rctx, src.URL(f.base), err)
	}
	if err = t.Chmod(0o644); err != nil {
		return "", err
	}
	if err = t.Close(); err != nil {
		return "", err
	}
	if got := hex.EncodeToString(h.Sum(nil)); got != src.SHA256 {
		err = fmt.Errorf("%s: sha256 mismatch: expected %s, got %s (%d bytes); refused, not installed", where, src.SHA256, got, n)
		return "", err
	}
	return t.Name(), nil
}

// get starts a GET of the source's URL; where names it for messages ("GET URL").
func (f *fetcher) get(ctx, rctx context.Context, src Source) (body io.ReadCloser, where string, err error) {
	u := src.URL(f.base)
	where = "GET " + u
	f.logf("%s", where)
	req, err := http.NewRequestWithContext(rctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, where, err
	}
	resp, err := f.client.Do(req)
	if err != nil {
		return nil, where, f.netErr(ctx, rctx, u, err)
	}
	if resp.StatusCode != http.StatusOK {
		resp.Body.Close()
		hint := ""
		if f.mirrored {
			hint = " (" + MirrorLayout + ")"
		}
		return nil, where, fmt.Errorf("%s: %s%s", where, resp.Status, hint)
	}
	return resp.Body, where, nil
}

// openLocal opens the source's file in the mirror's folder; where names it for messages. The
// reader stops with ctx's error once ctx is done (a file on a stalled network file system).
func (f *fetcher) openLocal(ctx context.Context, src Source) (body io.ReadCloser, where string, err error) {
	p := filepath.Join(f.dir, filepath.FromSlash(src.MirrorPath()))
	where = "mirror file " + p
	f.logf("read %s", p)
	fh, err := openRegular(p)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, where, fmt.Errorf("%s: not in the mirror (%s)", where, MirrorLayout)
	} else if err != nil {
		return nil, where, err
	}
	return ctxReader{ctx, fh}, where, nil
}

// ctxReader reads from a file until ctx is done.
type ctxReader struct {
	ctx context.Context
	*os.File
}

func (r ctxReader) Read(p []byte) (int, error) {
	if err := r.ctx.Err(); err != nil {
		return 0, err
	}
	return r.File.Read(p)
}

// netErr words a failed request: interrupted, timed out, or a host that could not be reached.
func (f *fetcher) netErr(ctx, rctx context.Context, u string, err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err
	}
	switch {
	case ctx.Err() != nil:
		return fmt.Errorf("GET %s: interrupted: %w", u, ctx.Err())
	case rctx.Err() != nil:
		return fmt.Errorf("GET %s: no complete answer within %v", u, f.timeout)
	}
	hint := "without access to " + DefaultBase + ", " + OfflineHint + " (" + MirrorLayout + ")"
	if f.mirrored {
		hint = "is the mirror running and reachable? (" + MirrorLayout + ")"
	}
	host := u
	if p, perr := url.Parse(u); perr == nil {
		host = p.Host
	}
	return &unreachableError{fmt.Sprintf("GET %s: cannot reach %s: %v; %s", u, host, err, hint)}
}

// writeAtomic writes data to dir/name through a temporary file of dir and a rename.
func writeAtomic(dir, name string, data []byte) (err error) {
	t, err := os.CreateTemp(dir, tempPrefix+"*")
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			t.Close()
			os.Remove(t.Name())
		}
	}()
	if _, err = t.Write(data); err != nil {
		return err
	}
	if err = t.Chmod(0o644); err != nil {
		return err
	}
	if err = t.Sync(); err != nil {
		return err
	}
	if err = t.Close(); err != nil {
		return err
	}
	return os.Rename(t.Name(), filepath.Join(dir, name))
}

func sourceNames(srcs []Source) string {
	names := make([]string, len(srcs))
	for i, s := range srcs {
		names[i] = s.Path[strings.LastIndex(s.Path, "/")+1:]
	}
	return strings.Join(names, ", ")
}

func sum(b []byte) string {
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:])
}

// fileSum returns the SHA-256 of a file's bytes.
func fileSum(path string) (string, error) {
	fh, err := openRegular(path)
	if err != nil {
		return "", err
	}
	defer fh.Close()
	h := sha256.New()
	if _, err := io.Copy(h, fh); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// openRegular opens a regular file for reading and refuses anything else: a FIFO or device would
// block the open or the read, without a context to end the wait.
func openRegular(path string) (*os.File, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file (%v)", path, st.Mode().Type())
	}
	return os.Open(path)
}

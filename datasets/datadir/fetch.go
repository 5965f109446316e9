package datadir

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// EnvMirror is the environment variable that names a mirror to fetch from (the -mirror flag
// overrides it); see Fetch for the layout a mirror serves.
const EnvMirror = "HCBENCH_DATA_MIRROR"

// DefaultTimeout bounds one download when FetchOptions.Timeout is 0.
const DefaultTimeout = 2 * time.Minute

// MirrorLayout says where a mirror holds a file, for messages and help texts.
const MirrorLayout = "a mirror replaces " + DefaultBase + ": it serves each source file at MIRROR/OWNER/REPO/COMMIT/PATH"

// tempPrefix starts the names of the temporary files that Fetch writes in a set's folder.
const tempPrefix = ".hcbench-fetch-"

// FetchOptions configures Fetch.
type FetchOptions struct {
	// Mirror replaces DefaultBase in every source URL (MIRROR/OWNER/REPO/COMMIT/PATH); "" for none.
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
	Failed    []string // not installed; the error says why
}

// CheckMirror checks a mirror base URL: http or https with a host.
func CheckMirror(mirror string) error {
	u, err := url.Parse(mirror)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("mirror %q: want an http:// or https:// URL (%s)", mirror, MirrorLayout)
	}
	return nil
}

// Fetch installs the files of sets into the data directory dir, each set in its folder dir/SET:
// a file that is there with the right SHA-256 is kept; any other is downloaded from its source
// (DefaultBase/OWNER/REPO/COMMIT/PATH, or the same path under opts.Mirror) into a temporary file
// of the set's folder and checked against the source's sum, or, for a derived file, converted
// from its checked sources; the result is checked against the file's installed sum and only then
// renamed into place. A download with the wrong sum is refused and nothing of it is installed;
// temporary files are removed whatever happens. After a set is complete Fetch writes its
// README.md (what it is, sources, licence) when it installed something or the README is missing.
//
// Fetch goes on with the other files after a failed one and returns every failure joined; it
// stops at the first host it cannot reach, and when ctx is cancelled it stops at once with an
// error that wraps ctx.Err().
func Fetch(ctx context.Context, dir string, sets []Set, opts FetchOptions) (*FetchReport, error) {
	base := DefaultBase
	if opts.Mirror != "" {
		if err := CheckMirror(opts.Mirror); err != nil {
			return nil, err
		}
		base = strings.TrimRight(opts.Mirror, "/")
	}
	f := &fetcher{base: base, mirrored: opts.Mirror != "", client: opts.Client, timeout: opts.Timeout, progress: opts.Progress}
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
	base     string
	mirrored bool
	client   *http.Client
	timeout  time.Duration
	progress io.Writer
	cache    map[string][]byte // checked source bytes by URL, within one set
}

func (f *fetcher) logf(format string, args ...any) { fmt.Fprintf(f.progress, format+"\n", args...) }

func (f *fetcher) fetchSet(ctx context.Context, dir string, s *Set, rep *FetchReport) error {
	setDir := filepath.Join(dir, s.Name)
	if err := os.MkdirAll(setDir, 0o755); err != nil {
		for _, file := range s.Files {
			rep.Failed = append(rep.Failed, s.Name+"/"+file.Name)
		}
		return fmt.Errorf("%s: %w", s.Name, err)
	}
	f.cache = map[string][]byte{}
	var errs []error
	installed := 0
	// Downloads first, so that derived files read their sources from the installed copies.
	for _, derived := range []bool{false, true} {
		for i := range s.Files {
			file := &s.Files[i]
			if file.Derived() != derived {
				continue
			}
			rel := s.Name + "/" + file.Name
			if ctx.Err() != nil {
				return errors.Join(append(errs, fmt.Errorf("%s: not fetched: %w", rel, ctx.Err()))...)
			}
			dst := filepath.Join(setDir, file.Name)
			got, err := fileSum(dst)
			if err == nil && got == file.SHA256 {
				f.logf("%s: present", rel)
				rep.Present = append(rep.Present, rel)
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
			installed++
			rep.Installed = append(rep.Installed, rel)
		}
	}
	if len(errs) > 0 {
		return errors.Join(errs...)
	}
	readme := filepath.Join(setDir, "README.md")
	if _, err := os.Stat(readme); installed > 0 || err != nil {
		if err := writeAtomic(setDir, "README.md", []byte(Readme(s))); err != nil {
			return fmt.Errorf("%s/README.md: %w", s.Name, err)
		}
		f.logf("%s/README.md: written", s.Name)
	}
	return nil
}

// install makes one file: downloads it, or converts it from its sources, checks it and renames
// it into place.
func (f *fetcher) install(ctx context.Context, s *Set, file *File, setDir string) error {
	if !file.Derived() {
		if len(file.From) != 1 || file.From[0].SHA256 != file.SHA256 {
			return fmt.Errorf("catalog: a downloaded file has one source with its own sum")
		}
		tmp, err := f.download(ctx, setDir, file.From[0])
		if err != nil {
			return err
		}
		if err := os.Rename(tmp, filepath.Join(setDir, file.Name)); err != nil {
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

// source returns the checked bytes of a source: from the installed file of the set that is its
// byte-for-byte copy, else from this set's earlier downloads, else downloaded.
func (f *fetcher) source(ctx context.Context, s *Set, setDir string, src Source) ([]byte, error) {
	for _, other := range s.Files {
		if !other.Derived() && len(other.From) == 1 && other.From[0] == src {
			if b, err := os.ReadFile(filepath.Join(setDir, other.Name)); err == nil && sum(b) == src.SHA256 {
				return b, nil
			}
		}
	}
	u := src.URL(f.base)
	if b, ok := f.cache[u]; ok {
		return b, nil
	}
	tmp, err := f.download(ctx, setDir, src)
	if err != nil {
		return nil, err
	}
	defer os.Remove(tmp)
	b, err := os.ReadFile(tmp)
	if err != nil {
		return nil, err
	}
	if got := sum(b); got != src.SHA256 {
		return nil, fmt.Errorf("%s: changed on disk while fetching (sha256 %s)", tmp, got)
	}
	f.cache[u] = b
	return b, nil
}

// download GETs a source into a temporary file of dir and checks its sum; it returns the
// temporary file's path, or an error and no file.
func (f *fetcher) download(ctx context.Context, dir string, src Source) (path string, err error) {
	u := src.URL(f.base)
	f.logf("GET %s", u)
	rctx, cancel := context.WithTimeout(ctx, f.timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(rctx, http.MethodGet, u, nil)
	if err != nil {
		return "", err
	}
	resp, err := f.client.Do(req)
	if err != nil {
		return "", f.netErr(ctx, rctx, u, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		hint := ""
		if f.mirrored {
			hint = " (" + MirrorLayout + ")"
		}
		return "", fmt.Errorf("GET %s: %s%s", u, resp.Status, hint)
	}
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
	n, err := io.Copy(io.MultiWriter(t, h), resp.Body)
	if err != nil {
		var werr *os.PathError
		if errors.As(err, &werr) {
			return "", err
		}
		return "", f.netErr(ctx, rctx, u, err)
	}
	if err = t.Chmod(0o644); err != nil {
		return "", err
	}
	if err = t.Close(); err != nil {
		return "", err
	}
	if got := hex.EncodeToString(h.Sum(nil)); got != src.SHA256 {
		err = fmt.Errorf("GET %s: sha256 mismatch: expected %s, got %s (%d bytes); refused, not installed", u, src.SHA256, got, n)
		return "", err
	}
	return t.Name(), nil
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
	hint := "without access to " + DefaultBase + ", fetch from a mirror with -mirror URL or $" + EnvMirror + " (" + MirrorLayout + ")"
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
	// A FIFO or device would block the open or the read, without a context to end the wait.
	if st, err := os.Stat(path); err != nil {
		return "", err
	} else if !st.Mode().IsRegular() {
		return "", fmt.Errorf("%s is not a regular file (%v)", path, st.Mode().Type())
	}
	fh, err := os.Open(path)
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

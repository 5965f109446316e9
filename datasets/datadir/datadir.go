// Package datadir is hcbench's data directory: where it is, which data sets it holds and where
// each comes from. The real data sets that the shipped configs and the tests read (pam50, the UCI
// sets, the public ClusterTrellis jets) are never part of the repository: `hcbench data fetch`
// downloads them from their public sources into the data directory, checks their SHA-256 sums and
// converts them where hcbench reads another format than the source's.
//
// The data directory is one setting: the -data flag, else $HCBENCH_DATA, else the default,
// hcbench/data in the user's cache directory (os.UserCacheDir: $XDG_CACHE_HOME or ~/.cache on
// Linux, ~/Library/Caches on macOS). A config names a file inside it as "data:SET/FILE", for
// example "data:uci/iris.csv"; every other path is relative to the config file.
//
// The Catalog names, for every file, the SHA-256 of its bytes as installed and where it comes
// from: a file of a public GitHub repository at a fixed commit, downloaded from
// https://raw.githubusercontent.com/OWNER/REPO/COMMIT/PATH and installed byte for byte, or a file
// that a converter in Go derives from such downloads (pam50's zero-filled CSV and example match,
// scikit-learn's digits.csv.gz with Debian's gzip header, the ClusterTrellis pickles as JSON
// Lines, read by package pickle). Fetch downloads into temporary files of the set's folder, checks
// every source and every result against its sum and renames a file into place only when it is
// right; Check compares a folder with the catalog. Each set's folder also holds the licence file
// of its source where there is one, a README.md that Fetch writes, and in sources/ the downloaded
// sources of its derived files that are no file of the set, so that the data directory holds
// every source it was made from.
//
// A mirror (the -mirror flag of `hcbench data fetch`, else $HCBENCH_DATA_MIRROR) replaces
// https://raw.githubusercontent.com: it serves each source file at MIRROR/OWNER/REPO/COMMIT/PATH.
// It is a folder laid out so (a path or a file:// URL), or an http or https server of such a
// folder (`python3 -m http.server`), for machines without internet and for tests. WriteMirror
// (`hcbench data mirror DIR`) writes such a folder from a data directory.
package datadir

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// EnvDir is the environment variable that sets the data directory (the -data flag overrides it).
const EnvDir = "HCBENCH_DATA"

// Prefix starts a config path that lies inside the data directory: "data:uci/iris.csv".
const Prefix = "data:"

// Location is a resolved data directory and the setting it came from, for messages.
type Location struct {
	Path string
	// From says which setting chose Path: "-data", "$HCBENCH_DATA" or "the default".
	From string
}

func (l Location) String() string { return l.Path + " (" + l.From + ")" }

// Locate resolves the data directory: flag when it is not empty, else the environment variable
// EnvDir (read through getenv), else Default. A relative path is made absolute against the
// directory it was set in, so that tests and commands run from other directories agree on it: a
// flag's, and the variable's in a command, against the working directory. In a test binary the
// working directory is the package's folder (`go test ./...` runs each package there), not the
// directory the variable was set in, so a relative $HCBENCH_DATA is taken from the module root
// instead: the nearest folder that holds go.mod at or above the folder the test binary started in
// (a test that changes its working directory does not change it); with no go.mod above, it is
// refused, with the fix. Location.From then says so.
func Locate(flag string, getenv func(string) string) (Location, error) {
	loc := Location{Path: flag, From: "-data"}
	if loc.Path == "" {
		loc = Location{Path: getenv(EnvDir), From: "$" + EnvDir}
	}
	if loc.Path == "" {
		d, err := Default()
		if err != nil {
			return Location{}, err
		}
		loc = Location{Path: d, From: "the default"}
	}
	if loc.From == "$"+EnvDir && !filepath.IsAbs(loc.Path) && inTest() {
		root, err := moduleRoot()
		if err != nil {
			return Location{}, fmt.Errorf("$%s=%s is relative, and tests run in their package's folder, not where it was set, so they take it from the module root; %v: set %s to an absolute path (%s=$(realpath %s))",
				EnvDir, loc.Path, err, EnvDir, EnvDir, loc.Path)
		}
		loc.From = fmt.Sprintf("$%s=%s, from the module root %s", EnvDir, loc.Path, root)
		loc.Path = filepath.Join(root, loc.Path)
	}
	abs, err := filepath.Abs(loc.Path)
	if err != nil {
		return Location{}, fmt.Errorf("data directory %s: %w", loc, err)
	}
	loc.Path = abs
	return loc, nil
}

// inTest reports whether the process is a test binary; tests replace it to see a command's view.
var inTest = testing.Testing

// startDir is the working directory the process started in, for a test binary its package's
// folder, read before any test can change it; "" when it could not be read.
var startDir, _ = os.Getwd()

// moduleRoot returns the nearest directory at or above startDir that holds go.mod.
func moduleRoot() (string, error) {
	wd := startDir
	if wd == "" {
		return "", fmt.Errorf("the working directory the process started in is unknown")
	}
	for d := wd; ; {
		if st, err := os.Stat(filepath.Join(d, "go.mod")); err == nil && st.Mode().IsRegular() {
			return d, nil
		}
		up := filepath.Dir(d)
		if up == d {
			return "", fmt.Errorf("no go.mod in %s or above", wd)
		}
		d = up
	}
}

// Default returns the default data directory: hcbench/data in the user's cache directory.
func Default() (string, error) {
	c, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("no default data directory (%v); set %s or pass -data DIR", err, EnvDir)
	}
	return filepath.Join(c, "hcbench", "data"), nil
}

// IsRef reports whether a config path names a file of the data directory ("data:SET/FILE").
func IsRef(p string) bool { return strings.HasPrefix(p, Prefix) }

// Rel returns the path of a reference relative to the data directory ("uci/iris.csv"), checked
// to stay inside it; ok is false for a path that is no reference.
func Rel(ref string) (rel string, ok bool, err error) {
	rest, ok := strings.CutPrefix(ref, Prefix)
	if !ok {
		return "", false, nil
	}
	rel = filepath.Clean(filepath.FromSlash(rest))
	if rest == "" || filepath.IsAbs(rel) || rel == "." || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return "", true, fmt.Errorf("%q: a data reference names a file inside the data directory, as in %suci/iris.csv", ref, Prefix)
	}
	return rel, true, nil
}

// SetOf returns the name of the data set a path relative to the data directory belongs to (its
// first element), or "" when no data set of the catalog holds it.
func SetOf(rel string) string {
	first, _, _ := strings.Cut(filepath.ToSlash(rel), "/")
	if s := Lookup(first); s != nil {
		return s.Name
	}
	return ""
}

// MissingHint says what to do about a missing file rel of the data directory loc: which data set
// it belongs to and the command that fetches it. It is "" for a file of no data set.
func MissingHint(loc Location, rel string) string {
	s := Lookup(SetOf(rel))
	if s == nil {
		return fmt.Sprintf("the data directory is %s; no data set of `hcbench data list` holds %s", loc, filepath.ToSlash(rel))
	}
	return fmt.Sprintf("it belongs to the data set %s (%s), which is not fetched into the data directory %s: fetch it with `hcbench data fetch %s` (or set %s, or pass -data DIR)",
		s.Name, s.Title, loc, s.Name, EnvDir)
}

// ErrNoSet is returned for a data set name that the catalog does not hold.
var ErrNoSet = errors.New("no such data set")

// Lookup returns the data set of the catalog with the given name, or nil.
func Lookup(name string) *Set {
	for i := range Catalog {
		if Catalog[i].Name == name {
			return &Catalog[i]
		}
	}
	return nil
}

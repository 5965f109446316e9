// Package datatest gives tests the files of the data directory (package datadir): a test that
// needs a real data set asks for its file here, and is skipped, with a message naming the data
// set and the command that fetches it, when the file is not there. With HCBENCH_REQUIRE_DATA=1
// (as CI sets it) a missing file fails the test instead, so that CI never passes by skipping.
//
// The data directory is $HCBENCH_DATA, else the default (datadir.Locate). A relative
// $HCBENCH_DATA is taken from the module root, since `go test ./...` runs each package in its own
// folder: HCBENCH_DATA=../shared/data set in the module root means the same folder to every
// package. A $HCBENCH_DATA that names no directory fails every test that asks for a file, rather
// than skip it: the variable says the data sets are wanted, and a skip is silent without -v.
package datatest

import (
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/hcbench/hcbench/datasets/datadir"
)

// EnvRequire makes a missing data file fail a test instead of skipping it, when set to 1 (or any
// true value of strconv.ParseBool); 0 or unset skips. Any other value fails the test.
const EnvRequire = "HCBENCH_REQUIRE_DATA"

// Dir returns the data directory as the tests see it: $HCBENCH_DATA, else the default. It fails
// the test when $HCBENCH_DATA is set but names no directory.
func Dir(tb testing.TB) datadir.Location {
	tb.Helper()
	loc, err := datadir.Locate("", os.Getenv)
	if err != nil {
		tb.Fatal(err)
	}
	if os.Getenv(datadir.EnvDir) != "" {
		if st, err := os.Stat(loc.Path); err != nil || !st.IsDir() {
			tb.Fatalf("the data directory %s is no directory (%v); fetch the data sets into it with `hcbench data fetch -data %s`, or unset %s to skip the tests that need them",
				loc, statProblem(st, err), loc.Path, datadir.EnvDir)
		}
	}
	return loc
}

func statProblem(st os.FileInfo, err error) string {
	if err != nil {
		return err.Error()
	}
	return "a " + st.Mode().Type().String() + " file"
}

// Path returns the path of rel ("uci/iris.csv", slash-separated) in the data directory. When the
// file is missing, it skips the test (or, with HCBENCH_REQUIRE_DATA=1, fails it), naming the data
// set the file belongs to and the command that fetches it.
func Path(tb testing.TB, rel string) string {
	tb.Helper()
	p, loc, ok := lookup(tb, rel, "")
	if !ok {
		tb.Skip(missing(rel, "", loc) + "; skipped (" + EnvRequire + "=1 fails it instead)")
	}
	return p
}

// Optional returns the path of rel like Path, for a test that also runs without the file: when
// the file is missing it logs which part of the test is left out and returns false (with
// HCBENCH_REQUIRE_DATA=1 it fails the test instead).
func Optional(tb testing.TB, rel, part string) (string, bool) {
	tb.Helper()
	p, loc, ok := lookup(tb, rel, part)
	if !ok {
		tb.Log("left out: " + missing(rel, part, loc) + " (" + EnvRequire + "=1 fails it instead)")
	}
	return p, ok
}

// lookup returns the path of rel in the data directory loc and whether it is there; a missing
// file fails the test when EnvRequire asks for the data.
func lookup(tb testing.TB, rel, part string) (string, datadir.Location, bool) {
	tb.Helper()
	req := required(tb)
	loc := Dir(tb)
	p := filepath.Join(loc.Path, filepath.FromSlash(rel))
	if _, err := os.Stat(p); err == nil {
		return p, loc, true
	}
	if req {
		tb.Fatalf("%s (%s=%s)", missing(rel, part, loc), EnvRequire, os.Getenv(EnvRequire))
	}
	return "", loc, false
}

// missing words a missing file: what needs it, its data set and the command that fetches it.
func missing(rel, part string, loc datadir.Location) string {
	msg := "needs " + filepath.ToSlash(rel) + ": " + datadir.MissingHint(loc, rel)
	if part != "" {
		msg = part + " " + msg
	}
	return msg
}

// required reads EnvRequire; a value that is no boolean fails the test rather than be taken as
// "skip", which would let a misspelt setting pass CI by skipping.
func required(tb testing.TB) bool {
	tb.Helper()
	v := os.Getenv(EnvRequire)
	if v == "" {
		return false
	}
	b, err := strconv.ParseBool(v)
	if err != nil {
		tb.Fatalf("%s=%q: want 1 (a missing data file fails the test) or 0 (it skips the test)", EnvRequire, v)
	}
	return b
}

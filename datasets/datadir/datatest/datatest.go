// Package datatest gives tests the files of the data directory (package datadir): a test that
// needs a real data set asks for its file here, and is skipped, with a message naming the data
// set and the command that fetches it, when the file is not there. With HCBENCH_REQUIRE_DATA=1
// (as CI sets it) a missing file fails the test instead, so that CI never passes by skipping.
package datatest

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/hcbench/hcbench/datasets/datadir"
)

// EnvRequire makes a missing data file fail a test instead of skipping it, when set to 1.
const EnvRequire = "HCBENCH_REQUIRE_DATA"

// Dir returns the data directory as the tests see it: $HCBENCH_DATA, else the default.
func Dir(tb testing.TB) datadir.Location {
	tb.Helper()
	loc, err := datadir.Locate("", os.Getenv)
	if err != nil {
		tb.Fatal(err)
	}
	return loc
}

// Path returns the path of rel ("uci/iris.csv", slash-separated) in the data directory. When the
// file is missing, it skips the test (or, with HCBENCH_REQUIRE_DATA=1, fails it), naming the data
// set the file belongs to and the command that fetches it.
func Path(tb testing.TB, rel string) string {
	tb.Helper()
	loc := Dir(tb)
	p := filepath.Join(loc.Path, filepath.FromSlash(rel))
	if _, err := os.Stat(p); err != nil {
		msg := "needs " + filepath.ToSlash(rel) + ": " + datadir.MissingHint(loc, rel)
		if os.Getenv(EnvRequire) == "1" {
			tb.Fatalf("%s (%s=1)", msg, EnvRequire)
		}
		tb.Skip(msg)
	}
	return p
}

// Optional returns the path of rel like Path, for a test that also runs without the file: when
// the file is missing it logs which part of the test is left out and returns false (with
// HCBENCH_REQUIRE_DATA=1 it fails the test instead).
func Optional(tb testing.TB, rel, part string) (string, bool) {
	tb.Helper()
	loc := Dir(tb)
	p := filepath.Join(loc.Path, filepath.FromSlash(rel))
	if _, err := os.Stat(p); err != nil {
		msg := part + " needs " + filepath.ToSlash(rel) + ": " + datadir.MissingHint(loc, rel)
		if os.Getenv(EnvRequire) == "1" {
			tb.Fatalf("%s (%s=1)", msg, EnvRequire)
		}
		tb.Log("left out: " + msg)
		return "", false
	}
	return p, true
}

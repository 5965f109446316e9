package datadir

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestLocate: -data beats $HCBENCH_DATA, which beats the default; a relative -data is taken from
// the working directory; a relative $HCBENCH_DATA from the working directory in a command and
// from the module root in a test binary (the one above the folder it started in, whatever its
// working directory now), where a folder without go.mod above refuses it.
func TestLocate(t *testing.T) {
	env := func(v string) func(string) string {
		return func(k string) string {
			if k == EnvDir {
				return v
			}
			return ""
		}
	}
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	root := filepath.Dir(filepath.Dir(wd)) // this package is datasets/datadir
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		t.Fatal(err)
	}
	old := inTest
	t.Cleanup(func() { inTest = old })
	def, err := Default()
	if err != nil {
		t.Skip(err)
	}
	for _, c := range []struct {
		flag, env string
		test      bool
		path      string
		from      string
	}{
		{"/d/flag", "/d/env", true, "/d/flag", "-data"},
		{"", "/d/env", true, "/d/env", "$HCBENCH_DATA"},
		{"", "", true, def, "the default"},
		{"rel/flag", "x", true, filepath.Join(wd, "rel", "flag"), "-data"},
		{"", "../shared/data", false, filepath.Join(filepath.Dir(wd), "shared", "data"), "$HCBENCH_DATA"},
		{"", "../shared/data", true, filepath.Join(filepath.Dir(root), "shared", "data"), "$HCBENCH_DATA=../shared/data, from the module root " + root},
	} {
		inTest = func() bool { return c.test }
		loc, err := Locate(c.flag, env(c.env))
		if err != nil || loc.Path != c.path || loc.From != c.from {
			t.Errorf("Locate(%q) with $HCBENCH_DATA=%q, test binary %v: %v %v; want %s (%s)", c.flag, c.env, c.test, loc, err, c.path, c.from)
		}
	}
	// A test that changes its working directory still finds the module root it started below.
	inTest = func() bool { return true }
	t.Chdir(t.TempDir())
	if loc, err := Locate("", env("../shared/data")); err != nil || loc.Path != filepath.Join(filepath.Dir(root), "shared", "data") {
		t.Errorf("after a Chdir: %v %v", loc, err)
	}

	oldStart := startDir
	t.Cleanup(func() { startDir = oldStart })
	startDir = t.TempDir()
	if _, err := os.Stat("/go.mod"); err == nil {
		t.Skip("/go.mod exists: every folder has a module root")
	}
	_, err = Locate("", env("data"))
	if err == nil || !strings.Contains(err.Error(), "$HCBENCH_DATA=data is relative") || !strings.Contains(err.Error(), "no go.mod in ") ||
		!strings.Contains(err.Error(), "HCBENCH_DATA=$(realpath data)") {
		t.Errorf("a relative $HCBENCH_DATA outside a module: %v", err)
	}
}

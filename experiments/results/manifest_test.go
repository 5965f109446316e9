package results

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"slices"
	"strings"
	"testing"
)

// TestManifestHashesTheExecutable checks that a manifest names its build by the SHA-256 of the
// running executable (here the test binary).
func TestManifestHashesTheExecutable(t *testing.T) {
	path, err := os.Executable()
	if err != nil {
		t.Skipf("no executable path: %v", err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Skipf("cannot read the executable: %v", err)
	}
	sum := sha256.Sum256(b)
	m := NewManifest()
	if want := hex.EncodeToString(sum[:]); m.Executable != want || m.Build().Executable != want || m.BuildWarning != "" {
		t.Errorf("manifest executable %q (warning %q), want %s", m.Executable, m.BuildWarning, want)
	}
	if s := m.NewSession(1, m.Start); s.Executable != m.Executable {
		t.Errorf("session executable %q, want the manifest's", s.Executable)
	}
}

// TestBuildIdentity checks what makes two builds one: the executable where both have its hash,
// whatever the revision fields say; else the revision, modified flag and Go version.
func TestBuildIdentity(t *testing.T) {
	exe := strings.Repeat("a", 64)
	clean := Build{Revision: "0123456789abcdef", GoVersion: "go1.26.8", Executable: exe}
	edited := clean
	edited.Modified = true // git's status after a config was edited; the go run binary is the same
	other := clean
	other.Executable = strings.Repeat("b", 64) // another uncommitted tree at the same commit
	old := Build{Revision: clean.Revision, GoVersion: clean.GoVersion}
	for _, c := range []struct {
		a, b Build
		same bool
		why  string
	}{
		{clean, edited, true, ""},
		{clean, other, false, "the executables differ"},
		{clean, old, true, ""},
		{edited, old, false, "the revisions, modified flags or Go versions differ"},
	} {
		if got := c.a.Same(c.b); got != c.same || !strings.HasPrefix(c.a.Mismatch(c.b), c.why) || (c.why == "") != (c.a.Mismatch(c.b) == "") {
			t.Errorf("%v and %v: same %v, mismatch %q; want %v, %q", c.a, c.b, got, c.a.Mismatch(c.b), c.same, c.why)
		}
	}
	for b, want := range map[*Build]string{
		&clean: "revision 0123456789ab, go1.26.8, executable sha256 aaaaaaaaaaaa",
		&old:   "revision 0123456789ab, go1.26.8",
		{}:     "revision unknown, Go version unknown",
	} {
		if got := b.String(); got != want {
			t.Errorf("String %q, want %q", got, want)
		}
	}
	m := Manifest{Sessions: []Session{{Build: clean}, {Build: edited}, {Build: other}}}
	if got := m.Builds(); !slices.Equal(got, []Build{clean, other}) {
		t.Errorf("builds %v, want the clean one (as first recorded) and the other executable", got)
	}
}

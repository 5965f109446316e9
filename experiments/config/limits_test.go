package config

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hcbench/hcbench/internal/limittest"
)

// bigPlainConfig is a valid config padded with a long comment-free list under a key of its own,
// n bytes or a little more, without a single alias.
func bigPlainConfig(n int) string {
	var b strings.Builder
	b.WriteString("version: 1\nname: x\ndatasets:\n  - {name: a, generator: ginkgo, jets: 2, t_cut: 16}\nalgorithms: [greedy]\npadding:\n")
	for k := 0; b.Len() < n; k++ {
		fmt.Fprintf(&b, "  - item number %d of a long list\n", k)
	}
	return b.String()
}

// TestLoadTooLarge: the user's case, a 10 MB config without aliases, is refused for its size,
// before it is read, with the size and the limit and no word of aliases.
func TestLoadTooLarge(t *testing.T) {
	path := filepath.Join(t.TempDir(), "big.yaml")
	if err := os.WriteFile(path, []byte(bigPlainConfig(10<<20)), 0o644); err != nil {
		t.Fatal(err)
	}
	fi, _ := os.Stat(path)
	var err error
	a := limittest.Allocated(func() { _, err = Load(path) })
	want := fmt.Sprintf("%s: the file is 10.0 MiB (%d bytes), larger than the 4 MiB a config may be", path, fi.Size())
	if err == nil || !strings.Contains(err.Error(), want) || strings.Contains(err.Error(), "alias") {
		t.Fatalf("error %v, want it to contain %q and not mention aliases", err, want)
	}
	if a > 1<<20 {
		t.Errorf("allocated %d bytes refusing the file by its size, want it unread", a)
	}
	// Parse refuses such text too.
	if _, err := Parse(path, make([]byte, MaxConfigBytes+1)); err == nil || !strings.Contains(err.Error(), "the file is 4.0 MiB (4194305 bytes), larger than the 4 MiB") {
		t.Errorf("Parse: %v", err)
	}
}

// TestLoadDevZero: a file whose size is not known in advance is read no further than the limit.
func TestLoadDevZero(t *testing.T) {
	if _, err := os.Stat("/dev/zero"); err != nil {
		t.Skip("no /dev/zero")
	}
	var err error
	a := limittest.Allocated(func() { _, err = Load("/dev/zero") })
	if want := "/dev/zero: the file is more than 4194304 bytes, larger than the 4 MiB a config may be"; err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("error %v, want it to contain %q", err, want)
	}
	if a > 8*MaxConfigBytes {
		t.Errorf("allocated %d bytes", a)
	}
}

// TestTooManyNodesWithoutAliases: a config within the size limit that has more YAML nodes than a
// config may have, written out, is refused as too large, without blaming aliases it does not have.
func TestTooManyNodesWithoutAliases(t *testing.T) {
	src := "version: 1\nname: x\nlist: [" + strings.Repeat("1,", maxExpandedNodes) + "1]\n"
	ps := problemsOf(t, src)
	want := "bad.yaml:1: the config has more than 1048576 YAML nodes, too many for a config"
	if len(ps) != 1 || !strings.HasPrefix(ps[0], want) || strings.Contains(ps[0], "alias") {
		t.Fatalf("problems %q, want one starting %q, not mentioning aliases", ps, want)
	}
	// Exactly the limit as written (the top mapping, two keys with their values, the list's key
	// and the list: 7 nodes, and the list's entries) decodes, to an unknown key.
	src = "version: 1\nname: x\nlist: [" + strings.Repeat("1,", maxExpandedNodes-8) + "1]\n"
	ps = problemsOf(t, src)
	if len(ps) == 0 || strings.Contains(strings.Join(ps, "\n"), "YAML nodes") {
		t.Fatalf("at the limit: %q", ps)
	}
}

// TestAliasBombBlamed: a small config whose aliases expand past the limit is refused, and the
// message says it is the aliases.
func TestAliasBombBlamed(t *testing.T) {
	var b strings.Builder
	b.WriteString("version: 1\nname: x\nl0: &l0 [1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1]\n")
	for k := 1; k <= 5; k++ {
		fmt.Fprintf(&b, "l%d: &l%d [", k, k)
		for r := range 16 {
			if r > 0 {
				b.WriteString(", ")
			}
			fmt.Fprintf(&b, "*l%d", k-1)
		}
		b.WriteString("]\n")
	}
	var ps []string
	a := limittest.Allocated(func() { ps = problemsOf(t, b.String()) })
	want := []string{"bad.yaml:1: the config expands to more than 1048576 YAML nodes through its aliases"}
	checkExact(t, ps, want)
	if a > 4<<20 {
		t.Errorf("allocated %d bytes refusing a %d-byte config", a, b.Len())
	}
}

// TestProblemsCapped: aliases repeat one bad entry many times; the problems listed stop at
// maxProblems, then a count, and the suggestions for the rest are not computed, so a small
// config cannot make a huge message (this one made 100 MB and allocated 1.7 GB).
func TestProblemsCapped(t *testing.T) {
	var b strings.Builder
	b.WriteString("version: 1\nname: x\nx: &d {name: a, generator: ginkgo")
	for k := range 200 {
		fmt.Fprintf(&b, ", k%d: 1", k)
	}
	b.WriteString("}\ndatasets: [*d")
	for range 99 {
		b.WriteString(", *d")
	}
	b.WriteString("]\nalgorithms: [greedy]\n")
	var err error
	a := limittest.Allocated(func() { _, err = Parse("bad.yaml", []byte(b.String())) })
	var ps Problems
	if !errors.As(err, &ps) {
		t.Fatalf("got %v, want Problems", err)
	}
	if len(ps) != maxProblems+1 || !strings.Contains(ps[maxProblems].String(), "bad.yaml: and ") || !strings.Contains(ps[maxProblems].String(), "more problems (only the first 100 found are listed)") {
		t.Fatalf("%d problems, last %v", len(ps), ps[len(ps)-1])
	}
	if len(err.Error()) > 100<<10 {
		t.Errorf("message of %d bytes", len(err.Error()))
	}
	t.Logf("allocated %.1f MiB for %d bytes", float64(a)/(1<<20), b.Len())
}

package cli

import (
	"bytes"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/hcbench/hcbench/internal/limittest"
)

// TestEndlessCSVUnderAddressSpaceLimit feeds an endless CSV through a FIFO to hcbench validate
// running under an address-space limit of 2 000 000 KiB (ulimit -v, as SGE's h_vmem sets it).
// The Go runtime reserves most of that before its first allocation, so the readers' bound must
// come from what the limit leaves, not from the RAM: the reading stops with a refusal that names
// the limit and exit 1, where it used to end in the runtime's "fatal error: out of memory"
// (exit 2) after about 30 s.
func TestEndlessCSVUnderAddressSpaceLimit(t *testing.T) {
	if limittest.Race {
		t.Skip("the race detector's shadow memory does not fit under an address-space limit")
	}
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("no sh to set the limit with")
	}
	dir := t.TempDir()
	fifo := filepath.Join(dir, "data.csv")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skipf("no FIFO: %v", err)
	}
	cfg := writeFile(t, dir, "fifo.yaml", "version: 1\nname: f\ndatasets:\n  - {name: v, file: data.csv, split_model: none}\nalgorithms: [bhc]\n")
	// Opened for reading and writing, the FIFO does not wait for hcbench to open it, and a write
	// blocked on a full pipe ends when the test closes it.
	w, err := os.OpenFile(fifo, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	wrote := make(chan error, 1)
	go func() {
		rows := &limittest.Stream{Text: "1,2,a\n", Len: 1 << 62}
		_, err := io.Copy(w, io.MultiReader(strings.NewReader("x,y,label\n"), rows))
		wrote <- err
	}()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("sh", "-c", `ulimit -v 2000000 && exec "$0" "$@"`, exe, "validate", cfg)
	cmd.Env = append(os.Environ(), "HCBENCH_TEST_MAIN=1")
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err = cmd.Run()
	w.Close()
	<-wrote
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != ExitFailure {
		t.Fatalf("%v, want exit %d:\n%s", err, ExitFailure, limitOutput(out.String()))
	}
	for _, want := range []string{"data set v: ", "the data go on past", "address-space limit, ulimit -v"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output does not contain %q:\n%s", want, limitOutput(out.String()))
		}
	}
	t.Logf("%s", strings.TrimSpace(out.String()))
}

// limitOutput keeps the first lines of a crashed process's output (a Go runtime's fatal error
// lists every goroutine).
func limitOutput(s string) string {
	if lines := strings.SplitN(s, "\n", 21); len(lines) == 21 {
		return strings.Join(lines[:20], "\n") + "\n…"
	}
	return s
}

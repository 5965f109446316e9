package cli

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// TestRunWorkersCap: a run refuses more workers than maxWorkersPerCPU × the CPUs, from the flag
// or from the config (which the flag overrides), before it starts anything.
func TestRunWorkersCap(t *testing.T) {
	limit := maxWorkersPerCPU * runtime.GOMAXPROCS(0)
	dir := t.TempDir()
	cfg := writeFile(t, dir, "small.yaml", smallConfig)
	many := writeFile(t, dir, "many.yaml", strings.Replace(smallConfig, "seed: 3\n", fmt.Sprintf("seed: 3\nworkers: %d\n", limit+1), 1))
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"run", cfg, "-workers", fmt.Sprint(limit + 1)}, fmt.Sprintf("hcbench: -workers %d is more than %d, %d × the", limit+1, limit, maxWorkersPerCPU)},
		{[]string{"run", many}, fmt.Sprintf("hcbench: %s: workers: %d is more than %d", many, limit+1, limit)},
	} {
		out := filepath.Join(dir, "run")
		code, stdout, stderr := run(t, context.Background(), append(c.args, "-out", out)...)
		if code != ExitUsage || !strings.Contains(stderr, c.want) || !strings.Contains(stderr, fmt.Sprintf("use at most %d", limit)) {
			t.Errorf("%v: exit %d, want %d with %q\n%s%s", c.args, code, ExitUsage, c.want, stdout, stderr)
		}
		if _, err := os.Stat(out); !os.IsNotExist(err) {
			t.Errorf("%v: the run made its directory: %v", c.args, err)
		}
	}
	for _, args := range [][]string{{"run", cfg, "-workers", fmt.Sprint(limit)}, {"run", many, "-workers", "1"}} {
		if code, stdout, stderr := run(t, context.Background(), append(args, "-out", filepath.Join(t.TempDir(), "run"))...); code != ExitOK {
			t.Errorf("%v: exit %d\n%s%s", args, code, stdout, stderr)
		}
	}
}

package main

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"time"

	"github.com/hcbench/hcbench/experiments/memory"
	"github.com/hcbench/hcbench/experiments/plan"
)

// firstBuild is what building hcbench costs on a machine that has only Go: every module
// downloaded from the module proxy and every package compiled, into empty caches.
type firstBuild struct {
	wall, cpu time.Duration
	peakRSS   int64
	modules   int64 // bytes of the module cache after the build
}

// measureFirstBuild runs go build with a new, empty build cache and module cache in workDir. The
// CPU time and peak memory are the go command's with its compilers (wait4 counts a process's
// children).
func measureFirstBuild(ctx context.Context, root, workDir string) (*firstBuild, error) {
	caches := filepath.Join(workDir, "first-build")
	if err := os.RemoveAll(caches); err != nil {
		return nil, err
	}
	defer os.RemoveAll(caches)
	cmd := exec.CommandContext(ctx, "go", "build", "-o", filepath.Join(caches, "hcbench"), ".")
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "GOCACHE="+filepath.Join(caches, "cache"), "GOMODCACHE="+filepath.Join(caches, "mod"),
		"GOFLAGS=-modcacherw") // so that the module cache can be removed
	start := time.Now()
	out, err := cmd.CombinedOutput()
	b := &firstBuild{wall: time.Since(start)}
	if err != nil {
		return nil, fmt.Errorf("go build with empty caches: %v\n%s", err, lastLines(string(out), 10))
	}
	b.cpu = cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		b.peakRSS = maxRSSBytes(ru)
	}
	err = filepath.WalkDir(filepath.Join(caches, "mod"), func(_ string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		info, err := d.Info()
		if err == nil {
			b.modules += info.Size()
		}
		return err
	})
	return b, err
}

// buildRegions are the regions of the first build.
func buildRegions() []region {
	return []region{{name: "install.first-build", build: true, machine: true, render: func(e *env) (string, error) {
		if e.build == nil {
			return "", fmt.Errorf("the first build was not measured")
		}
		return fmt.Sprintf("it downloads %s of modules and takes %s wall time, %s of CPU time and %s of memory at its peak (%s)",
			memory.Format(e.build.modules), plan.FormatSeconds(e.build.wall.Seconds()), plan.FormatSeconds(e.build.cpu.Seconds()),
			memory.Format(e.build.peakRSS), e.machine.short()), nil
	}}}
}

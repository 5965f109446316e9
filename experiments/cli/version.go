package cli

import (
	"context"
	"fmt"
	"io"
	"runtime/debug"

	"github.com/hcbench/hcbench/experiments/results"
)

// cmdVersion prints the build: the module version (what `go install …@vX` built; "(devel)" for a
// build from a checkout, which is then named by its VCS revision), the revision, the Go version
// and the executable's SHA-256, which is what run manifests identify a build by
// (results.Build). It takes them from the manifest of a run started now (results.NewManifest),
// so that it says what a run would record.
func cmdVersion(_ context.Context, args []string, stdout, stderr io.Writer) int {
	fs := newFlags("version", stderr, "version")
	pos, err := parse(fs, args)
	if err != nil {
		return flagError(fs, err, stdout)
	}
	if len(pos) != 0 {
		fs.Usage()
		return ExitUsage
	}
	m := results.NewManifest()
	version := m.Version
	if version == "" || version == "(unknown)" {
		version = "(devel)"
	}
	first := "hcbench " + version
	if version == "(devel)" {
		first += " " + results.OrUnknown(results.Short(m.Revision), "revision unknown")
		if m.Modified {
			first += " (modified)"
		}
	}
	fmt.Fprintln(stdout, first)
	module := "unknown"
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Path != "" {
		module = bi.Main.Path
	}
	fmt.Fprintf(stdout, "module:     %s %s\n", module, version)
	if m.Revision != "" {
		from := map[string]string{"buildinfo": "from the build's VCS stamp", "git": "from git in the working directory: this build carries no VCS stamp"}[m.RevisionSource]
		fmt.Fprintf(stdout, "revision:   %s", m.Revision)
		if m.Modified {
			fmt.Fprint(stdout, " (modified)")
		}
		if m.RevisionTime != "" {
			fmt.Fprintf(stdout, ", %s", m.RevisionTime)
		}
		fmt.Fprintf(stdout, " (%s)\n", from)
	} else {
		fmt.Fprintln(stdout, "revision:   unknown (no VCS stamp, and not run in a checkout of hcbench)")
	}
	fmt.Fprintf(stdout, "go:         %s %s/%s\n", m.GoVersion, m.OS, m.Arch)
	if m.Executable != "" {
		fmt.Fprintf(stdout, "executable: sha256 %s (the build's identity in run manifests)\n", m.Executable)
	} else {
		fmt.Fprintf(stdout, "executable: %s\n", m.BuildWarning)
	}
	return ExitOK
}

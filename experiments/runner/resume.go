package runner

import (
	"github.com/hcbench/hcbench/experiments/plan"
	"github.com/hcbench/hcbench/experiments/results"
	"github.com/hcbench/hcbench/experiments/rundir"
)

// Resumable finds the latest unfinished run of p's config in root that this build may resume
// (rundir.Resumable): the same config hash, data files and build (any build with
// allowOtherBuild), and no process running it; with failed (-retry-failed), a complete run with
// failed tasks counts as unfinished. It is what a run without a directory given resumes;
// skipped are the unfinished runs of the config it passed over, and why.
func Resumable(p *plan.Plan, root string, allowOtherBuild, failed bool) (u rundir.Unfinished, skipped []rundir.Skipped, ok bool, err error) {
	resolved, err := p.Config.Resolved()
	if err != nil {
		return u, nil, false, err
	}
	hash, err := rundir.ConfigHash(resolved)
	if err != nil {
		return u, nil, false, err
	}
	m := results.NewManifest()
	u, skipped, ok = rundir.Resumable(root, rundir.Search{Name: p.Config.Name, ConfigHash: hash, Build: m.Build(),
		AllowOtherBuild: allowOtherBuild, Data: dataFiles(p), Failed: failed})
	return u, skipped, ok, nil
}

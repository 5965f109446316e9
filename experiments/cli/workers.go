package cli

import (
	"fmt"
	"runtime"
)

// maxWorkersPerCPU bounds the workers of a run (-workers, or a config's workers) at this
// multiple of the CPUs the process may use (GOMAXPROCS: the cores, or a container's CPU limit).
// Beyond the CPUs, more workers help only tasks that wait (an external program that waits on a
// GPU or a network), while each holds a task's working memory and may start an external
// program: 200 workers started 200 programs at once.
const maxWorkersPerCPU = 4

// checkWorkers refuses a worker count over maxWorkersPerCPU × the CPUs; what names where it was
// set ("-workers", "the config's workers").
func checkWorkers(n int, what string) error {
	cpus := runtime.GOMAXPROCS(0)
	if limit := maxWorkersPerCPU * cpus; n > limit {
		return fmt.Errorf("%s %d is more than %d, %d × the %d CPUs this process may use (GOMAXPROCS): beyond the CPUs, workers only wait for one another, while each holds a task's memory and may start an external program; use at most %d (0: one per CPU)",
			what, n, limit, maxWorkersPerCPU, cpus, limit)
	}
	return nil
}

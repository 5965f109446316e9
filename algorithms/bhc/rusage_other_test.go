//go:build !unix

package bhc

import (
	"testing"
	"time"
)

// rusage reports nothing where getrusage is missing; the benchmarks then report wall time only.
func rusage(testing.TB) (cpu time.Duration, maxRSS int64, ok bool) { return 0, 0, false }

package cli

import (
	"context"
	"fmt"
	"io"
)

// cmdData is the data command: fetch, list and verify the data sets of the data directory.
func cmdData(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fmt.Fprintln(stderr, "hcbench data: not built yet")
	return ExitUsage
}

// Command hcbench runs exact and approximate hierarchical clustering experiments from YAML configs.
// See the README, or run `go run . help`.
package main

import (
	"os"

	"github.com/hcbench/hcbench/experiments/cli"
)

func main() {
	os.Exit(cli.Main(os.Args[1:], os.Stdout, os.Stderr))
}

package main

import (
	"os"
	"testing"

	"github.com/hcbench/hcbench/internal/interrupt"
)

// TestMain gives SIGINT and SIGTERM their default action back: the tests link package cli, whose
// package interrupt catches them from the start for Main, which they do not run.
func TestMain(m *testing.M) {
	interrupt.Release()
	os.Exit(m.Run())
}

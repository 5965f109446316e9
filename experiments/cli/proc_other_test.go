//go:build !linux

package cli

import (
	"errors"
	"os"
	"time"
)

// errNoProc is the answer of the helpers that read Linux's /proc elsewhere.
var errNoProc = errors.New("needs Linux's /proc")

// cpuTime would return a process's CPU time; only Linux's /proc tells it for a running process.
func cpuTime(pid int) (time.Duration, bool) { return 0, false }

// blockedOpeningFIFO would report whether a process waits for a FIFO's other end.
func blockedOpeningFIFO(pid int) (bool, error) { return false, errNoProc }

// unread would return the bytes of a pipe that no reader has read yet.
func unread(f *os.File) (int, error) { return 0, errNoProc }

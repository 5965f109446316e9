package cli

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// clockTick is the unit of the CPU times in /proc/PID/stat: USER_HZ, 100 on every Linux
// architecture Go supports (the kernel's ABI, whatever its internal HZ).
const clockTick = 10 * time.Millisecond

// cpuTime returns the CPU time, user and system, that process pid has used so far, to within
// clockTick.
func cpuTime(pid int) (time.Duration, bool) {
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, false
	}
	// The fields after the command name (which may hold spaces) in parentheses: state is field 3
	// of stat(5), utime and stime fields 14 and 15.
	i := bytes.LastIndexByte(stat, ')')
	if i < 0 {
		return 0, false
	}
	f := strings.Fields(string(stat[i+1:]))
	if len(f) < 13 {
		return 0, false
	}
	utime, err1 := strconv.ParseInt(f[11], 10, 64)
	stime, err2 := strconv.ParseInt(f[12], 10, 64)
	if err1 != nil || err2 != nil {
		return 0, false
	}
	return time.Duration(utime+stime) * clockTick, true
}

// blockedOpeningFIFO reports whether a thread of process pid waits in open(2) for the other end
// of a FIFO: the kernel's wait_for_partner, or, where /proc hides the kernel's function names,
// a sleeping openat.
func blockedOpeningFIFO(pid int) (bool, error) {
	tasks, err := filepath.Glob(fmt.Sprintf("/proc/%d/task/*", pid))
	if err != nil || len(tasks) == 0 {
		return false, fmt.Errorf("no threads of process %d in /proc (%v)", pid, err)
	}
	for _, task := range tasks {
		wchan, _ := os.ReadFile(filepath.Join(task, "wchan"))
		switch w := strings.TrimSpace(string(wchan)); w {
		case "wait_for_partner":
			return true, nil
		case "", "0":
			sc, _ := os.ReadFile(filepath.Join(task, "syscall"))
			stat, _ := os.ReadFile(filepath.Join(task, "stat"))
			i := bytes.LastIndexByte(stat, ')')
			if nr, _, _ := strings.Cut(string(sc), " "); nr == strconv.Itoa(syscall.SYS_OPENAT) && i >= 0 && i+2 < len(stat) && stat[i+2] == 'S' {
				return true, nil
			}
		}
	}
	return false, nil
}

// unread returns the number of bytes written to the pipe or FIFO f that no reader has read yet.
func unread(f *os.File) (int, error) {
	return unix.IoctlGetInt(int(f.Fd()), unix.TIOCINQ)
}

package memory

import (
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// readLimits reads the RAM, the cgroup's memory limit, and RLIMIT_AS with the address space
// this process has mapped.
func readLimits() Limits {
	l := Limits{RAM: physicalMemory(), Cgroup: cgroupMemoryLimit("/")}
	st, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return l
	}
	status := procStatus(string(st))
	goMapped, _ := goRuntimeMapped()
	var rl syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_AS, &rl); err == nil && rl.Cur != rlimInfinity && rl.Cur <= math.MaxInt64 {
		l.AddressSpace, l.Reserved = addressSpaceLeft(int64(rl.Cur), status["VmSize"], goMapped)
	}
	return l
}

// residentOutsideRuntime returns the resident memory that the Go runtime does not manage: the
// process's resident memory less what the runtime has mapped and not returned, and at least the
// binary's resident pages.
func residentOutsideRuntime() int64 {
	st, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	status := procStatus(string(st))
	mapped, released := goRuntimeMapped()
	return max(status["VmRSS"]-(mapped-released), status["RssFile"])
}

// peakResident returns VmHWM.
func peakResident() (int64, bool) {
	st, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0, false
	}
	v, ok := procStatus(string(st))["VmHWM"]
	return v, ok && v > 0
}

// rlimInfinity is RLIM_INFINITY, no limit.
const rlimInfinity = ^uint64(0)

// procStatus returns the byte counts of /proc/self/status ("VmSize:\t 1732820 kB"), by name.
func procStatus(status string) map[string]int64 {
	out := map[string]int64{}
	for line := range strings.Lines(status) {
		name, rest, ok := strings.Cut(line, ":")
		f := strings.Fields(rest)
		if !ok || len(f) != 2 || f[1] != "kB" {
			continue
		}
		if v, err := strconv.ParseInt(f[0], 10, 64); err == nil && v >= 0 && v < math.MaxInt64>>10 {
			out[name] = v << 10
		}
	}
	return out
}

// physicalMemory returns the machine's RAM in bytes, or 0 if unknown.
func physicalMemory() int64 {
	var si syscall.Sysinfo_t
	if err := syscall.Sysinfo(&si); err != nil {
		return 0
	}
	return int64(si.Totalram) * int64(si.Unit)
}

// cgroupMemoryLimit returns the lowest memory limit set on the process's cgroup or any of its
// ancestors (a Slurm job sets its limit on the job's cgroup and runs the task in a child whose own
// limit is "max"), under cgroup v2 (memory.max) and v1 (memory.limit_in_bytes); 0 when none is
// set or readable. root is the file system's root: "/", or a directory of fixture files in tests.
// The process's cgroups come from proc/self/cgroup, where their hierarchies are mounted from
// proc/self/mountinfo, both under root.
func cgroupMemoryLimit(root string) int64 {
	cg, err := os.ReadFile(filepath.Join(root, "proc/self/cgroup"))
	if err != nil {
		return 0
	}
	mi, err := os.ReadFile(filepath.Join(root, "proc/self/mountinfo"))
	if err != nil {
		return 0
	}
	mounts := cgroupMounts(string(mi))
	var limit int64
	for line := range strings.Lines(string(cg)) {
		// hierarchy-ID:controller-list:path, where v2 is "0::path" and a v1 line names its
		// controllers.
		f := strings.SplitN(strings.TrimSpace(line), ":", 3)
		if len(f) != 3 {
			continue
		}
		v2 := f[0] == "0" && f[1] == ""
		if !v2 && !hasField(f[1], "memory") {
			continue
		}
		for _, m := range mounts {
			if m.v2 == v2 {
				limit = minKnown(limit, m.limit(root, f[2]))
			}
		}
	}
	return limit
}

// cgroupMount is where a cgroup hierarchy is mounted: the mount shows the hierarchy's cgroup
// root (a container may see only its own cgroup) at point.
type cgroupMount struct {
	root, point string
	v2          bool
}

// cgroupMounts lists the cgroup v2 mounts and the v1 mounts of the memory controller in the text
// of /proc/self/mountinfo. A line reads "id parent major:minor root point options [optional
// fields] - fstype source super-options".
func cgroupMounts(mountinfo string) []cgroupMount {
	var out []cgroupMount
	for line := range strings.Lines(mountinfo) {
		pre, post, ok := strings.Cut(line, " - ")
		if !ok {
			continue
		}
		pf, qf := strings.Fields(pre), strings.Fields(post)
		if len(pf) < 5 || len(qf) < 1 {
			continue
		}
		m := cgroupMount{root: unescapeMount(pf[3]), point: unescapeMount(pf[4])}
		switch {
		case qf[0] == "cgroup2":
			m.v2 = true
		case qf[0] == "cgroup" && len(qf) >= 3 && hasField(qf[2], "memory"):
		default:
			continue
		}
		out = append(out, m)
	}
	return out
}

// limit returns the lowest limit on the cgroup path (as /proc/self/cgroup gives it) and its
// ancestors up to the mount's root, or 0 when path is not under the mount or no limit is set.
func (m cgroupMount) limit(root, path string) int64 {
	var rel string
	switch {
	case m.root == "/":
		rel = path
	case path == m.root:
		rel = "/"
	case strings.HasPrefix(path, m.root+"/"):
		rel = path[len(m.root):]
	default:
		return 0 // a cgroup outside what this mount shows
	}
	file := "memory.limit_in_bytes"
	if m.v2 {
		file = "memory.max"
	}
	top := filepath.Join(root, m.point)
	dir := filepath.Join(top, rel)
	if r, err := filepath.Rel(top, dir); err != nil || r == ".." || strings.HasPrefix(r, "../") {
		return 0 // ".." in the path climbs above the mount
	}
	var limit int64
	for {
		limit = minKnown(limit, readLimit(filepath.Join(dir, file)))
		if dir == top {
			return limit
		}
		dir = filepath.Dir(dir)
	}
}

// readLimit reads a memory limit file: a byte count, or "max" (v2) for none. It returns 0 for
// none, and for a file that is missing or does not hold a positive number. v1's "no limit" is a
// huge number, which the machine's RAM then undercuts.
func readLimit(path string) int64 {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0
	}
	v, err := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
	if err != nil || v <= 0 {
		return 0
	}
	return v
}

// hasField reports whether the comma-separated list s holds f.
func hasField(s, f string) bool {
	for x := range strings.SplitSeq(s, ",") {
		if x == f {
			return true
		}
	}
	return false
}

// unescapeMount undoes mountinfo's octal escapes (\040 for a space, \011, \012, \134).
func unescapeMount(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+4 <= len(s) {
			if v, err := strconv.ParseUint(s[i+1:i+4], 8, 8); err == nil {
				b.WriteByte(byte(v))
				i += 3
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

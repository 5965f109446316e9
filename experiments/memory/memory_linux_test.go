package memory

import (
	"os"
	"path/filepath"
	"testing"
)

// writeFixture writes files (path relative to root → contents) under a new temporary root.
func writeFixture(t *testing.T, files map[string]string) string {
	t.Helper()
	root := t.TempDir()
	for p, c := range files {
		full := filepath.Join(root, p)
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

// Mount tables as the kernel writes them. v2Mounts is a pure cgroup v2 host; hybridMounts is the
// layout of systemd's hybrid mode (and of this project's build VM): v1 controllers, the memory one
// at /sys/fs/cgroup/memory, and an empty v2 hierarchy at /sys/fs/cgroup/unified.
const (
	v2Mounts = `22 1 0:21 / /proc rw,nosuid,nodev,noexec,relatime shared:12 - proc proc rw
29 23 0:26 / /sys/fs/cgroup rw,nosuid,nodev,noexec,relatime shared:4 - cgroup2 cgroup2 rw,nsdelegate,memory_recursiveprot
`
	hybridMounts = `31 23 0:28 / /sys/fs/cgroup rw,relatime - tmpfs tmpfs rw,mode=755
32 31 0:29 / /sys/fs/cgroup/cpu rw,relatime - cgroup cgroup rw,cpu
35 31 0:32 / /sys/fs/cgroup/memory rw,relatime - cgroup cgroup rw,memory
41 31 0:38 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw
`
	v1NoLimit = "9223372036854771712\n" // v1's "no limit"
)

func TestCgroupMemoryLimit(t *testing.T) {
	const slurmJob = "sys/fs/cgroup/system.slice/slurmstepd.scope/job_42"
	for _, c := range []struct {
		name  string
		files map[string]string
		want  int64
	}{{
		// Slurm with cgroup v2: --mem is set on the job, the task runs in a child cgroup whose
		// own memory.max is "max"; the root cgroup has no memory.max at all.
		name: "v2 limit on an ancestor",
		files: map[string]string{
			"proc/self/cgroup":                          "0::/system.slice/slurmstepd.scope/job_42/step_0/user/task_0\n",
			"proc/self/mountinfo":                       v2Mounts,
			slurmJob + "/memory.max":                    "4294967296\n",
			slurmJob + "/step_0/memory.max":             "max\n",
			slurmJob + "/step_0/user/memory.max":        "max\n",
			slurmJob + "/step_0/user/task_0/memory.max": "max\n",
			"sys/fs/cgroup/system.slice/memory.max":     "max\n",
		},
		want: 4 << 30,
	}, {
		name: "v2 the lowest of several",
		files: map[string]string{
			"proc/self/cgroup":                 "0::/a/b\n",
			"proc/self/mountinfo":              v2Mounts,
			"sys/fs/cgroup/a/memory.max":       "3000000000\n",
			"sys/fs/cgroup/a/b/memory.max":     "2000000000\n",
			"sys/fs/cgroup/memory.max":         "5000000000\n",
			"sys/fs/cgroup/a/b/memory.current": "123\n",
		},
		want: 2000000000,
	}, {
		name: "v2 unlimited",
		files: map[string]string{
			"proc/self/cgroup":                                    "0::/user.slice/session-1.scope\n",
			"proc/self/mountinfo":                                 v2Mounts,
			"sys/fs/cgroup/user.slice/memory.max":                 "max\n",
			"sys/fs/cgroup/user.slice/session-1.scope/memory.max": "max\n",
		},
		want: 0,
	}, {
		// A Kubernetes container with a cgroup namespace: it sees its own cgroup as the root.
		name: "v2 container namespace",
		files: map[string]string{
			"proc/self/cgroup":         "0::/\n",
			"proc/self/mountinfo":      v2Mounts,
			"sys/fs/cgroup/memory.max": "536870912\n",
		},
		want: 512 << 20,
	}, {
		// A container without a cgroup namespace: /proc/self/cgroup gives the host's path, and
		// the mount shows that cgroup as its root.
		name: "v2 container without namespace",
		files: map[string]string{
			"proc/self/cgroup":         "0::/kubepods/burstable/pod1/c1\n",
			"proc/self/mountinfo":      "29 23 0:26 /kubepods/burstable/pod1/c1 /sys/fs/cgroup ro,nosuid - cgroup2 cgroup rw\n",
			"sys/fs/cgroup/memory.max": "1073741824\n",
		},
		want: 1 << 30,
	}, {
		name: "v1 hybrid, limit on the process's cgroup",
		files: map[string]string{
			"proc/self/cgroup":                                           "9:name=systemd:/\n4:memory:/process_api/abc\n1:cpu:/\n0::/\n",
			"proc/self/mountinfo":                                        hybridMounts,
			"sys/fs/cgroup/memory/memory.limit_in_bytes":                 v1NoLimit,
			"sys/fs/cgroup/memory/process_api/memory.limit_in_bytes":     v1NoLimit,
			"sys/fs/cgroup/memory/process_api/abc/memory.limit_in_bytes": "8589934592\n",
			"sys/fs/cgroup/cpu/process_api/abc/memory.limit_in_bytes":    "1\n", // not the memory controller
		},
		want: 8 << 30,
	}, {
		// v1's "no limit" is a number; the machine's RAM undercuts it in Available.
		name: "v1 no limit",
		files: map[string]string{
			"proc/self/cgroup":                             "4:cpuacct,memory:/x\n",
			"proc/self/mountinfo":                          "35 31 0:32 / /sys/fs/cgroup/memory rw - cgroup cgroup rw,cpuacct,memory\n",
			"sys/fs/cgroup/memory/x/memory.limit_in_bytes": v1NoLimit,
		},
		want: 9223372036854771712,
	}, {
		// A mount point with a space, escaped as \040 in mountinfo.
		name: "escaped mount point",
		files: map[string]string{
			"proc/self/cgroup":        "0::/j\n",
			"proc/self/mountinfo":     `29 23 0:26 / /my\040cgroups rw - cgroup2 cgroup2 rw` + "\n",
			"my cgroups/j/memory.max": "1000000\n",
		},
		want: 1000000,
	}, {
		// The process's cgroup is not under what the mount shows: nothing to read.
		name: "cgroup outside the mount",
		files: map[string]string{
			"proc/self/cgroup":         "0::/other\n",
			"proc/self/mountinfo":      "29 23 0:26 /kubepods/c1 /sys/fs/cgroup rw - cgroup2 cgroup2 rw\n",
			"sys/fs/cgroup/memory.max": "1000\n",
		},
		want: 0,
	}, {
		name: "a path that climbs out of the mount",
		files: map[string]string{
			"proc/self/cgroup":    "0::/../..\n",
			"proc/self/mountinfo": v2Mounts,
			"memory.max":          "1000\n",
			"sys/memory.max":      "1000\n",
		},
		want: 0,
	}, {
		name: "garbage",
		files: map[string]string{
			"proc/self/cgroup":           "nonsense\n0::/a\n::\n",
			"proc/self/mountinfo":        "garbage line\n - \n1 2 3 - cgroup2\n" + v2Mounts,
			"sys/fs/cgroup/a/memory.max": "lots\n",
			"sys/fs/cgroup/memory.max":   "-5\n",
		},
		want: 0,
	}, {
		name:  "no cgroup files",
		files: map[string]string{"proc/self/mountinfo": v2Mounts},
		want:  0,
	}} {
		if got := cgroupMemoryLimit(writeFixture(t, c.files)); got != c.want {
			t.Errorf("%s: limit %d, want %d", c.name, got, c.want)
		}
	}
}

func TestBudget(t *testing.T) {
	// On this machine: positive, and at most half of the RAM and half of the cgroup's limit,
	// where they are known; Limit is Available where that is known.
	ram, cg, got := physicalMemory(), cgroupMemoryLimit("/"), Budget()
	t.Logf("RAM %d, cgroup limit %d (0: none), budget %d, %s", ram, cg, got, Describe())
	if got <= 0 || (ram > 0 && got > ram/2) || (cg > 0 && got > cg/2) {
		t.Errorf("Budget %d, RAM %d, cgroup limit %d", got, ram, cg)
	}
	if a := Available(); a > 0 && Limit() != a {
		t.Errorf("Limit %d, Available %d", Limit(), a)
	}
}

func TestProcStatus(t *testing.T) {
	got := procStatus("Name:\thcbench\nVmPeak:\t 1798356 kB\nVmSize:\t 1732820 kB\nVmRSS:\t   19908 kB\nThreads:\t7\nbad:\tx kB\n")
	want := map[string]int64{"VmPeak": 1798356 << 10, "VmSize": 1732820 << 10, "VmRSS": 19908 << 10}
	if len(got) != len(want) {
		t.Errorf("procStatus = %v, want %v", got, want)
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s = %d, want %d", k, got[k], v)
		}
	}
	// This process: its own status has the fields readLimits reads.
	st := Read()
	if st.RAM <= 0 {
		t.Errorf("no RAM read: %+v", st)
	}
	if residentOutsideRuntime() <= 0 {
		t.Error("no resident memory outside the runtime")
	}
	if peak, ok := Peak(); !ok || peak < residentOutsideRuntime() {
		t.Errorf("peak %d, %v: want at least the resident memory outside the runtime, %d", peak, ok, residentOutsideRuntime())
	}
}

func TestFormat(t *testing.T) {
	for b, want := range map[int64]string{1: "1 KiB", 512 << 10: "512 KiB", 3 << 19: "1.5 MiB", 25 << 30: "25.0 GiB", 2 << 40: "2.0 TiB"} {
		if got := Format(b); got != want {
			t.Errorf("Format(%d) = %q, want %q", b, got, want)
		}
	}
}

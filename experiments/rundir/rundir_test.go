package rundir

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/hcbench/hcbench/experiments/results"
)

// TestLockIsExclusive takes a run's lock twice in one process (flock locks belong to the open
// file, so the second open conflicts as another process's would): the second attempt is refused
// with this process's pid and host, a shard's lock is independent, and closing the first lets a
// third attempt in. checkUnlocked tells a merge the same.
func TestLockIsExclusive(t *testing.T) {
	dir := t.TempDir()
	whole := FilesOf(dir, nil)
	first, err := Lock(dir, whole)
	if err != nil {
		t.Fatal(err)
	}
	host, err := os.Hostname()
	if err != nil || host == "" {
		t.Skipf("no host name (%v) to find in the message", err)
	}
	_, err = Lock(dir, whole)
	if want := fmt.Sprintf("run directory %s is in use by another hcbench process (pid %d on host %s)", dir, os.Getpid(), host); err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("second lock: %v, want %q", err, want)
	}
	warning, err := checkUnlocked(dir, whole)
	if want := fmt.Sprintf("is still being written by another hcbench process (pid %d on host %s)", os.Getpid(), host); err == nil || !strings.Contains(err.Error(), want) || warning != "" {
		t.Errorf("checkUnlocked while locked: %v (warning %q), want %q", err, warning, want)
	}
	shard := FilesOf(dir, &results.Shard{Index: 1, Count: 3})
	if shard.Lock != ".lock-shard-1-of-3" {
		t.Errorf("shard lock file %s", shard.Lock)
	}
	s, err := Lock(dir, shard)
	if err != nil {
		t.Errorf("a shard's lock beside the whole run's: %v", err)
	} else {
		s.Close()
	}
	first.Close()
	if warning, err := checkUnlocked(dir, whole); err != nil || warning != "" {
		t.Errorf("checkUnlocked after release: %v (warning %q)", err, warning)
	}
	third, err := Lock(dir, whole)
	if err != nil {
		t.Fatalf("lock after release: %v", err)
	}
	third.Close()
	if warning, err := checkUnlocked(t.TempDir(), whole); err != nil || warning != "" {
		t.Errorf("checkUnlocked without a lock file: %v (warning %q)", err, warning)
	}
	for _, name := range []string{".lock", ".lock-shard-1-of-3"} {
		if !startedRunFile.MatchString(name) {
			t.Errorf("%s is not taken for a file a starting run writes", name)
		}
	}
	if errors.Is(errBusy, errNoLocks) {
		t.Error("errBusy is errNoLocks")
	}
}

// TestCheckUnlockedProbesShared checks that a merge's probe takes a shared lock, which needs the
// lock file open for reading only (on NFS an exclusive flock on a read-only file fails with
// EBADF): another reader's shared lock lets it through, and it does not keep a writer out once
// closed. A probe that fails in an unexpected way gives a warning, not an error.
func TestCheckUnlockedProbesShared(t *testing.T) {
	dir := t.TempDir()
	whole := FilesOf(dir, nil)
	reader, err := os.Create(filepath.Join(dir, whole.Lock))
	if err != nil {
		t.Fatal(err)
	}
	defer reader.Close()
	if err := tryLock(reader, false); err != nil {
		t.Fatalf("shared lock: %v", err)
	}
	if warning, err := checkUnlocked(dir, whole); err != nil || warning != "" {
		t.Errorf("checkUnlocked beside another shared lock: %v (warning %q); an exclusive probe conflicts with it, a shared one must not", err, warning)
	}
	if _, err := Lock(dir, whole); err == nil || !strings.Contains(err.Error(), "is in use by another hcbench process") {
		t.Errorf("a writer while a reader holds the lock: %v", err)
	}
	reader.Close()
	w, err := Lock(dir, whole)
	if err != nil {
		t.Fatalf("the probe left the lock taken: %v", err)
	}
	w.Close()

	// A lock file that cannot be opened (a symbolic link to itself: ELOOP) stands for an
	// unexpected probe error, as EBADF on NFS was.
	loop := t.TempDir()
	if err := os.Symlink(whole.Lock, filepath.Join(loop, whole.Lock)); err != nil {
		t.Skipf("no symbolic link: %v", err)
	}
	warning, err := checkUnlocked(loop, FilesOf(loop, nil))
	if err != nil || !strings.Contains(warning, "cannot tell whether run directory "+loop+" is still being written") {
		t.Errorf("checkUnlocked with a lock file it cannot open: error %v, warning %q", err, warning)
	}
}

// TestConfigHashAndDiff checks which keys the hash covers and how a difference is described:
// the result-free keys change neither; seed, a data set key, an added algorithm and a removed
// key do, and are each named, in key order.
func TestConfigHashAndDiff(t *testing.T) {
	base := `version: 1
name: x
seed: 1
save_data: false
workers: 0
shards: 0
thresholds: {log_likelihood: 1e-06, exact_gap: 1e-06, log_evidence: 1e-06, purity: 0.001, time: 0}
datasets:
  - {name: qcd, generator: ginkgo, jets: 40, t_cut: 16}
algorithms:
  - {name: greedy, label: greedy}
reports: [summary]
`
	free := strings.NewReplacer("save_data: false", "save_data: true", "workers: 0", "workers: 3", "shards: 0", "shards: 8",
		"time: 0}", "time: 0.5}", "reports: [summary]", "reports: [summary, runtime]").Replace(base)
	changed := strings.NewReplacer("seed: 1", "seed: 2", "jets: 40, t_cut: 16", "jets: 41", "  - {name: greedy, label: greedy}\n",
		"  - {name: greedy, label: greedy}\n  - {name: beam, label: beam}\n").Replace(base)
	h := func(s string) string {
		t.Helper()
		v, err := ConfigHash([]byte(s))
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	if h(base) != h(free) {
		t.Error("a result-free key changed the config hash")
	}
	if d, err := configDiff([]byte(base), []byte(free)); err != nil || len(d) != 0 {
		t.Errorf("diff over result-free keys: %q, %v", d, err)
	}
	if h(base) == h(changed) {
		t.Error("seed, jets and an algorithm changed, the hash did not")
	}
	d, err := configDiff([]byte(base), []byte(changed))
	want := []string{"algorithms[1]: added", "datasets[0].jets: 40 → 41", "datasets[0].t_cut: removed", "seed: 1 → 2"}
	if err != nil || !slices.Equal(d, want) {
		t.Errorf("diff %q, %v; want %q", d, err, want)
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, results.ConfigFile), []byte(base), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := describeConfigChange(dir, []byte(changed)); got != "keys that differ (its config.yaml → this config): "+strings.Join(want, "; ") {
		t.Errorf("description %q", got)
	}
	if got := describeConfigChange(dir, []byte(free)); !strings.Contains(got, "hashed configs differently") {
		t.Errorf("description of equal result keys %q", got)
	}
}

// TestFirstOfEach keeps the first record of every task, in order.
func TestFirstOfEach(t *testing.T) {
	recs := []results.Record{{Key: "a", Seconds: 1}, {Key: "b"}, {Key: "a", Seconds: 2}, {Key: "c"}, {Key: "b"}}
	got, dups := firstOfEach(recs)
	if dups != 2 || len(got) != 3 || got[0].Key != "a" || got[0].Seconds != 1 || got[1].Key != "b" || got[2].Key != "c" {
		t.Errorf("%+v, %d duplicates", got, dups)
	}
}

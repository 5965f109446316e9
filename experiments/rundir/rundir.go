// Package rundir is the run directory on disk: what a directory may take (one config over one
// data and one build, checked by their hashes), its lock, its reserve of disk space, the records
// and finished repetitions already in it (recovered after a crash), the manifest that says how a
// run ended, merging the shards of a run, and finishing a run with its reports, bench.txt and
// index.html. Package runner executes a run into it; the file names are results' (the contract
// with the readers).
package rundir

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/hcbench/hcbench/experiments/results"
)

// Files names the manifest, results, log and lock files of a whole run or of a shard, and
// says which it is for messages.
type Files struct {
	Manifest, Results, Log string
	// Lock and Reserve are names inside the directory: the lock file and the reserve of disk
	// space (reserve.go).
	Lock, Reserve string
	// What names the run or shard in messages.
	What string
	// Repetitions is the repetitions file (results.RepetitionsFile).
	Repetitions string
}

func FilesOf(dir string, s *results.Shard) Files {
	if s == nil {
		return Files{filepath.Join(dir, results.ManifestFile), filepath.Join(dir, results.ResultsFile), filepath.Join(dir, results.LogFile), ".lock", ".reserve", "run directory " + dir,
			filepath.Join(dir, results.RepetitionsFile)}
	}
	manifest, recs, log, lock, reserve := results.ShardFiles(*s)
	return Files{filepath.Join(dir, manifest), filepath.Join(dir, recs), filepath.Join(dir, log), lock, reserve, fmt.Sprintf("shard %v in run directory %s", s, dir),
		filepath.Join(dir, results.ShardRepetitions(*s))}
}

// resultFreeKeys are the top-level config keys that cannot change a record, which the config
// hash leaves out: workers (every task has its own random stream), count (the entries' repeat,
// which the hash keeps, says it), shards (how the plan is
// split), reports (built from the records afterwards), thresholds (read by compare only) and
// save_data (saving loads every item, and items do not depend on each other). So a finished run
// can be given thresholds or more reports, or be resumed with other workers, in its directory.
var resultFreeKeys = []string{"workers", "count", "shards", "save_data", "thresholds", "reports"}

// resultFreeAlgorithmKeys are the keys of an algorithm entry that cannot change a record:
// memory_limit (a task within it runs the same; one over it fails before it starts, so lowering
// it lets a run killed for memory be resumed) and threads (the trellis's results are identical for
// any number).
var resultFreeAlgorithmKeys = []string{"memory_limit", "threads"}

// resultConfig decodes a resolved config (config.yaml) without its result-free keys.
func resultConfig(resolved []byte) (map[string]any, error) {
	var c map[string]any
	if err := yaml.Unmarshal(resolved, &c); err != nil {
		return nil, fmt.Errorf("resolved config: %w", err)
	}
	for _, k := range resultFreeKeys {
		delete(c, k)
	}
	if algs, ok := c["algorithms"].([]any); ok {
		for _, a := range algs {
			if m, ok := a.(map[string]any); ok {
				for _, k := range resultFreeAlgorithmKeys {
					delete(m, k)
				}
			}
		}
	}
	return c, nil
}

// ConfigHash is the hash that identifies a config's results: sha256 of the resolved config
// without the result-free keys, as JSON (which orders keys, so equal configs hash equal).
func ConfigHash(resolved []byte) (string, error) {
	c, err := resultConfig(resolved)
	if err != nil {
		return "", err
	}
	b, err := json.Marshal(c)
	if err != nil {
		return "", fmt.Errorf("resolved config: %w", err)
	}
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:]), nil
}

// configDiff lists the keys whose values differ between two resolved configs, leaving out the
// result-free keys: "seed: 5 → 6", "datasets[0].jets: 40 → 41", "algorithms[3]: added".
func configDiff(old, new []byte) ([]string, error) {
	a, err := resultConfig(old)
	if err != nil {
		return nil, err
	}
	b, err := resultConfig(new)
	if err != nil {
		return nil, err
	}
	var out []string
	diffValues("", a, b, &out)
	return out, nil
}

func diffValues(path string, a, b any, out *[]string) {
	at := func(key string) string {
		if path == "" {
			return key
		}
		return path + "." + key
	}
	switch av := a.(type) {
	case map[string]any:
		bv, ok := b.(map[string]any)
		if !ok {
			break
		}
		keys := slices.Collect(maps.Keys(av))
		for k := range bv {
			if _, ok := av[k]; !ok {
				keys = append(keys, k)
			}
		}
		slices.Sort(keys)
		for _, k := range keys {
			x, inA := av[k]
			y, inB := bv[k]
			switch {
			case !inA:
				*out = append(*out, at(k)+": added")
			case !inB:
				*out = append(*out, at(k)+": removed")
			default:
				diffValues(at(k), x, y, out)
			}
		}
		return
	case []any:
		bv, ok := b.([]any)
		if !ok {
			break
		}
		for i := range max(len(av), len(bv)) {
			p := fmt.Sprintf("%s[%d]", path, i)
			switch {
			case i >= len(av):
				*out = append(*out, p+": added")
			case i >= len(bv):
				*out = append(*out, p+": removed")
			default:
				diffValues(p, av[i], bv[i], out)
			}
		}
		return
	}
	if !reflect.DeepEqual(a, b) {
		*out = append(*out, fmt.Sprintf("%s: %s → %s", path, shortValue(a), shortValue(b)))
	}
}

// shortValue shows a config value in a message: a scalar as written, a list or mapping elided.
func shortValue(v any) string {
	switch v.(type) {
	case map[string]any:
		return "{…}"
	case []any:
		return "[…]"
	case nil:
		return "null"
	}
	s := fmt.Sprint(v)
	if len(s) > 40 {
		s = s[:37] + "…"
	}
	return s
}

// describeConfigChange says how resolved differs from the config.yaml in dir, for a refusal.
func describeConfigChange(dir string, resolved []byte) string {
	old, err := os.ReadFile(filepath.Join(dir, results.ConfigFile))
	if err != nil {
		return fmt.Sprintf("%s cannot be read to say which keys differ: %v", results.ConfigFile, err)
	}
	diff, err := configDiff(old, resolved)
	switch {
	case err != nil:
		return fmt.Sprintf("%s cannot be read to say which keys differ: %v", results.ConfigFile, err)
	case len(diff) == 0:
		return "the keys that change results are equal, so the run was written by a build of hcbench that hashed configs differently"
	}
	const most = 8
	more := ""
	if len(diff) > most {
		more = fmt.Sprintf("; … (%d more)", len(diff)-most)
		diff = diff[:most]
	}
	return fmt.Sprintf("keys that differ (its %s → this config): %s%s", results.ConfigFile, strings.Join(diff, "; "), more)
}

// Manifests reads every manifest in dir: the whole run's and the shards', by file.
func Manifests(dir string) (map[string]results.Manifest, error) {
	out := map[string]results.Manifest{}
	paths, err := filepath.Glob(filepath.Join(dir, results.ShardManifests))
	if err != nil {
		return nil, err
	}
	if _, err := os.Stat(filepath.Join(dir, results.ManifestFile)); err == nil {
		paths = append(paths, filepath.Join(dir, results.ManifestFile))
	}
	for _, p := range paths {
		m, err := results.ReadManifest(p)
		if err != nil {
			return nil, err
		}
		out[p] = m
	}
	return out, nil
}

// Prepare makes dir ready to take a run before it is locked: it creates a new directory and
// refuses one that is not empty yet holds no hcbench run.
func Prepare(dir string) error {
	if dir == "" {
		return errors.New("no run directory given")
	}
	entries, err := os.ReadDir(dir)
	if errors.Is(err, os.ErrNotExist) {
		return os.MkdirAll(dir, 0o755)
	}
	if err != nil {
		return err
	}
	ms, err := Manifests(dir)
	if err != nil || len(ms) > 0 {
		return err
	}
	// Shards started together into a new directory may find it holding only what another
	// shard has begun to write.
	for _, e := range entries {
		if !startedRunFile.MatchString(e.Name()) {
			return fmt.Errorf("%s is not empty and holds no hcbench run (no manifest); choose another directory with -out", dir)
		}
	}
	return nil
}

// Check checks, under the run's lock, that dir may take this run (or shard) of the config
// with the given hash: it must hold nothing yet, or runs of the same config and a compatible
// sharding. It returns every manifest in dir and the one of this very run or shard, if any (a
// resume).
func Check(dir, hash string, resolved []byte, shard *results.Shard) (own *results.Manifest, all map[string]results.Manifest, err error) {
	ms, err := Manifests(dir)
	if err != nil {
		return nil, nil, err
	}
	if len(ms) == 0 {
		if old, err := os.ReadFile(filepath.Join(dir, results.ConfigFile)); err == nil {
			if h, err := ConfigHash(old); err != nil || h != hash {
				return nil, nil, fmt.Errorf("%s holds the start of a run of a different config (%s); choose another -out", dir, describeConfigChange(dir, resolved))
			}
		}
		return nil, ms, nil
	}
	for _, path := range slices.Sorted(maps.Keys(ms)) {
		m := ms[path]
		if m.ConfigHash != hash {
			return nil, nil, fmt.Errorf("%s holds a run of a different config (%s has config hash %.12s…, this config %.12s…; %s); a run directory takes one config: choose another -out, or restore the config",
				dir, filepath.Base(path), m.ConfigHash, hash, describeConfigChange(dir, resolved))
		}
		switch {
		case m.Shard == nil && shard != nil:
			return nil, nil, fmt.Errorf("%s holds a whole run (or a merge), not shards; run shard %v in another directory", dir, shard)
		case m.Shard != nil && shard == nil:
			return nil, nil, fmt.Errorf("%s holds shard %v of a sharded run; resume it with -shard %v, or run the whole config in another directory", dir, m.Shard, m.Shard)
		case m.Shard != nil && m.Shard.Count != shard.Count:
			return nil, nil, fmt.Errorf("%s holds shards of %d, this is shard %v; use -shard i/%d or another directory", dir, m.Shard.Count, shard, m.Shard.Count)
		}
		if filepath.Clean(path) == filepath.Clean(FilesOf(dir, shard).Manifest) {
			own = &m
		}
	}
	return own, ms, nil
}

// OtherBuild describes the sessions of the manifests that ran another build than b ("" if
// none; see results.Build.Same), naming both builds and how they differ, so that records of
// different code are not mixed in one run unnoticed.
func OtherBuild(dir string, ms map[string]results.Manifest, b results.Build) string {
	var parts []string
	for _, path := range slices.Sorted(maps.Keys(ms)) {
		m := ms[path]
		for _, o := range m.Builds() {
			if why := b.Mismatch(o); why != "" {
				parts = append(parts, fmt.Sprintf("%s records %s (%s)", filepath.Base(path), o, why))
			}
		}
	}
	if len(parts) == 0 {
		return ""
	}
	return fmt.Sprintf("records in %s were written by another build than this one (%s): %s", dir, b, strings.Join(parts, "; "))
}

// startedRunFile matches the files a run writes before its manifest (and their temporary files).
var startedRunFile = regexp.MustCompile(`^\.?(config\.yaml|tasks\.txt|run(-shard-\d+-of-\d+)?\.log|(results|shard-\d+-of-\d+)\.jsonl|manifest(-shard-\d+-of-\d+)?\.json)(-\d+)?$|^\.(lock|reserve)(-shard-\d+-of-\d+)?$`)

// WriteTasks writes tasks.txt, or checks that an existing one lists the same tasks (the same
// config over different data files would not).
func WriteTasks(dir string, keys []string) error {
	var b strings.Builder
	for _, k := range keys {
		b.WriteString(k)
		b.WriteByte('\n')
	}
	path := filepath.Join(dir, results.TasksFile)
	if old, err := os.ReadFile(path); err == nil {
		if string(old) != b.String() {
			return fmt.Errorf("%s lists other tasks than this config plans (its data files differ?); choose another -out", path)
		}
		return nil
	}
	return results.WriteFileAtomic(path, []byte(b.String()))
}

// ReadTasks reads tasks.txt.
func ReadTasks(dir string) ([]string, error) {
	f, err := os.Open(filepath.Join(dir, results.TasksFile))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var keys []string
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 1<<16), 1<<20)
	for sc.Scan() {
		if k := sc.Text(); k != "" {
			keys = append(keys, k)
		}
	}
	return keys, sc.Err()
}

// InShard reports whether the task at plan position k belongs to shard s (nil: every task).
func InShard(k int, s *results.Shard) bool {
	return s == nil || k%s.Count == s.Index
}

// SortByPlan orders records by their task's position in keys; records of unknown keys go last.
func SortByPlan(recs []results.Record, keys []string) {
	pos := make(map[string]int, len(keys))
	for i, k := range keys {
		pos[k] = i
	}
	at := func(r results.Record) int {
		if p, ok := pos[r.Key]; ok {
			return p
		}
		return len(keys)
	}
	slices.SortStableFunc(recs, func(a, b results.Record) int { return at(a) - at(b) })
}

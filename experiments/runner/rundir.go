package runner

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"hcbench/experiments/plan"
	"hcbench/experiments/results"
)

// A run directory holds one whole run, or any number of the shards of one run (shards of one
// config may share a directory, as the tasks of a Slurm array writing to one folder do):
//
//	config.yaml, tasks.txt                              always
//	manifest.json, results.jsonl, run.log               a whole run, or a merge of shards
//	manifest-shard-I-of-N.json, shard-I-of-N.jsonl,     shard I of N
//	run-shard-I-of-N.log
//	reports/, bench.txt, index.html                     a whole run, or a merge

// TasksFile lists every task key of the plan (all shards), one per line in plan order, so that a
// merge can check that the shards cover the plan without opening the data.
const TasksFile = "tasks.txt"

// runFiles names the manifest, results and log files of a whole run or of a shard.
type runFiles struct {
	manifest, results, log string
}

func filesOf(dir string, s *results.Shard) runFiles {
	if s == nil {
		return runFiles{filepath.Join(dir, ManifestFile), filepath.Join(dir, ResultsFile), filepath.Join(dir, LogFile)}
	}
	part := fmt.Sprintf("shard-%d-of-%d", s.Index, s.Count)
	return runFiles{filepath.Join(dir, "manifest-"+part+".json"), filepath.Join(dir, part+".jsonl"), filepath.Join(dir, "run-"+part+".log")}
}

// configHash is the hash that identifies a config's results: sha256 of its resolved YAML with
// the keys that cannot change results (workers, shards) left out.
func configHash(p *plan.Plan) (string, error) {
	c := *p.Config
	c.Workers, c.Shards = 0, 0
	b, err := c.Resolved()
	if err != nil {
		return "", err
	}
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:]), nil
}

// dirManifests reads every manifest in dir: the whole run's (key "") and the shards' (by file).
func dirManifests(dir string) (map[string]results.Manifest, error) {
	out := map[string]results.Manifest{}
	paths, err := filepath.Glob(filepath.Join(dir, "manifest-shard-*-of-*.json"))
	if err != nil {
		return nil, err
	}
	if _, err := os.Stat(filepath.Join(dir, ManifestFile)); err == nil {
		paths = append(paths, filepath.Join(dir, ManifestFile))
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

// prepareDir checks that dir may take this run (or shard) of the config with the given hash:
// it must be new or empty, or hold runs of the same config and a compatible sharding. It returns
// the existing manifest of this very run or shard, if any (a resume).
func prepareDir(dir, hash string, resolved []byte, shard *results.Shard) (*results.Manifest, error) {
	if dir == "" {
		return nil, errors.New("no run directory given")
	}
	entries, err := os.ReadDir(dir)
	if errors.Is(err, os.ErrNotExist) || err == nil && len(entries) == 0 {
		return nil, os.MkdirAll(dir, 0o755)
	}
	if err != nil {
		return nil, err
	}
	ms, err := dirManifests(dir)
	if err != nil {
		return nil, err
	}
	if len(ms) == 0 {
		// Shards started together into a new directory may find it holding only what another
		// shard has begun to write.
		for _, e := range entries {
			if !startedRunFile.MatchString(e.Name()) {
				return nil, fmt.Errorf("%s is not empty and holds no hcbench run (no manifest); choose another directory with -out", dir)
			}
		}
		if b, err := os.ReadFile(filepath.Join(dir, ConfigFile)); err == nil && !bytes.Equal(b, resolved) {
			return nil, fmt.Errorf("%s holds the start of a run of a different config (its %s differs); choose another -out", dir, ConfigFile)
		}
		return nil, nil
	}
	var own *results.Manifest
	for path, m := range ms {
		if m.ConfigHash != hash {
			return nil, fmt.Errorf("%s holds a run of a different config (%s has config hash %.12s…, this config %.12s…); a run directory takes one config: choose another -out, or restore the config", dir, filepath.Base(path), m.ConfigHash, hash)
		}
		switch {
		case m.Shard == nil && shard != nil:
			return nil, fmt.Errorf("%s holds a whole run (or a merge), not shards; run shard %v in another directory", dir, shard)
		case m.Shard != nil && shard == nil:
			return nil, fmt.Errorf("%s holds shard %v of a sharded run; resume it with -shard %v, or run the whole config in another directory", dir, m.Shard, m.Shard)
		case m.Shard != nil && m.Shard.Count != shard.Count:
			return nil, fmt.Errorf("%s holds shards of %d, this is shard %v; use -shard i/%d or another directory", dir, m.Shard.Count, shard, m.Shard.Count)
		}
		if filepath.Clean(path) == filepath.Clean(filesOf(dir, shard).manifest) {
			m := m
			own = &m
		}
	}
	return own, nil
}

// startedRunFile matches the files a run writes before its manifest (and their temporary files).
var startedRunFile = regexp.MustCompile(`^\.?(config\.yaml|tasks\.txt|run(-shard-\d+-of-\d+)?\.log|(results|shard-\d+-of-\d+)\.jsonl|manifest(-shard-\d+-of-\d+)?\.json)(-\d+)?$`)

// writeTasks writes tasks.txt, or checks that an existing one lists the same tasks (the same
// config over different data files would not).
func writeTasks(dir string, p *plan.Plan) error {
	var b strings.Builder
	for _, t := range p.Tasks {
		b.WriteString(t.Key)
		b.WriteByte('\n')
	}
	path := filepath.Join(dir, TasksFile)
	if old, err := os.ReadFile(path); err == nil {
		if string(old) != b.String() {
			return fmt.Errorf("%s lists other tasks than this config plans (its data files differ?); choose another -out", path)
		}
		return nil
	}
	return results.WriteFileAtomic(path, []byte(b.String()))
}

// readTasks reads tasks.txt.
func readTasks(dir string) ([]string, error) {
	f, err := os.Open(filepath.Join(dir, TasksFile))
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

// inShard reports whether the task at plan position k belongs to shard s (nil: every task).
func inShard(k int, s *results.Shard) bool {
	return s == nil || k%s.Count == s.Index
}

// sortByPlan orders records by their task's position in keys; records of unknown keys go last.
func sortByPlan(recs []results.Record, keys []string) {
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

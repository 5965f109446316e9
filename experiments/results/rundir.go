package results

import "fmt"

// The files of a run directory: the contract between the harness that writes a run (package
// runner) and what reads it (the reports, index.html, compare, merge), as benchfmt is between
// the benchmarks and benchstat. A run directory holds one whole run, or any number of the shards
// of one run (shards of one config may share a directory, as the tasks of a Slurm array writing
// to one folder do):
//
//	config.yaml, tasks.txt                              always
//	manifest.json, results.jsonl, run.log, .lock        a whole run, or a merge of shards
//	manifest-shard-I-of-N.json, shard-I-of-N.jsonl,     shard I of N
//	run-shard-I-of-N.log, .lock-shard-I-of-N
//	.reserve, .reserve-shard-I-of-N                     while a run or shard runs
//	repetitions.jsonl, repetitions-shard-I-of-N.jsonl   while repeated tasks are unfinished
//	data/                                               generated data (save_data)
//	reports/, bench.txt, bench-quality.txt, index.html  a whole run, or a merge
const (
	// ConfigFile is the resolved config, every default explicit.
	ConfigFile = "config.yaml"
	// TasksFile lists every task key of the plan (all shards), one per line in plan order, so
	// that a merge can check that the shards cover the plan without opening the data.
	TasksFile    = "tasks.txt"
	ManifestFile = "manifest.json"
	ResultsFile  = "results.jsonl"
	LogFile      = "run.log"
	// BenchFile holds the task times and BenchQualityFile the quality metrics, in the Go
	// benchmark format, for benchstat (WriteBench, WriteBenchQuality).
	BenchFile        = "bench.txt"
	BenchQualityFile = "bench-quality.txt"
	PageFile         = "index.html"
	DataDir          = "data"
	ReportsDir       = "reports"
	// RepetitionsFile holds the finished repetitions of the tasks whose record is not yet
	// written (Repetition), in a run with repeated tasks; ShardRepetitions names a shard's. The
	// run removes it once every task it ran has its record.
	RepetitionsFile = "repetitions.jsonl"
	// ShardManifests matches the manifests of the shards in a directory (filepath.Glob).
	ShardManifests = "manifest-shard-*-of-*.json"
)

// ShardFiles names the manifest, results and log files of shard s, and its lock and reserve
// files.
func ShardFiles(s Shard) (manifest, results, log, lock, reserve string) {
	part := fmt.Sprintf("shard-%d-of-%d", s.Index, s.Count)
	return "manifest-" + part + ".json", part + ".jsonl", "run-" + part + ".log", ".lock-" + part, ".reserve-" + part
}

// ShardRepetitions names the repetitions file of shard s (RepetitionsFile).
func ShardRepetitions(s Shard) string {
	return fmt.Sprintf("repetitions-shard-%d-of-%d.jsonl", s.Index, s.Count)
}

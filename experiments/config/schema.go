// Package config is the schema of hcbench experiment configs (YAML, version 1): what every key
// means, its default, and the checks a config must pass before any work starts. Load decodes a
// config strictly (unknown keys are errors) and reports every problem at once, each with its file
// and line. `hcbench help config` prints the schema from the same struct tags that drive decoding.
package config

import (
	"fmt"
	"runtime"
	"slices"

	"github.com/hcbench/hcbench/datasets/datadir"
	"github.com/hcbench/hcbench/experiments/registry"
	"github.com/hcbench/hcbench/experiments/results"
)

// SchemaVersion is the only config version this build reads.
const SchemaVersion = 1

// Config is a decoded, validated experiment.
type Config struct {
	Header
	Reports    []string
	Datasets   []Dataset
	Algorithms []Algorithm

	// ReportOptions are the options of the reports that have them (reports.Report.NewOptions),
	// by report name, defaults applied.
	ReportOptions map[string]any

	// Path is the config file as given; paths inside the config are relative to its directory.
	Path string
	// DataDir is the data directory that data: paths name (Options.DataDir).
	DataDir datadir.Location
	// Overrides are the -set flags applied to the file (Options.Set), as given.
	Overrides []string
}

// WorkersFor returns the number of tasks a run of the config runs at once: flag (the -workers
// flag) when positive, else the config's workers, else all cores.
func (c *Config) WorkersFor(flag int) int {
	switch {
	case flag > 0:
		return flag
	case c.Workers > 0:
		return c.Workers
	}
	return runtime.GOMAXPROCS(0)
}

// Header holds the top-level scalar keys.
type Header struct {
	Version  int    `yaml:"version" required:"true" help:"config schema version; must be 1"`
	Name     string `yaml:"name" required:"true" help:"experiment name: names the run directory and every result record (letters, digits, '.', '_', '-')"`
	Seed     uint64 `yaml:"seed" default:"1" help:"master seed; every data item and every task derives its own random stream from it and a stable key, so results do not depend on worker count or order"`
	SaveData bool   `yaml:"save_data" default:"false" help:"also write the generated data sets into data/ of the run directory, to be read back as data files: jets to data/<name>.jsonl, mixtures to one CSV per item, data/<name>-<item>.csv (the -save-data flag does the same)"`
	Workers  int    `yaml:"workers" default:"0" help:"tasks run at once; 0: all cores. 1 gives each task the whole machine, which timing studies want (the trellis runs its own threads); the -workers flag overrides it"`
	Count    int    `yaml:"count" default:"0" help:"how many times each algorithm entry without its own repeat runs on each item (its repetitions, interleaved over the run; see repeat), 1 to 1000; 0: each entry's repeat, else 1. The -count flag overrides it. A nightly config sets the count its time gate was measured with (docs/nightly.md)"`
	Shards   int    `yaml:"shards" default:"0" help:"the number of shards when the shard index comes from a Kubernetes Indexed Job (JOB_COMPLETION_INDEX); the -shards flag overrides it; 0: not set"`
	// Thresholds are how much worse a later run may be before compare calls it a regression.
	Thresholds results.Thresholds `yaml:"thresholds" help:"regression thresholds for hcbench compare (a later run of this config against an earlier one); flags of compare override them"`
}

// listKeys are the top-level keys that hold lists; their entries are described separately.
var listKeys = map[string]string{
	"datasets":   "the data sets: a list of entries, each with a name and exactly one of generator or file (below)",
	"algorithms": "the algorithms: a list of entries, each a name or a mapping {name, label, parameters} (below)",
	"reports":    "the reports to write into the run directory (below); default: [summary]",
}

// Dataset is one entry of `datasets`: a name and exactly one source.
type Dataset struct {
	Name string
	Line int
	// Index is the entry's position in the YAML list, which names it in messages
	// ("datasets[2]"); malformed entries are left out of Config.Datasets but keep their number.
	Index int
	// Kind is the generator name or the file format.
	Kind string
	// Source is the parameters of the source Kind names (registry.Source), defaults applied; a
	// file source's implement registry.FileParams.
	Source registry.Params

	lines keyLines
}

// Path names the entry, or one of its keys, in messages: "datasets[2]" or "datasets[2].file".
func (d *Dataset) Path(key string) string {
	if key == "" {
		return fmt.Sprintf("datasets[%d]", d.Index)
	}
	return fmt.Sprintf("datasets[%d].%s", d.Index, key)
}

// KeyLine returns the line of key in the entry, or the entry's line when the key was not written.
func (d *Dataset) KeyLine(key string) int {
	if l, ok := d.lines[key]; ok {
		return l
	}
	return d.Line
}

// Has reports whether the entry writes key (as opposed to taking its default).
func (d *Dataset) Has(key string) bool { return d.lines.has(key) }

// Problem is a problem with key of the entry, found after the config was loaded (for example
// while reading its data file), at the key's line of the config file.
func (c *Config) Problem(d *Dataset, key, format string, args ...any) Problem {
	return relocate(Problem{File: c.Path, Line: d.KeyLine(key), Msg: d.Path(key) + ": " + fmt.Sprintf(format, args...)}, c.Overrides)
}

// datasetKeys are the keys every data set entry has; the source's own keys come from its struct.
type datasetKeys struct {
	Name      string `yaml:"name" required:"true" help:"data set name, unique in the config (letters, digits, '.', '_', '-')"`
	Generator string `yaml:"generator" help:"generate the data with this generator (below)"`
	File      string `yaml:"file" help:"read the data from this file: a path relative to the config file, or data:SET/FILE for a file of the data directory (hcbench data list; -data DIR or $HCBENCH_DATA, else the user's cache directory), e.g. data:uci/iris.csv"`
	Format    string `yaml:"format" help:"the file's format (below); default: the format of the file's extension"`
}

// Algorithm is one entry of `algorithms`: a name, a label (default: the name) that identifies the
// variant everywhere, and the algorithm's parameters.
type Algorithm struct {
	Name  string
	Label string
	// Datasets are the data sets the variant runs on; empty means all.
	Datasets []string
	// MaxLeaves bounds the items the variant runs on (0: no bound): an item whose leaf count
	// its source knows before loading it (registry.Data.Leaves) and that has more leaves gets
	// no task, and the plan says so; an item whose size is known only once loaded is not left out.
	MaxLeaves int
	// Repeat is how many times the variant runs on each item (repeat:, else Options.Repeat, the
	// -count flag, else 1), each run checked to give the same result; the record keeps every
	// run's time.
	Repeat int
	Line   int
	// Index is the entry's position in the YAML list, as Dataset.Index.
	Index int
	// Params are the parameters of the algorithm Name names (registry.Algorithm), defaults
	// applied.
	Params registry.Params

	lines keyLines
}

// RunsOnDataset reports whether the variant runs on data set name (its datasets key).
func (a *Algorithm) RunsOnDataset(name string) bool {
	return len(a.Datasets) == 0 || slices.Contains(a.Datasets, name)
}

// algorithmKeys are the keys every algorithm mapping has.
type algorithmKeys struct {
	Name      string   `yaml:"name" required:"true" help:"the algorithm"`
	Label     string   `yaml:"label" help:"names this variant in results and reports; default: the name; must be unique"`
	Datasets  []string `yaml:"datasets" help:"run this variant only on these data sets (names); default: all of them"`
	MaxLeaves int      `yaml:"max_leaves" default:"0" help:"run this variant only on the items of at most this many leaves (points), where their source knows the size before loading them (clustbench); the others get no task, the plan lists them, and the comparison report counts them as not run; 0: no bound"`
	Repeat    int      `yaml:"repeat" default:"1" help:"times the variant runs on each item, 1 to 1000 (run -count K sets it for entries without repeat). Every run must give the same tree and numbers (else the task fails: the algorithm is not deterministic); the record keeps each run's time (times) and their median (seconds), bench.txt a line per run. Memory estimates do not change; an external program's timeout applies to each run"`
}

// MaxRepeat bounds repeat and -count: a thousand timings of a task are more than any timing
// study needs, and a record keeps them all.
const MaxRepeat = 1000

package datadir

import (
	"cmp"
	_ "embed"
	"fmt"
	"strings"
)

// The benchmark suite for clustering algorithms of M. Gagolewski ("ClustBench", SoftwareX 20,
// 2022, 101270), version 1.1.0 (DOI 10.5281/zenodo.7088171): the data sets of its repository
// github.com/gagolews/clustering-data-v1 at the commit of the tag v1.1.0.
const (
	ClustBenchRepo    = "gagolews/clustering-data-v1"
	ClustBenchCommit  = "ee6d7a28eb0ff922d29b618b595795a45f1b5cb8" // the tag v1.1.0, 2022-09-17
	ClustBenchVersion = "1.1.0"
	// ClustBenchSetName is the suite's set of the catalog: its folder in the data directory.
	ClustBenchSetName = "clustbench"
)

// clustbenchSums lists the SHA-256 of every file of the suite that the catalog installs, as
// sha256sum writes them (SUM, two spaces, the path installed in the set's folder). It was written
// from a copy checked file by file against the repository at ClustBenchCommit; the one file that
// copy lacked is clustbenchOptional.
//
//go:embed clustbench-v1.1.0.sha256
var clustbenchSums string

// clustbenchRenamed maps the installed names of the suite's README and licence to their paths in
// the repository: installed under these names, they do not clash with the README.md that Fetch
// writes.
var clustbenchRenamed = map[string]string{
	"README-clustering-data-v1.md":   "README.md",
	"LICENSE-clustering-data-v1.txt": "LICENSE",
}

// clustbenchOptional is the suite's file whose SHA-256 the catalog does not know:
// sipu/worms_64.data.gz, a large file missing from the copy the sums were taken from (the
// repository holds it). It is neither fetched nor mirrored; `hcbench data verify` reports it
// "optional, absent", or present but unchecked, and the clustbench source skips worms_64 without
// it, with a warning.
var clustbenchOptional = map[string]string{
	"sipu/worms_64.data.gz": "hcbench does not know its SHA-256, so it is not fetched; without it the clustbench source leaves out sipu/worms_64",
}

// ClustBenchSet is a data set of the suite: Battery/Name.data.gz holds Points rows of Dims
// numbers, and Battery/Name.labels0.gz … labels(Labels−1).gz its reference partitions.
type ClustBenchSet struct {
	Battery, Name string
	Points, Dims  int
	Labels        int
}

// ID is the data set's name in the suite: "battery/name".
func (s ClustBenchSet) ID() string { return s.Battery + "/" + s.Name }

// ClustBenchBatteries are the suite's batteries in the catalog, the recommended ones first.
var ClustBenchBatteries = []string{"wut", "sipu", "fcps", "graves", "other", "uci"}

// ClustBenchRecommended are the five batteries the suite recommends (its 69 data sets).
var ClustBenchRecommended = ClustBenchBatteries[:5]

// ClustBenchSets lists the suite's data sets in the catalog, by battery (in ClustBenchBatteries'
// order) and name, with their sizes, so that a plan estimates their memory before reading them;
// the number of reference labellings comes from the catalog's files.
var ClustBenchSets = clustbenchLabels([]ClustBenchSet{
	{"wut", "circles", 4000, 2, 0},
	{"wut", "cross", 2000, 2, 0},
	{"wut", "graph", 2500, 2, 0},
	{"wut", "isolation", 9000, 2, 0},
	{"wut", "labirynth", 3546, 2, 0},
	{"wut", "mk1", 300, 2, 0},
	{"wut", "mk2", 1000, 2, 0},
	{"wut", "mk3", 600, 3, 0},
	{"wut", "mk4", 1500, 3, 0},
	{"wut", "olympic", 5000, 2, 0},
	{"wut", "smile", 1000, 2, 0},
	{"wut", "stripes", 5000, 2, 0},
	{"wut", "trajectories", 10000, 2, 0},
	{"wut", "trapped_lovers", 5000, 3, 0},
	{"wut", "twosplashes", 400, 2, 0},
	{"wut", "windows", 2977, 2, 0},
	{"wut", "x1", 120, 2, 0},
	{"wut", "x2", 120, 2, 0},
	{"wut", "x3", 185, 2, 0},
	{"wut", "z1", 192, 2, 0},
	{"wut", "z2", 900, 2, 0},
	{"wut", "z3", 1000, 2, 0},
	{"sipu", "a1", 3000, 2, 0},
	{"sipu", "a2", 5250, 2, 0},
	{"sipu", "a3", 7500, 2, 0},
	{"sipu", "aggregation", 788, 2, 0},
	{"sipu", "birch1", 100000, 2, 0},
	{"sipu", "birch2", 100000, 2, 0},
	{"sipu", "compound", 399, 2, 0},
	{"sipu", "d31", 3100, 2, 0},
	{"sipu", "flame", 240, 2, 0},
	{"sipu", "jain", 373, 2, 0},
	{"sipu", "pathbased", 300, 2, 0},
	{"sipu", "r15", 600, 2, 0},
	{"sipu", "s1", 5000, 2, 0},
	{"sipu", "s2", 5000, 2, 0},
	{"sipu", "s3", 5000, 2, 0},
	{"sipu", "s4", 5000, 2, 0},
	{"sipu", "spiral", 312, 2, 0},
	{"sipu", "unbalance", 6500, 2, 0},
	{"sipu", "worms_2", 105600, 2, 0},
	{"sipu", "worms_64", 105000, 64, 0}, // n from its labels, d from its description
	{"fcps", "atom", 800, 3, 0},
	{"fcps", "chainlink", 1000, 3, 0},
	{"fcps", "engytime", 4096, 2, 0},
	{"fcps", "hepta", 212, 3, 0},
	{"fcps", "lsun", 400, 2, 0},
	{"fcps", "target", 770, 2, 0},
	{"fcps", "tetra", 400, 3, 0},
	{"fcps", "twodiamonds", 800, 2, 0},
	{"fcps", "wingnut", 1016, 2, 0},
	{"graves", "dense", 200, 2, 0},
	{"graves", "fuzzyx", 1000, 2, 0},
	{"graves", "line", 250, 2, 0},
	{"graves", "parabolic", 1000, 2, 0},
	{"graves", "ring", 1000, 2, 0},
	{"graves", "ring_noisy", 1050, 2, 0},
	{"graves", "ring_outliers", 1030, 2, 0},
	{"graves", "zigzag", 250, 2, 0},
	{"graves", "zigzag_noisy", 300, 2, 0},
	{"graves", "zigzag_outliers", 280, 2, 0},
	{"other", "chameleon_t4_8k", 8000, 2, 0},
	{"other", "chameleon_t5_8k", 8000, 2, 0},
	{"other", "chameleon_t7_10k", 10000, 2, 0},
	{"other", "chameleon_t8_8k", 8000, 2, 0},
	{"other", "hdbscan", 2309, 2, 0},
	{"other", "iris", 150, 4, 0},
	{"other", "iris5", 105, 4, 0},
	{"other", "square", 1000, 2, 0},
	{"uci", "ecoli", 336, 7, 0},
	{"uci", "glass", 214, 9, 0},
	{"uci", "ionosphere", 351, 34, 0},
	{"uci", "sonar", 208, 60, 0},
	{"uci", "statlog", 2310, 19, 0},
	{"uci", "wdbc", 569, 30, 0},
	{"uci", "wine", 178, 13, 0},
	{"uci", "yeast", 1484, 8, 0},
})

// clustbenchLabels counts each data set's reference labellings among the catalog's files.
func clustbenchLabels(sets []ClustBenchSet) []ClustBenchSet {
	files := map[string]bool{}
	for _, f := range clustbenchFiles() {
		files[f.Name] = true
	}
	for i := range sets {
		for files[fmt.Sprintf("%s.labels%d.gz", sets[i].ID(), sets[i].Labels)] {
			sets[i].Labels++
		}
	}
	return sets
}

// File returns the path in the suite's folder of a file of data set s: "" for the
// data (BATTERY/NAME.data.gz), "labels0", "labels1", … for a reference labelling.
func (s ClustBenchSet) File(kind string) string {
	if kind == "" {
		kind = "data"
	}
	return s.ID() + "." + kind + ".gz"
}

// clustbenchFiles returns the catalog's files of the suite: each downloaded byte for byte from
// the repository at ClustBenchCommit, with the sum of clustbenchSums, and the optional ones
// without a sum.
func clustbenchFiles() []File {
	var files []File
	for i, line := range strings.Split(strings.TrimSpace(clustbenchSums), "\n") {
		sum, name, ok := strings.Cut(line, "  ")
		if !ok || len(sum) != 64 || name == "" {
			panic(fmt.Sprintf("datadir: clustbench-v1.1.0.sha256:%d: want SUM  PATH, got %q", i+1, line)) // a catalog bug
		}
		files = append(files, download(name, Source{ClustBenchRepo, ClustBenchCommit, cmp.Or(clustbenchRenamed[name], name), sum}))
	}
	for name, why := range clustbenchOptional {
		f := download(name, Source{ClustBenchRepo, ClustBenchCommit, name, ""})
		f.Optional = why
		files = append(files, f)
	}
	return files
}

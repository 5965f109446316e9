// Package config is the schema of hcbench experiment configs (YAML, version 1): what every key
// means, its default, and the checks a config must pass before any work starts. Load decodes a
// config strictly (unknown keys are errors) and reports every problem at once, each with its file
// and line. `hcbench help config` prints the schema from the same struct tags that drive decoding.
package config

import (
	"fmt"
	"reflect"

	"hcbench/datasets/datadir"
)

// SchemaVersion is the only config version this build reads.
const SchemaVersion = 1

// Config is a decoded, validated experiment.
type Config struct {
	Header
	Reports    []string
	Datasets   []Dataset
	Algorithms []Algorithm

	// Path is the config file as given; paths inside the config are relative to its directory.
	Path string
	// DataDir is the data directory that data: paths name (Options.DataDir).
	DataDir datadir.Location
}

// Header holds the top-level scalar keys.
type Header struct {
	Version  int    `yaml:"version" required:"true" help:"config schema version; must be 1"`
	Name     string `yaml:"name" required:"true" help:"experiment name: names the run directory and every result record (letters, digits, '.', '_', '-')"`
	Seed     uint64 `yaml:"seed" default:"1" help:"master seed; every data item and every task derives its own random stream from it and a stable key, so results do not depend on worker count or order"`
	SaveData bool   `yaml:"save_data" default:"false" help:"also write the generated data sets into data/ of the run directory, to be read back as data files: jets to data/<name>.jsonl, mixtures to one CSV per item, data/<name>-<item>.csv (the -save-data flag does the same)"`
	Workers  int    `yaml:"workers" default:"0" help:"tasks run at once; 0: all cores. 1 gives each task the whole machine, which timing studies want (the trellis runs its own threads); the -workers flag overrides it"`
	Shards   int    `yaml:"shards" default:"0" help:"the number of shards when the shard index comes from a Kubernetes Indexed Job (JOB_COMPLETION_INDEX); the -shards flag overrides it; 0: not set"`
	// Thresholds are how much worse a later run may be before compare calls it a regression.
	Thresholds Thresholds `yaml:"thresholds" help:"regression thresholds for hcbench compare (a later run of this config against an earlier one); flags of compare override them"`
}

// Thresholds are the largest changes that compare accepts, per data set and algorithm, between
// the means of an earlier and a later run over the tasks both finished. A quality metric that
// gets worse by more than its threshold is a regression (exit 1), as is a task that succeeded
// before and fails now.
type Thresholds struct {
	LogLikelihood float64 `yaml:"log_likelihood" json:"log_likelihood" default:"1e-6" help:"largest drop of the mean log-likelihood (nats)"`
	ExactGap      float64 `yaml:"exact_gap" json:"exact_gap" default:"1e-6" help:"largest rise of the mean gap to the exact MAP (nats; items where a trellis ran)"`
	LogEvidence   float64 `yaml:"log_evidence" json:"log_evidence" default:"1e-6" help:"largest drop of the mean log evidence of the Bayesian algorithms (nats)"`
	Purity        float64 `yaml:"purity" json:"purity" default:"0.001" help:"largest drop of the mean dendrogram purity (leaf-weighted)"`
	Time          float64 `yaml:"time" json:"time" default:"0" help:"largest slowdown of the median task time, as a fraction (0.2: 20% slower), counted only when a Mann-Whitney U test finds the change significant (p < 0.05) and the slower median is at least 1 ms; counted only over at least 8 tasks of the row in both runs, with both runs on one machine (host, CPUs and workers of their sessions); 0: time is reported, never a regression"`
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
	// Source is one of *GinkgoSource, *MixtureSource, *JetsFile, *PAM50File or *CSVFile, defaults
	// applied.
	Source any

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
	return Problem{File: c.Path, Line: d.KeyLine(key), Msg: d.Path(key) + ": " + fmt.Sprintf(format, args...)}
}

// JetLikelihood chooses the split likelihood for jet data (see ../shared/design/ginkgo.md §5–6).
type JetLikelihood struct {
	Likelihood string `yaml:"likelihood" default:"ginkgo2020" help:"split likelihood: ginkgo2020 (the trellis papers' formula) or ginkgo2021 (the exact density of the later generator)"`
	RootLambda string `yaml:"root_lambda" default:"generative" help:"rate of the root split: generative (λ_root for the split of all leaves, λ elsewhere, as the generator) or uniform (λ everywhere, as ClusterTrellis ab931e8)"`
}

// GinkgoSource is `generator: ginkgo`: toy jets from the 2020 Ginkgo shower.
type GinkgoSource struct {
	Jets          int     `yaml:"jets" required:"true" help:"number of jets"`
	JetType       string  `yaml:"jet_type" default:"qcd" help:"qcd (mass 30, lambda_root = lambda) or w (mass 80, lambda_root 3.0); sets mass and lambda_root unless they are given"`
	Mass          float64 `yaml:"mass" help:"root invariant mass M (Δ0 = M²), at most 1e50; default from jet_type"`
	Lambda        float64 `yaml:"lambda" default:"1.5" help:"rate λ of the exponential mass draws of every split but the root's, in [1e-40, 1e40]"`
	LambdaRoot    float64 `yaml:"lambda_root" help:"rate λ_root of the root split, in [1e-40, 1e40]; default from jet_type"`
	TCut          float64 `yaml:"t_cut" required:"true" help:"mass² cut: a node with t ≤ t_cut is a leaf (Ginkgo's pt_cut), in [1e-40, 1e200]"`
	MinLeaves     int     `yaml:"min_leaves" default:"2" help:"fewest leaves a jet may have (inclusive); jets are drawn by rejection"`
	MaxLeaves     int     `yaml:"max_leaves" default:"0" help:"most leaves a jet may have (inclusive; Ginkgo's exclusive maxLeaves is this + 1); 0 means no maximum"`
	MaxTries      int     `yaml:"max_tries" default:"20000" help:"rejection-sampling tries per jet; when they run out the data set fails loudly"`
	FlipChildren  bool    `yaml:"flip_children" default:"false" help:"swap the children of each split with probability ½, as Ginkgo does since June 2021 (changes only the stored order)"`
	JetLikelihood `yaml:",inline"`
}

// JetsFile is `file: PATH` with `format: jets` (the default for .jsonl): jets in JSON Lines.
//
// Its likelihood keys default to Stored: the values the jets were saved with (hcbench writes
// them into every generated jet), so that a frozen data set scores as the run that saved it.
// inputs.Open resolves them against the file.
type JetsFile struct {
	Path       string `yaml:"-"`
	Limit      int    `yaml:"limit" default:"0" help:"use only the first limit jets of the file; 0 means all"`
	Likelihood string `yaml:"likelihood" default:"stored" help:"split likelihood: stored (the likelihood the jets were saved with, which all jets of the file must agree on; ginkgo2020 for jets that store none), ginkgo2020 or ginkgo2021; a value that differs from the one the jets store is an error"`
	RootLambda string `yaml:"root_lambda" default:"stored" help:"rate of the root split: stored (as the jets were saved; generative for jets that store none), generative or uniform; a value that differs from the one the jets store is an error"`
}

// Stored is the default of a jets file's likelihood keys: take the value the jets store.
const Stored = "stored"

// VectorData are the keys of data sets of labelled feature vectors (pam50, CSV files): how missing
// values enter, which rows are used and how items are drawn from them, and the split model that
// scores their trees.
type VectorData struct {
	Missing    string   `yaml:"missing" default:"zero" help:"missing values: zero (filled with 0, as the paper) or mask (similarities over the features both items observe)"`
	Classes    []string `yaml:"classes" default:"[]" help:"keep only the rows of these labels (for example the digits 0, 2 and 4); default: all rows"`
	Binarize   string   `yaml:"binarize" default:"none" help:"none, or a number t: every feature becomes 1 where it exceeds t and 0 elsewhere (the BHC paper's binarised digits and spambase)"`
	Subsamples int      `yaml:"subsamples" default:"0" help:"items to draw, each a subsample of the rows; 0: the whole data set is one item"`
	PerLabel   int      `yaml:"per_label" default:"2" help:"rows per known label in a subsample"`
	Unknown    int      `yaml:"unknown" default:"2" help:"rows with an unknown label in a subsample"`
	Sampling   string   `yaml:"sampling" default:"stratified" help:"stratified (random rows per label from the item's seed, never two identical vectors) or first (the first rows of each label, the same every time, so with subsamples at most 1)"`
	SampleKey  string   `yaml:"sample_key" help:"names the random streams of the stratified draws (with the master seed and the item id); default: the data set's name. Data sets that read the same file with the same sample_key, per_label, unknown and classes draw the same rows, so their model settings can be compared on the same subsamples"`
	SplitModel `yaml:",inline"`
}

// SplitModel chooses the split-potential model that scores a vector item's binary trees: the
// log_likelihood of its records, and what greedy, beam search and the trellis optimise (see
// ../shared/design/pam50.md §5–6).
type SplitModel struct {
	Model       string  `yaml:"split_model" default:"correlation" help:"correlation (the correlation-clustering energy below) or none (no split model: only the Bayesian algorithms and euclidean linkage run, and records have no log_likelihood; for data sets whose n² weights would not fit)"`
	Similarity  string  `yaml:"similarity" default:"cosine" help:"weights of the correlation-clustering energy: cosine or pearson similarity"`
	Centering   string  `yaml:"centering" default:"mean_with_diag" help:"subtracted from the similarities: mean_with_diag (the mean of all n² entries, as AstarTrellis), mean_without_diag, or none"`
	WithinPairs string  `yaml:"within_pairs" default:"unordered" help:"negative edges inside a child counted once per pair (unordered, as AstarTrellis) or twice (ordered)"`
	Beta        float64 `yaml:"beta" default:"1" help:"ψ = exp(−β·energy), β at most 1e100; the MAP does not depend on it, log Z and the marginals do"`
}

// MixtureSource is `generator: mixture`: labelled points from a mixture of Gaussians or of
// independent Bernoulli features, for the Bayesian clustering experiments.
type MixtureSource struct {
	Items      int     `yaml:"items" default:"1" help:"number of data sets drawn (items), each from its own random stream"`
	Kind       string  `yaml:"kind" default:"gaussian" help:"gaussian (spherical components with means uniform in a cube of side separation·√components) or bernoulli (each feature's probability per component from Beta(1/separation, 1/separation))"`
	Components int     `yaml:"components" default:"4" help:"number of components (classes)"`
	Points     int     `yaml:"points" required:"true" help:"points per data set, split evenly over the components (the first ones take the remainder)"`
	Dims       int     `yaml:"dims" default:"2" help:"features per point"`
	Separation float64 `yaml:"separation" default:"3" help:"how far apart the components are (see kind), in [1e-50, 1e50]"`
	Spread     float64 `yaml:"spread" default:"1" help:"gaussian: the components' standard deviation, at most 1e50"`
	SplitModel `yaml:",inline"`
}

// PAM50File is `format: pam50`: UNC's PAM50 training matrix as distributed (TSV, genes in rows, a
// subtype row, empty cells for unknown labels and missing values).
type PAM50File struct {
	Path       string `yaml:"-"`
	VectorData `yaml:",inline"`
}

// CSVFile is `format: csv`: labelled vectors in CSV (gzip allowed), one row per item.
type CSVFile struct {
	Path          string   `yaml:"-"`
	Header        string   `yaml:"header" default:"names" help:"first line: names (column names), none, or sklearn (n_samples, n_features, class names; labels are 0-based class indices)"`
	LabelColumn   string   `yaml:"label_column" help:"the label column, by name or 1-based position; default: the last column; none: no labels"`
	NameColumn    string   `yaml:"name_column" help:"a column of item names, by name or 1-based position; default: none (items are named by row index)"`
	IgnoreColumns []string `yaml:"ignore_columns" default:"[]" help:"further columns to drop, by name or 1-based position"`
	UnknownLabel  string   `yaml:"unknown_label" help:"the label value that means unknown (for example Unknown)"`
	VectorData    `yaml:",inline"`
}

// datasetKeys are the keys every data set entry has; the source's own keys come from its struct.
type datasetKeys struct {
	Name      string `yaml:"name" required:"true" help:"data set name, unique in the config (letters, digits, '.', '_', '-')"`
	Generator string `yaml:"generator" help:"generate the data: ginkgo or mixture"`
	File      string `yaml:"file" help:"read the data from this file: a path relative to the config file, or data:SET/FILE for a file of the data directory (hcbench data list; -data DIR or $HCBENCH_DATA, else the user's cache directory), e.g. data:uci/iris.csv"`
	Format    string `yaml:"format" help:"file format: jets (default for .jsonl, .json), pam50 (UNC's PAM50 TSV), csv (default for .csv, .gz)"`
}

// generators maps `generator:` values to their source types.
var generators = map[string]reflect.Type{
	"ginkgo":  reflect.TypeFor[GinkgoSource](),
	"mixture": reflect.TypeFor[MixtureSource](),
}

// fileFormats maps `format:` values to their source types, and defaultFormats file extensions to
// formats.
var (
	fileFormats = map[string]reflect.Type{
		"jets":  reflect.TypeFor[JetsFile](),
		"pam50": reflect.TypeFor[PAM50File](),
		"csv":   reflect.TypeFor[CSVFile](),
	}
	defaultFormats = map[string]string{
		".jsonl": "jets",
		".json":  "jets",
		".csv":   "csv",
		".gz":    "csv",
	}
)

// Algorithm is one entry of `algorithms`: a name, a label (default: the name) that identifies the
// variant everywhere, and the algorithm's parameters.
type Algorithm struct {
	Name  string
	Label string
	// Datasets are the data sets the variant runs on; empty means all.
	Datasets []string
	Line     int
	// Index is the entry's position in the YAML list, as Dataset.Index.
	Index int
	// Params points to the algorithm's parameter struct (see algorithmParams), defaults applied.
	Params any

	lines keyLines
}

// algorithmKeys are the keys every algorithm mapping has.
type algorithmKeys struct {
	Name     string   `yaml:"name" required:"true" help:"the algorithm"`
	Label    string   `yaml:"label" help:"names this variant in results and reports; default: the name; must be unique"`
	Datasets []string `yaml:"datasets" help:"run this variant only on these data sets (names); default: all of them"`
}

// TruthParams: `truth` scores the generating tree of items that have one.
type TruthParams struct{}

// GreedyParams: `greedy` merges the pair with the largest split likelihood until one cluster is left.
type GreedyParams struct{}

// TrellisParams: `trellis` is the exact cluster trellis (log Z, MAP tree, tree count, marginals,
// posterior samples) over all 2^N subsets.
type TrellisParams struct {
	Mode          string   `yaml:"mode" default:"full" help:"full: log Z, the MAP tree and the tree count in one pass; map: the MAP tree alone, faster (no log Z, marginals or samples)"`
	CountTrees    bool     `yaml:"count_trees" default:"true" help:"count the trees with finite likelihood (n_trees: exact below 2^53, else a float with n_trees_exact false)"`
	CountMAPTrees bool     `yaml:"count_map_trees" default:"false" help:"count the trees that reach the MAP (every split within 1e-9 of its cluster's best; map_trees) and, on labelled data, the least and greatest pair-weighted dendrogram purity among them; a second pass over the trellis, for models whose MAP is heavily tied (the correlation-clustering energy)"`
	Marginals     int      `yaml:"marginals" default:"0" help:"report the posterior marginal of every MAP cluster and of the k most probable clusters, k = this value; 0: none (the marginals take a second pass, twice as long as the first)"`
	Samples       int      `yaml:"samples" default:"0" help:"draw this many trees from the exact posterior, reproducible from the task seed"`
	MemoryLimit   ByteSize `yaml:"memory_limit" default:"0" help:"most memory one task's tables may take: bytes, or a number with KiB, MiB or GiB; 0: half of the memory the process may use (RAM, or its cgroup's limit when lower), a budget that the trellis tasks running at once share (a task waits for its share). A larger N fails before allocating, with a message naming N, the estimate and the limit; a limit above what the process may use is refused. It changes no result, so a resume may change it (lower it after a run was killed for memory)"`
	Threads       int      `yaml:"threads" default:"0" help:"goroutines for one pass; 0: all cores. Results are identical for any value"`
}

// BeamParams: `beam` is beam search over merges (StandardHC beamSearchOptimal_invM).
type BeamParams struct {
	BeamSize BeamSize `yaml:"beam_size" default:"n(n-1)/2" help:"beam size B: a number, or n(n-1)/2 (the ML4PS paper), 3n, max(3n, n(n-1)/2) or min(3n, n(n-1)/2), with n the number of leaves"`
	Dedup    string   `yaml:"dedup" default:"structure" help:"how equal partial hierarchies are kept once: structure (ours: by their sets of clusters) or float (the reference: by the exact float value of their total, which float rounding can fool)"`
}

// SparseTrellisParams: `sparse_trellis` is the trellis's dynamic program on a sparse trellis
// seeded with greedy and beam-search trees (our construction, see README).
type SparseTrellisParams struct {
	Seeds           []string `yaml:"seeds" default:"[greedy, beam]" help:"seed trees whose clusters and splits the sparse trellis holds: greedy and/or beam (every tree of the final beam)"`
	BeamSize        BeamSize `yaml:"beam_size" default:"3n" help:"beam size of the beam seed, as for beam"`
	BeamDedup       string   `yaml:"beam_dedup" default:"structure" help:"how the beam seed keeps equal partial hierarchies, as beam's dedup: structure (no seed slot spent on a forest already held) or float"`
	AllPairsMaxSize int      `yaml:"all_pairs_max_size" default:"8" help:"clusters of at most this many items get all their splits (1 to 20); at N or more the sparse trellis is the full one"`
	SplitsTried     int      `yaml:"splits_tried" default:"25" help:"random 2-cuts drawn for each larger cluster"`
	SplitsKept      int      `yaml:"splits_kept" default:"15" help:"the best of the drawn cuts kept as splits"`
	MaxClusters     int      `yaml:"max_clusters" default:"100000" help:"most clusters (vertices); beyond it, splits that need new clusters are left out (the seeds' never are)"`
}

// LinkageParams: `linkage` is classical agglomerative clustering of feature vectors.
type LinkageParams struct {
	Method   string `yaml:"method" default:"average" help:"average (UPGMA; the authors' genomics baseline), single or complete"`
	Distance string `yaml:"distance" default:"euclidean" help:"euclidean (between the feature vectors) or weights (max(w) − w_ij from the correlation-clustering weights, as AstarTrellis)"`
}

// algorithmParams maps algorithm names to their parameter types; algorithmHelp says what each does.
var (
	algorithmParams = map[string]reflect.Type{
		"truth":          reflect.TypeFor[TruthParams](),
		"greedy":         reflect.TypeFor[GreedyParams](),
		"trellis":        reflect.TypeFor[TrellisParams](),
		"beam":           reflect.TypeFor[BeamParams](),
		"sparse_trellis": reflect.TypeFor[SparseTrellisParams](),
		"linkage":        reflect.TypeFor[LinkageParams](),
		"bhc":            reflect.TypeFor[BHCParams](),
		"rbhc":           reflect.TypeFor[RBHCParams](),
		"embhc":          reflect.TypeFor[EMBHCParams](),
		"bhc_exact":      reflect.TypeFor[BHCExactParams](),
		"brt":            reflect.TypeFor[BRTParams](),
	}
	algorithmHelp = map[string]string{
		"truth":          "scores the generating tree (data sets that have one; other items get no truth task)",
		"greedy":         "greedy agglomeration: merge the pair with the largest split log-likelihood until one cluster is left (ties: trellis.md §6)",
		"linkage":        "classical agglomerative clustering (average, single or complete linkage) of feature vectors; its tree is scored under the data set's model",
		"sparse_trellis": "approximate MAP for large N: the exact dynamic program on the clusters of greedy and beam-search trees, all splits of small clusters and the best of random cuts of large ones; never worse than its seeds",
		"beam":           "beam search over merges (the trellis papers' baseline): keeps the B best partial hierarchies level by level",
		"bhc":            "Bayesian hierarchical clustering (Heller & Ghahramani 2005): greedy merges by the posterior r_k under a conjugate cluster model; log p(D|T), the Corollary-1 lower bound and flat clusters at r < 0.5; feature vectors only",
		"rbhc":           "randomized BHC (2005 note, Fig. 3): BHC on a random subsample of m points, filter the rest to its two sides, recurse; O(n log n)",
		"embhc":          "EMBHC (2005 note, Fig. 5): m clusters from a subsample, refined by hard EM, each resolved into a subtree (greedy BHC or RBHC), the subtrees merged by BHC",
		"bhc_exact":      "the best binary tree under BHC with a fixed π, by dynamic programming over all subsets (n ≤ 20; O(3^n)); its gap to bhc with prior fixed measures how far greedy search falls short",
		"brt":            "Bayesian rose trees (Blundell, Teh & Heller 2010): greedy join, absorb and collapse merges; rose trees with any number of children",
		"trellis":        "the exact cluster trellis (AISTATS 2021): log Z over all (2N−3)!! trees, the MAP tree, the number of finite-likelihood trees, marginals and exact posterior samples; O(3^N) time, O(2^N) memory, practical to N ≈ 22",
	}
)

// reportHelp lists the report names `reports:` accepts.
var reportHelp = map[string]string{
	"summary":        "per data set and algorithm: items, failures, mean ± std log-likelihood, log Z and log evidence where computed (means over finite values; −inf ones counted), and mean gap to truth (Markdown and CSV)",
	"runtime":        "median seconds per algorithm against the number of leaves N: a table (Markdown and CSV) and a log-scale plot (PNG and SVG)",
	"likelihood_gap": "for every two algorithms, the mean ± std of their log-likelihood difference on the same items, in the layout of ML4PS 2020 Table 1, overall and by N; how often each reaches the exact MAP; a histogram of each difference",
	"z_vs_map":       "log Z against the exact MAP per item, coloured by N, with y = x (ML4PS 2020 Fig. 3), and the distribution of log Z − MAP",
	"purity":         "for labelled data: dendrogram purity (leaf- and pair-weighted), flat and adjusted purity per algorithm; for up to 50 items, a row per item with each tree's gap to the exact MAP and its purity; with the trellis's count_map_trees, the number of trees that reach the MAP and the range of their purity",
	"evidence":       "for the Bayesian algorithms: mean ± standard error of log p(D|T) per data set and algorithm, as the BRT slides' table (BHC with the DP prior, BHC with a fixed π, BRT), the Corollary-1 lower bound, and for every two algorithms the mean ± std of their difference on the same items and how often the first is within 1e-9 of the second",
	"dendrograms":    "for labelled data: every algorithm's tree of the first item side by side, leaves named and coloured by class (grey: unknown), as ML4PS 2020 Fig. 4 (PNG and SVG)",
}

// ReportNames returns the report names a config may ask for.
func ReportNames() []string { return sortedKeys(reportHelp) }

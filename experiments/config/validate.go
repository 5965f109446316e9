package config

import (
	"fmt"
	"math"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"hcbench/algorithms/model/correlation"
	likelihood "hcbench/algorithms/model/ginkgo"
	"hcbench/datasets/datadir"
	"hcbench/experiments/memory"
	"hcbench/generators/ginkgo"
	"hcbench/generators/mixture"
)

// namePattern keeps names safe in task keys ("dataset=…|item=…") and in file names.
var namePattern = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]*$`)

// validate checks what decoding cannot: ranges, cross-key rules, uniqueness and that data files
// exist. Each problem points at the line of the key concerned.
func (d *decoder) validate(cfg *Config, top keyLines) {
	if !d.failed["version"] && cfg.Version != SchemaVersion {
		d.addf(top["version"], "version: this hcbench reads config version %d, got %d", SchemaVersion, cfg.Version)
	}
	if !d.failed["name"] && !namePattern.MatchString(cfg.Name) {
		d.addf(top["name"], "name: %q must start with a letter or digit and hold only letters, digits, '.', '_' and '-'", cfg.Name)
	}
	if !d.failed["workers"] && cfg.Workers < 0 {
		d.addf(top["workers"], "workers: must be 0 (all cores) or positive, got %d", cfg.Workers)
	}
	names := map[string]int{}
	// A data set entry that could not be decoded may have any name, so references to data sets
	// by name cannot be checked.
	namesKnown := top.has("datasets") && !d.failed["datasets"] && !d.unnamedDataset
	for _, ds := range cfg.Datasets {
		v := entryCheck{d: d, prefix: ds.Path(""), at: ds.KeyLine}
		switch {
		case d.failed[ds.Path("name")]:
			namesKnown = false
		case !namePattern.MatchString(ds.Name):
			v.bad("name", "%q must start with a letter or digit and hold only letters, digits, '.', '_' and '-'", ds.Name)
		default:
			if prev, dup := names[ds.Name]; dup {
				v.bad("name", "%q is already the name of the data set on line %d", ds.Name, prev)
			} else {
				names[ds.Name] = ds.KeyLine("name")
			}
		}
		switch s := ds.Source.(type) {
		case *GinkgoSource:
			v.ginkgo(s)
		case *MixtureSource:
			v.mixture(s)
		case *JetsFile:
			oneOf(v, "likelihood", s.Likelihood, Stored, "ginkgo2020", "ginkgo2021")
			oneOf(v, "root_lambda", s.RootLambda, Stored, "generative", "uniform")
			if s.Limit < 0 {
				v.bad("limit", "must be 0 (all) or positive, got %d", s.Limit)
			}
			v.file(cfg, s.Path)
		case *PAM50File:
			v.vectorData(s.VectorData)
			v.file(cfg, s.Path)
		case *CSVFile:
			v.vectorData(s.VectorData)
			oneOf(v, "header", s.Header, "names", "none", "sklearn")
			v.file(cfg, s.Path)
		}
	}
	labels := map[string]int{}
	for _, a := range cfg.Algorithms {
		path := fmt.Sprintf("algorithms[%d]", a.Index)
		at := func(key string) int {
			if l, ok := a.lines[key]; ok {
				return l
			}
			return a.Line
		}
		v := entryCheck{d: d, prefix: path, at: at}
		switch p := a.Params.(type) {
		case *TrellisParams:
			v.trellis(p)
		case *SparseTrellisParams:
			v.sparseTrellis(p)
		case *LinkageParams:
			oneOf(v, "method", p.Method, "average", "single", "complete")
			oneOf(v, "distance", p.Distance, "euclidean", "weights")
		case *BHCParams, *RBHCParams, *EMBHCParams, *BHCExactParams, *BRTParams:
			v.bayesian(p)
		case *BeamParams:
			oneOf(v, "dedup", p.Dedup, "structure", "float")
		}
		if namesKnown {
			for _, ds := range a.Datasets {
				if _, ok := names[ds]; !ok {
					v.bad("datasets", "no data set is named %q", ds)
				}
			}
		}
		switch {
		case d.failed[path+".label"]:
		case !namePattern.MatchString(a.Label):
			v.bad("label", "%q must start with a letter or digit and hold only letters, digits, '.', '_' and '-'", a.Label)
		default:
			if prev, dup := labels[a.Label]; dup {
				d.addf(at("label"), "%s: label %q is already used on line %d; give each variant its own label", path, a.Label, prev)
			} else {
				labels[a.Label] = at("label")
			}
		}
	}
}

// entryCheck reports problems of one data set or algorithm entry at the lines of its keys.
type entryCheck struct {
	d      *decoder
	prefix string // "datasets[0]"
	at     func(key string) int
}

// failed reports whether any of keys, or any value nested in them, could not be decoded (or
// derives from a key that could not), so that a check combining them would report a value the
// user did not write.
func (v entryCheck) failed(keys ...string) bool {
	for p := range v.d.failed {
		for _, k := range keys {
			full := v.prefix + "." + k
			if rest, ok := strings.CutPrefix(p, full); ok && (rest == "" || rest[0] == '.' || rest[0] == '[') {
				return true
			}
		}
	}
	return false
}

// bad reports a problem with key unless decoding already reported one.
func (v entryCheck) bad(key, format string, args ...any) {
	path := v.prefix + "." + key
	if v.d.failed[path] {
		return
	}
	v.d.fail(v.at(key), path, format, args...)
}

func (v entryCheck) vectorData(d VectorData) {
	oneOf(v, "missing", d.Missing, "zero", "mask")
	oneOf(v, "sampling", d.Sampling, "stratified", "first")
	v.splitModel(d.SplitModel)
	if d.Binarize != "none" {
		if x, err := strconv.ParseFloat(d.Binarize, 64); err != nil || math.IsNaN(x) || math.IsInf(x, 0) {
			v.bad("binarize", "must be none or a number, got %q", d.Binarize)
		}
	}
	seen := map[string]bool{}
	for _, c := range d.Classes {
		if seen[c] {
			v.bad("classes", "%q listed twice", c)
		}
		seen[c] = true
	}
	if d.Subsamples < 0 {
		v.bad("subsamples", "must be 0 (the whole data set) or positive, got %d", d.Subsamples)
	}
	if d.PerLabel < 0 {
		v.bad("per_label", "must be 0 or positive, got %d", d.PerLabel)
	}
	if d.Unknown < 0 {
		v.bad("unknown", "must be 0 or positive, got %d", d.Unknown)
	}
	if d.Subsamples > 0 && d.PerLabel == 0 && d.Unknown == 0 && !v.failed("per_label", "unknown", "subsamples") {
		v.bad("per_label", "a subsample needs rows: per_label and unknown are both 0")
	}
	if d.Sampling == "first" && d.Subsamples > 1 {
		v.bad("subsamples", "sampling: first takes the same rows for every subsample, so %d subsamples would be %d identical items; use subsamples: 1, or sampling: stratified", d.Subsamples, d.Subsamples)
	}
	if !namePattern.MatchString(d.SampleKey) {
		v.bad("sample_key", "%q must start with a letter or digit and hold only letters, digits, '.', '_' and '-'", d.SampleKey)
	}
}

func oneOf(v entryCheck, key, val string, allowed ...string) {
	if !slices.Contains(allowed, val) {
		v.bad(key, "must be %s, got %q", orList(allowed), val)
	}
}

// orList writes "a, b or c".
func orList(s []string) string {
	if len(s) < 2 {
		return strings.Join(s, "")
	}
	return strings.Join(s[:len(s)-1], ", ") + " or " + s[len(s)-1]
}

func (v entryCheck) splitModel(m SplitModel) {
	oneOf(v, "split_model", m.Model, "correlation", "none")
	oneOf(v, "similarity", m.Similarity, "cosine", "pearson")
	oneOf(v, "centering", m.Centering, "mean_with_diag", "mean_without_diag", "none")
	oneOf(v, "within_pairs", m.WithinPairs, "unordered", "ordered")
	if !(m.Beta > 0) {
		v.bad("beta", "must be positive, got %v", m.Beta)
	} else if m.Beta > correlation.MaxBeta {
		v.bad("beta", "must be at most %g (β times a split's energy must stay finite), got %v", float64(correlation.MaxBeta), m.Beta)
	}
}

func (v entryCheck) mixture(m *MixtureSource) {
	oneOf(v, "kind", m.Kind, "gaussian", "bernoulli")
	if m.Items < 1 {
		v.bad("items", "must be at least 1, got %d", m.Items)
	}
	if m.Components < 1 {
		v.bad("components", "must be at least 1, got %d", m.Components)
	}
	if m.Points < m.Components {
		v.bad("points", "must be at least components (%d), got %d", m.Components, m.Points)
	}
	if m.Dims < 1 {
		v.bad("dims", "must be at least 1, got %d", m.Dims)
	}
	if !(m.Separation > 0) {
		v.bad("separation", "must be positive, got %v", m.Separation)
	} else {
		v.inRange("separation", m.Separation, mixture.MinSeparation, mixture.MaxSeparation, "so that the points stay far below 1e100, the largest value the cluster models take, and 1/separation (bernoulli) is finite")
	}
	if !(m.Spread > 0) {
		v.bad("spread", "must be positive, got %v", m.Spread)
	} else if m.Spread > mixture.MaxSpread {
		v.bad("spread", "must be at most %g, so that the points stay far below 1e100, the largest value the cluster models take; got %v", float64(mixture.MaxSpread), m.Spread)
	}
	v.splitModel(m.SplitModel)
}

func (v entryCheck) sparseTrellis(p *SparseTrellisParams) {
	if len(p.Seeds) == 0 {
		v.bad("seeds", "give at least one of greedy, beam")
	}
	seen := map[string]bool{}
	for _, s := range p.Seeds {
		if s != "greedy" && s != "beam" {
			v.bad("seeds", "unknown seed %q (want greedy or beam)", s)
		} else if seen[s] {
			v.bad("seeds", "%q listed twice", s)
		}
		seen[s] = true
	}
	if p.AllPairsMaxSize < 1 || p.AllPairsMaxSize > 20 {
		v.bad("all_pairs_max_size", "must be 1 to 20, got %d", p.AllPairsMaxSize)
	}
	if p.SplitsTried < 0 {
		v.bad("splits_tried", "must be 0 or positive, got %d", p.SplitsTried)
	}
	if p.SplitsKept < 0 {
		v.bad("splits_kept", "must be 0 or positive, got %d", p.SplitsKept)
	}
	if p.MaxClusters < 1 {
		v.bad("max_clusters", "must be positive, got %d", p.MaxClusters)
	}
	oneOf(v, "beam_dedup", p.BeamDedup, "structure", "float")
}

// The trellis lists its samples and top clusters in every record, so their numbers are bounded to
// keep results.jsonl readable.
const (
	maxTrellisSamples   = 100_000
	maxTrellisMarginals = 10_000
)

func (v entryCheck) trellis(p *TrellisParams) {
	if p.Mode != "full" && p.Mode != "map" {
		v.bad("mode", "must be full or map, got %q", p.Mode)
	}
	if p.Marginals < 0 {
		v.bad("marginals", "must be 0 (none) or positive, got %d", p.Marginals)
	} else if p.Marginals > maxTrellisMarginals {
		v.bad("marginals", "at most %d (each cluster is listed in the record), got %d", maxTrellisMarginals, p.Marginals)
	}
	if p.Samples < 0 {
		v.bad("samples", "must be 0 (none) or positive, got %d", p.Samples)
	} else if p.Samples > maxTrellisSamples {
		v.bad("samples", "at most %d (each sample is a tree in the record), got %d", maxTrellisSamples, p.Samples)
	}
	if p.Mode == "map" && p.Marginals > 0 {
		v.bad("marginals", "need log Z, which mode: map skips; use mode: full")
	}
	if p.Mode == "map" && p.Samples > 0 {
		v.bad("samples", "need log Z, which mode: map skips; use mode: full")
	}
	if p.Threads < 0 {
		v.bad("threads", "must be 0 (all cores) or positive, got %d", p.Threads)
	}
	if p.MemoryLimit > 0 && int64(p.MemoryLimit) > memory.Limit() {
		v.bad("memory_limit", "%s is more than this process may use, %s; a task that took it would be killed (lower it: it bounds the tables of one task, 0 means half of what the process may use)",
			memory.Format(int64(p.MemoryLimit)), memory.Describe())
	}
}

func (v entryCheck) ginkgo(g *GinkgoSource) {
	if g.Jets < 1 {
		v.bad("jets", "must be at least 1, got %d", g.Jets)
	}
	oneOf(v, "jet_type", g.JetType, "qcd", "w")
	switch {
	case !(g.Mass > 0):
		v.bad("mass", "must be positive, got %v", g.Mass)
	case g.Mass > ginkgo.MaxMass:
		v.bad("mass", "must be at most %g, got %v (the shower squares masses², which would overflow and make NaN momenta)", float64(ginkgo.MaxMass), g.Mass)
	}
	if !(g.Lambda > 0) {
		v.bad("lambda", "must be positive, got %v", g.Lambda)
	} else {
		v.inRange("lambda", g.Lambda, likelihood.MinRate, likelihood.MaxRate, likelihoodRange)
	}
	if !(g.LambdaRoot > 0) {
		v.bad("lambda_root", "must be positive, got %v", g.LambdaRoot)
	} else {
		v.inRange("lambda_root", g.LambdaRoot, likelihood.MinRate, likelihood.MaxRate, likelihoodRange)
	}
	switch {
	case !(g.TCut > 0):
		v.bad("t_cut", "must be positive, got %v (it is a cut on the mass², t ≤ t_cut makes a leaf)", g.TCut)
	case g.TCut < likelihood.MinTCut || g.TCut > likelihood.MaxTCut:
		v.inRange("t_cut", g.TCut, likelihood.MinTCut, likelihood.MaxTCut, likelihoodRange)
	case g.Mass > 0 && g.TCut >= g.Mass*g.Mass:
		v.bad("t_cut", "%v is not below the root mass² %v, so every jet would be a single leaf", g.TCut, g.Mass*g.Mass)
	}
	if g.MinLeaves < 2 {
		v.bad("min_leaves", "must be at least 2, got %d", g.MinLeaves)
	}
	switch {
	case g.MaxLeaves < 0:
		v.bad("max_leaves", "must be 0 (no maximum) or positive, got %d", g.MaxLeaves)
	case g.MaxLeaves > 0 && g.MinLeaves > g.MaxLeaves:
		v.bad("min_leaves", "%d is greater than max_leaves %d (both are inclusive)", g.MinLeaves, g.MaxLeaves)
	}
	if g.MaxTries < 1 {
		v.bad("max_tries", "must be at least 1, got %d", g.MaxTries)
	}
	oneOf(v, "likelihood", g.Likelihood, "ginkgo2020", "ginkgo2021")
	oneOf(v, "root_lambda", g.RootLambda, "generative", "uniform")
}

// likelihoodRange says why λ and t_cut are bounded.
const likelihoodRange = "the range in which the Ginkgo likelihood is computed without overflow or underflow"

// inRange reports x outside [lo, hi], saying why the range.
func (v entryCheck) inRange(key string, x, lo, hi float64, why string) {
	if !(x >= lo && x <= hi) {
		v.bad(key, "must lie in [%g, %g], %s; got %v", lo, hi, why, x)
	}
}

func (v entryCheck) file(cfg *Config, p string) {
	if _, _, err := datadir.Rel(p); err != nil {
		v.bad("file", "%v", err)
		return
	}
	path := cfg.Resolve(p)
	st, err := os.Stat(path)
	switch {
	case err != nil && os.IsNotExist(err):
		v.bad("file", "%s does not exist; %s", path, cfg.MissingHint(p))
	case err != nil:
		v.bad("file", "cannot read %s: %v", path, err)
	case st.IsDir():
		v.bad("file", "%s is a directory, not a data file", path)
	}
}

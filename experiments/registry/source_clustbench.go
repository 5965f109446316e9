package registry

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/hcbench/hcbench/datasets/clustbench"
	"github.com/hcbench/hcbench/datasets/datadir"
	"github.com/hcbench/hcbench/datasets/datafile"
	"github.com/hcbench/hcbench/experiments/item"
	"github.com/hcbench/hcbench/experiments/seeds"
	"github.com/hcbench/hcbench/internal/english"
	"go.yaml.in/yaml/v3"
)

func init() {
	RegisterSource(Source{
		Name: "clustbench",
		Help: "the data sets of the ClustBench suite v" + datadir.ClustBenchVersion + " (hcbench data fetch clustbench), one item each, " +
			"its id BATTERY/NAME, with all its reference partitions (item References; Labels the first, noise \"\")",
		NewParams: func() Params { return &ClustBenchSource{} },
		Generated: func(p Params) item.Size { s := p.(*ClustBenchSource); sets, _ := s.chosen(); return s.size(sets) },
		Open:      openClustBench,
	})
}

// Recommended is the word of `batteries` for the five batteries the suite recommends.
const Recommended = "recommended"

// ClustBenchSource is `generator: clustbench`: data sets of the ClustBench suite, read from its
// folder in the data directory, one item each.
type ClustBenchSource struct {
	Dir       string   `yaml:"dir" default:"data:clustbench" help:"the suite's folder, laid out as its repository (BATTERY/NAME.data.gz, NAME.labels0.gz, …): data:clustbench, where hcbench data fetch clustbench puts it, or a folder relative to the config file"`
	Batteries NameList `yaml:"batteries" default:"recommended" help:"the batteries whose data sets are items: wut, sipu, fcps, graves, other, uci, or recommended (the first five: the suite's 69 data sets)"`
	Datasets  []string `yaml:"datasets" default:"[]" help:"instead of batteries, these data sets: battery/name, or a name that one battery has"`
	Exclude   []string `yaml:"exclude" default:"[]" help:"data sets left out (battery/name or name)"`
	MaxPoints int      `yaml:"max_points" default:"0" help:"leave out the data sets of more points, with a warning naming them; 0: none"`
	// The suite's published results preprocess so: clustbench.Preprocess.Apply.
	Preprocess string  `yaml:"preprocess" default:"original" help:"original (the suite's published results: columns of zero variance dropped, each column centred, all divided by one standard deviation of all entries, ddof 1) or none"`
	Jitter     float64 `yaml:"jitter" default:"0" help:"white noise added to every coordinate, its standard deviation this times the standard deviation of all entries (the suite's results use 1e-6, to break distance ties), drawn from the item's seed; 0: none"`
	SplitModel string  `yaml:"split_model" default:"none" help:"none, or correlation (the correlation-clustering energy with the CSV source's default settings), whose n² weights only the small data sets can hold"`
}

// NameList is a list of names that a config may also write as one name (batteries: recommended).
type NameList []string

// DecodeYAML reads a name or a list of names.
func (l *NameList) DecodeYAML(n *yaml.Node) error {
	switch {
	case n.Kind == yaml.ScalarNode && n.ShortTag() == "!!str":
		*l = NameList{n.Value}
		return nil
	case n.Kind == yaml.SequenceNode:
		out := make(NameList, len(n.Content))
		for i, e := range n.Content {
			if e.Kind != yaml.ScalarNode || e.ShortTag() != "!!str" {
				return fmt.Errorf("want a name, got %s at [%d]", Describe(e), i)
			}
			out[i] = e.Value
		}
		*l = out
		return nil
	}
	return fmt.Errorf("want a name or a list of names, got %s", Describe(n))
}

// YAMLType says what the value is, for help.
func (*NameList) YAMLType() string { return "name or list" }

// Check checks the keys of a clustbench data set.
func (s *ClustBenchSource) Check(v Checker) {
	known := append(slices.Clone(datadir.ClustBenchBatteries), Recommended)
	seen := map[string]bool{}
	for _, b := range s.Batteries {
		switch {
		case !slices.Contains(known, b):
			v.Bad("batteries", "unknown battery %q%s", b, suggestion(b, known))
		case seen[b]:
			v.Bad("batteries", "%q listed twice", b)
		}
		seen[b] = true
	}
	if len(s.Datasets) > 0 && v.Has("batteries") {
		v.Bad("datasets", "give batteries or datasets, not both")
	}
	for _, key := range []string{"datasets", "exclude"} {
		names := map[string][]string{"datasets": s.Datasets, "exclude": s.Exclude}[key]
		seen := map[string]bool{}
		for _, n := range names {
			set, err := clustbenchSet(n)
			if err != nil {
				v.Bad(key, "%v", err)
			} else if seen[set.ID()] {
				v.Bad(key, "%s listed twice", set.ID())
			} else {
				seen[set.ID()] = true
			}
		}
	}
	if s.MaxPoints < 0 {
		v.Bad("max_points", "must be 0 (no bound) or positive, got %d", s.MaxPoints)
	}
	OneOf(v, "preprocess", s.Preprocess, "original", "none")
	OneOf(v, "split_model", s.SplitModel, "none", "correlation")
	if !(s.Jitter >= 0 && s.Jitter <= 1) {
		v.Bad("jitter", "must be in [0, 1] (relative to the data's standard deviation), got %v", s.Jitter)
	}
	if sets, _ := s.chosen(); len(sets) == 0 && !v.Failed("batteries", "datasets", "exclude", "max_points") {
		v.Bad("exclude", "no data set is left (batteries %s, datasets %q, exclude %q, max_points %d)", strings.Join(s.Batteries, ", "), s.Datasets, s.Exclude, s.MaxPoints)
	}
}

// suggestion is " (did you mean …?)" for the closest of known, else the list of known.
func suggestion(name string, known []string) string {
	if best := english.Closest(name, known); best != "" {
		return fmt.Sprintf(" (did you mean %q?)", best)
	}
	return " (known: " + strings.Join(known, ", ") + ")"
}

// clustbenchSet returns the data set a config names: battery/name, or a name one battery has.
func clustbenchSet(name string) (datadir.ClustBenchSet, error) {
	var ids, matches []string
	var found []datadir.ClustBenchSet
	for _, s := range datadir.ClustBenchSets {
		ids = append(ids, s.ID())
		if s.ID() == name || s.Name == name {
			found = append(found, s)
			matches = append(matches, s.ID())
		}
	}
	switch len(found) {
	case 1:
		return found[0], nil
	case 0:
		if best := english.Closest(name, ids); best != "" {
			return datadir.ClustBenchSet{}, fmt.Errorf("no data set %q in ClustBench v%s (did you mean %q?)", name, datadir.ClustBenchVersion, best)
		}
		var names []string
		for _, s := range datadir.ClustBenchSets {
			names = append(names, s.Name)
		}
		if best := english.Closest(name, names); best != "" {
			return datadir.ClustBenchSet{}, fmt.Errorf("no data set %q in ClustBench v%s (did you mean %q?)", name, datadir.ClustBenchVersion, best)
		}
		return datadir.ClustBenchSet{}, fmt.Errorf("no data set %q in ClustBench v%s; its data sets are listed in docs/data.md", name, datadir.ClustBenchVersion)
	}
	return datadir.ClustBenchSet{}, fmt.Errorf("%q is a data set of several batteries: write one of %s", name, strings.Join(matches, ", "))
}

// chosen returns the data sets the keys select, in the catalog's order, and why each other of
// the batteries or data sets named is left out (exclude, max_points). Names that are not data
// sets are skipped (Check reports them).
func (s *ClustBenchSource) chosen() (sets []datadir.ClustBenchSet, left []string) {
	want := map[string]bool{}
	if len(s.Datasets) > 0 {
		for _, n := range s.Datasets {
			if set, err := clustbenchSet(n); err == nil {
				want[set.ID()] = true
			}
		}
	} else {
		batteries := map[string]bool{}
		for _, b := range s.Batteries {
			if b == Recommended {
				for _, r := range datadir.ClustBenchRecommended {
					batteries[r] = true
				}
			}
			batteries[b] = true
		}
		for _, set := range datadir.ClustBenchSets {
			want[set.ID()] = batteries[set.Battery]
		}
	}
	for _, n := range s.Exclude {
		if set, err := clustbenchSet(n); err == nil {
			want[set.ID()] = false
		}
	}
	for _, set := range datadir.ClustBenchSets {
		switch {
		case !want[set.ID()]:
		case s.MaxPoints > 0 && set.Points > s.MaxPoints:
			left = append(left, fmt.Sprintf("%s (%d points, over max_points %d)", set.ID(), set.Points, s.MaxPoints))
		default:
			sets = append(sets, set)
		}
	}
	return sets, left
}

// size bounds the items of sets: their points and the most coordinates of any.
func (s *ClustBenchSource) size(sets []datadir.ClustBenchSet) item.Size {
	size := item.Size{Items: len(sets), Weights: s.SplitModel == "correlation"}
	for i, set := range sets {
		if i == 0 || set.Points < size.MinLeaves {
			size.MinLeaves = set.Points
		}
		size.MaxLeaves = max(size.MaxLeaves, set.Points)
		size.Dims = max(size.Dims, set.Dims)
	}
	return size
}

// openClustBench lists the chosen data sets whose data file the suite's folder holds; the others
// are left out with a warning (sipu/worms_64, whose data file hcbench does not fetch, or one
// over max_points). A missing folder is an error that says how to fetch it.
func openClustBench(_ context.Context, p Params, env SourceEnv) (*Data, error) {
	s := p.(*ClustBenchSource)
	dir := env.Resolve(s.Dir)
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		if err == nil {
			err = fmt.Errorf("%s is no folder", dir)
		}
		return nil, env.Problem("dir", "%v; %s", err, env.MissingHint(s.Dir))
	}
	sets, left := s.chosen()
	var present []datadir.ClustBenchSet
	for _, set := range sets {
		path := filepath.Join(dir, filepath.FromSlash(set.File("")))
		if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
			left = append(left, fmt.Sprintf("%s (its points, %s, are absent from %s)", set.ID(), set.File(""), s.Dir))
			continue
		}
		present = append(present, set)
	}
	var warnings []string
	if len(left) > 0 {
		warnings = append(warnings, fmt.Sprintf("data set %s: %s of ClustBench left out: %s", env.Name,
			english.Count(len(left), "data set", "data sets"), strings.Join(left, "; ")))
	}
	if len(present) == 0 {
		return nil, env.Problem("dir", "no data set chosen is in %s: %s", dir, strings.Join(left, "; "))
	}
	ids := make([]string, len(present))
	for i, set := range present {
		ids[i] = set.ID()
	}
	env.Params["suite"] = "ClustBench v" + datadir.ClustBenchVersion + " (github.com/" + datadir.ClustBenchRepo + " at " + datadir.ClustBenchCommit + ")"
	env.Params["left_out"] = append([]string{}, left...) // [] rather than null when none is left out
	load := func(ctx context.Context, i int) (*item.Item, error) {
		return loadClustBench(ctx, env, s, dir, present[i], i)
	}
	return &Data{IDs: ids, HasTruth: func(int) bool { return false }, Load: load, Size: s.size(present), Warnings: warnings,
		Leaves: func(i int) int { return present[i].Points }}, nil
}

// loadClustBench reads data set set of the folder dir as item i: its points, preprocessed, and
// all its reference partitions. A file whose SHA-256 is not the catalog's is read all the same,
// with a warning in the item's records.
func loadClustBench(ctx context.Context, env SourceEnv, s *ClustBenchSource, dir string, set datadir.ClustBenchSet, i int) (*item.Item, error) {
	sums := map[string]string{}
	for _, f := range datadir.Lookup(datadir.ClustBenchSetName).Files {
		sums[f.Name] = f.SHA256
	}
	var warnings []string
	read := func(rel string, parse func(f *datafile.File, path string) error) error {
		path := filepath.Join(dir, filepath.FromSlash(rel))
		f, err := datafile.Open(ctx, path)
		if err != nil {
			return err
		}
		defer f.Close()
		if err := parse(f, path); err != nil {
			return err
		}
		if want := sums[rel]; want != "" && f.SHA256() != want {
			warnings = append(warnings, fmt.Sprintf("%s is not the suite's v%s file (sha256 %s, expected %s; hcbench data verify clustbench)", path, datadir.ClustBenchVersion, f.SHA256(), want))
		}
		return nil
	}
	var x [][]float64
	err := read(set.File(""), func(f *datafile.File, path string) (err error) {
		x, err = clustbench.ReadData(f, path, set.Points, set.Dims)
		return err
	})
	if err != nil {
		return nil, err
	}
	refs := make([][]int, set.Labels)
	for k := range refs {
		err := read(set.File("labels"+strconv.Itoa(k)), func(f *datafile.File, path string) (err error) {
			refs[k], _, err = clustbench.ReadLabels(f, path, set.Points)
			return err
		})
		if err != nil {
			return nil, err
		}
	}
	pre := clustbench.Preprocess{Original: s.Preprocess == "original", Jitter: s.Jitter}
	if _, err := pre.Apply(x, seeds.Stream(env.Seed, SeedKey(env.Name, set.ID()))); err != nil {
		return nil, fmt.Errorf("%s: %w", set.File(""), err)
	}
	labels := make([]string, set.Points)
	for j, l := range refs[0] {
		if l != 0 {
			labels[j] = strconv.Itoa(l)
		}
	}
	none := 0
	it := &item.Item{Dataset: env.Name, Index: i, ID: set.ID(), Labels: labels, References: refs, Vectors: x, MissingCells: &none, DataParams: env.Params, Warnings: warnings}
	sm := SplitModel{Model: s.SplitModel, Similarity: "cosine", Centering: "mean_with_diag", WithinPairs: "unordered", Beta: 1} // SplitModel's defaults
	return it, setSplitModel(ctx, it, sm, false)
}

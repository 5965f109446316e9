// Package inputs turns the data set entries of a config into items that algorithms run on: it
// reads data files, generates synthetic data from per-item random streams, and builds each item's
// model and truth tree. Opening a data set (for planning) reads its files but generates nothing;
// Load materialises one item.
package inputs

import (
	"fmt"
	"strconv"
	"strings"

	"hcbench/algorithms/model"
	"hcbench/algorithms/model/correlation"
	likelihood "hcbench/algorithms/model/ginkgo"
	"hcbench/algorithms/tree"
	"hcbench/datasets/jets"
	"hcbench/datasets/labelled"
	"hcbench/experiments/config"
	"hcbench/experiments/seeds"
	"hcbench/generators/ginkgo"
)

// Item is one unit of data that an algorithm clusters, for example one jet.
type Item struct {
	Dataset string
	Index   int
	ID      string
	// Model scores splits of the item's leaves.
	Model model.Model
	// Truth is the generating tree when known, with its log-likelihood under Model.
	Truth              *tree.Tree
	TruthLogLikelihood float64
	// Names labels the leaves in Newick output; nil means 0-based indices.
	Names []string
	// Labels are the leaves' classes ("" unknown), for purity; nil when the data have none.
	Labels []string
	// Vectors are the leaves' feature vectors (missing values 0, or NaN when masked), for
	// algorithms that work on vectors; nil for jets.
	Vectors [][]float64
	// MissingCells counts the item's values the data file lacked.
	MissingCells int
	// Jet is the item's jet, for jet data sets.
	Jet *jets.Jet
}

// Leaves returns the number of leaves.
func (it *Item) Leaves() int { return it.Model.Items() }

// Dataset is a config data set opened for planning. Its item ids are known before anything is
// generated.
type Dataset struct {
	Name   string
	Kind   string
	Config config.Dataset
	// Generated reports whether the data come from a generator (and so can be saved with -save-data).
	Generated bool

	ids      []string
	hasTruth func(i int) bool
	load     func(i int) (*Item, error)
}

// Len returns the number of items.
func (d *Dataset) Len() int { return len(d.ids) }

// ID returns the id of item i: its id in the data file where it has one, else its 0-based index.
func (d *Dataset) ID(i int) string { return d.ids[i] }

// HasTruth reports whether item i has a generating tree.
func (d *Dataset) HasTruth(i int) bool { return d.hasTruth(i) }

// Load materialises item i. For generated data it draws from the stream keyed by the data set
// name and item id, so item i is the same whatever else the config holds.
func (d *Dataset) Load(i int) (*Item, error) {
	it, err := d.load(i)
	if err != nil {
		return nil, fmt.Errorf("data set %s, item %s: %w", d.Name, d.ids[i], err)
	}
	return it, nil
}

// DataKey is the seed key of a generated item.
func DataKey(dataset, item string) string {
	return "data|dataset=" + dataset + "|item=" + item
}

// Open prepares a data set of cfg for planning and loading.
func Open(cfg *config.Config, ds config.Dataset) (*Dataset, error) {
	d := &Dataset{Name: ds.Name, Kind: ds.Kind, Config: ds}
	switch src := ds.Source.(type) {
	case *config.GinkgoSource:
		d.Generated = true
		d.ids = indexIDs(src.Jets)
		d.hasTruth = func(int) bool { return true }
		d.load = func(i int) (*Item, error) { return generateJet(cfg.Seed, ds.Name, d.ids[i], i, src) }
	case *config.JetsFile:
		path := cfg.Resolve(src.Path)
		js, err := jets.ReadFile(path)
		if err != nil {
			return nil, fmt.Errorf("data set %s: %w", ds.Name, err)
		}
		if src.Limit > 0 && src.Limit < len(js) {
			js = js[:src.Limit]
		}
		ids, err := fileIDs(js, path)
		if err != nil {
			return nil, fmt.Errorf("data set %s: %w", ds.Name, err)
		}
		d.ids = ids
		d.hasTruth = func(i int) bool { return js[i].HasTruth() }
		d.load = func(i int) (*Item, error) { return jetItem(ds.Name, d.ids[i], i, &js[i], src.JetLikelihood) }
	case *config.PAM50File:
		if err := d.openVectors(cfg, src.Path, "pam50", labelled.CSVOptions{}, src.VectorData); err != nil {
			return nil, err
		}
	case *config.CSVFile:
		o := labelled.CSVOptions{Header: src.Header, LabelColumn: src.LabelColumn, NameColumn: src.NameColumn, Ignore: src.IgnoreColumns, Unknown: src.UnknownLabel}
		if err := d.openVectors(cfg, src.Path, "csv", o, src.VectorData); err != nil {
			return nil, err
		}
	default:
		return nil, fmt.Errorf("data set %s: source %T is not supported", ds.Name, ds.Source)
	}
	return d, nil
}

// openVectors reads a file of labelled vectors; its items are subsamples of the rows, or the whole
// table as the one item "all".
func (d *Dataset) openVectors(cfg *config.Config, file, format string, o labelled.CSVOptions, vd config.VectorData) error {
	data, err := labelled.ReadFile(cfg.Resolve(file), format, o)
	if err != nil {
		return fmt.Errorf("data set %s: %w", d.Name, err)
	}
	d.hasTruth = func(int) bool { return false }
	if vd.Subsamples == 0 {
		d.ids = []string{"all"}
	} else {
		d.ids = indexIDs(vd.Subsamples)
	}
	d.load = func(i int) (*Item, error) {
		rows := make([]int, data.Len())
		for r := range rows {
			rows[r] = r
		}
		if vd.Subsamples > 0 {
			var err error
			if vd.Sampling == "first" {
				rows, err = labelled.FirstPerLabel(data, vd.PerLabel, vd.Unknown)
			} else {
				rows, err = labelled.Stratified(data, seeds.Stream(cfg.Seed, DataKey(d.Name, d.ids[i])), vd.PerLabel, vd.Unknown)
			}
			if err != nil {
				return nil, err
			}
		}
		return vectorItem(d.Name, d.ids[i], i, data.Subset(rows), vd)
	}
	return nil
}

// vectorItem makes the item of a table of vectors, with its correlation-clustering model.
func vectorItem(dataset, id string, index int, sub *labelled.Data, vd config.VectorData) (*Item, error) {
	missing := sub.Missing
	if vd.Missing == "zero" {
		sub.FillMissing(0)
	}
	p := correlation.Params{
		Similarity:  map[string]correlation.Similarity{"cosine": correlation.Cosine, "pearson": correlation.Pearson}[vd.Similarity],
		Centering:   map[string]correlation.Centering{"mean_with_diag": correlation.MeanWithDiag, "mean_without_diag": correlation.MeanWithoutDiag, "none": correlation.NoCentering}[vd.Centering],
		Ordered:     vd.WithinPairs == "ordered",
		Beta:        vd.Beta,
		MaskMissing: vd.Missing == "mask",
	}
	m, err := correlation.New(sub.X, p)
	if err != nil {
		return nil, err
	}
	return &Item{Dataset: dataset, Index: index, ID: id, Model: m, Names: sub.Names, Labels: sub.Labels, Vectors: sub.X, MissingCells: missing}, nil
}

func indexIDs(n int) []string {
	ids := make([]string, n)
	for i := range ids {
		ids[i] = strconv.Itoa(i)
	}
	return ids
}

// fileIDs returns the items' ids: their own id, or their 0-based index. Ids must be unique and
// must not hold '|', which separates the parts of a task key.
func fileIDs(js []jets.Jet, path string) ([]string, error) {
	ids := make([]string, len(js))
	seen := map[string]int{}
	for i := range js {
		id := string(js[i].ID)
		if id == "" {
			id = strconv.Itoa(i)
		}
		if strings.ContainsAny(id, "|\n") {
			return nil, fmt.Errorf("%s: jet %d: id %q holds '|' or a newline", path, i+1, id)
		}
		if prev, dup := seen[id]; dup {
			return nil, fmt.Errorf("%s: jets %d and %d both have the id %q (a jet without an id is named by its 0-based index)", path, prev+1, i+1, id)
		}
		seen[id] = i
		ids[i] = id
	}
	return ids, nil
}

func generateJet(master uint64, dataset, id string, index int, src *config.GinkgoSource) (*Item, error) {
	p := ginkgo.Params{
		Mass:         src.Mass,
		Momentum:     ginkgo.DefaultMomentum,
		Lambda:       src.Lambda,
		LambdaRoot:   src.LambdaRoot,
		TCut:         src.TCut,
		FlipChildren: src.FlipChildren,
	}
	key := DataKey(dataset, id)
	j, tries, err := ginkgo.Conditioned(seeds.Stream(master, key), p, src.MinLeaves, src.MaxLeaves, src.MaxTries)
	if err != nil {
		return nil, err
	}
	j.ID = jets.ID(id)
	j.Schema = jets.Schema
	j.Generator = "ginkgo2020"
	j.JetType = src.JetType
	j.SeedKey = key
	j.MinLeaves, j.MaxLeaves, j.Tries = src.MinLeaves, src.MaxLeaves, tries
	j.Likelihood, j.RootLambda, j.FlipChildren = src.Likelihood, src.RootLambda, src.FlipChildren
	return jetItem(dataset, id, index, &j, src.JetLikelihood)
}

// JetModel builds the likelihood model of a jet under the chosen likelihood keys.
func JetModel(j *jets.Jet, lk config.JetLikelihood) (*likelihood.Model, error) {
	p := likelihood.Params{Lambda: j.Lambda, LambdaRoot: j.RootLambdaOrDefault(), TCut: j.TCut}
	switch lk.Likelihood {
	case "ginkgo2020":
		p.Version = likelihood.Version2020
	case "ginkgo2021":
		p.Version = likelihood.Version2021
	default:
		return nil, fmt.Errorf("unknown likelihood %q", lk.Likelihood)
	}
	switch lk.RootLambda {
	case "generative":
		p.RootLambda = likelihood.RootLambdaGenerative
	case "uniform":
		p.RootLambda = likelihood.RootLambdaUniform
	default:
		return nil, fmt.Errorf("unknown root_lambda %q", lk.RootLambda)
	}
	return likelihood.New(j.Leaves, p)
}

func jetItem(dataset, id string, index int, j *jets.Jet, lk config.JetLikelihood) (*Item, error) {
	m, err := JetModel(j, lk)
	if err != nil {
		return nil, err
	}
	it := &Item{Dataset: dataset, Index: index, ID: id, Model: m, Jet: j}
	if j.HasTruth() {
		t, err := j.TruthTree()
		if err != nil {
			return nil, err
		}
		ll, err := model.TreeLogLikelihood(m, t)
		if err != nil {
			return nil, fmt.Errorf("truth tree: %w", err)
		}
		it.Truth, it.TruthLogLikelihood = t, ll
	}
	return it, nil
}

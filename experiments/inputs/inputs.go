// Package inputs turns the data set entries of a config into items that algorithms run on: it
// reads data files, generates synthetic data from per-item random streams, and builds each item's
// model and truth tree. Opening a data set (for planning) reads its files but generates nothing;
// Load materialises one item.
package inputs

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"

	"hcbench/algorithms/model"
	"hcbench/algorithms/model/correlation"
	likelihood "hcbench/algorithms/model/ginkgo"
	"hcbench/datasets/datafile"
	"hcbench/datasets/jets"
	"hcbench/datasets/labelled"
	"hcbench/experiments/config"
	"hcbench/experiments/item"
	"hcbench/experiments/memory"
	"hcbench/experiments/seeds"
	"hcbench/generators/ginkgo"
	"hcbench/generators/mixture"
	"hcbench/internal/linelimit"
)

// Dataset is a config data set opened for planning. Its item ids are known before anything is
// generated.
type Dataset struct {
	Name   string
	Kind   string
	Config config.Dataset
	// Generated reports whether the data come from a generator (and so can be saved with -save-data).
	Generated bool

	ids      []string
	params   map[string]any
	hasTruth func(i int) bool
	load     func(ctx context.Context, i int) (*item.Item, error)
	size     item.Size
	file     *FileSum
}

// CSVBytesPerByte and JetsBytesPerByte bound the memory that a data file's parsed contents take
// per byte of its text, measured on linux/amd64 with Go 1.26 at the worst case, the shortest
// lines (peak resident memory of `hcbench validate`): a CSV of 2-byte rows ("1\n") takes 65 bytes
// a byte (a row's slice, name and counts), a jets file of 55-byte two-leaf jets 22. Memory
// estimates multiply a file's size by them; a stream or compressed data, whose size is not known
// before reading, are read up to the text whose contents fit in the memory the process may use.
const CSVBytesPerByte, JetsBytesPerByte = 72, 24

// MaxText is the most text of a data file that is read, given the memory its contents take per
// byte: what fits in memory.Budget, the half of the memory the process may use. A larger regular
// file is refused before it is read (by the plan's estimate); a stream, or compressed data, that
// go on past it stop there with an error.
func MaxText(bytesPerByte int64) int64 { return memory.Budget() / bytesPerByte }

// FileSum identifies the data file a data set read: its path as the config writes it, the
// SHA-256 of its bytes and their number.
type FileSum struct {
	File   string
	SHA256 string
	Bytes  int64
}

// Size returns the data set's size for the memory estimates.
func (d *Dataset) Size() item.Size { return d.size }

// File returns the data file the data set read, nil for generated data.
func (d *Dataset) File() *FileSum { return d.file }

// Params returns the data set's settings as result records hold them (data_params): its source
// (generator, or file and format) and every key of the source with defaults applied, the
// likelihood keys of a jets file resolved against the file. The map is shared: read-only.
func (d *Dataset) Params() map[string]any { return d.params }

// Len returns the number of items.
func (d *Dataset) Len() int { return len(d.ids) }

// ID returns the id of item i: its id in the data file where it has one, else its 0-based index.
func (d *Dataset) ID(i int) string { return d.ids[i] }

// HasTruth reports whether item i has a generating tree.
func (d *Dataset) HasTruth(i int) bool { return d.hasTruth(i) }

// Load materialises item i. For generated data it draws from the stream keyed by the data set
// name and item id, so item i is the same whatever else the config holds. It returns ctx's error
// when ctx is cancelled.
func (d *Dataset) Load(ctx context.Context, i int) (*item.Item, error) {
	it, err := d.load(ctx, i)
	if err != nil {
		return nil, fmt.Errorf("data set %s, item %s: %w", d.Name, d.ids[i], err)
	}
	return it, nil
}

// DataKey is the seed key of a generated item, and of a subsample's draw (with the data set's
// sample_key in place of its name).
func DataKey(dataset, item string) string {
	return "data|dataset=" + dataset + "|item=" + item
}

// GeneratedSize returns the size of a generated data set from its config alone (ok false for a
// data file), so that it can be estimated before its item ids are made.
func GeneratedSize(ds config.Dataset) (item.Size, bool) {
	switch src := ds.Source.(type) {
	case *config.GinkgoSource:
		return item.Size{Items: src.Jets, MinLeaves: src.MinLeaves, MaxLeaves: src.MaxLeaves, Jets: true}, true
	case *config.MixtureSource:
		return item.Size{Items: src.Items, MinLeaves: src.Points, MaxLeaves: src.Points, Dims: src.Dims, Weights: src.SplitModel.Model == "correlation"}, true
	}
	return item.Size{}, false
}

// Open prepares a data set of cfg for planning and loading. It reads the data set's file, if any,
// through ctx (a cancelled ctx stops the reading); a file with bad lines gives an error per line
// (up to a bound), each with the file and line. A generated data set is not drawn, only sized:
// check its size (GeneratedSize) before opening a large one.
func Open(ctx context.Context, cfg *config.Config, ds config.Dataset) (*Dataset, error) {
	d := &Dataset{Name: ds.Name, Kind: ds.Kind, Config: ds, params: sourceParams(ds)}
	d.size, _ = GeneratedSize(ds)
	switch src := ds.Source.(type) {
	case *config.GinkgoSource:
		d.Generated = true
		d.ids = indexIDs(src.Jets)
		d.hasTruth = func(int) bool { return true }
		d.load = func(ctx context.Context, i int) (*item.Item, error) {
			return generateJet(ctx, cfg.Seed, ds.Name, d.ids[i], i, src, d.params)
		}
	case *config.MixtureSource:
		d.Generated = true
		d.ids = indexIDs(src.Items)
		d.hasTruth = func(int) bool { return false }
		d.load = func(ctx context.Context, i int) (*item.Item, error) {
			return generateMixture(ctx, cfg.Seed, ds.Name, d.ids[i], i, src, d.params)
		}
	case *config.JetsFile:
		var js []jets.Jet
		err := d.readFile(ctx, cfg, src.Path, func(r io.Reader, name string) (err error) {
			js, err = jets.ReadLimit(linelimit.Capped(r, MaxText(JetsBytesPerByte)), name, src.Limit)
			return err
		})
		if err != nil {
			return nil, err
		}
		path := cfg.Resolve(src.Path)
		d.size = item.Size{Items: len(js), MinLeaves: math.MaxInt, Jets: true}
		for i := range js {
			d.size.MinLeaves = min(d.size.MinLeaves, len(js[i].Leaves))
			d.size.MaxLeaves = max(d.size.MaxLeaves, len(js[i].Leaves))
		}
		ids, err := fileIDs(js, path)
		if err != nil {
			return nil, inDataset(ds.Name, err)
		}
		lk, err := fileLikelihood(cfg, &ds, src, path, js)
		if err != nil {
			return nil, err
		}
		d.params["likelihood"], d.params["root_lambda"] = lk.Likelihood, lk.RootLambda
		d.ids = ids
		d.hasTruth = func(i int) bool { return js[i].HasTruth() }
		d.load = func(_ context.Context, i int) (*item.Item, error) {
			return jetItem(ds.Name, d.ids[i], i, &js[i], lk, d.params)
		}
	case *config.PAM50File:
		if err := d.openVectors(ctx, cfg, src.Path, "pam50", labelled.CSVOptions{}, src.VectorData); err != nil {
			return nil, err
		}
	case *config.CSVFile:
		o := labelled.CSVOptions{Header: src.Header, LabelColumn: src.LabelColumn, NameColumn: src.NameColumn, Ignore: src.IgnoreColumns, Unknown: src.UnknownLabel}
		if err := d.openVectors(ctx, cfg, src.Path, "csv", o, src.VectorData); err != nil {
			return nil, err
		}
	default:
		return nil, fmt.Errorf("data set %s: source %T is not supported", ds.Name, ds.Source)
	}
	return d, nil
}

// readFile reads the data set's file (file as the config writes it) with read, through ctx, and
// records its SHA-256. The file is read to its end, so that the sum is of all of it.
func (d *Dataset) readFile(ctx context.Context, cfg *config.Config, file string, read func(r io.Reader, name string) error) error {
	path := cfg.Resolve(file)
	f, err := datafile.Open(ctx, path)
	if err != nil {
		return inDataset(d.Name, withHint(cfg, file, err))
	}
	defer f.Close()
	if err := read(f, path); err != nil {
		return inDataset(d.Name, err)
	}
	if _, err := io.Copy(io.Discard, f); err != nil {
		return inDataset(d.Name, err)
	}
	d.file = &FileSum{File: file, SHA256: f.SHA256(), Bytes: f.Size()}
	return nil
}

// sourceParams returns a data set's settings for records: its source and its keys as resolved
// by the config.
func sourceParams(ds config.Dataset) map[string]any {
	p := config.ParamsMap(ds.Source)
	if path := config.SourcePath(ds.Source); path != "" {
		p["file"], p["format"] = path, ds.Kind
	} else {
		p["generator"] = ds.Kind
	}
	return p
}

// inDataset names the data set in each of the errors that err joins (one per bad line of a file).
func inDataset(name string, err error) error {
	errs := []error{err}
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		errs = j.Unwrap()
	}
	out := make([]error, len(errs))
	for i, e := range errs {
		out[i] = fmt.Errorf("data set %s: %w", name, e)
	}
	return errors.Join(out...)
}

// withHint adds to the error of a missing data file what to do about it (for a file of the data
// directory, the command that fetches its data set); file is the path as the config writes it.
func withHint(cfg *config.Config, file string, err error) error {
	if errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("%w; %s", err, cfg.MissingHint(file))
	}
	return err
}

// fileLikelihood resolves the likelihood keys of a jets file against the values its jets store
// (hcbench writes them into every jet it generates). A key left at stored takes the value the
// jets store, which they must all agree on, or the default when none stores one; a value the
// config sets must equal every stored one, so that a frozen data set never silently scores
// differently from the run that saved it.
func fileLikelihood(cfg *config.Config, ds *config.Dataset, src *config.JetsFile, path string, js []jets.Jet) (config.JetLikelihood, error) {
	var errs []error
	resolve := func(key, setting, def string, stored func(*jets.Jet) string) string {
		value, line := "", 0 // the first stored value, and its line
		for i := range js {
			s := stored(&js[i])
			switch {
			case s == "":
			case setting != config.Stored && s != setting:
				errs = append(errs, cfg.Problem(ds, key, "%s, but the jets of %s were saved with %s %s (%s:%d), and a frozen data set must score as the run that saved it; leave %s out (or write stored) to use the file's",
					setting, path, key, s, path, js[i].Line, key))
				return setting
			case value == "":
				value, line = s, js[i].Line
			case s != value:
				errs = append(errs, fmt.Errorf("data set %s: %s:%d: %s %s differs from %s on line %d; the jets of one file must agree on it", ds.Name, path, js[i].Line, key, s, value, line))
				return value
			}
		}
		switch {
		case setting != config.Stored:
			return setting
		case value != "":
			return value
		}
		return def
	}
	lk := config.JetLikelihood{
		Likelihood: resolve("likelihood", src.Likelihood, "ginkgo2020", func(j *jets.Jet) string { return j.Likelihood }),
		RootLambda: resolve("root_lambda", src.RootLambda, "generative", func(j *jets.Jet) string { return j.RootLambda }),
	}
	return lk, errors.Join(errs...)
}

// openVectors reads a file of labelled vectors; its items are subsamples of the rows, or the whole
// table as the one item "all".
func (d *Dataset) openVectors(ctx context.Context, cfg *config.Config, file, format string, o labelled.CSVOptions, vd config.VectorData) error {
	path := cfg.Resolve(file)
	var data *labelled.Data
	err := d.readFile(ctx, cfg, file, func(r io.Reader, name string) (err error) {
		data, err = labelled.ReadLimit(r, name, format, o, MaxText(CSVBytesPerByte))
		return err
	})
	if err != nil {
		return err
	}
	// positions[r] is the 0-based position in the file of row r of data.
	positions := make([]int, data.Len())
	for r := range positions {
		positions[r] = r
	}
	if len(vd.Classes) > 0 {
		if positions, err = classRows(data, vd.Classes); err != nil {
			return cfg.Problem(&d.Config, "classes", "%v (in %s)", err, path)
		}
		data = data.Subset(positions)
	}
	if vd.Binarize != "none" {
		t, _ := strconv.ParseFloat(vd.Binarize, 64) // validated
		binarize(data.X, t)
	}
	d.hasTruth = func(int) bool { return false }
	d.size = item.Size{Items: 1, MinLeaves: data.Len(), MaxLeaves: data.Len(), Weights: vd.SplitModel.Model == "correlation"}
	if data.Len() > 0 {
		d.size.Dims = len(data.X[0])
	}
	if vd.Subsamples == 0 {
		d.ids = []string{"all"}
	} else {
		d.ids = indexIDs(vd.Subsamples)
		known := 0
		for l := range data.LabelCounts() {
			if l != "" {
				known++
			}
		}
		// per_label and unknown bounded first, so that absurd ones do not overflow.
		n := min(known*min(vd.PerLabel, data.Len())+min(vd.Unknown, data.Len()), data.Len())
		d.size.Items, d.size.MinLeaves, d.size.MaxLeaves = vd.Subsamples, n, n
	}
	d.load = func(ctx context.Context, i int) (*item.Item, error) {
		rows := make([]int, data.Len())
		for r := range rows {
			rows[r] = r
		}
		if vd.Subsamples > 0 {
			var err error
			if vd.Sampling == "first" {
				rows, err = labelled.FirstPerLabel(data, vd.PerLabel, vd.Unknown)
			} else {
				rows, err = labelled.Stratified(data, seeds.Stream(cfg.Seed, DataKey(vd.SampleKey, d.ids[i])), vd.PerLabel, vd.Unknown)
			}
			if err != nil {
				return nil, err
			}
		}
		it, err := vectorItem(ctx, d.Name, d.ids[i], i, data.Subset(rows), vd, d.params)
		if err != nil {
			return nil, err
		}
		it.Positions = make([]int, len(rows))
		for k, r := range rows {
			it.Positions[k] = positions[r] + 1
		}
		return it, nil
	}
	return nil
}

// vectorItem makes the item of a table of vectors, with its split model.
func vectorItem(ctx context.Context, dataset, id string, index int, sub *labelled.Data, vd config.VectorData, params map[string]any) (*item.Item, error) {
	missing := sub.Missing
	if vd.Missing == "zero" {
		sub.FillMissing(0)
	}
	m, err := splitModel(ctx, sub.X, vd.SplitModel, vd.Missing == "mask")
	if err != nil {
		return nil, err
	}
	return &item.Item{Dataset: dataset, Index: index, ID: id, Model: m, Names: sub.Names, Labels: sub.Labels, Vectors: sub.X, MissingCells: &missing, DataParams: params}, nil
}

// splitModel builds the split model of vectors: the correlation-clustering energy, or none (a
// nil model.Model).
func splitModel(ctx context.Context, x [][]float64, sm config.SplitModel, mask bool) (model.Model, error) {
	if sm.Model == "none" {
		return nil, nil
	}
	p := correlation.Params{
		Similarity:  map[string]correlation.Similarity{"cosine": correlation.Cosine, "pearson": correlation.Pearson}[sm.Similarity],
		Centering:   map[string]correlation.Centering{"mean_with_diag": correlation.MeanWithDiag, "mean_without_diag": correlation.MeanWithoutDiag, "none": correlation.NoCentering}[sm.Centering],
		Ordered:     sm.WithinPairs == "ordered",
		Beta:        sm.Beta,
		MaskMissing: mask,
	}
	m, err := correlation.New(ctx, x, p)
	if err != nil {
		return nil, err
	}
	return m, nil
}

// classRows returns the rows of data whose label is one of classes, each of which must occur.
func classRows(data *labelled.Data, classes []string) ([]int, error) {
	if data.Labels == nil {
		return nil, errors.New("the data have no labels")
	}
	counts := data.LabelCounts()
	for _, c := range classes {
		if counts[c] == 0 {
			return nil, fmt.Errorf("no row has the label %q", c)
		}
	}
	var rows []int
	for i, l := range data.Labels {
		if slices.Contains(classes, l) {
			rows = append(rows, i)
		}
	}
	return rows, nil
}

// binarize sets every feature to 1 where it exceeds t and to 0 elsewhere; missing values stay
// missing.
func binarize(x [][]float64, t float64) {
	for _, row := range x {
		for j, v := range row {
			switch {
			case math.IsNaN(v):
			case v > t:
				row[j] = 1
			default:
				row[j] = 0
			}
		}
	}
}

// generateMixture draws one labelled mixture data set from the item's stream.
func generateMixture(ctx context.Context, master uint64, dataset, id string, index int, src *config.MixtureSource, params map[string]any) (*item.Item, error) {
	kind := mixture.Gaussian
	if src.Kind == "bernoulli" {
		kind = mixture.Bernoulli
	}
	data, err := mixture.Draw(ctx, seeds.Stream(master, DataKey(dataset, id)), mixture.Params{
		Kind: kind, Components: src.Components, Points: src.Points, Dims: src.Dims,
		Separation: src.Separation, Spread: src.Spread,
	})
	if err != nil {
		return nil, err
	}
	m, err := splitModel(ctx, data.X, src.SplitModel, false)
	if err != nil {
		return nil, err
	}
	none := 0
	return &item.Item{Dataset: dataset, Index: index, ID: id, Model: m, Labels: data.Labels, Vectors: data.X, MissingCells: &none, DataParams: params}, nil
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
	var errs []error
	for i := range js {
		id := string(js[i].ID)
		if id == "" {
			id = strconv.Itoa(i)
		}
		if strings.ContainsAny(id, "|\n") {
			errs = append(errs, fmt.Errorf("%s:%d: id %q holds '|' or a newline, which task keys cannot", path, js[i].Line, id))
		}
		if prev, dup := seen[id]; dup {
			errs = append(errs, fmt.Errorf("%s:%d: id %q is also the id of the jet on line %d (a jet without an id is named by its 0-based index among the jets)", path, js[i].Line, id, js[prev].Line))
		}
		seen[id] = i
		ids[i] = id
	}
	return ids, errors.Join(errs...)
}

func generateJet(ctx context.Context, master uint64, dataset, id string, index int, src *config.GinkgoSource, params map[string]any) (*item.Item, error) {
	p := ginkgo.Params{
		Mass:         src.Mass,
		Momentum:     ginkgo.DefaultMomentum,
		Lambda:       src.Lambda,
		LambdaRoot:   src.LambdaRoot,
		TCut:         src.TCut,
		FlipChildren: src.FlipChildren,
	}
	key := DataKey(dataset, id)
	j, tries, err := ginkgo.Conditioned(ctx, seeds.Stream(master, key), p, src.MinLeaves, src.MaxLeaves, src.MaxTries)
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
	return jetItem(dataset, id, index, &j, src.JetLikelihood, params)
}

// JetModel builds the likelihood model of a jet under the chosen likelihood keys (resolved: no
// stored).
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

// jetItem makes the item of a jet. Its data params are the data set's with the jet's own λ,
// λ_root and t_cut, which a jets file holds per jet.
func jetItem(dataset, id string, index int, j *jets.Jet, lk config.JetLikelihood, params map[string]any) (*item.Item, error) {
	m, err := JetModel(j, lk)
	if err != nil {
		return nil, err
	}
	own := maps.Clone(params)
	own["lambda"], own["lambda_root"], own["t_cut"] = j.Lambda, j.RootLambdaOrDefault(), j.TCut
	it := &item.Item{Dataset: dataset, Index: index, ID: id, Model: m, Jet: j, DataParams: own}
	it.Warnings = m.Warnings()
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

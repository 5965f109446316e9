package registry

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"

	"github.com/hcbench/hcbench/algorithms/model"
	"github.com/hcbench/hcbench/algorithms/model/correlation"
	"github.com/hcbench/hcbench/datasets/labelled"
	"github.com/hcbench/hcbench/experiments/item"
	"github.com/hcbench/hcbench/experiments/memory"
	"github.com/hcbench/hcbench/experiments/seeds"
	"github.com/hcbench/hcbench/internal/linelimit"
)

// What the sources of labelled feature vectors share: the keys of a table of vectors (pam50 and
// CSV files), the split model (also the mixture generator's), and the items they make.

// CSVBytesPerByte bounds the memory a table's parsed contents take per byte of its text,
// measured on linux/amd64 with Go 1.26 at the worst case, a CSV of 2-byte rows ("1\n"), 65 (a
// row's slice, name and counts), and rounded up.
const CSVBytesPerByte = 72

// MaxText is the most text of a data file that is read, given the memory its contents take per
// byte: what fits in memory.Budget, the half of the memory the process may use. A larger regular
// file is refused before it is read (by the plan's estimate); a stream, or compressed data, that
// go on past it stop there with an error.
func MaxText(bytesPerByte int64) int64 { return memory.Budget() / bytesPerByte }

// explainMaxText adds to a reader's refusal of text past MaxText what the process may use, and
// what bounds it (the RAM, a cgroup's limit, or an address-space limit).
func explainMaxText(err error) error {
	var e *linelimit.TooMuchError
	if errors.As(err, &e) {
		return fmt.Errorf("%w; this process may use %s", err, memory.Describe())
	}
	return err
}

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

// Check checks the vector keys.
func (d *VectorData) Check(v Checker) {
	OneOf(v, "missing", d.Missing, "zero", "mask")
	OneOf(v, "sampling", d.Sampling, "stratified", "first")
	d.SplitModel.Check(v)
	if d.Binarize != "none" {
		if x, err := strconv.ParseFloat(d.Binarize, 64); err != nil || math.IsNaN(x) || math.IsInf(x, 0) {
			v.Bad("binarize", "must be none or a number, got %q", d.Binarize)
		}
	}
	seen := map[string]bool{}
	for _, c := range d.Classes {
		if seen[c] {
			v.Bad("classes", "%q listed twice", c)
		}
		seen[c] = true
	}
	if d.Subsamples < 0 {
		v.Bad("subsamples", "must be 0 (the whole data set) or positive, got %d", d.Subsamples)
	}
	if d.PerLabel < 0 {
		v.Bad("per_label", "must be 0 or positive, got %d", d.PerLabel)
	}
	if d.Unknown < 0 {
		v.Bad("unknown", "must be 0 or positive, got %d", d.Unknown)
	}
	if d.Subsamples > 0 && d.PerLabel == 0 && d.Unknown == 0 && !v.Failed("per_label", "unknown", "subsamples") {
		v.Bad("per_label", "a subsample needs rows: per_label and unknown are both 0")
	}
	if d.Sampling == "first" && d.Subsamples > 1 {
		v.Bad("subsamples", "sampling: first takes the same rows for every subsample, so %d subsamples would be %d identical items; use subsamples: 1, or sampling: stratified", d.Subsamples, d.Subsamples)
	}
	CheckName(v, "sample_key", d.SampleKey)
}

// Check checks the split model's keys.
func (m *SplitModel) Check(v Checker) {
	OneOf(v, "split_model", m.Model, "correlation", "none")
	OneOf(v, "similarity", m.Similarity, "cosine", "pearson")
	OneOf(v, "centering", m.Centering, "mean_with_diag", "mean_without_diag", "none")
	OneOf(v, "within_pairs", m.WithinPairs, "unordered", "ordered")
	if !(m.Beta > 0) {
		v.Bad("beta", "must be positive, got %v", m.Beta)
	} else if m.Beta > correlation.MaxBeta {
		v.Bad("beta", "must be at most %g (β times a split's energy must stay finite), got %v", float64(correlation.MaxBeta), m.Beta)
	}
}

// openVectors reads a file of labelled vectors in format; its items are subsamples of the rows, or the whole
// table as the one item "all".
func openVectors(env SourceEnv, format string, o labelled.CSVOptions, vd VectorData) (*Data, error) {
	var data *labelled.Data
	err := env.Read(func(r io.Reader, name string) (err error) {
		data, err = labelled.ReadLimit(r, name, format, o, MaxText(CSVBytesPerByte))
		return explainMaxText(err)
	})
	if err != nil {
		return nil, err
	}
	// positions[r] is the 0-based position in the file of row r of data.
	positions := make([]int, data.Len())
	for r := range positions {
		positions[r] = r
	}
	if len(vd.Classes) > 0 {
		if positions, err = classRows(data, vd.Classes); err != nil {
			return nil, env.Problem("classes", "%v (in %s)", err, env.Path)
		}
		data = data.Subset(positions)
	}
	if vd.Binarize != "none" {
		t, _ := strconv.ParseFloat(vd.Binarize, 64) // validated
		binarize(data.X, t)
	}
	size := item.Size{Items: 1, MinLeaves: data.Len(), MaxLeaves: data.Len(), Weights: vd.SplitModel.Model == "correlation", Binary: vd.Binarize != "none"}
	if data.Len() > 0 {
		size.Dims = len(data.X[0])
	}
	ids := []string{"all"}
	if vd.Subsamples > 0 {
		ids = IndexIDs(vd.Subsamples)
		known := 0
		for l := range data.LabelCounts() {
			if l != "" {
				known++
			}
		}
		// per_label and unknown bounded first, so that absurd ones do not overflow.
		n := min(known*min(vd.PerLabel, data.Len())+min(vd.Unknown, data.Len()), data.Len())
		size.Items, size.MinLeaves, size.MaxLeaves = vd.Subsamples, n, n
	}
	load := func(ctx context.Context, i int) (*item.Item, error) {
		rows := make([]int, data.Len())
		for r := range rows {
			rows[r] = r
		}
		if vd.Subsamples > 0 {
			var err error
			if vd.Sampling == "first" {
				rows, err = labelled.FirstPerLabel(data, vd.PerLabel, vd.Unknown)
			} else {
				rows, err = labelled.Stratified(data, seeds.Stream(env.Seed, SeedKey(vd.SampleKey, ids[i])), vd.PerLabel, vd.Unknown)
			}
			if err != nil {
				return nil, err
			}
		}
		it, err := vectorItem(ctx, env.Name, ids[i], i, data.Subset(rows), vd, env.Params)
		if err != nil {
			return nil, err
		}
		it.Positions = make([]int, len(rows))
		for k, r := range rows {
			it.Positions[k] = positions[r] + 1
		}
		return it, nil
	}
	return &Data{IDs: ids, HasTruth: func(int) bool { return false }, Load: load, Size: size, OrderName: vd.SampleKey}, nil
}

// vectorItem makes the item of a table of vectors, with its split model.
func vectorItem(ctx context.Context, dataset, id string, index int, sub *labelled.Data, vd VectorData, params map[string]any) (*item.Item, error) {
	missing := sub.Missing
	if vd.Missing == "zero" {
		sub.FillMissing(0)
	}
	it := &item.Item{Dataset: dataset, Index: index, ID: id, Names: sub.Names, Labels: sub.Labels, Vectors: sub.X, MissingCells: &missing, DataParams: params}
	return it, setSplitModel(ctx, it, vd.SplitModel, vd.Missing == "mask")
}

// setSplitModel gives the item of vectors it its split model. Where its vectors do not define
// the model (the correlation energy of a vector with no direction, such as an all-zero row),
// the item keeps the error in ModelErr and a warning for its records, rather than failing: the
// algorithms that score splits fail on it (NeedModel), and the others (bhc, brt, euclidean
// linkage, external programs) run without a log-likelihood. Only ctx's error is returned.
func setSplitModel(ctx context.Context, it *item.Item, sm SplitModel, mask bool) error {
	m, err := splitModel(ctx, it.Vectors, sm, mask)
	if err != nil {
		if ctxErr := ctx.Err(); ctxErr != nil {
			return ctxErr
		}
		it.ModelErr = err
		it.Warnings = append(it.Warnings, fmt.Sprintf("split_model %s is not defined on this item (%v): no record of it has a log_likelihood, and the algorithms that score splits fail on it", sm.Model, err))
		return nil
	}
	it.Model = m
	return nil
}

// splitModel builds the split model of vectors: the correlation-clustering energy, or none (a
// nil model.Model).
func splitModel(ctx context.Context, x [][]float64, sm SplitModel, mask bool) (model.Model, error) {
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

// defaults sets sample_key to the data set's name unless it is given.
func (d *VectorData) defaults(df Defaults) {
	if !df.Has("sample_key") {
		if df.Failed("name") {
			df.Skip("sample_key")
		}
		d.SampleKey = df.Name()
	}
}

// Package inputs turns the data set entries of a config into items that algorithms run on: it
// reads data files, generates synthetic data from per-item random streams, and builds each item's
// model and truth tree. Opening a data set (for planning) reads its files but generates nothing;
// Load materialises one item.
package inputs

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"

	"github.com/hcbench/hcbench/datasets/datafile"
	"github.com/hcbench/hcbench/experiments/config"
	"github.com/hcbench/hcbench/experiments/item"
	"github.com/hcbench/hcbench/experiments/registry"
	"github.com/hcbench/hcbench/experiments/seeds"
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
	leaves   func(i int) int
	load     func(ctx context.Context, i int) (*item.Item, error)
	size     item.Size
	file     *FileSum
	// seed is the master seed, and orderName the name of the streams that draw the items' leaf
	// orders (registry.Data.OrderName).
	seed      uint64
	orderName string
	warnings  []string
}

// Warnings are the source's warnings about the data set (what it left out and why).
func (d *Dataset) Warnings() []string { return d.warnings }

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

// Leaves returns the number of leaves of item i as its source knows it before loading it, 0 when
// it cannot tell.
func (d *Dataset) Leaves(i int) int {
	if d.leaves == nil {
		return 0
	}
	return d.leaves(i)
}

// HasTruth reports whether item i has a generating tree.
func (d *Dataset) HasTruth(i int) bool { return d.hasTruth(i) }

// Load materialises item i. For generated data it draws from the stream keyed by the data set
// name and item id, so item i is the same whatever else the config holds. Its leaves are then
// put in the order the algorithms are given them (item.Item.Present): a uniformly random
// permutation of the data's order, drawn from the stream of registry.OrderKey (with the data
// set's name, or a table's sample_key, and the item id), so never grouped by class, component or
// generating tree, and the same whatever the number of workers. It returns ctx's error when ctx
// is cancelled.
func (d *Dataset) Load(ctx context.Context, i int) (*item.Item, error) {
	it, err := d.load(ctx, i)
	if err == nil {
		key := registry.OrderKey(d.orderName, d.ids[i])
		it.OrderSeed = seeds.Uint64(d.seed, key)
		err = it.Present(seeds.Stream(d.seed, key).Perm(it.Leaves()))
	}
	if err != nil {
		return nil, fmt.Errorf("data set %s, item %s: %w", d.Name, d.ids[i], err)
	}
	return it, nil
}

// GeneratedSize returns the size of a generated data set from its config alone (ok false for a
// data file), so that it can be estimated before its item ids are made.
func GeneratedSize(ds config.Dataset) (item.Size, bool) {
	src, ok := registry.LookupSource(ds.Kind)
	if !ok || src.File {
		return item.Size{}, false
	}
	return src.Generated(ds.Source), true
}

// Open prepares a data set of cfg for planning and loading with its source (registry.Source):
// it reads the data set's file, if any, through ctx (a cancelled ctx stops the reading); a file
// with bad lines gives an error per line (up to a bound), each with the file and line. A
// generated data set is not drawn, only sized: check its size (GeneratedSize) before opening a
// large one.
func Open(ctx context.Context, cfg *config.Config, ds config.Dataset) (*Dataset, error) {
	src, ok := registry.LookupSource(ds.Kind)
	if !ok {
		return nil, fmt.Errorf("data set %s: no source %q", ds.Name, ds.Kind)
	}
	d := &Dataset{Name: ds.Name, Kind: ds.Kind, Config: ds, params: sourceParams(ds), Generated: !src.File}
	env := registry.SourceEnv{
		Name:   ds.Name,
		Seed:   cfg.Seed,
		Params: d.params,
		Problem: func(key, format string, args ...any) error {
			return cfg.Problem(&ds, key, format, args...)
		},
		Resolve:     cfg.Resolve,
		MissingHint: cfg.MissingHint,
	}
	if f, ok := ds.Source.(registry.FileParams); ok {
		env.Path = cfg.Resolve(f.File())
		env.Read = func(read func(r io.Reader, name string) error) error { return d.readFile(ctx, cfg, f.File(), read) }
	}
	data, err := src.Open(ctx, ds.Source, env)
	if err != nil {
		return nil, inDataset(ds.Name, err)
	}
	d.ids, d.hasTruth, d.load, d.size, d.leaves, d.warnings = data.IDs, data.HasTruth, data.Load, data.Size, data.Leaves, data.Warnings
	d.seed, d.orderName = cfg.Seed, cmp.Or(data.OrderName, ds.Name)
	return d, nil
}

// readFile reads the data set's file (file as the config writes it) with read, through ctx, and
// records its SHA-256. The file is read to its end, so that the sum is of all of it.
func (d *Dataset) readFile(ctx context.Context, cfg *config.Config, file string, read func(r io.Reader, name string) error) error {
	path := cfg.Resolve(file)
	f, err := datafile.Open(ctx, path)
	if err != nil {
		return withHint(cfg, file, err)
	}
	defer f.Close()
	if err := read(f, path); err != nil {
		return err
	}
	if _, err := io.Copy(io.Discard, f); err != nil {
		return err
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
		var p config.Problem
		if errors.As(e, &p) {
			out[i] = e // at a line of the config, naming its entry
			continue
		}
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

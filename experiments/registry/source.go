package registry

import (
	"context"
	"fmt"
	"io"
	"regexp"
	"strconv"

	"github.com/hcbench/hcbench/experiments/item"
)

// Source is an entry of the data source table: a generator (`generator: NAME`) or a file format
// (`file: PATH` with `format: NAME`).
type Source struct {
	// Name is what configs write; lower-case letters, digits and '_'.
	Name string
	// Help says what the source gives, in one line, for `help config` and the docs.
	Help string
	// File marks a file format; Extensions are the file extensions (".csv") whose default format
	// this is. A file source's parameters embed FilePath.
	File       bool
	Extensions []string
	// NewParams returns a pointer to a new parameters struct (see Params).
	NewParams func() Params
	// Defaults fills the keys whose defaults depend on other keys (a jet type's mass), after
	// decoding and before Check; nil: none.
	Defaults func(p Params, d Defaults)
	// Generated returns the size of a generator's data from its parameters alone, so that it is
	// estimated before any item id exists.
	Generated func(p Params) item.Size
	// Listed returns the number of items a file source lists before its file is read (the
	// subsamples of a table; 0: one per record of the file), and BytesPerByte the memory its
	// parsed contents take per byte of the file, at worst: together they bound a file source's
	// memory before it is read.
	Listed       func(p Params) int
	BytesPerByte int64
	// ReadBytes returns how much of a file of size bytes Open reads (a jets file's first limit
	// jets); nil: all of it. TooLargeHint says what to change when that is too much to hold.
	ReadBytes    func(p Params, size int64) int64
	TooLargeHint string
	// Open opens a data set of the source: a file source reads its file (through env.Read); a
	// generator only lists its items, which Load draws.
	Open func(ctx context.Context, p Params, env SourceEnv) (*Data, error)
}

// Defaults is what Source.Defaults knows of the entry being decoded.
type Defaults interface {
	// Has reports whether the entry writes key; Failed whether key could not be decoded.
	Has(key string) bool
	Failed(key string) bool
	// Skip marks key as derived from a key that failed, so that its check reports nothing the
	// user did not write.
	Skip(key string)
	// Name is the data set's name.
	Name() string
}

// SourceEnv is what a source's Open knows of the data set it opens.
type SourceEnv struct {
	// Name is the data set's name; Seed the master seed, from which items draw their streams
	// (SeedKey).
	Name string
	Seed uint64
	// Path is the data file (resolved: data: references and relative paths), for messages.
	Path string
	// Read reads the data file with read, through the context (Ctrl-C stops it), recording its
	// SHA-256 for the run's manifest, and reading it to its end; a missing file's error says
	// what to do about it. maxText bounds the text read of a stream or compressed data (see
	// Source.BytesPerByte).
	Read func(read func(r io.Reader, name string) error) error
	// Problem is a problem with key of the data set's config entry, at its line.
	Problem func(key, format string, args ...any) error
	// Params are the data set's settings as records hold them (data_params), shared by its items;
	// Open may add what it resolves (a jets file's likelihood).
	Params map[string]any
	// Resolve returns the path of a file or folder as a config writes it (relative to the config
	// file, or data:SET/… in the data directory), and MissingHint what to do when it is missing,
	// for a source that reads more than one file (clustbench).
	Resolve     func(path string) string
	MissingHint func(path string) string
}

// Data is an opened data set: its item ids (known before anything is generated), which items
// have a generating tree, how an item is made, and the items' size.
type Data struct {
	IDs      []string
	HasTruth func(i int) bool
	// Load makes item i in its data's own order (see item.Item; the caller renumbers its leaves
	// before any algorithm sees them); it returns ctx's error when ctx is cancelled. Items are
	// independent: item i is the same whatever else is loaded.
	Load func(ctx context.Context, i int) (*item.Item, error)
	Size item.Size
	// Leaves returns the number of leaves of item i before it is loaded, 0 where the source
	// cannot tell; nil: it never can. The plan leaves out the tasks whose algorithm cannot run
	// on an item of that size (max_leaves, its memory), and sizes their costs by it.
	Leaves func(i int) int
	// OrderName names the random streams that draw the order in which the items' leaves are
	// given to the algorithms (OrderKey); "" means the data set's name. Tables of vectors give
	// their sample_key, so that data sets that draw the same rows also give them in the same
	// order, and differ in their models alone.
	OrderName string
	// Warnings are about the data set as a whole, for the plan's warnings: what the source left
	// out of it and why.
	Warnings []string
}

// FilePath is embedded in the parameters of a file source: the file as the config writes it
// (the `file:` key, which config decodes itself).
type FilePath struct {
	Path string `yaml:"-"`
}

// File returns the file as the config writes it.
func (f *FilePath) File() string { return f.Path }

// SetFile sets the file.
func (f *FilePath) SetFile(p string) { f.Path = p }

// FileParams are the parameters of a file source.
type FileParams interface {
	Params
	File() string
	SetFile(string)
}

// SeedKey is the seed key of a generated item, and of a subsample's draw (with the data set's
// sample_key in place of its name).
func SeedKey(dataset, item string) string {
	return "data|dataset=" + dataset + "|item=" + item
}

// OrderKey is the seed key of the order in which the leaves of an item are given to the
// algorithms (item.Item.Present), with the data set's name, or its Data.OrderName, as dataset.
func OrderKey(dataset, item string) string {
	return "order|dataset=" + dataset + "|item=" + item
}

// IndexIDs returns the ids "0", "1", … of n items.
func IndexIDs(n int) []string {
	ids := make([]string, n)
	for i := range ids {
		ids[i] = strconv.Itoa(i)
	}
	return ids
}

// namePattern keeps names safe in task keys ("dataset=…|item=…") and in file names.
var namePattern = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]*$`)

// ValidName reports whether s may name an experiment, data set, variant or sample key.
func ValidName(s string) bool { return namePattern.MatchString(s) }

// CheckName reports a problem with key unless its value is a valid name.
func CheckName(c Checker, key, value string) {
	if !ValidName(value) {
		c.Bad(key, "%s", NameRule(value))
	}
}

// NameRule says what a valid name is, for a problem with s.
func NameRule(s string) string {
	return fmt.Sprintf("%q must start with a letter or digit and hold only letters, digits, '.', '_' and '-'", s)
}

var sources = map[string]*Source{}

// RegisterSource adds s to the table; it panics on a duplicate or malformed name, or on a
// missing NewParams or Open, and a generator without Generated (mistakes in the program).
func RegisterSource(s Source) {
	if s.NewParams == nil || s.Open == nil || (!s.File && s.Generated == nil) {
		panic(fmt.Sprintf("registry: source %q needs NewParams, Open and (a generator) Generated", s.Name))
	}
	register(sources, "source", s.Name, &s)
}

// LookupSource returns the source of a name.
func LookupSource(name string) (*Source, bool) { return lookup(sources, name) }

// Sources returns every source, by name.
func Sources() []*Source { return sorted(sources, func(s *Source) string { return s.Name }) }

// FormatOf returns the file format that is the default for an extension (".jsonl"), or "".
func FormatOf(ext string) string {
	for _, s := range Sources() {
		for _, e := range s.Extensions {
			if e == ext {
				return s.Name
			}
		}
	}
	return ""
}

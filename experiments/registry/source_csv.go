package registry

import (
	"context"

	"github.com/hcbench/hcbench/datasets/labelled"
)

func init() {
	RegisterSource(Source{
		Name:         "csv",
		Help:         "labelled vectors in CSV (gzip allowed), one row per item",
		File:         true,
		Extensions:   []string{".csv", ".gz"},
		NewParams:    func() Params { return &CSVFile{} },
		Defaults:     func(p Params, d Defaults) { p.(*CSVFile).VectorData.defaults(d) },
		Listed:       func(p Params) int { return p.(*CSVFile).Subsamples },
		BytesPerByte: CSVBytesPerByte,
		TooLargeHint: "read a smaller file (or a part of its rows)",
		Open: func(_ context.Context, p Params, env SourceEnv) (*Data, error) {
			src := p.(*CSVFile)
			o := labelled.CSVOptions{Header: src.Header, LabelColumn: src.LabelColumn, NameColumn: src.NameColumn, Ignore: src.IgnoreColumns, Unknown: src.UnknownLabel}
			return openVectors(env, "csv", o, src.VectorData)
		},
	})
}

// CSVFile is `format: csv`: labelled vectors in CSV (gzip allowed), one row per item.
type CSVFile struct {
	FilePath      `yaml:",inline"`
	Header        string   `yaml:"header" default:"names" help:"first line: names (column names), none, or sklearn (n_samples, n_features, class names; labels are 0-based class indices)"`
	LabelColumn   string   `yaml:"label_column" help:"the label column, by name or 1-based position; default: the last column; none: no labels"`
	NameColumn    string   `yaml:"name_column" help:"a column of item names, by name or 1-based position; default: none (items are named by row index)"`
	IgnoreColumns []string `yaml:"ignore_columns" default:"[]" help:"further columns to drop, by name or 1-based position"`
	UnknownLabel  string   `yaml:"unknown_label" help:"the label value that means unknown (for example Unknown)"`
	VectorData    `yaml:",inline"`
}

// Check checks the keys of a CSV file.
func (s *CSVFile) Check(v Checker) {
	s.VectorData.Check(v)
	OneOf(v, "header", s.Header, "names", "none", "sklearn")
}

package registry

import (
	"context"

	"github.com/hcbench/hcbench/datasets/labelled"
)

func init() {
	RegisterSource(Source{
		Name:         "pam50",
		Help:         "UNC's PAM50 training matrix as distributed (TSV, genes in rows, a subtype row): labelled vectors",
		File:         true,
		NewParams:    func() Params { return &PAM50File{} },
		Defaults:     func(p Params, d Defaults) { p.(*PAM50File).VectorData.defaults(d) },
		Listed:       func(p Params) int { return p.(*PAM50File).Subsamples },
		BytesPerByte: CSVBytesPerByte,
		TooLargeHint: "read a smaller file (or a part of its rows)",
		Open: func(_ context.Context, p Params, env SourceEnv) (*Data, error) {
			return openVectors(env, "pam50", labelled.CSVOptions{}, p.(*PAM50File).VectorData)
		},
	})
}

// PAM50File is `format: pam50`: UNC's PAM50 training matrix as distributed (TSV, genes in rows, a
// subtype row, empty cells for unknown labels and missing values).
type PAM50File struct {
	FilePath   `yaml:",inline"`
	VectorData `yaml:",inline"`
}

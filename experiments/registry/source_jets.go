package registry

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/hcbench/hcbench/datasets/jets"
	"github.com/hcbench/hcbench/experiments/item"
	"github.com/hcbench/hcbench/experiments/memory"
	"github.com/hcbench/hcbench/internal/linelimit"
)

func init() {
	RegisterSource(Source{
		Name:         "jets",
		Help:         "jets in hcbench's JSON Lines format (Ginkgo's keys), with their generating trees where the file has them",
		File:         true,
		Extensions:   []string{".jsonl", ".json"},
		NewParams:    func() Params { return &JetsFile{} },
		BytesPerByte: JetsBytesPerByte,
		// Only the first limit jets are read, each of at most one line.
		ReadBytes: func(p Params, size int64) int64 {
			if l := p.(*JetsFile).Limit; l > 0 {
				return min(size, memory.Mul(int64(l), jets.MaxLine))
			}
			return size
		},
		TooLargeHint: "read the first jets only (limit), or a smaller file",
		Open:         openJets,
	})
}

// JetsBytesPerByte bounds the memory a jets file's parsed contents take per byte of its text,
// measured on linux/amd64 with Go 1.26 at the worst case, a file of 55-byte two-leaf jets (22),
// and rounded up.
const JetsBytesPerByte = 24

// JetsFile is `file: PATH` with `format: jets` (the default for .jsonl): jets in JSON Lines.
//
// Its likelihood keys default to Stored: the values the jets were saved with (hcbench writes
// them into every generated jet), so that a frozen data set scores as the run that saved it.
// Open resolves them against the file.
type JetsFile struct {
	FilePath   `yaml:",inline"`
	Limit      int    `yaml:"limit" default:"0" help:"use only the first limit jets of the file; 0 means all"`
	Likelihood string `yaml:"likelihood" default:"stored" help:"split likelihood: stored (the likelihood the jets were saved with, which all jets of the file must agree on; ginkgo2020 for jets that store none), ginkgo2020 or ginkgo2021; a value that differs from the one the jets store is an error"`
	RootLambda string `yaml:"root_lambda" default:"stored" help:"rate of the root split: stored (as the jets were saved; generative for jets that store none), generative or uniform; a value that differs from the one the jets store is an error"`
}

// Stored is the default of a jets file's likelihood keys: take the value the jets store.
const Stored = "stored"

// Check checks the keys of a jets file.
func (s *JetsFile) Check(v Checker) {
	OneOf(v, "likelihood", s.Likelihood, Stored, "ginkgo2020", "ginkgo2021")
	OneOf(v, "root_lambda", s.RootLambda, Stored, "generative", "uniform")
	if s.Limit < 0 {
		v.Bad("limit", "must be 0 (all) or positive, got %d", s.Limit)
	}
}

// openJets reads a jets file (its first limit jets, when limit is set; the rest is read for its
// SHA-256 only) and resolves its likelihood keys against the values its jets store.
func openJets(_ context.Context, p Params, env SourceEnv) (*Data, error) {
	src := p.(*JetsFile)
	var js []jets.Jet
	err := env.Read(func(r io.Reader, name string) (err error) {
		js, err = jets.ReadLimit(linelimit.Capped(r, MaxText(JetsBytesPerByte)), name, src.Limit)
		return err
	})
	if err != nil {
		return nil, err
	}
	size := item.Size{Items: len(js), MinLeaves: math.MaxInt, Jets: true}
	for i := range js {
		size.MinLeaves = min(size.MinLeaves, len(js[i].Leaves))
		size.MaxLeaves = max(size.MaxLeaves, len(js[i].Leaves))
	}
	ids, err := fileIDs(js, env.Path)
	if err != nil {
		return nil, err
	}
	lk, err := fileLikelihood(env, src, js)
	if err != nil {
		return nil, err
	}
	env.Params["likelihood"], env.Params["root_lambda"] = lk.Likelihood, lk.RootLambda
	return &Data{
		IDs:      ids,
		HasTruth: func(i int) bool { return js[i].HasTruth() },
		Load: func(_ context.Context, i int) (*item.Item, error) {
			return jetItem(env.Name, ids[i], i, &js[i], lk, env.Params)
		},
		Size: size,
	}, nil
}

// fileLikelihood resolves the likelihood keys of a jets file against the values its jets store
// (hcbench writes them into every jet it generates). A key left at stored takes the value the
// jets store, which they must all agree on, or the default when none stores one; a value the
// config sets must equal every stored one, so that a frozen data set never silently scores
// differently from the run that saved it.
func fileLikelihood(env SourceEnv, src *JetsFile, js []jets.Jet) (JetLikelihood, error) {
	path := env.Path
	var errs []error
	resolve := func(key, setting, def string, stored func(*jets.Jet) string) string {
		value, line := "", 0 // the first stored value, and its line
		for i := range js {
			s := stored(&js[i])
			switch {
			case s == "":
			case setting != Stored && s != setting:
				errs = append(errs, env.Problem(key, "%s, but the jets of %s were saved with %s %s (%s:%d), and a frozen data set must score as the run that saved it; leave %s out (or write stored) to use the file's",
					setting, path, key, s, path, js[i].Line, key))
				return setting
			case value == "":
				value, line = s, js[i].Line
			case s != value:
				errs = append(errs, fmt.Errorf("%s:%d: %s %s differs from %s on line %d; the jets of one file must agree on it", path, js[i].Line, key, s, value, line))
				return value
			}
		}
		switch {
		case setting != Stored:
			return setting
		case value != "":
			return value
		}
		return def
	}
	lk := JetLikelihood{
		Likelihood: resolve("likelihood", src.Likelihood, "ginkgo2020", func(j *jets.Jet) string { return j.Likelihood }),
		RootLambda: resolve("root_lambda", src.RootLambda, "generative", func(j *jets.Jet) string { return j.RootLambda }),
	}
	return lk, errors.Join(errs...)
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

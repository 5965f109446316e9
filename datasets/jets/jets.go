// Package jets reads and writes jets in hcbench's JSON Lines format: one jet per line, with the
// dictionary keys of the Ginkgo generator, so that a Ginkgo pickle converts with a few lines of
// Python (see docs/data.md, "Jets format").
//
// Required: leaves. Needed for the likelihood: Lambda and pt_cut (the t_cut, a mass² cut, as Ginkgo
// names it). Optional: LambdaRoot (defaults to Lambda), id, and a known truth tree as tree (child
// index pairs, [-1,-1] for leaves, Ginkgo node order), content (node 4-momenta) and root_id. Other
// keys that Ginkgo writes are read where this package knows them and ignored otherwise.
package jets

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"

	"github.com/hcbench/hcbench/algorithms/model/ginkgo"
	"github.com/hcbench/hcbench/algorithms/tree"
	"github.com/hcbench/hcbench/datasets/badlines"
	"github.com/hcbench/hcbench/internal/linelimit"
)

// Schema is the version of the format written by Write.
const Schema = 1

// Jet is one jet. Field names follow Ginkgo's dictionary keys.
type Jet struct {
	ID         ID              `json:"id,omitempty"`
	Leaves     [][4]float64    `json:"leaves"`
	Lambda     float64         `json:"Lambda"`
	LambdaRoot float64         `json:"LambdaRoot,omitempty"` // 0 means: the same as Lambda
	TCut       float64         `json:"pt_cut"`
	Delta0     float64         `json:"Delta_0,omitempty"` // root mass², M²
	RootID     int             `json:"root_id"`
	Tree       [][2]int        `json:"tree,omitempty"`
	Content    [][4]float64    `json:"content,omitempty"`
	Deltas     []float64       `json:"deltas,omitempty"`
	LogLH      []LogLikelihood `json:"logLH,omitempty"` // per node split log-likelihood, 0 at leaves

	// Provenance written by hcbench's generator; absent in converted Ginkgo pickles.
	Schema       int    `json:"schema,omitempty"`
	Generator    string `json:"generator,omitempty"`
	JetType      string `json:"jet_type,omitempty"`
	SeedKey      string `json:"seed_key,omitempty"`
	MinLeaves    int    `json:"min_leaves,omitempty"` // inclusive
	MaxLeaves    int    `json:"max_leaves,omitempty"` // inclusive (Ginkgo's maxLeaves is this + 1)
	Tries        int    `json:"tries,omitempty"`      // generator attempts until the leaf count was accepted
	Likelihood   string `json:"likelihood,omitempty"`
	RootLambda   string `json:"root_lambda,omitempty"`
	FlipChildren bool   `json:"flip_children,omitempty"`

	// Line is the jet's 1-based line in the file it was read from (0 for a jet made in code), for
	// messages about it.
	Line int `json:"-"`
}

// LogLikelihood is a stored log-likelihood; −Inf, which JSON cannot hold, is written and read as
// null.
type LogLikelihood float64

// MarshalJSON writes −Inf as null.
func (l LogLikelihood) MarshalJSON() ([]byte, error) {
	if math.IsInf(float64(l), -1) {
		return []byte("null"), nil
	}
	return json.Marshal(float64(l))
}

// UnmarshalJSON reads null as −Inf.
func (l *LogLikelihood) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		*l = LogLikelihood(math.Inf(-1))
		return nil
	}
	return json.Unmarshal(b, (*float64)(l))
}

// ID is a jet's identifier. It reads a JSON string or integer and writes a string.
type ID string

// UnmarshalJSON accepts a string or an integer.
func (id *ID) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err == nil {
		*id = ID(s)
		return nil
	}
	var n int64
	if err := json.Unmarshal(b, &n); err != nil {
		return errors.New("id must be a string or an integer")
	}
	*id = ID(strconv.FormatInt(n, 10))
	return nil
}

// RootLambdaOrDefault returns LambdaRoot, or Lambda when LambdaRoot is unset.
func (j *Jet) RootLambdaOrDefault() float64 {
	if j.LambdaRoot == 0 {
		return j.Lambda
	}
	return j.LambdaRoot
}

// HasTruth reports whether the jet carries its generating tree.
func (j *Jet) HasTruth() bool { return len(j.Tree) > 0 }

// TruthTree returns the generating tree with leaves numbered as in Leaves (depth-first,
// left-to-right from the root).
func (j *Jet) TruthTree() (*tree.Tree, error) {
	if !j.HasTruth() {
		return nil, errors.New("jet has no tree")
	}
	return tree.FromChildren(j.Tree, j.RootID)
}

// leafTolerance bounds the difference between a leaf of "leaves" and its node's row of
// "content", relative to the larger absolute component of the two. A leaf out of order differs by
// O(1); 1e-6 still accepts files whose two copies were written at float32 precision.
const leafTolerance = 1e-6

// Validate checks what the likelihood and the algorithms rely on: physical leaves (below), rates
// and t_cut in range, known likelihood names, and, when the jet has a truth tree, a full binary
// tree over the leaves whose leaf nodes' "content" rows, in depth-first left-to-right order, are
// the "leaves" (to leafTolerance), so that item k of the tree is leaf k.
//
// Every leaf must be a particle's 4-momentum (E, px, py, pz), as the Ginkgo likelihoods
// (../shared/design/ginkgo.md §5, §6; hcbench/algorithms/model/ginkgo) assume: they sum leaf
// momenta into clusters and score a split by the invariant masses² t = E² − |p⃗|² of the sums. A
// leaf that breaks a rule is refused, with the leaf, the value and the rule:
//
//   - Every component is a finite number of magnitude at most ginkgo.MaxComponent (1e100). JSON
//     holds no NaN or infinity, but 1e308 is finite, and its square is not: the likelihood would
//     see t = +Inf or ∞ − ∞ and score every split −Inf (a null), whatever the jet. Below 1e100,
//     the mass² of any sum of up to 2^24 leaves is at most about 1e215, which leaves room for the
//     likelihood's products with λ (see ginkgo.MaxComponent).
//   - Not the zero 4-momentum: it is no particle. It would join any cluster without changing its
//     mass, and the splits that add it would be scored as emissions all the same.
//   - E > 0: a particle's energy is positive. Summed with others, a negative E makes clusters of
//     any mass, space-like ones too, and the scores plausible numbers that mean nothing.
//   - Not space-like: E² − |p⃗|² ≥ −ginkgo.MassTolerance·E². A particle has E ≥ |p⃗|, so that every
//     cluster's t is at least the sum of its parts' (the 2020 formula relies on that when it takes
//     √t_P − √t_max), and the 2021 formula rejects a child of negative t outright. The tolerance
//     (1e-6 of E²) admits light leaves whose recomputed mass² rounding made slightly negative, as
//     in the reference's float32 data (−4.7e-6 seen there), and nothing else.
//
// A leaf may have any mass² between 0 and t_cut. A heavier leaf (beyond the same tolerance) is one
// the generator cannot make, since it splits every node with t > t_cut, but both formulas define
// a value for it, so it is not refused here: the model's Warnings reports it, and the runner puts
// that warning into every record of the jet (likewise a slightly negative mass² under ginkgo2021,
// which scores every tree −Inf, and a t_cut too small for the energies to resolve).
//
// "Lambda" and "LambdaRoot" (when present) must lie in [ginkgo.MinRate, ginkgo.MaxRate] = [1e-40,
// 1e40] and "pt_cut" in [ginkgo.MinTCut, ginkgo.MaxTCut] = [1e-40, 1e200]: within them no product
// or quotient in the likelihood overflows or underflows (ginkgo.MaxComponent gives the arithmetic).
func (j *Jet) Validate() error {
	if len(j.Leaves) == 0 {
		return errors.New(`missing or empty "leaves"`)
	}
	for i, l := range j.Leaves {
		if err := ginkgo.CheckLeaf(l); err != nil {
			return fmt.Errorf(`leaf %d (the %s row of "leaves", %v) %w`, i, ordinal(i+1), l, err)
		}
	}
	if len(j.Leaves) > ginkgo.MaxLeaves {
		return fmt.Errorf(`"leaves" has %d leaves, more than the %d the likelihood takes`, len(j.Leaves), ginkgo.MaxLeaves)
	}
	if !(j.Lambda > 0) {
		return errors.New(`"Lambda" must be present and positive`)
	}
	if j.LambdaRoot < 0 {
		return errors.New(`"LambdaRoot" must be positive`)
	}
	if !(j.TCut > 0) {
		return errors.New(`"pt_cut" (the t_cut) must be present and positive`)
	}
	for _, c := range []struct {
		key    string
		v      float64
		lo, hi float64
	}{{"Lambda", j.Lambda, ginkgo.MinRate, ginkgo.MaxRate}, {"LambdaRoot", j.RootLambdaOrDefault(), ginkgo.MinRate, ginkgo.MaxRate}, {"pt_cut", j.TCut, ginkgo.MinTCut, ginkgo.MaxTCut}} {
		if !(c.v >= c.lo && c.v <= c.hi) {
			return fmt.Errorf("%q is %v, outside [%g, %g], the range in which the likelihood is computed without overflow or underflow", c.key, c.v, c.lo, c.hi)
		}
	}
	switch j.Likelihood {
	case "", "ginkgo2020", "ginkgo2021":
	default:
		return fmt.Errorf(`"likelihood" is %q, want ginkgo2020 or ginkgo2021`, j.Likelihood)
	}
	switch j.RootLambda {
	case "", "generative", "uniform":
	default:
		return fmt.Errorf(`"root_lambda" is %q, want generative or uniform`, j.RootLambda)
	}
	if !j.HasTruth() {
		return nil
	}
	n := len(j.Leaves)
	if len(j.Tree) != 2*n-1 {
		return fmt.Errorf(`"tree" has %d nodes, want 2n−1 = %d for %d leaves`, len(j.Tree), 2*n-1, n)
	}
	if len(j.Content) != 0 && len(j.Content) != len(j.Tree) {
		return fmt.Errorf(`"content" has %d rows, "tree" %d`, len(j.Content), len(j.Tree))
	}
	t, err := j.TruthTree()
	if err != nil {
		return fmt.Errorf(`"tree": %w`, err)
	}
	if err := t.Validate(n); err != nil {
		return fmt.Errorf(`"tree": %w`, err)
	}
	if len(j.Content) == 0 {
		return nil
	}
	// TruthTree keeps Ginkgo's node indices and numbers the leaf nodes in depth-first order.
	for node, nd := range t.Nodes {
		if !nd.IsLeaf() {
			continue
		}
		if a, b := j.Leaves[nd.Item], j.Content[node]; !sameMomentum(a, b) {
			return fmt.Errorf(`leaf %d is %v, but the %s leaf node of "tree" in depth-first order, node %d, has "content" %v: "leaves" must list the leaf nodes' momenta in that order`,
				nd.Item, a, ordinal(nd.Item+1), node, b)
		}
	}
	return nil
}

// sameMomentum reports whether two 4-momenta agree to leafTolerance.
func sameMomentum(a, b [4]float64) bool {
	scale := 0.0
	for k := range a {
		scale = max(scale, math.Abs(a[k]), math.Abs(b[k]))
	}
	for k := range a {
		if math.Abs(a[k]-b[k]) > leafTolerance*scale {
			return false
		}
	}
	return true
}

// ordinal writes 1st, 2nd, 3rd, 4th, … 11th, 12th, 13th, 21st.
func ordinal(k int) string {
	suffix := "th"
	switch {
	case k%100 >= 11 && k%100 <= 13:
	case k%10 == 1:
		suffix = "st"
	case k%10 == 2:
		suffix = "nd"
	case k%10 == 3:
		suffix = "rd"
	}
	return strconv.Itoa(k) + suffix
}

// MaxLine bounds one jet's line, its line ending excluded; a 1000-leaf jet with its tree is well
// under 1 MB. A file without line breaks (/dev/zero, a binary file) is refused once MaxLine bytes
// are read, having held about that much memory (see package linelimit).
const MaxLine = 64 << 20

// Read reads jets from r, one per non-blank line. name labels errors. A file with bad lines gives
// an error per bad line, each with the file and 1-based line (see package badlines: up to
// badlines.Max, then a count); the errors are joined (errors.Join), so Unwrap lists them.
//
// A line longer than MaxLine (64 MiB) stops reading with an error naming its line and the limit;
// memory stays within about MaxLine besides what the jets read so far take, which is in proportion
// to the text. r is only read, never seeked, so it may be a pipe.
func Read(r io.Reader, name string) ([]Jet, error) {
	return ReadLimit(r, name, 0)
}

// ReadLimit is Read that stops after the first limit jets (limit ≤ 0: all of them), leaving the
// rest of r unread, so that a config's limit holds only the jets it uses.
func ReadLimit(r io.Reader, name string, limit int) ([]Jet, error) {
	lr := linelimit.NewReader(r, MaxLine)
	var out []Jet
	bad := badlines.New(name)
	seen := map[ID]int{}
	line := 0
	for limit <= 0 || len(out) < limit {
		raw, err := lr.Line()
		if err == io.EOF {
			break
		}
		if err != nil {
			if e, ok := linelimit.IsTooLong(err); ok {
				bad.Addf(e.Line, "line longer than %s, the limit for one jet; stopped reading there (is this a jets file, one JSON object per line? a jet's line is usually well under 1 MB)", linelimit.Size(e.Limit))
			} else {
				bad.Addf(line+1, "%v", err)
			}
			break
		}
		line++
		b := bytes.TrimSpace(raw)
		if line == 1 {
			b = bytes.TrimPrefix(b, []byte("\ufeff"))
		}
		if len(b) == 0 {
			continue
		}
		j, err := parseJet(b)
		if err != nil {
			bad.Add(line, err)
			continue
		}
		j.Line = line
		if j.ID != "" {
			if prev, dup := seen[j.ID]; dup {
				bad.Addf(line, "id %q already used on line %d", j.ID, prev)
				continue
			}
			seen[j.ID] = line
		}
		out = append(out, j)
	}
	if err := bad.Err(); err != nil {
		return nil, err
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s: no jets", name)
	}
	return out, nil
}

// parseJet decodes and validates one line.
func parseJet(b []byte) (Jet, error) {
	var j Jet
	if err := json.Unmarshal(b, &j); err != nil {
		return j, fmt.Errorf("not a jet in JSON: %v", jsonMessage(err))
	}
	if err := checkRaw(b); err != nil {
		return j, err
	}
	return j, j.Validate()
}

// checkRaw reports what decoding into Jet cannot see. A row of "leaves", "content" or "tree" of
// the wrong length or with a null entry: encoding/json pads a short row with zeros, drops the
// extra numbers of a long one and leaves a null row or entry at zero, which would silently
// corrupt the jet. And a "LambdaRoot" that is present but not positive, which Jet cannot tell from
// an absent one (0 means: the same as Lambda).
func checkRaw(b []byte) error {
	var rows struct {
		Leaves     [][]json.RawMessage `json:"leaves"`
		Content    [][]json.RawMessage `json:"content"`
		Tree       [][]json.RawMessage `json:"tree"`
		LambdaRoot json.RawMessage     `json:"LambdaRoot"`
	}
	if err := json.Unmarshal(b, &rows); err != nil {
		return fmt.Errorf("not a jet in JSON: %v", jsonMessage(err))
	}
	for _, f := range []struct {
		key  string
		rows [][]json.RawMessage
		want int
	}{{"leaves", rows.Leaves, 4}, {"content", rows.Content, 4}, {"tree", rows.Tree, 2}} {
		for i, r := range f.rows {
			if len(r) != f.want {
				return fmt.Errorf("%q row %d has length %d, want %d", f.key, i, len(r), f.want)
			}
			for _, x := range r {
				if string(x) == "null" {
					return fmt.Errorf("%q row %d has a null entry", f.key, i)
				}
			}
		}
	}
	if rows.LambdaRoot != nil {
		var x float64
		if err := json.Unmarshal(rows.LambdaRoot, &x); err != nil || !(x > 0) {
			return fmt.Errorf(`"LambdaRoot" must be positive when present, got %s (leave it out to use "Lambda")`, rows.LambdaRoot)
		}
	}
	return nil
}

// jsonMessage drops encoding/json's Go type names, which mean nothing to a user of the file.
func jsonMessage(err error) string {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		return fmt.Sprintf("field %q has the wrong type (a JSON %s)", te.Field, te.Value)
	}
	return err.Error()
}

// ReadFile reads a jets file; see Read.
func ReadFile(path string) ([]Jet, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return Read(f, path)
}

// Write writes jets to w, one JSON object per line.
func Write(w io.Writer, js []Jet) error {
	bw := bufio.NewWriter(w)
	for i := range js {
		if err := WriteOne(bw, &js[i]); err != nil {
			return err
		}
	}
	return bw.Flush()
}

// WriteOne writes one jet as one line.
func WriteOne(w io.Writer, j *Jet) error {
	b, err := json.Marshal(j)
	if err != nil {
		return fmt.Errorf("jet %q: %w", j.ID, err)
	}
	b = append(b, '\n')
	_, err = w.Write(b)
	return err
}

package datadir

import (
	"bytes"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/hcbench/hcbench/datasets/datadir/pickle"
)

// jetKeys are the keys of a ClusterTrellis jet dict that truth_N.jsonl keeps, in its order,
// after the added "id".
var jetKeys = []string{"leaves", "Lambda", "LambdaRoot", "pt_cut", "Delta_0", "root_id", "tree", "content", "deltas", "logLH"}

// clusterTrellisJets returns the converter of ClusterTrellis's data/STEM.pkl (a numpy object
// array of jet dicts, pickled with numpy arrays and torch scalars) into STEM.jsonl: one JSON
// object a line, "id" (STEM-index) then jetKeys, with numpy arrays and torch tensors as (nested)
// lists of numbers and numbers written as Python's json module writes them.
func clusterTrellisJets(stem string) func([][]byte) ([]byte, error) {
	return func(src [][]byte) ([]byte, error) {
		if len(src) != 1 {
			return nil, fmt.Errorf("clustertrellis: %d sources, want the one pickle", len(src))
		}
		return PickledJetsToJSONL(stem, src[0])
	}
}

// PickledJetsToJSONL converts a ClusterTrellis jets pickle to JSON Lines (see clusterTrellisJets).
func PickledJetsToJSONL(stem string, pkl []byte) ([]byte, error) {
	v, err := pickle.Load(pkl)
	if err != nil {
		return nil, fmt.Errorf("%s.pkl: %w", stem, err)
	}
	a, ok := v.(*pickle.Array)
	if !ok || a.Dtype != "O" || len(a.Shape) != 1 {
		return nil, fmt.Errorf("%s.pkl holds a %T, not a one-dimensional numpy object array of jets", stem, v)
	}
	var out bytes.Buffer
	for i, o := range a.Objects {
		d, ok := o.(*pickle.Dict)
		if !ok {
			return nil, fmt.Errorf("%s.pkl: jet %d is a %T, not a dict", stem, i, o)
		}
		fmt.Fprintf(&out, `{"id": %s`, strconv.Quote(fmt.Sprintf("%s-%d", stem, i)))
		for _, k := range jetKeys {
			val, ok := d.Get(k)
			if !ok {
				return nil, fmt.Errorf("%s.pkl: jet %d has no %q", stem, i, k)
			}
			fmt.Fprintf(&out, ", %s: ", strconv.Quote(k))
			if err := writePyJSON(&out, val); err != nil {
				return nil, fmt.Errorf("%s.pkl: jet %d, %s: %w", stem, i, k, err)
			}
		}
		out.WriteString("}\n")
	}
	return out.Bytes(), nil
}

// writePyJSON writes v as Python's json.dumps writes it with default settings, after numpy arrays
// become lists (ndarray.tolist) and torch scalars floats (float(t)).
func writePyJSON(w *bytes.Buffer, v any) error {
	switch x := v.(type) {
	case nil:
		w.WriteString("null")
	case bool:
		w.WriteString(map[bool]string{true: "true", false: "false"}[x])
	case int64:
		w.WriteString(strconv.FormatInt(x, 10))
	case float64:
		w.WriteString(PyFloat(x))
	case string:
		if !isASCIIPrintable(x) {
			return fmt.Errorf("string %q: only printable ASCII strings are written", x)
		}
		w.WriteString(strconv.Quote(x))
	case *pickle.Array:
		if x.Dtype == "O" {
			return fmt.Errorf("numpy object array: not a JSON value")
		}
		return writeNested(w, x.Shape, func(i int) {
			if x.Float != nil {
				w.WriteString(PyFloat(x.Float[i]))
			} else {
				w.WriteString(strconv.FormatInt(x.Int[i], 10))
			}
		})
	case *pickle.Tensor:
		if len(x.Shape) == 0 {
			w.WriteString(PyFloat(x.Values[0]))
			return nil
		}
		return writeNested(w, x.Shape, func(i int) { w.WriteString(PyFloat(x.Values[i])) })
	case *pickle.List:
		return writeSeq(w, x.Items)
	case pickle.Tuple:
		return writeSeq(w, x)
	default:
		return fmt.Errorf("a %T: not a JSON value", v)
	}
	return nil
}

func writeSeq(w *bytes.Buffer, items []any) error {
	w.WriteByte('[')
	for i, it := range items {
		if i > 0 {
			w.WriteString(", ")
		}
		if err := writePyJSON(w, it); err != nil {
			return err
		}
	}
	w.WriteByte(']')
	return nil
}

// writeNested writes a C-order array of the given shape as nested lists, elem writing element i.
func writeNested(w *bytes.Buffer, shape []int, elem func(i int)) error {
	next := 0
	var rec func(dim int)
	rec = func(dim int) {
		if dim == len(shape) {
			elem(next)
			next++
			return
		}
		w.WriteByte('[')
		for j := 0; j < shape[dim]; j++ {
			if j > 0 {
				w.WriteString(", ")
			}
			rec(dim + 1)
		}
		w.WriteByte(']')
	}
	rec(0)
	return nil
}

func isASCIIPrintable(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < 0x20 || s[i] > 0x7e {
			return false
		}
	}
	return true
}

// PyFloat formats f as Python's repr(float) (and so json.dumps) does: the shortest digits that
// read back as f, in fixed notation with at least one digit after the point when the decimal
// exponent is in [-4, 16), else as d.ddde±XX; NaN and infinities as json writes them.
func PyFloat(f float64) string {
	switch {
	case math.IsNaN(f):
		return "NaN"
	case math.IsInf(f, 1):
		return "Infinity"
	case math.IsInf(f, -1):
		return "-Infinity"
	}
	s := strconv.FormatFloat(f, 'e', -1, 64) // -d.ddde±XX
	sign := ""
	if s[0] == '-' {
		sign, s = "-", s[1:]
	}
	mant, exp, _ := strings.Cut(s, "e")
	digits := strings.Replace(mant, ".", "", 1)
	e, _ := strconv.Atoi(exp)
	decpt := e + 1 // f = 0.DIGITS × 10^decpt
	if decpt <= -4 || decpt > 16 {
		m := digits[:1]
		if len(digits) > 1 {
			m += "." + digits[1:]
		}
		es := "+"
		if e < 0 {
			es, e = "-", -e
		}
		return fmt.Sprintf("%s%se%s%02d", sign, m, es, e)
	}
	switch {
	case decpt <= 0:
		return sign + "0." + strings.Repeat("0", -decpt) + digits
	case decpt >= len(digits):
		return sign + digits + strings.Repeat("0", decpt-len(digits)) + ".0"
	default:
		return sign + digits[:decpt] + "." + digits[decpt:]
	}
}

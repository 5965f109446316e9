package clustbench

import (
	"bytes"
	"compress/gzip"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

func gz(t *testing.T, s string) *bytes.Reader {
	t.Helper()
	var b bytes.Buffer
	w := gzip.NewWriter(&b)
	w.Write([]byte(s))
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return bytes.NewReader(b.Bytes())
}

// TestReadData: a matrix is read as written (blank lines skipped); a ragged row, a value that is
// no finite number, another number of columns or of points are refused with the file and line.
func TestReadData(t *testing.T) {
	x, err := ReadData(gz(t, "1 2\n\n-3.5e1\t4\n"), "d.data.gz", 2, 2)
	if err != nil || len(x) != 2 || x[1][0] != -35 || x[1][1] != 4 {
		t.Fatalf("%v %v", x, err)
	}
	for _, c := range []struct {
		text   string
		points int
		want   string
	}{
		{"1 2\n3\n4 5 6\n", 3, "d.data.gz:2: 1 columns, the first line has 2\nd.data.gz:3: 3 columns, the first line has 2"},
		{"1 2\n3 x\n", 2, `d.data.gz:2: column 2: "x" is no finite number`},
		{"1 2\nnan 1\n", 2, `d.data.gz:2: column 1: "nan" is no finite number`},
		{"1 2 3\n", 2, "d.data.gz:1: 3 columns, want 2"},
		{"1 2\n3 4\n5 6\n", 2, "d.data.gz:3: more than 2 points"},
		{"1 2\n", 2, "d.data.gz: 1 points, want 2"},
	} {
		if _, err := ReadData(gz(t, c.text), "d.data.gz", c.points, 2); err == nil || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("%q: %v, want %s", c.text, err, c.want)
		}
	}
	if _, err := ReadData(strings.NewReader("1 2\n3 4\n5 6\n7 8\n9 10\n"), "d.data.gz", 1, 2); err == nil || !strings.HasPrefix(err.Error(), "d.data.gz: gzip: invalid header") {
		t.Errorf("not gzip: %v", err)
	}
}

// TestReadLabels: labels 0..k with every cluster used; another count, a negative or a
// non-integer label, or a cluster number skipped are refused with the file (and line).
func TestReadLabels(t *testing.T) {
	l, k, err := ReadLabels(gz(t, "1\n0\n2\n2\n"), "d.labels0.gz", 4)
	if err != nil || k != 2 || l[1] != 0 || l[3] != 2 {
		t.Fatalf("%v %d %v", l, k, err)
	}
	for _, c := range []struct{ text, want string }{
		{"1\n2\n", "d.labels0.gz: 2 labels, want one a point: 4"},
		{"1\n2\n1\n1\n1\n", "d.labels0.gz:5: more than 4 labels"},
		{"1\n-1\n2\n1.5\n", `d.labels0.gz:2: "-1" is no label`},
		{"1\n3\n3\n0\n", "d.labels0.gz: the clusters are not 1..3: no point has the label 2"},
		{"0\n0\n0\n0\n", "d.labels0.gz: every point is noise"},
	} {
		if _, _, err := ReadLabels(gz(t, c.text), "d.labels0.gz", 4); err == nil || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("%q: %v, want %s", c.text, err, c.want)
		}
	}
}

// TestPreprocess: the suite's "original" preprocessing of a 4 × 3 matrix with a constant column
// against numpy (1.24.2, the suite's load_data without its noise: X = X[:, X.var(axis=0) > 0];
// s = X.std(axis=None, ddof=1); X = (X - X.mean(axis=0))/s), to 1e-15; the jitter is the same for a
// seed and of the stated size.
func TestPreprocess(t *testing.T) {
	x := [][]float64{{1, 7, 10}, {2, 7, 30}, {4, 7, 20}, {9, 7, 0}}
	// numpy: s = 10.555973258234951 (all entries about their mean); the rows of (X − mean)/s.
	want := [][]float64{
		{-0.2841992800294026, -0.47366546671567095},
		{-0.18946618668626838, 1.4209964001470128},
		{0.0, 0.47366546671567095},
		{0.47366546671567095, -1.4209964001470128},
	}
	dropped, err := Preprocess{Original: true}.Apply(x, nil)
	if err != nil || len(dropped) != 1 || dropped[0] != 1 {
		t.Fatalf("dropped %v, %v", dropped, err)
	}
	for i := range want {
		for j := range want[i] {
			if len(x[i]) != 2 || math.Abs(x[i][j]-want[i][j]) > 1e-15 {
				t.Fatalf("row %d: %v, want %v", i, x[i], want[i])
			}
		}
	}

	draw := func(seed uint64) [][]float64 {
		y := make([][]float64, 1000)
		for i := range y {
			y[i] = []float64{float64(i % 7), float64(i % 11)}
		}
		if _, err := (Preprocess{Jitter: 1e-3}).Apply(y, rand.New(rand.NewPCG(seed, 0))); err != nil {
			t.Fatal(err)
		}
		return y
	}
	a, b, c := draw(1), draw(1), draw(2)
	var ss float64
	for i := range a {
		for j := range a[i] {
			if a[i][j] != b[i][j] {
				t.Fatalf("jitter differs for one seed at %d,%d", i, j)
			}
			if a[i][j] == c[i][j] {
				t.Fatalf("jitter equal for two seeds at %d,%d", i, j)
			}
			orig := []float64{float64(i % 7), float64(i % 11)}[j]
			ss += (a[i][j] - orig) * (a[i][j] - orig)
		}
	}
	// The overall sd of the matrix is 2.8270090183787877 (numpy, ddof=1); the noise's sd is 1e-3
	// of it, estimated from 2000 draws within 10 % (its standard error is 1.6 %).
	if got, ref := math.Sqrt(ss/2000), 1e-3*2.8270090183787877; math.Abs(got/ref-1) > 0.1 {
		t.Errorf("noise sd %g, want %g", got, ref)
	}
	if _, err := (Preprocess{Original: true}).Apply([][]float64{{1, 2}, {1, 2}}, nil); err == nil {
		t.Error("constant data preprocessed")
	}
}

// Package clustbench reads the data sets of the benchmark suite for clustering algorithms of
// M. Gagolewski (ClustBench, github.com/gagolews/clustering-data-v1) in the suite's own format,
// and preprocesses them as the suite's published results do.
//
// A data set NAME of a battery is NAME.data.gz, a gzip-compressed matrix of one point a line,
// its coordinates separated by white space, and NAME.labels0.gz, NAME.labels1.gz, …, its
// reference partitions, one integer a line: 1..k a cluster, 0 a noise point.
package clustbench

import (
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"strconv"

	"github.com/hcbench/hcbench/datasets/badlines"
	"github.com/hcbench/hcbench/internal/linelimit"
)

// maxLine bounds a line of a data file: a point of the suite has at most 64 coordinates of at
// most 25 characters.
const maxLine = 1 << 20

// ReadData reads a data matrix from r, gzip-compressed text named name in messages. points and
// dims are its expected size (the catalog's, which the plan's memory estimate counted): a file of
// another number of columns is refused at its first line, and one of more points at the first
// line past points, so that nothing beyond points × dims numbers is allocated. Blank lines are
// skipped (as numpy's loadtxt does). Bad lines (a number of columns unlike the first line's, a
// value that is no finite number) are reported together, each with the file and line.
func ReadData(r io.Reader, name string, points, dims int) ([][]float64, error) {
	zr, err := gzip.NewReader(r)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	lr := linelimit.NewReader(zr, maxLine)
	bad := badlines.New(name)
	x := make([][]float64, 0, points)
	flat := make([]float64, points*dims)
	for {
		line, err := lr.Line()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, readErr(name, lr, err)
		}
		fields := bytes.Fields(line)
		if len(fields) == 0 {
			continue
		}
		n := lr.Lines()
		if len(x) == 0 && len(fields) != dims {
			return nil, fmt.Errorf("%s:%d: %d columns, want %d (the suite's v1.1.0 has %d × %d)", name, n, len(fields), dims, points, dims)
		}
		if len(x) == points {
			return nil, fmt.Errorf("%s:%d: more than %d points (the suite's v1.1.0 has %d)", name, n, points, points)
		}
		if len(fields) != dims {
			bad.Addf(n, "%d columns, the first line has %d", len(fields), dims)
			x = append(x, nil)
			continue
		}
		row := flat[len(x)*dims : (len(x)+1)*dims : (len(x)+1)*dims]
		for j, f := range fields {
			v, err := strconv.ParseFloat(string(f), 64)
			if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
				bad.Addf(n, "column %d: %q is no finite number", j+1, f)
				break
			}
			row[j] = v
		}
		x = append(x, row)
	}
	if err := bad.Err(); err != nil {
		return nil, err
	}
	if len(x) != points {
		return nil, fmt.Errorf("%s: %d points, want %d (the suite's v1.1.0 has %d)", name, len(x), points, points)
	}
	return x, nil
}

// ReadLabels reads a reference partition of points points from r, gzip-compressed text named
// name in messages: one integer a line, 0 a noise point and 1..k a cluster, every one of 1..k
// used. A file of more lines is refused at the first line past points. It returns the labels and
// k.
func ReadLabels(r io.Reader, name string, points int) ([]int, int, error) {
	zr, err := gzip.NewReader(r)
	if err != nil {
		return nil, 0, fmt.Errorf("%s: %w", name, err)
	}
	lr := linelimit.NewReader(zr, maxLine)
	bad := badlines.New(name)
	labels := make([]int, 0, points)
	k := 0
	for {
		line, err := lr.Line()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, 0, readErr(name, lr, err)
		}
		f := bytes.TrimSpace(line)
		if len(f) == 0 {
			continue
		}
		n := lr.Lines()
		if len(labels) == points {
			return nil, 0, fmt.Errorf("%s:%d: more than %d labels, one a point of the data set", name, n, points)
		}
		l, err := strconv.Atoi(string(f))
		if err != nil || l < 0 || l > points {
			bad.Addf(n, "%q is no label (0 for noise, or a cluster 1..k with k at most the %d points)", f, points)
		}
		labels = append(labels, l)
		k = max(k, l)
	}
	if err := bad.Err(); err != nil {
		return nil, 0, err
	}
	if len(labels) != points {
		return nil, 0, fmt.Errorf("%s: %d labels, want one a point: %d", name, len(labels), points)
	}
	used := make([]bool, k+1)
	for _, l := range labels {
		used[l] = true
	}
	for c := 1; c <= k; c++ {
		if !used[c] {
			return nil, 0, fmt.Errorf("%s: the clusters are not 1..%d: no point has the label %d", name, k, c)
		}
	}
	if k == 0 {
		return nil, 0, fmt.Errorf("%s: every point is noise (label 0): no cluster", name)
	}
	return labels, k, nil
}

// readErr words a read error of a file, at its line.
func readErr(name string, lr *linelimit.Reader, err error) error {
	var long *linelimit.TooLongError
	if errors.As(err, &long) {
		return fmt.Errorf("%s:%d: a line longer than %s", name, long.Line, linelimit.Size(long.Limit))
	}
	return fmt.Errorf("%s:%d: %w", name, lr.Lines()+1, err)
}

// Preprocess is how a data set's points are prepared before clustering.
type Preprocess struct {
	// Original is the suite's preprocessing of its published results ("original" data spaces;
	// see Apply).
	Original bool
	// Jitter is the standard deviation of the white noise added to every coordinate, relative
	// to the overall standard deviation of the points (0: none).
	Jitter float64
}

// Apply preprocesses x in place and returns the indices (0-based, in x's columns) of the columns
// it dropped. rng draws the noise; it may be nil when p.Jitter is 0.
//
// It is the load_data of the suite's published results (github.com/gagolews/clustering-results-v1,
// results_original/README.md, "original" preprocessing): with Original, columns of zero variance
// are dropped (X = X[:, X.var(axis=0) > 0]; here: columns whose values are all equal); then, with
// Jitter, each coordinate gets Gaussian noise of standard deviation Jitter·s, where s is the
// standard deviation of all entries of the matrix about their mean, with ddof=1 (X.std(ddof=1));
// the suite uses 1e-6 (X += np.random.normal(0.0, X.std(ddof=1)*1e-6, size=X.shape)). Then, with
// Original, every column is centred at its mean and all are divided by the same s, now of the
// noisy matrix (s = X.std(axis=None, ddof=1); X = (X-X.mean(axis=0))/s), so that the columns keep
// their relative scale. The suite then rounds to float32; here the points stay float64. The noise
// is drawn point by point, coordinate by coordinate, so a seed gives the same points.
//
// Preconditions: x has at least 2 rows of equal length.
func (p Preprocess) Apply(x [][]float64, rng *rand.Rand) (dropped []int, err error) {
	if p.Original {
		if dropped = constantColumns(x); len(dropped) == len(x[0]) {
			return nil, errors.New("every column is constant: no point differs from another")
		}
		if len(dropped) > 0 {
			dropColumns(x, dropped)
		}
	}
	if p.Jitter > 0 {
		sd := p.Jitter * overallSD(x)
		for _, row := range x {
			for j := range row {
				row[j] += sd * rng.NormFloat64()
			}
		}
	}
	if p.Original {
		s := overallSD(x)
		if !(s > 0) {
			return nil, errors.New("every point is the same: no scale")
		}
		d := len(x[0])
		mean := make([]float64, d)
		for _, row := range x {
			for j, v := range row {
				mean[j] += v
			}
		}
		for j := range mean {
			mean[j] /= float64(len(x))
		}
		for _, row := range x {
			for j := range row {
				row[j] = (row[j] - mean[j]) / s
			}
		}
	}
	return dropped, nil
}

// overallSD is the standard deviation of all entries of x about their mean, with n·d − 1 degrees
// of freedom (numpy's x.std(ddof=1)), in two passes.
func overallSD(x [][]float64) float64 {
	n := 0
	var sum float64
	for _, row := range x {
		for _, v := range row {
			sum += v
		}
		n += len(row)
	}
	mean := sum / float64(n)
	var ss float64
	for _, row := range x {
		for _, v := range row {
			ss += (v - mean) * (v - mean)
		}
	}
	return math.Sqrt(ss / float64(n-1))
}

// constantColumns returns the columns of x whose values are all equal.
func constantColumns(x [][]float64) []int {
	var out []int
	for j := range x[0] {
		same := true
		for _, row := range x[1:] {
			if row[j] != x[0][j] {
				same = false
				break
			}
		}
		if same {
			out = append(out, j)
		}
	}
	return out
}

// dropColumns removes the columns cols (ascending) from every row of x, in place.
func dropColumns(x [][]float64, cols []int) {
	for i, row := range x {
		out := row[:0]
		k := 0
		for j, v := range row {
			if k < len(cols) && cols[k] == j {
				k++
				continue
			}
			out = append(out, v)
		}
		x[i] = out
	}
}

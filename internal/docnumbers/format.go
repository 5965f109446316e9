package main

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/hcbench/hcbench/experiments/results"
)

// The numbers of the documentation are written as these functions write them, so that a region
// renders to the same text whenever its runs give the same values.

// fixed writes x with digits decimals and a true minus sign (as the documentation does).
func fixed(x float64, digits int) string {
	s := strconv.FormatFloat(x, 'f', digits, 64)
	if strings.Trim(s, "-0.") == "" {
		s = strings.TrimPrefix(s, "-") // no −0.00
	}
	return strings.Replace(s, "-", "−", 1)
}

// mean and sampleStd of xs (std with n − 1; 0 for fewer than two values).
func mean(xs []float64) float64 {
	var s float64
	for _, x := range xs {
		s += x
	}
	return s / float64(len(xs))
}

func sampleStd(xs []float64) float64 {
	if len(xs) < 2 {
		return 0
	}
	m := mean(xs)
	var s float64
	for _, x := range xs {
		s += (x - m) * (x - m)
	}
	return math.Sqrt(s / float64(len(xs)-1))
}

// meanStd writes "mean ± std" with digits decimals.
func meanStd(xs []float64, digits int) string {
	return fixed(mean(xs), digits) + " ± " + fixed(sampleStd(xs), digits)
}

// meanSE writes "mean ± standard error of the mean".
func meanSE(xs []float64, digits int) string {
	return fixed(mean(xs), digits) + " ± " + fixed(sampleStd(xs)/math.Sqrt(float64(len(xs))), digits)
}

// percent writes the fraction k/n as a whole percentage: "37 %".
func percent(k, n int) string {
	return fmt.Sprintf("%.0f %%", 100*float64(k)/float64(n))
}

// thousands writes an integer with commas: 135135 → "135,135".
func thousands(x float64) string {
	s := strconv.FormatFloat(math.Round(x), 'f', 0, 64)
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return b.String()
}

// median of xs (results.Median, the one median of hcbench's reports); NaN for none, which the
// region then fails on (configRun.missing).
func median(xs []float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	return results.Median(slices.Clone(xs))
}

// markdownTable writes a Markdown table with a header row.
func markdownTable(header []string, rows [][]string) string {
	var b strings.Builder
	line := func(cells []string) {
		b.WriteString("| " + strings.Join(cells, " | ") + " |\n")
	}
	line(header)
	sep := make([]string, len(header))
	for i := range sep {
		sep[i] = "---"
	}
	line(sep)
	for _, r := range rows {
		line(r)
	}
	return strings.TrimRight(b.String(), "\n")
}

// logProb is the value of a log-likelihood field, −Inf for null; ok is false when absent.
func logProb(p *results.LogProb) (float64, bool) {
	if p == nil {
		return 0, false
	}
	return float64(*p), true
}

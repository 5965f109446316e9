// Package badlines collects the problems of a data file's lines, so that the readers of data
// files (jets, pam50, CSV) report every bad line at once, each with the file and the 1-based line,
// instead of stopping at the first: up to Max of them, then a count of the rest.
package badlines

import (
	"errors"
	"fmt"
)

// Max is the number of bad lines reported one by one; more are only counted, since a file that
// is wrong on many lines is usually wrong in one way, which the first lines show.
const Max = 10

// List collects the problems of one file. The zero value is not usable; see New.
type List struct {
	file string
	errs []error
	n    int
}

// New returns an empty list for the file named file (as messages should name it).
func New(file string) *List { return &List{file: file} }

// Add records a problem of line (1-based; 0 for a problem of the whole file).
func (l *List) Add(line int, err error) {
	l.n++
	if l.n > Max {
		return
	}
	if line > 0 {
		l.errs = append(l.errs, fmt.Errorf("%s:%d: %w", l.file, line, err))
	} else {
		l.errs = append(l.errs, fmt.Errorf("%s: %w", l.file, err))
	}
}

// Addf records a problem of line with a formatted message.
func (l *List) Addf(line int, format string, args ...any) { l.Add(line, fmt.Errorf(format, args...)) }

// Len returns the number of problems recorded, the uncounted ones included.
func (l *List) Len() int { return l.n }

// Err returns nil when no problem was recorded, else the problems joined with errors.Join (one per
// line of its message, which Unwrap lists), the last saying how many more there were beyond Max.
func (l *List) Err() error {
	if l.n == 0 {
		return nil
	}
	errs := l.errs
	if l.n > Max {
		errs = append(errs, fmt.Errorf("%s: and %d more bad lines", l.file, l.n-Max))
	}
	return errors.Join(errs...)
}

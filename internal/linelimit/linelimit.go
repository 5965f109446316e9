// Package linelimit reads text line by line with a bound on the length of one line, so that the
// readers of data files refuse a file without line breaks (/dev/zero, a binary file, a FIFO that
// never sends a newline) after reading at most the bound, holding about the bound in memory,
// instead of growing a buffer until the process is killed.
//
// A line shorter than the read buffer (64 KiB) is returned from the buffer without allocating. A
// longer one is collected in chunks of at most 1 MiB, which are joined only once its end is seen,
// so that refusing an over-long line allocates the limit plus one chunk, and accepting a line of
// n bytes about 2n.
package linelimit

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"math"
)

// BufSize is the size of the read buffer. Lines up to this size allocate nothing.
const BufSize = 64 << 10

// maxChunk bounds one chunk of a long line.
const maxChunk = 1 << 20

// TooLongError is the error for a line longer than the limit.
type TooLongError struct {
	Line  int // 1-based number of the over-long line
	Limit int // the limit, in bytes, line ending excluded
}

func (e *TooLongError) Error() string {
	return fmt.Sprintf("line %d is longer than %s, the limit", e.Line, Size(e.Limit))
}

// Size writes a byte count for a message: "16 MiB (16777216 bytes)", or "100 bytes" below 1 KiB.
func Size(n int) string {
	switch {
	case n >= 1<<30 && n%(1<<30) == 0:
		return fmt.Sprintf("%d GiB (%d bytes)", n>>30, n)
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB (%d bytes)", n>>20, n)
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB (%d bytes)", float64(n)/(1<<20), n)
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB (%d bytes)", float64(n)/(1<<10), n)
	}
	return fmt.Sprintf("%d bytes", n)
}

// Reader reads lines of at most a limit. It never seeks, so r may be a pipe or a FIFO.
type Reader struct {
	src    *bufio.Reader
	limit  int
	line   int      // lines returned by Line so far
	cur    []byte   // the rest of the line that Read is serving
	chunks [][]byte // a long line's chunks, reused from line to line
	joined []byte   // a long line, joined; reused
	err    error    // sticky error (io.EOF at the end)
}

// NewReader returns a Reader of r whose lines may hold at most limit bytes besides their line
// ending ("\n", or "\r\n" whose "\r" is counted as part of the line). When r is a *bufio.Reader of
// at least BufSize bytes it is used as it is, so that bytes already peeked at are not lost.
func NewReader(r io.Reader, limit int) *Reader {
	if limit < 1 {
		panic("linelimit: limit < 1")
	}
	return &Reader{src: bufio.NewReaderSize(r, BufSize), limit: limit}
}

// Lines returns the number of lines returned so far; after an error, the line that failed is
// Lines()+1.
func (r *Reader) Lines() int { return r.line }

// Line returns the next line with its "\n" (the last line of a file may lack it); it is valid
// until the next call of Line or Read. At the end of the input it returns nil and io.EOF. A line
// longer than the limit gives a *TooLongError, having read at most the limit plus the buffer; an
// error of the underlying reader is returned as it is. Errors are sticky.
func (r *Reader) Line() ([]byte, error) {
	if r.err != nil {
		return nil, r.err
	}
	b, err := r.src.ReadSlice('\n')
	if err == bufio.ErrBufferFull {
		b, err = r.long(b)
	}
	if err == nil || err == io.EOF && len(b) > 0 {
		if contentLen(b) > r.limit {
			return nil, r.fail(&TooLongError{Line: r.line + 1, Limit: r.limit})
		}
		r.line++
		return b, nil
	}
	return nil, r.fail(err)
}

func (r *Reader) fail(err error) error {
	r.err = err
	r.chunks, r.joined, r.cur = nil, nil, nil
	return err
}

// contentLen is the length of a line without its "\n".
func contentLen(b []byte) int {
	if n := len(b); n > 0 && b[n-1] == '\n' {
		return n - 1
	}
	return len(b)
}

// long collects a line that does not fit the buffer, whose first part is first.
func (r *Reader) long(first []byte) ([]byte, error) {
	n := 0 // bytes collected
	k := 0 // chunks in use
	add := func(b []byte) {
		for len(b) > 0 {
			if k == len(r.chunks) {
				size := min(max(2*n, BufSize), maxChunk)
				r.chunks = append(r.chunks, make([]byte, 0, size))
			}
			c := r.chunks[k]
			m := min(len(b), cap(c)-len(c))
			r.chunks[k] = append(c, b[:m]...)
			b, n = b[m:], n+m
			if len(r.chunks[k]) == cap(r.chunks[k]) {
				k++
			}
		}
	}
	for i := range r.chunks {
		r.chunks[i] = r.chunks[i][:0]
	}
	add(first)
	if n > r.limit {
		return nil, &TooLongError{Line: r.line + 1, Limit: r.limit}
	}
	for {
		b, err := r.src.ReadSlice('\n')
		if n+contentLen(b) > r.limit {
			return nil, &TooLongError{Line: r.line + 1, Limit: r.limit}
		}
		add(b)
		if err == bufio.ErrBufferFull {
			continue
		}
		if err != nil && err != io.EOF {
			return nil, err
		}
		if cap(r.joined) < n {
			r.joined = make([]byte, 0, n)
		}
		r.joined = r.joined[:0]
		for _, c := range r.chunks {
			r.joined = append(r.joined, c...)
		}
		return r.joined, err
	}
}

// Read reads the input as an io.Reader, the line limit applied, serving one line at a time: a
// reader above it (encoding/csv's bufio) sees the bytes of a line only once the whole line is
// known to be within the limit. Read returns the same errors as Line.
func (r *Reader) Read(p []byte) (int, error) {
	if len(r.cur) == 0 {
		b, err := r.Line()
		if err != nil {
			return 0, err
		}
		r.cur = b
	}
	n := copy(p, r.cur)
	r.cur = r.cur[n:]
	return n, nil
}

// IsTooLong reports whether err is or wraps a *TooLongError, and returns it.
func IsTooLong(err error) (*TooLongError, bool) {
	var e *TooLongError
	ok := errors.As(err, &e)
	return e, ok
}

// TooMuchError is the error of a Capped reader whose input goes on past its bound.
type TooMuchError struct {
	Max int64 // the bound, in bytes
}

func (e *TooMuchError) Error() string {
	return fmt.Sprintf("the data go on past %s of text, the most that a data file's parsed contents may take in the memory this process may use; read a smaller file (or fewer of its rows)",
		Size(int(min(e.Max, int64(math.MaxInt)))))
}

// Capped returns a reader of r that gives at most max bytes (max ≤ 0: r itself) and then, if r
// has more, a *TooMuchError: a bound on the whole input, for a stream or compressed data whose
// size is not known before reading.
func Capped(r io.Reader, max int64) io.Reader {
	if max <= 0 {
		return r
	}
	return &capped{r: r, max: max}
}

type capped struct {
	r      io.Reader
	n, max int64
}

func (c *capped) Read(p []byte) (int, error) {
	if c.n >= c.max {
		// Tell the end of the input at the bound from more input beyond it.
		var one [1]byte
		if n, err := c.r.Read(one[:]); n > 0 {
			return 0, &TooMuchError{c.max}
		} else if err != nil {
			return 0, err
		}
		return 0, nil
	}
	if int64(len(p)) > c.max-c.n {
		p = p[:c.max-c.n]
	}
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

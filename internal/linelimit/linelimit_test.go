package linelimit

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/hcbench/hcbench/internal/limittest"
)

func readAll(t *testing.T, r *Reader) []string {
	t.Helper()
	var out []string
	for {
		b, err := r.Line()
		if err == io.EOF {
			return out
		}
		if err != nil {
			t.Fatalf("line %d: %v", r.Lines()+1, err)
		}
		out = append(out, string(b))
	}
}

// TestLines: lines come back whole with their "\n", short and long (past the 64 KiB buffer and
// the 1 MiB chunks), the last one without "\n"; a line of exactly the limit is accepted, its "\n"
// or "\r\n"'s "\n" not counted.
func TestLines(t *testing.T) {
	long := strings.Repeat("abcdefgh", 3<<17) // 3 MiB
	mid := strings.Repeat("x", BufSize+17)
	for _, c := range []struct {
		name  string
		text  string
		limit int
	}{
		{"empty", "", 10},
		{"short", "a\nbc\n\nd", 10},
		{"crlf", "a\r\nb\r\n", 2},
		{"exact", "abc\nabc", 3},
		{"long", "a\n" + long + "\n" + mid + "\nz\n" + long, len(long)},
		{"long last", mid + "\n" + long, len(long)},
		{"exact long", long + "\n" + long + "\n", len(long)},
	} {
		want := strings.SplitAfter(c.text, "\n")
		if want[len(want)-1] == "" {
			want = want[:len(want)-1]
		}
		got := readAll(t, NewReader(strings.NewReader(c.text), c.limit))
		if strings.Join(got, "") != c.text || len(got) != len(want) {
			t.Errorf("%s: got %d lines, want %d", c.name, len(got), len(want))
		}
		all, err := io.ReadAll(NewReader(strings.NewReader(c.text), c.limit))
		if err != nil || string(all) != c.text {
			t.Errorf("%s: Read: %v, %d bytes, want %d", c.name, err, len(all), len(c.text))
		}
	}
}

// TestTooLong: a line one byte over the limit is refused with its line number, short or long,
// in the middle or last; the error is sticky.
func TestTooLong(t *testing.T) {
	long := strings.Repeat("y", 2<<20)
	for _, c := range []struct {
		name  string
		text  string
		limit int
		line  int
	}{
		{"short", "ab\nabcd\n", 3, 2},
		{"short last", "ab\nab\nabcd", 3, 3},
		{"crlf", "ab\r\n", 2, 1},
		{"long", "a\n\n" + long + "\n", len(long) - 1, 3},
		{"long last", long, len(long) - 1, 1},
		{"buffer", strings.Repeat("z", BufSize+1), BufSize, 1},
	} {
		r := NewReader(strings.NewReader(c.text), c.limit)
		var err error
		for err == nil {
			_, err = r.Line()
		}
		e, ok := IsTooLong(err)
		if !ok || e.Line != c.line || e.Limit != c.limit {
			t.Errorf("%s: error %v, want line %d too long", c.name, err, c.line)
			continue
		}
		if _, err2 := r.Line(); err2 != err {
			t.Errorf("%s: next call gives %v, want the same error", c.name, err2)
		}
		if _, err2 := r.Read(make([]byte, 10)); err2 != err {
			t.Errorf("%s: Read gives %v, want the same error", c.name, err2)
		}
	}
}

// TestTooLongMemory: 200 MiB without a newline, read with a 16 MiB limit, are refused having read
// the limit and a buffer of them, and allocated the limit and a chunk: not the 200 MiB, nor the
// doubling growth of a buffer (which would allocate twice the limit).
func TestTooLongMemory(t *testing.T) {
	const limit = 16 << 20
	src := &limittest.Stream{Byte: 0, Len: 200 << 20}
	var err error
	a := limittest.Allocated(func() {
		r := NewReader(src, limit)
		_, err = r.Line()
	})
	if e, ok := IsTooLong(err); !ok || e.Line != 1 {
		t.Fatalf("error %v, want line 1 too long", err)
	}
	if src.Served > limit+2*BufSize {
		t.Errorf("read %d bytes of the stream, want at most the limit %d and the buffer", src.Served, limit)
	}
	if a > limit+maxChunk+2*BufSize+(64<<10) {
		t.Errorf("allocated %d bytes, want at most the limit %d and a chunk", a, limit)
	}
	t.Logf("read %d bytes, allocated %d", src.Served, a)
}

// TestLongLinesReuse: many long lines allocate their chunks once, not per line.
func TestLongLinesReuse(t *testing.T) {
	line := strings.Repeat("q", 300<<10) + "\n"
	text := strings.Repeat(line, 40) // 12 MiB
	var n int
	a := limittest.Allocated(func() {
		r := NewReader(strings.NewReader(text), 1<<20)
		for {
			b, err := r.Line()
			if err != nil {
				break
			}
			n += len(b)
		}
	})
	if n != len(text) {
		t.Fatalf("read %d bytes, want %d", n, len(text))
	}
	if a > 4*uint64(len(line))+2*BufSize {
		t.Errorf("allocated %d bytes for 40 lines of %d, want a few lines' worth", a, len(line))
	}
}

// TestSourceError: an error of the underlying reader comes back as it is, after the lines before it.
func TestSourceError(t *testing.T) {
	boom := errors.New("boom")
	r := NewReader(io.MultiReader(strings.NewReader("a\nb"), errReader{boom}), 10)
	if b, err := r.Line(); err != nil || string(b) != "a\n" {
		t.Fatalf("first line %q, %v", b, err)
	}
	if _, err := r.Line(); err != boom {
		t.Fatalf("error %v, want boom", err)
	}
}

type errReader struct{ err error }

func (e errReader) Read([]byte) (int, error) { return 0, e.err }

func TestSize(t *testing.T) {
	for n, want := range map[int]string{
		100:      "100 bytes",
		1536:     "1.5 KiB (1536 bytes)",
		16 << 20: "16 MiB (16777216 bytes)",
		1 << 30:  "1 GiB (1073741824 bytes)",
		3 << 19:  "1.5 MiB (1572864 bytes)",
	} {
		if got := Size(n); got != want {
			t.Errorf("Size(%d) = %q, want %q", n, got, want)
		}
	}
}

func TestReadSmallBuffer(t *testing.T) {
	text := "hello\nworld\n" + strings.Repeat("w", 100000) + "\n"
	r := NewReader(strings.NewReader(text), 1<<20)
	var out bytes.Buffer
	p := make([]byte, 3)
	for {
		n, err := r.Read(p)
		out.Write(p[:n])
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	if out.String() != text {
		t.Errorf("read %d bytes, want %d", out.Len(), len(text))
	}
}

// TestCapped: a Capped reader gives the input whole up to its bound, and a *TooMuchError as soon
// as the input goes on past it, having read no more than the bound and one byte.
func TestCapped(t *testing.T) {
	for _, c := range []struct {
		n, max int64
		fail   bool
	}{{0, 10, false}, {10, 10, false}, {9, 10, false}, {11, 10, true}, {1 << 20, 1000, true}, {100, 0, false}} {
		src := &limittest.Stream{Byte: 'x', Len: c.n}
		b, err := io.ReadAll(Capped(src, c.max))
		var tm *TooMuchError
		switch {
		case c.fail && (!errors.As(err, &tm) || tm.Max != c.max || int64(len(b)) != c.max || src.Served > c.max+BufSize):
			t.Errorf("%d bytes, bound %d: got %d bytes, %v (read %d)", c.n, c.max, len(b), err, src.Served)
		case !c.fail && (err != nil || int64(len(b)) != c.n):
			t.Errorf("%d bytes, bound %d: got %d bytes, %v", c.n, c.max, len(b), err)
		}
	}
}

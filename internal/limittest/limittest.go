// Package limittest helps tests of the readers' limits: a generated input of any length that is
// never held in memory, and the bytes a call allocates.
package limittest

import (
	"io"
	"runtime"
)

// Stream yields Len copies of the byte Byte, then EOF, and counts in Served what it gave: a file
// without line breaks (for Byte other than '\n'), so that a test reads hundreds of MiB without
// holding them. With Text set it yields Text over and over instead (rows of a table, each of
// which a reader keeps).
type Stream struct {
	Byte        byte
	Text        string
	Len, Served int64
}

// Read fills p with Byte, or the continuation of Text, up to what is left of Len.
func (s *Stream) Read(p []byte) (int, error) {
	if s.Served >= s.Len {
		return 0, io.EOF
	}
	m := int(min(int64(len(p)), s.Len-s.Served))
	for i := range m {
		if s.Text != "" {
			p[i] = s.Text[(s.Served+int64(i))%int64(len(s.Text))]
		} else {
			p[i] = s.Byte
		}
	}
	s.Served += int64(m)
	return m, nil
}

// Allocated returns the bytes f allocates (the growth of runtime.MemStats.TotalAlloc), which
// bounds what f held at any time.
func Allocated(f func()) uint64 {
	var a, b runtime.MemStats
	runtime.ReadMemStats(&a)
	f()
	runtime.ReadMemStats(&b)
	return b.TotalAlloc - a.TotalAlloc
}

// Package limittest helps tests of the readers' limits: a generated input of any length that is
// never held in memory, and the bytes a call allocates.
package limittest

import (
	"io"
	"runtime"
)

// Stream yields Len copies of the byte Byte, then EOF, and counts in Served what it gave: a file
// without line breaks (for Byte other than '\n'), so that a test reads hundreds of MiB without
// holding them.
type Stream struct {
	Byte        byte
	Len, Served int64
}

// Read fills p with Byte, up to what is left of Len.
func (s *Stream) Read(p []byte) (int, error) {
	if s.Served >= s.Len {
		return 0, io.EOF
	}
	m := int(min(int64(len(p)), s.Len-s.Served))
	for i := range m {
		p[i] = s.Byte
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

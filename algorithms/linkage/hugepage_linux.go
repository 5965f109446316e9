package linkage

import (
	"unsafe"

	"golang.org/x/sys/unix"
)

// hugePageMin is the smallest array worth advising: a few huge pages.
const hugePageMin = 8 << 20

// adviseHugePages asks for transparent huge pages behind the whole pages of d. It is advice: an
// error (an old kernel, THP disabled) leaves d on ordinary pages.
func adviseHugePages(d []float64) {
	size := len(d) * 8
	if size < hugePageMin {
		return
	}
	b := unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(d))), size)
	start, page := uintptr(unsafe.Pointer(unsafe.SliceData(b))), uintptr(unix.Getpagesize())
	lo := int((page - start%page) % page)        // the first whole page
	hi := size - int((start+uintptr(size))%page) // the end of the last
	if hi <= lo {
		return
	}
	_ = unix.Madvise(b[lo:hi], unix.MADV_HUGEPAGE)
}

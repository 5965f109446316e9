package datadir

import (
	"encoding/binary"
	"fmt"
)

// debianGzipMTime is the modification time in the gzip header of digits.csv.gz as Debian's
// python3-sklearn 1.2.1+dfsg-1 ships it (2023-01-30 06:02:29 UTC, the package's build time).
const debianGzipMTime = 0x63d75d75

// debianGzipHeader rewrites the header of a one-member gzip file as Debian's package build
// (strip-nondeterminism) wrote scikit-learn's digits.csv.gz: no file name, no other optional
// fields, modification time debianGzipMTime, extra flags 0 and OS 3 (Unix). The compressed data
// and the trailer (CRC-32, length) are kept byte for byte, so the content is unchanged.
func debianGzipHeader(src [][]byte) ([]byte, error) {
	if len(src) != 1 {
		return nil, fmt.Errorf("gzip header: %d sources, want one", len(src))
	}
	b := src[0]
	if len(b) < 18 || b[0] != 0x1f || b[1] != 0x8b || b[2] != 8 {
		return nil, fmt.Errorf("gzip header: not a deflate gzip file")
	}
	flg := b[3]
	if flg&^0x1e != 0 { // FTEXT (1) or reserved bits
		return nil, fmt.Errorf("gzip header: flags %#x not read by hcbench", flg)
	}
	p := 10
	if flg&0x04 != 0 { // FEXTRA
		if p+2 > len(b) {
			return nil, fmt.Errorf("gzip header: truncated")
		}
		p += 2 + int(binary.LittleEndian.Uint16(b[p:]))
	}
	for _, f := range []byte{0x08, 0x10} { // FNAME, FCOMMENT: zero-terminated
		if flg&f != 0 {
			for p < len(b) && b[p] != 0 {
				p++
			}
			p++
		}
	}
	if flg&0x02 != 0 { // FHCRC
		p += 2
	}
	if p+8 > len(b) {
		return nil, fmt.Errorf("gzip header: truncated")
	}
	out := make([]byte, 10, 10+len(b)-p)
	copy(out, []byte{0x1f, 0x8b, 8, 0})
	binary.LittleEndian.PutUint32(out[4:], debianGzipMTime)
	out[8], out[9] = 0, 3
	return append(out, b[p:]...), nil
}

// Package itemset is a small fixed-size set of item indices, the cluster identity that the
// algorithms working beyond the exact trellis's 30 items share (beam search recognises equal
// partial hierarchies by their clusters; the sparse trellis keys its vertices by them).
package itemset

import (
	"fmt"
	"math/bits"
	"strings"
)

// MaxItems is the largest number of items a Set holds.
const MaxItems = 256

// Set is a set of items 0..MaxItems−1. The zero value is empty; Sets are comparable with ==
// and usable as map keys.
type Set [MaxItems / 64]uint64

// Of returns the set holding the given items. Precondition: 0 ≤ item < MaxItems.
func Of(items ...int) Set {
	var s Set
	for _, i := range items {
		s[i>>6] |= 1 << (i & 63)
	}
	return s
}

// Union returns s ∪ t.
func (s Set) Union(t Set) Set {
	for i := range s {
		s[i] |= t[i]
	}
	return s
}

// Has reports whether item i is in s.
func (s Set) Has(i int) bool { return s[i>>6]&(1<<(i&63)) != 0 }

// Len returns the number of items.
func (s Set) Len() int {
	n := 0
	for _, w := range s {
		n += bits.OnesCount64(w)
	}
	return n
}

// Items lists the items in increasing order.
func (s Set) Items() []int {
	var out []int
	for i, w := range s {
		for w != 0 {
			out = append(out, i*64+bits.TrailingZeros64(w))
			w &= w - 1
		}
	}
	return out
}

// Min returns the smallest item, or −1 for the empty set.
func (s Set) Min() int {
	for i, w := range s {
		if w != 0 {
			return i*64 + bits.TrailingZeros64(w)
		}
	}
	return -1
}

// Hash returns a 64-bit hash of s (splitmix64 over its words), for order-independent sums of
// sets.
func (s Set) Hash() uint64 {
	h := uint64(0x9e3779b97f4a7c15)
	for _, w := range s {
		h = mix(h ^ w)
	}
	return h
}

func mix(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	return x ^ (x >> 31)
}

// String writes the set as {0 3 7}.
func (s Set) String() string {
	var b strings.Builder
	b.WriteByte('{')
	for i, it := range s.Items() {
		if i > 0 {
			b.WriteByte(' ')
		}
		fmt.Fprint(&b, it)
	}
	b.WriteByte('}')
	return b.String()
}

// Package english words messages as English does: counts ("1 task", "3 tasks", "0 tasks"),
// numbers with thousands separators, and the closest known name to suggest for a misspelt one.
package english

import "strconv"

// Plural returns one when n is 1, else many.
func Plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// Count returns n and the noun that fits it: "1 file", "2 files".
func Count(n int, one, many string) string {
	return strconv.Itoa(n) + " " + Plural(n, one, many)
}

// Thousands writes n with commas between groups of three digits: 105600 → "105,600".
func Thousands(n int) string {
	s := strconv.Itoa(n)
	digits := len(s)
	if n < 0 {
		digits--
	}
	b := make([]byte, 0, len(s)+digits/3)
	for i := range len(s) {
		if k := len(s) - i; i > len(s)-digits && k%3 == 0 {
			b = append(b, ',')
		}
		b = append(b, s[i])
	}
	return string(b)
}

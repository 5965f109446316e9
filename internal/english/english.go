// Package english writes counts in messages as English does: "1 task", "3 tasks", "0 tasks".
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

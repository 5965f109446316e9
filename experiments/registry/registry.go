// Package registry is hcbench's table of algorithms and of data sources: one entry each, declared
// in a file of its own (algorithm_*.go, source_*.go) that registers its name, its help, its
// parameters (a struct whose tags give every key's name, default and help, with its own checks)
// and what runs it. Config decoding and validation, `help config`, the plan's memory estimates,
// the runner and the docs all read these tables, so adding an algorithm or a data source is one
// new file: a test can register one from a _test.go file. (Reports have their table in package
// reports.) docs/extending.md walks through an example.
package registry

import (
	"cmp"
	"fmt"
	"slices"
	"sync"
)

// Checker reports the problems of one config entry (an algorithm or a data set) at the lines of
// its keys; config implements it for Params.Check.
type Checker interface {
	// Bad reports a problem with key, unless decoding key already failed (so a user sees one
	// message per mistake).
	Bad(key, format string, args ...any)
	// Failed reports whether key, or a value nested in it, could not be decoded or derives from
	// one that could not: a check that combines keys skips then.
	Failed(keys ...string) bool
	// Has reports whether the entry writes key (as opposed to taking its default).
	Has(key string) bool
	// Dir is the config file's folder, which relative paths in parameters are relative to.
	Dir() string
}

// OneOf reports a problem with key unless val is one of allowed.
func OneOf(c Checker, key, val string, allowed ...string) {
	if !slices.Contains(allowed, val) {
		c.Bad(key, "must be %s, got %q", OrList(allowed), val)
	}
}

// OrList writes "a, b or c".
func OrList(s []string) string {
	switch len(s) {
	case 0:
		return ""
	case 1:
		return s[0]
	}
	out := s[0]
	for _, x := range s[1 : len(s)-1] {
		out += ", " + x
	}
	return out + " or " + s[len(s)-1]
}

// Params are the parameters of an algorithm or a data source: a pointer to a struct whose
// exported fields carry the tags config decodes by:
//
//	yaml:"key"          the key (yaml:",inline" merges an embedded struct's keys; yaml:"-" skips)
//	help:"text"         shown by `help config`
//	default:"value"     applied when the key is absent, parsed like a YAML scalar
//	required:"true"     the key must be present
//
// Check reports what decoding cannot see: ranges, keys that depend on each other.
type Params interface {
	Check(c Checker)
}

// NoParams is the Params of an algorithm without parameters.
type NoParams struct{}

// Check has nothing to check.
func (*NoParams) Check(Checker) {}

// mu guards the tables, which tests may extend while others read them.
var mu sync.RWMutex

// register adds an entry to table under its name, refusing a duplicate or an empty name: a
// mistake in the program, so it panics at start-up (registration runs from init functions).
func register[T any](table map[string]*T, kind, name string, e *T) {
	mu.Lock()
	defer mu.Unlock()
	if name == "" || !validName(name) {
		panic(fmt.Sprintf("registry: %s name %q must be lower-case letters, digits and '_'", kind, name))
	}
	if _, dup := table[name]; dup {
		panic(fmt.Sprintf("registry: %s %q registered twice", kind, name))
	}
	table[name] = e
}

func validName(s string) bool {
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '_') {
			return false
		}
	}
	return true
}

// lookup returns the entry of name.
func lookup[T any](table map[string]*T, name string) (*T, bool) {
	mu.RLock()
	defer mu.RUnlock()
	e, ok := table[name]
	return e, ok
}

// sorted returns the entries of table by name.
func sorted[T any](table map[string]*T, name func(*T) string) []*T {
	mu.RLock()
	defer mu.RUnlock()
	out := make([]*T, 0, len(table))
	for _, e := range table {
		out = append(out, e)
	}
	slices.SortFunc(out, func(a, b *T) int { return cmp.Compare(name(a), name(b)) })
	return out
}

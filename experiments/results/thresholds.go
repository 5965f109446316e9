package results

import (
	"maps"
	"slices"
	"sync"
)

// Thresholds are the largest changes that compare accepts, per data set and algorithm, between
// the means of an earlier and a later run over the tasks both finished, by metric key: the keys
// and their defaults are package metric's table (the metrics compare tracks, and time). A quality
// metric that gets worse by more than its threshold is a regression (exit 1), as is a task that
// succeeded before and fails now. The map is the config's thresholds mapping as the manifest
// records it.
type Thresholds map[string]float64

// Get returns the threshold of a metric key; ok is false when t has none.
func (t Thresholds) Get(key string) (v float64, ok bool) {
	v, ok = t[key]
	return v, ok
}

// Set sets the threshold of a metric key, making the map if t has none.
func (t *Thresholds) Set(key string, v float64) {
	if *t == nil {
		*t = Thresholds{}
	}
	(*t)[key] = v
}

// Clone returns a copy of t.
func (t Thresholds) Clone() Thresholds { return maps.Clone(t) }

// Role is what an algorithm is to the metrics and reports, a field of its entry in package
// registry's table (registry.Algorithm.Role).
type Role int

const (
	// NoRole: an algorithm like any other.
	NoRole Role = iota
	// Exact: the exact method; its log-likelihood is the MAP, the reference of the gap to the
	// exact MAP (trellis).
	Exact
	// Truth: the generating tree, the reference of the gap to the truth (truth).
	Truth
	// Baseline: the baseline that reports compare the others with (greedy).
	Baseline
)

// roles holds the roles of the algorithms that have one, by algorithm_name. Package registry
// sets them (SetRole) as its algorithms register: registry imports results (a solution fills a
// record), so results cannot ask registry's table; a record carries only the algorithm's name,
// and its role is looked up here.
var roles sync.Map // string → Role

// SetRole records the role of an algorithm (registry does, from its table; a test that registers
// an algorithm with a role through registry gets it too).
func SetRole(algorithmName string, r Role) {
	if r == NoRole {
		roles.Delete(algorithmName)
		return
	}
	roles.Store(algorithmName, r)
}

// RoleOf returns the role of an algorithm by its name (a record's algorithm_name): NoRole for an
// algorithm without one, or unknown to this build.
func RoleOf(algorithmName string) Role {
	r, _ := roles.Load(algorithmName)
	role, _ := r.(Role)
	return role
}

// HasRole reports whether a record's algorithm has role r.
func (r *Record) HasRole(role Role) bool { return RoleOf(r.AlgorithmName) == role }

// WithRole returns the algorithm names that have role r, sorted.
func WithRole(role Role) []string {
	var out []string
	roles.Range(func(k, v any) bool {
		if v.(Role) == role {
			out = append(out, k.(string))
		}
		return true
	})
	slices.Sort(out)
	return out
}

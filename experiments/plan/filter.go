package plan

import (
	"fmt"
	"regexp"
)

// A Filter selects tasks by their keys (Key: "dataset=q|item=3|algorithm=beam"), as the -only
// flag does: a regular expression (Go's syntax), unanchored, matched against the whole key, as
// `go test -run` matches test names. "algorithm=trellis" selects the tasks of every variant
// whose label starts with trellis, "algorithm=trellis$" those of trellis alone,
// `dataset=q\|item=3\|` (the '|' escaped: unescaped it is the regexp's "or") item 3 of q. The
// nil Filter selects every task.
type Filter struct {
	re *regexp.Regexp
}

// NewFilter compiles expr; "" gives the nil Filter.
func NewFilter(expr string) (*Filter, error) {
	if expr == "" {
		return nil, nil
	}
	re, err := regexp.Compile(expr)
	if err != nil {
		return nil, fmt.Errorf("-only %q is not a regular expression: %w", expr, err)
	}
	return &Filter{re: re}, nil
}

// Match reports whether the filter selects the task of key.
func (f *Filter) Match(key string) bool { return f == nil || f.re.MatchString(key) }

// String returns the expression ("" for the nil Filter).
func (f *Filter) String() string {
	if f == nil {
		return ""
	}
	return f.re.String()
}

// Selected returns whether the task at plan position k is in shard (nil: every task) and
// selected by f, for Memory and the runner; n is the number of such tasks.
func (p *Plan) Selected(f *Filter, inShard func(k int) bool) (keep func(k int) bool, n int) {
	sel := make([]bool, len(p.Tasks))
	for k, t := range p.Tasks {
		if (inShard == nil || inShard(k)) && f.Match(t.Key) {
			sel[k] = true
			n++
		}
	}
	return func(k int) bool { return sel[k] }, n
}

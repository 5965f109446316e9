package main

import (
	"fmt"
	"slices"
	"sort"
)

// A region is a documented number, sentence or table: where the documentation says
// <!-- numbers:NAME --> (see package docregion), render computes its text from the runs it names.
type region struct {
	name string
	// configs are the shipped configs (configs/NAME.yaml) whose runs render reads; benches the
	// benchmark groups (benches.go).
	configs []string
	benches []string
	// build says it reads the first build's cost (build.go).
	build bool
	// machine says the text depends on the machine (times, memory): it is rewritten by the
	// script, and the test checks only that it is there. Other regions depend only on the
	// code and the seeds, and the test renders those of cheap configs and compares.
	machine bool
	// render computes the region's text. A block region returns lines; an inline one a phrase.
	render func(e *env) (string, error)
	// by is the command that writes the region when another script does (its measurement
	// takes far longer than this one's runs): docnumbers checks that a page has it and leaves
	// its text alone.
	by string
}

// env is what the regions are rendered from: the runs of configs and benchmarks, and the
// machine they ran on.
type env struct {
	runs    map[string]*configRun
	benches map[string]*benchRun
	build   *firstBuild
	machine machine
}

// run returns the run of config name, which the region must have listed.
func (e *env) run(name string) (*configRun, error) {
	r, ok := e.runs[name]
	if !ok {
		return nil, fmt.Errorf("config %s was not run (a region reads a config it does not list)", name)
	}
	return r, nil
}

// bench returns the benchmark group name's results.
func (e *env) bench(name string) (*benchRun, error) {
	b, ok := e.benches[name]
	if !ok {
		return nil, fmt.Errorf("benchmark group %s was not run (a region reads a group it does not list)", name)
	}
	return b, nil
}

// nsPerOp returns benchmark group's run and the ns/op of its benchmark name in each run.
func (e *env) nsPerOp(group, name string) (*benchRun, []float64, error) {
	b, err := e.bench(group)
	if err != nil {
		return nil, nil, err
	}
	ns, err := b.values(name, "ns/op")
	return b, ns, err
}

// regionTable is every region of the documentation, by name. A name in the documentation that
// is not here, or an entry here that no page uses, is an error (TestRegionsAreUsed).
func regionTable() map[string]region {
	all := slices.Concat(experimentRegions(), clustbenchRegions(), benchRegions(), buildRegions(), manualRegions(), otherScriptsRegions)
	out := make(map[string]region, len(all))
	for _, r := range all {
		if _, dup := out[r.name]; dup {
			panic("docnumbers: two regions named " + r.name)
		}
		out[r.name] = r
	}
	return out
}

// regionNames lists the table's names in order.
func regionNames(t map[string]region) []string {
	var names []string
	for n := range t {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// otherScriptsRegions are the regions that other scripts write.
var otherScriptsRegions = []region{
	{name: "nightly.gate", machine: true, by: "go run ./internal/gatecheck report -doc docs/nightly.md RUN_DIR..."},
}

package config

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/hcbench/hcbench/datasets/datadir"
	"github.com/hcbench/hcbench/experiments/registry"
)

// validate checks what decoding cannot: ranges, cross-key rules, uniqueness and that data files
// exist. Each problem points at the line of the key concerned.
func (d *decoder) validate(cfg *Config, top keyLines) {
	if !d.failed["version"] && cfg.Version != SchemaVersion {
		d.addf(top["version"], "version: this hcbench reads config version %d, got %d", SchemaVersion, cfg.Version)
	}
	if !d.failed["name"] && !registry.ValidName(cfg.Name) {
		d.addf(top["name"], "name: %s", registry.NameRule(cfg.Name))
	}
	if !d.failed["workers"] && cfg.Workers < 0 {
		d.addf(top["workers"], "workers: must be 0 (all cores) or positive, got %d", cfg.Workers)
	}
	if !d.failed["count"] && (cfg.Count < 0 || cfg.Count > MaxRepeat) {
		d.addf(top["count"], "count: must be 0 (each entry's repeat) or 1 to %d, got %d", MaxRepeat, cfg.Count)
	}
	names := map[string]int{}
	// A data set entry that could not be decoded may have any name, so references to data sets
	// by name cannot be checked.
	namesKnown := top.has("datasets") && !d.failed["datasets"] && !d.unnamedDataset
	for _, ds := range cfg.Datasets {
		v := entryCheck{d: d, prefix: ds.Path(""), at: ds.KeyLine, has: ds.Has}
		switch {
		case d.failed[ds.Path("name")]:
			namesKnown = false
		case !registry.ValidName(ds.Name):
			v.bad("name", "%s", registry.NameRule(ds.Name))
		default:
			if prev, dup := names[ds.Name]; dup {
				v.bad("name", "%q is already the name of the data set on line %d", ds.Name, prev)
			} else {
				names[ds.Name] = ds.KeyLine("name")
			}
		}
		if ds.Source != nil {
			ds.Source.Check(v)
		}
		if f, ok := ds.Source.(registry.FileParams); ok {
			v.file(cfg, f.File())
		}
	}
	labels := map[string]int{}
	for _, a := range cfg.Algorithms {
		path := fmt.Sprintf("algorithms[%d]", a.Index)
		at := func(key string) int {
			if l, ok := a.lines[key]; ok {
				return l
			}
			return a.Line
		}
		v := entryCheck{d: d, prefix: path, at: at, has: a.lines.has}
		if a.Params != nil {
			a.Params.Check(v)
		}
		if namesKnown {
			for _, ds := range a.Datasets {
				if _, ok := names[ds]; !ok {
					v.bad("datasets", "no data set is named %q", ds)
				}
			}
		}
		if a.MaxLeaves < 0 {
			v.bad("max_leaves", "must be 0 (no bound) or a number of leaves, got %d", a.MaxLeaves)
		}
		if a.Repeat < 1 || a.Repeat > MaxRepeat {
			v.bad("repeat", "must be 1 to %d, got %d", MaxRepeat, a.Repeat)
		}
		switch {
		case d.failed[path+".label"]:
		case !registry.ValidName(a.Label):
			v.bad("label", "%s", registry.NameRule(a.Label))
		default:
			if prev, dup := labels[a.Label]; dup {
				d.addf(at("label"), "%s: label %q is already used on line %d; give each variant its own label", path, a.Label, prev)
			} else {
				labels[a.Label] = at("label")
			}
		}
	}
}

// entryCheck reports problems of one data set or algorithm entry at the lines of its keys.
type entryCheck struct {
	d      *decoder
	prefix string // "datasets[0]"
	at     func(key string) int
	has    func(key string) bool
}

// failed reports whether any of keys, or any value nested in them, could not be decoded (or
// derives from a key that could not), so that a check combining them would report a value the
// user did not write.
func (v entryCheck) failed(keys ...string) bool {
	for p := range v.d.failed {
		for _, k := range keys {
			full := v.prefix + "." + k
			if rest, ok := strings.CutPrefix(p, full); ok && (rest == "" || rest[0] == '.' || rest[0] == '[') {
				return true
			}
		}
	}
	return false
}

// Bad reports a problem with key unless decoding already reported one (registry.Checker).
func (v entryCheck) Bad(key, format string, args ...any) { v.bad(key, format, args...) }

// Failed reports whether any of keys, or a value nested in them, failed (registry.Checker).
func (v entryCheck) Failed(keys ...string) bool { return v.failed(keys...) }

// Has reports whether the entry writes key (registry.Checker).
func (v entryCheck) Has(key string) bool { return v.has(key) }

// Dir returns the config file's folder (registry.Checker).
func (v entryCheck) Dir() string { return filepath.Dir(v.d.file) }

// bad reports a problem with key unless decoding already reported one.
func (v entryCheck) bad(key, format string, args ...any) {
	path := v.prefix + "." + key
	if v.d.failed[path] {
		return
	}
	v.d.fail(v.at(key), path, format, args...)
}

func (v entryCheck) file(cfg *Config, p string) {
	if _, _, err := datadir.Rel(p); err != nil {
		v.bad("file", "%v", err)
		return
	}
	path := cfg.Resolve(p)
	st, err := os.Stat(path)
	switch {
	case err != nil && os.IsNotExist(err):
		v.bad("file", "%s does not exist; %s", path, cfg.MissingHint(p))
	case err != nil:
		v.bad("file", "cannot read %s: %v", path, err)
	case st.IsDir():
		v.bad("file", "%s is a directory, not a data file", path)
	}
}

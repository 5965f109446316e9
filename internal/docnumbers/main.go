// Command docnumbers writes the documented numbers of hcbench: every result table, measured time
// and memory in README.md and docs/ stands between markers (<!-- numbers:NAME -->, see package
// docregion), and this command runs the shipped configs and benchmarks those regions read, on
// the machine it runs on, and rewrites the text between the markers. A region that another
// script writes (regions.go: otherScriptsRegions) is only checked to be on a page.
//
//	go run ./internal/docnumbers                 # run everything, rewrite every region (10–20 min)
//	go run ./internal/docnumbers -only 'pam50'   # only the regions whose name matches
//	go run ./internal/docnumbers -check          # rewrite nothing; exit 1 if a region differs
//
// Run it on a quiet machine: the times it writes are the machine's. The test of this package
// renders the regions of the cheap configs (those that do not depend on the machine) and fails
// when the documentation no longer says what their runs give.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/hcbench/hcbench/datasets/datadir"
	"github.com/hcbench/hcbench/internal/docregion"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	os.Exit(run(ctx, os.Args[1:], os.Stdout, os.Stderr))
}

// run is the command: arguments and writers in, exit code out.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("docnumbers", flag.ContinueOnError)
	fs.SetOutput(stderr)
	only := fs.String("only", "", "only the regions whose name matches this regular expression")
	check := fs.Bool("check", false, "rewrite nothing: list the regions whose text differs from what the runs give, and exit 1 if any does")
	work := fs.String("work", "", "keep the runs, binaries and benchmark output in this directory (default: a temporary one, removed at the end)")
	data := fs.String("data", "", "the data directory (default: $HCBENCH_DATA, else hcbench's default)")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "docnumbers: no arguments are taken, got %q\n", fs.Args())
		return 2
	}
	filter, err := regexp.Compile(*only)
	if err != nil {
		fmt.Fprintln(stderr, "docnumbers: -only:", err)
		return 2
	}
	if err := update(ctx, options{filter: filter, check: *check, work: *work, data: *data, log: stderr, out: stdout}); err != nil {
		fmt.Fprintln(stderr, "docnumbers:", err)
		return 1
	}
	return 0
}

type options struct {
	filter     *regexp.Regexp
	check      bool
	work, data string
	log, out   io.Writer
}

var errDiffers = errors.New("the documentation differs from the runs")

// update renders the selected regions from fresh runs and rewrites (or checks) the pages.
func update(ctx context.Context, o options) error {
	root, err := moduleRoot()
	if err != nil {
		return err
	}
	pages, err := readPages(root)
	if err != nil {
		return err
	}
	table := regionTable()
	if err := checkNames(pages, table); err != nil {
		return err
	}
	var selected []region
	var others []string // selected regions that another script writes
	for _, name := range regionNames(table) {
		switch r := table[name]; {
		case !o.filter.MatchString(name):
		case r.by != "":
			others = append(others, fmt.Sprintf("%s (written by %s)", name, r.by))
		default:
			selected = append(selected, r)
		}
	}
	if len(selected) == 0 && len(others) > 0 {
		return fmt.Errorf("-only %q selects only regions that another script writes: %s", o.filter, strings.Join(others, "; "))
	}
	if len(selected) == 0 {
		return fmt.Errorf("-only %q selects none of the regions: %s", o.filter, strings.Join(regionNames(table), ", "))
	}
	work := o.work
	if work == "" {
		if work, err = os.MkdirTemp("", "docnumbers-"); err != nil {
			return err
		}
		defer os.RemoveAll(work)
	} else if err := os.MkdirAll(work, 0o755); err != nil {
		return err
	}
	loc, err := datadir.Locate(o.data, os.Getenv)
	if err != nil {
		return err
	}
	e := &env{runs: map[string]*configRun{}, benches: map[string]*benchRun{}, machine: thisMachine(time.Now())}
	configs, benches := needs(selected)
	// The first build, then the benchmarks, then the configs: a child's peak memory as wait4
	// reports it counts this process's at the start (Linux carries it over across exec), which
	// stays small until the configs' records are read; the configs' runs log their own.
	if slices.ContainsFunc(selected, func(r region) bool { return r.build }) {
		fmt.Fprintln(o.log, "docnumbers: go build with empty caches (downloads every module)")
		if e.build, err = measureFirstBuild(ctx, root, work); err != nil {
			return err
		}
	}
	for _, name := range benches {
		g, ok := lookupGroup(name)
		if !ok {
			return fmt.Errorf("no benchmark group %s", name)
		}
		fmt.Fprintf(o.log, "docnumbers: %s\n", g.command())
		if e.benches[name], err = runBench(ctx, root, work, g); err != nil {
			return err
		}
	}
	if len(configs) > 0 {
		c := &configRunner{root: root, data: loc, workDir: work}
		fmt.Fprintln(o.log, "docnumbers: building hcbench")
		if err := c.build(ctx); err != nil {
			return err
		}
		for _, name := range configs {
			fmt.Fprintf(o.log, "docnumbers: running configs/%s.yaml\n", name)
			if e.runs[name], err = c.run(ctx, name); err != nil {
				return err
			}
		}
	}
	// A region that fails to render is named at the end; the others are written all the same,
	// so that one renderer's mistake does not throw away a long run's numbers.
	texts, renderErr := render(e, selected)
	if o.check {
		diffs := differences(pages, texts)
		for _, d := range diffs {
			fmt.Fprintln(o.out, d)
		}
		if len(diffs) > 0 {
			return errors.Join(renderErr, errDiffers)
		}
		return renderErr
	}
	for _, p := range pages {
		if n := docregion.Rewrite(p.text, texts); n != p.text {
			if err := os.WriteFile(filepath.Join(root, p.file), []byte(n), 0o644); err != nil {
				return err
			}
			fmt.Fprintf(o.log, "docnumbers: rewrote %s\n", p.file)
		}
	}
	return renderErr
}

// needs lists the configs and benchmark groups that regions read, each once, in table order.
func needs(regions []region) (configs, benches []string) {
	for _, r := range regions {
		for _, c := range r.configs {
			if !slices.Contains(configs, c) {
				configs = append(configs, c)
			}
		}
		for _, b := range r.benches {
			if !slices.Contains(benches, b) {
				benches = append(benches, b)
			}
		}
	}
	order := func(list []string) func(a, b string) int {
		return func(a, b string) int { return slices.Index(list, a) - slices.Index(list, b) }
	}
	slices.SortFunc(configs, order(shippedConfigs))
	var groups []string
	for _, g := range benchGroups {
		groups = append(groups, g.name)
	}
	slices.SortFunc(benches, order(groups))
	return configs, benches
}

func lookupGroup(name string) (benchGroup, bool) {
	for _, g := range benchGroups {
		if g.name == name {
			return g, true
		}
	}
	return benchGroup{}, false
}

// render computes the text of each region. A region that fails is left out of the texts and named
// in the error, which joins every failure.
func render(e *env, regions []region) (map[string]string, error) {
	texts := map[string]string{}
	var errs []error
regions:
	for _, r := range regions {
		for _, run := range e.runs {
			run.gaps = nil
		}
		t, err := r.render(e)
		if err != nil {
			errs = append(errs, fmt.Errorf("numbers:%s: %w", r.name, err))
			continue
		}
		for _, c := range r.configs {
			if run := e.runs[c]; run != nil && len(run.gaps) > 0 {
				errs = append(errs, fmt.Errorf("numbers:%s: %s", r.name, strings.Join(run.gaps, "; ")))
				continue regions
			}
		}
		texts[r.name] = t
	}
	return texts, errors.Join(errs...)
}

// A page is a documentation file, by its path from the module root.
type page struct {
	file, text string
	spans      []docregion.Span
}

// readPages reads README.md and docs/*.md with their regions.
func readPages(root string) ([]page, error) {
	files, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil {
		return nil, err
	}
	files = append([]string{filepath.Join(root, "README.md")}, files...)
	var out []page
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		rel, _ := filepath.Rel(root, f)
		spans, err := docregion.Parse(rel, string(b))
		if err != nil {
			return nil, err
		}
		out = append(out, page{file: rel, text: string(b), spans: spans})
	}
	return out, nil
}

// checkNames: every region a page names is in the table, and every region of the table is on a
// page.
func checkNames(pages []page, table map[string]region) error {
	used := map[string]bool{}
	var errs []error
	for _, p := range pages {
		for _, s := range p.spans {
			if _, ok := table[s.Name]; !ok {
				errs = append(errs, fmt.Errorf("%s:%d: numbers:%s is not a region of internal/docnumbers (regionTable)", p.file, s.Line, s.Name))
			}
			used[s.Name] = true
		}
	}
	for _, n := range regionNames(table) {
		if !used[n] {
			errs = append(errs, fmt.Errorf("the region %s of internal/docnumbers is on no page", n))
		}
	}
	return errors.Join(errs...)
}

// differences lists, for every occurrence of a region in texts whose documented text differs, the
// page and line, the documented text and the computed one.
func differences(pages []page, texts map[string]string) []string {
	var out []string
	for _, p := range pages {
		for _, s := range p.spans {
			want, ok := texts[s.Name]
			if !ok || strings.TrimRight(s.Text, "\n") == strings.TrimRight(want, "\n") {
				continue
			}
			out = append(out, fmt.Sprintf("%s:%d: numbers:%s says\n\t%s\nbut the run gives\n\t%s", p.file, s.Line, s.Name,
				strings.ReplaceAll(s.Text, "\n", "\n\t"), strings.ReplaceAll(want, "\n", "\n\t")))
		}
	}
	return out
}

// moduleRoot is the directory of go.mod, from the working directory up.
func moduleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("no go.mod in the working directory or above it: run from the hcbench module")
		}
		dir = parent
	}
}

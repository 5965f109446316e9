// Package webpage builds index.html for a run directory: one page that shows the run in a
// browser opened from disk, with no server and no network. It opens on the results, the summary
// report's table of each data set; the other reports follow, each folded (<details>), its
// Markdown rendered as HTML tables grouped by data set, with the plots of each data set beside
// its tables in a grid, and links to its CSV files; then the run's details (status, task counts,
// times, build and host from the manifest, and the run's files), folded. Plots are the SVG files
// beside the page, shown as images loaded when scrolled to, so that the page stays small however
// many there are (under 300 KB at nightly scale). Every plot not claimed by a report is shown at
// the end. The page has no JavaScript, no external style sheet or font, and no timestamp of its
// own, so the same run directory always gives the same page.
package webpage

import (
	"bytes"
	"embed"
	"errors"
	"fmt"
	"html/template"
	"io/fs"
	"math"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/hcbench/hcbench/experiments/metric"
	"github.com/hcbench/hcbench/experiments/results"
	"github.com/hcbench/hcbench/internal/english"
	"github.com/hcbench/hcbench/reports"
)

// File is the name of the page inside the run directory.
const File = results.PageFile

// topFiles are the run's own files the page links to when they exist, in this order.
var topFiles = []struct{ name, what string }{
	{results.ConfigFile, "the resolved config"},
	{results.ResultsFile, "one record per task"},
	{results.BenchFile, "benchmark output"},
	{results.BenchQualityFile, "benchmark output: quality metrics"},
	{results.LogFile, "the run's log"},
	{results.ManifestFile, "the manifest shown above"},
	{results.TasksFile, "every task key of the plan"},
}

// plotOwners lists the plot file-name prefixes of the reports (reports.Report.Plots), with the
// report that draws them.
func plotOwners() []struct{ prefix, report string } {
	var out []struct{ prefix, report string }
	for _, r := range reports.All() {
		for _, p := range r.Plots {
			out = append(out, struct{ prefix, report string }{p, r.Name})
		}
	}
	return out
}

//go:embed page.html.tmpl
var templates embed.FS

var pageTemplate = template.Must(template.New("page.html.tmpl").ParseFS(templates, "page.html.tmpl"))

// Write builds dir/index.html from the run directory dir and returns its path. It needs the
// run's manifest.json; the reports directory may be missing or empty. The page is written to a
// temporary file renamed into place, so a reader never sees half of it.
func Write(dir string) (string, error) {
	mpath := filepath.Join(dir, results.ManifestFile)
	m, err := results.ReadManifest(mpath)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return "", fmt.Errorf("webpage: %s: no run manifest, so %s is not the directory of a whole run or a merge", mpath, dir)
		}
		return "", fmt.Errorf("webpage: %w", err)
	}
	return WriteFor(dir, m)
}

// WriteFor is Write with the run's manifest given, for a run that writes its page before its
// final manifest.
func WriteFor(dir string, m results.Manifest) (string, error) {
	p, err := build(dir, m)
	if err != nil {
		return "", fmt.Errorf("webpage: %w", err)
	}
	var buf bytes.Buffer
	if err := pageTemplate.Execute(&buf, p); err != nil {
		return "", fmt.Errorf("webpage: %w", err)
	}
	out := filepath.Join(dir, File)
	if err := results.WriteFileAtomic(out, buf.Bytes()); err != nil {
		return "", fmt.Errorf("webpage: %w", err)
	}
	return out, nil
}

// page is what the template renders.
type page struct {
	Title    string
	Status   string // status and task counts, in a line
	Bad      bool   // the run did not complete, or tasks failed
	Facts    []string
	Summary  []row
	Warnings []string
	Links    []link
	// Results is the section shown first, open: the summary report (a table per data set), or
	// else the first report; nil for a run without reports.
	Results  *section
	Sections []*section // the other reports, then "Other plots" and "Other files"
}

// Contents are the sections for the line of links under the title.
func (p *page) Contents() []*section {
	if p.Results == nil {
		return p.Sections
	}
	return append([]*section{p.Results}, p.Sections...)
}

// row is one line of the manifest summary; Bad marks a value worth attention.
type row struct {
	Label, Value string
	Bad          bool
}

// link is a file of the run directory, by relative href.
type link struct {
	Name, Href, Size, What string
}

// section is a report (or the closing "Other plots" / "Other files"), folded: its Markdown
// sections become groups, each with the plots of its data set; plots of no group, the notes
// and the CSV files follow.
type section struct {
	ID, Title string
	Report    string // the report's name; "" for the closing sections
	Lead      []block
	Groups    []*group
	Plots     []figure // plots of no group
	Notes     []string
	Files     []link
	Empty     bool // the report is in the manifest but no file of it was found
	// captions are the captions of the plots the report's Markdown shows as images, by file.
	captions map[string]string
}

// Count says what the folded section holds: "4 tables, 12 plots".
func (s *section) Count() string {
	tables, plots := 0, len(s.Plots)
	count := func(bs []block) {
		for _, b := range bs {
			if b.Kind == "table" {
				tables++
			}
		}
	}
	count(s.Lead)
	for _, g := range s.Groups {
		count(g.Blocks)
		plots += len(g.Plots)
	}
	var parts []string
	for _, c := range []struct {
		n    int
		what string
	}{{tables, "table"}, {plots, "plot"}, {len(s.Files), "file"}} {
		switch {
		case c.n == 1:
			parts = append(parts, "1 "+c.what)
		case c.n > 1:
			parts = append(parts, fmt.Sprintf("%d %ss", c.n, c.what))
		}
	}
	return strings.Join(parts, ", ")
}

// group is a titled part of a report (a "## heading" of its Markdown, mostly one data set) and
// the plots of that data set.
type group struct {
	ID, Title string
	Dataset   string // the data set the title names, "" if none
	Blocks    []block
	Plots     []figure
	// PlotsFirst shows the plots above the tables: the report's Markdown puts its figures
	// (image lines) before its tables, as the comparison does, whose verdict is its diagram.
	PlotsFirst bool
}

// figure is a plot, shown as an image of its SVG file beside the page, loaded when scrolled to.
type figure struct {
	ID, Name string
	Href     string // the SVG
	PNG      string // href of the PNG twin, if any
	PDF      string // href of the PDF twin, if any (the journal figures)
	// Width and Height are the plot's size in CSS pixels, from the SVG's, so that the page
	// keeps its place for the image before it loads.
	Width, Height int
	Problem       string // why the file cannot be shown
	// Caption is what the report's Markdown says of the plot (an image line, ![caption](file)).
	Caption string
}

// Wide reports whether the plot is too wide for a cell of the grid of plots (dendrograms, a
// plot with its legend beside it), and so takes a row of its own.
func (f figure) Wide() bool { return f.Width > 640 }

// reportFiles are the files of the reports directory, by kind.
type reportFiles struct {
	md, svg, csv, other []string // file names, sorted
	has                 map[string]bool
}

func build(dir string, m results.Manifest) (*page, error) {
	p := &page{Title: m.Experiment, Warnings: m.Warnings}
	if p.Title == "" {
		p.Title = filepath.Base(dir)
	}
	p.Bad = m.Status != results.StatusComplete || m.Failed > 0 || m.Finished+m.Failed < m.Tasks
	p.Status = fmt.Sprintf("%s, %d of %s finished", m.Status, m.Finished, english.Count(m.Tasks, "task", "tasks"))
	if m.Failed > 0 {
		p.Status += fmt.Sprintf(", %d failed", m.Failed)
	}
	p.Facts = facts(m)
	p.Summary = summaryRows(m)
	for _, f := range topFiles {
		if fi, err := os.Stat(filepath.Join(dir, f.name)); err == nil && fi.Mode().IsRegular() {
			p.Links = append(p.Links, link{Name: f.name, Href: href(f.name), Size: size(fi.Size()), What: f.what})
		}
	}

	rf, err := listReports(filepath.Join(dir, results.ReportsDir))
	if err != nil {
		return nil, err
	}
	ids := map[string]bool{"run": true, "contents": true, "warnings": true, "end": true, "other-plots": true, "other-files": true, "results": true} // the page's own
	bySection := map[string]*section{}
	for _, name := range reportOrder(m.Reports, rf) {
		s := &section{ID: uniqueID(ids, "report-"+slug(name)), Title: name, Report: name}
		bySection[name] = s
		p.Sections = append(p.Sections, s)
		if rf.has[name+".md"] {
			b, err := os.ReadFile(filepath.Join(dir, results.ReportsDir, name+".md"))
			if err != nil {
				return nil, err
			}
			s.fill(parseMarkdown(string(b)), m.Experiment, m.Datasets, ids)
		}
	}

	other := &section{ID: "other-plots", Title: "Other plots"}
	for _, name := range rf.svg {
		pl, err := readPlot(dir, name, rf, ids)
		if err != nil {
			return nil, err
		}
		owner, prefix := plotOwner(name, bySection)
		if owner == nil {
			other.Plots = append(other.Plots, pl)
			continue
		}
		owner.place(pl, prefix, m.Datasets)
	}
	files := &section{ID: "other-files", Title: "Other files"}
	for _, name := range rf.csv {
		s := files
		if owner := fileOwner(name, bySection); owner != nil {
			s = owner
		}
		s.Files = append(s.Files, reportLink(dir, name))
	}
	for _, name := range rf.other {
		if ext := filepath.Ext(name); (ext == ".png" || ext == ".pdf") && rf.has[strings.TrimSuffix(name, ext)+".svg"] {
			continue // the PNG or PDF twin of a plot, linked beside it
		}
		files.Files = append(files.Files, reportLink(dir, name))
	}
	for _, s := range p.Sections {
		s.Empty = len(s.Lead) == 0 && len(s.Groups) == 0 && len(s.Plots) == 0 && len(s.Notes) == 0 && len(s.Files) == 0
	}
	if len(other.Plots) > 0 {
		p.Sections = append(p.Sections, other)
	}
	if len(files.Files) > 0 {
		p.Sections = append(p.Sections, files)
	}
	// The page opens on results: the comparison's verdict, else the summary report, a table per
	// data set, else the first report.
	first := "summary"
	if bySection[reports.ComparisonReport] != nil {
		first = reports.ComparisonReport
	}
	for i, s := range p.Sections {
		if s.Report == first || (s.Report != "" && bySection[first] == nil) {
			p.Results = s
			p.Sections = slices.Delete(p.Sections, i, i+1)
			break
		}
	}
	return p, nil
}

// fill splits a report's Markdown blocks into the section's parts: its title (less the
// ": <experiment>" the page's own title says), the blocks before the first heading (Lead), a
// group per heading with the tables under it, and the notes after the last table. A group's data
// set is the one its title names, "<data set>" or "<data set>: …".
func (s *section) fill(blocks []block, experiment string, datasets []string, ids map[string]bool) {
	if len(blocks) > 0 && blocks[0].Kind == "heading" && blocks[0].Level == 1 {
		s.Title = blocks[0].Text
		if t := strings.TrimSuffix(s.Title, ": "+experiment); t != "" && experiment != "" {
			s.Title = t
		}
		blocks = blocks[1:]
	}
	// Images are the report's plots with their captions: the plots are placed as every plot is
	// (section.place), and get the caption.
	blocks = slices.DeleteFunc(slices.Clone(blocks), func(b block) bool {
		if b.Kind != "image" {
			return false
		}
		if s.captions == nil {
			s.captions = map[string]string{}
		}
		s.captions[b.Src] = b.Text
		return true
	})
	// The notes: the paragraphs after the last table.
	last := slices.IndexFunc(blocks, func(b block) bool { return b.Kind == "p" })
	for i := len(blocks) - 1; i >= 0 && blocks[i].Kind == "p"; i-- {
		last = i
	}
	if last >= 0 && slices.ContainsFunc(blocks[last:], func(b block) bool { return b.Kind != "p" }) {
		last = -1
	}
	if last >= 0 {
		for _, b := range blocks[last:] {
			s.Notes = append(s.Notes, b.Text)
		}
		blocks = blocks[:last]
	}
	var g *group
	for _, b := range blocks {
		if b.Kind == "heading" {
			g = &group{ID: uniqueID(ids, s.ID+"-"+strconv.Itoa(len(s.Groups)+1)), Title: b.Text, Dataset: datasetOf(b.Text, datasets)}
			s.Groups = append(s.Groups, g)
			continue
		}
		if g == nil {
			s.Lead = append(s.Lead, b)
			continue
		}
		g.Blocks = append(g.Blocks, b)
	}
}

// datasetOf returns the data set a heading names, "<data set>" or "<data set>: …", the longest
// that fits; "" if none. A data set that the reports split by model (one group per model, see
// package reports) is named with its model, "<data set> (<key>=<value>)", and that is returned.
func datasetOf(title string, datasets []string) string {
	best := ""
	for _, ds := range datasets {
		name := ds
		if rest, ok := strings.CutPrefix(title, ds+" ("); ok {
			if i := strings.Index(rest, ")"); i >= 0 {
				name = title[:len(ds)+2+i+1]
			}
		}
		if (title == name || strings.HasPrefix(title, name+":")) && len(name) > len(best) {
			best = name
		}
	}
	return best
}

// place puts a plot of the section's report into the last group of its data set: the data set
// whose file name (reports.FileName) follows the plot's prefix in its name, up to a '-' or the
// end ("gap-qcd-trellis-beam.svg", "dendrograms-qcd.svg"). A plot of no group's data set goes after
// the groups.
func (s *section) place(pl figure, prefix string, datasets []string) {
	if c, ok := s.captions[pl.Name]; ok {
		pl.Caption = c
	}
	rest := strings.TrimPrefix(strings.TrimSuffix(pl.Name, ".svg"), prefix)
	rest = strings.TrimPrefix(rest, "-")
	ds, best := "", -1
	names := slices.Clone(datasets)
	for _, g := range s.Groups { // a data set split by model is a group of its own
		names = append(names, g.Dataset)
	}
	for _, d := range names {
		if d == "" {
			continue
		}
		f := reports.FileName(d)
		if (rest == f || strings.HasPrefix(rest, f+"-")) && len(f) > best {
			ds, best = d, len(f)
		}
	}
	if ds == "" {
		// A group that is no data set's (the comparison's, one per metric) takes the plots
		// whose names follow the prefix with its title's file name.
		for i := len(s.Groups) - 1; i >= 0; i-- {
			g := s.Groups[i]
			if f := reports.FileName(g.Title); g.Dataset == "" && f != "" && (rest == f || strings.HasPrefix(rest, f+"-")) {
				g.Plots = append(g.Plots, pl)
				g.PlotsFirst = g.PlotsFirst || pl.Caption != ""
				return
			}
		}
	}
	if ds != "" {
		for i := len(s.Groups) - 1; i >= 0; i-- {
			if s.Groups[i].Dataset == ds {
				s.Groups[i].Plots = append(s.Groups[i].Plots, pl)
				return
			}
		}
		// A report of plots alone (dendrograms): a group per data set.
		if len(s.Notes) == 0 && len(s.Lead) == 0 && !slices.ContainsFunc(s.Groups, func(g *group) bool { return len(g.Blocks) > 0 }) {
			s.Groups = append(s.Groups, &group{ID: s.ID + "-" + slug(ds), Title: ds, Dataset: ds, Plots: []figure{pl}})
			return
		}
	}
	s.Plots = append(s.Plots, pl)
}

// facts are the run's duration and build, for the line under the title.
func facts(m results.Manifest) []string {
	var out []string
	if !m.End.IsZero() && !m.Start.IsZero() {
		out = append(out, "took "+durationText(m.End.Sub(m.Start)))
	}
	if !m.Start.IsZero() {
		out = append(out, "started "+timeText(m.Start))
	}
	if m.Revision != "" {
		rev := m.Revision
		if len(rev) > 12 {
			rev = rev[:12]
		}
		if m.Modified {
			rev += " (modified)"
		}
		out = append(out, "revision "+rev)
	}
	return out
}

// summaryRows are the manifest's facts, one per row of the summary table.
func summaryRows(m results.Manifest) []row {
	var rs []row
	add := func(label, value string, bad bool) {
		if value != "" {
			rs = append(rs, row{label, value, bad})
		}
	}
	status := m.Status
	switch m.Status {
	case results.StatusRunning:
		status += " (under way, or killed before it finished)"
	case results.StatusInterrupted:
		status += " (stopped by a signal; finished tasks are kept)"
	}
	add("Status", status, m.Status != results.StatusComplete)
	add("Tasks", fmt.Sprintf("%d finished, %d failed, of %d", m.Finished, m.Failed, m.Tasks), m.Failed > 0 || m.Finished+m.Failed < m.Tasks)
	add("Started", timeText(m.Start), false)
	if m.End.IsZero() {
		add("Ended", "—", false)
	} else {
		add("Ended", timeText(m.End), false)
		add("Duration", durationText(m.End.Sub(m.Start)), false)
	}
	add("Seed", strconv.FormatUint(m.Seed, 10), false)
	if m.Workers > 0 {
		add("Workers", strconv.Itoa(m.Workers), false)
	}
	add("Tool", strings.TrimSpace(m.Tool+" "+m.Version), false)
	rev := m.Revision
	if rev != "" {
		if m.Modified {
			rev += " (modified)"
		}
		var about []string
		if m.RevisionTime != "" {
			about = append(about, "committed "+m.RevisionTime)
		}
		if m.RevisionSource != "" {
			about = append(about, "from "+m.RevisionSource)
		}
		if len(about) > 0 {
			rev += "; " + strings.Join(about, ", ")
		}
	} else {
		rev = "(unknown)"
	}
	add("Revision", rev, false)
	add("Go", m.GoVersion, false)
	host := m.Host
	if host == "" {
		host = "(unknown)"
	}
	add("Host", fmt.Sprintf("%s (%s/%s, %d CPUs)", host, m.OS, m.Arch, m.CPUs), false)
	add("Config", m.Config, false)
	add("Config hash", m.ConfigHash, false)
	if m.Shard != nil {
		add("Shard", m.Shard.String(), false)
	}
	add("Merged from", strings.Join(m.MergedFrom, ", "), false)
	if len(m.Sessions) > 1 {
		// A resumed or merged run: which build wrote how much, flagged when they differ (a run
		// resumed or merged with -allow-other-build mixes results of different code).
		var ss []string
		mixed := false
		for _, se := range m.Sessions {
			text := fmt.Sprintf("%s, %s: %s", se.Build, se.Host, english.Count(se.Records, "record", "records"))
			if se.Shard != nil {
				text = "shard " + se.Shard.String() + ": " + text
			}
			ss = append(ss, text)
			mixed = mixed || !se.Build.Same(m.Sessions[0].Build)
		}
		add("Sessions", strings.Join(ss, "; "), mixed)
	}
	add("Data sets", strings.Join(m.Datasets, ", "), false)
	add("Algorithms", strings.Join(m.Algorithms, ", "), false)
	add("Reports", strings.Join(m.Reports, ", "), false)
	if t := m.Thresholds; len(t) > 0 {
		// The metrics of the table that the page tracks, each with its threshold in the run (an
		// earlier build's manifest, without a metric added since, gives its default).
		var ts []string
		for _, mt := range metric.Tracked(metric.Page) {
			ts = append(ts, fmt.Sprintf("%s %g", mt.Key, mt.ThresholdIn(t)))
		}
		add("Thresholds", strings.Join(ts, ", "), false)
	}
	if len(m.Args) > 0 {
		add("Command", strings.TrimSpace(m.Tool+" "+strings.Join(m.Args, " ")), false)
	}
	return rs
}

// timeText formats a manifest time in the offset it was recorded with, to the second: "UTC" or
// an offset such as "+02:00", never a zone name, which would depend on the reader's time zone.
func timeText(t time.Time) string {
	if t.IsZero() {
		return "—"
	}
	if _, off := t.Zone(); off == 0 {
		return t.Format("2006-01-02 15:04:05") + " UTC"
	}
	return t.Format("2006-01-02 15:04:05 -07:00")
}

// durationText rounds a run's duration for people: milliseconds under a minute, else seconds.
func durationText(d time.Duration) string {
	if d < time.Minute {
		return d.Round(time.Millisecond).String()
	}
	return d.Round(time.Second).String()
}

// listReports lists the reports directory; a missing one is empty.
func listReports(dir string) (reportFiles, error) {
	rf := reportFiles{has: map[string]bool{}}
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return rf, nil
	}
	if err != nil {
		return rf, err
	}
	for _, e := range entries { // sorted by name
		name := e.Name()
		if e.IsDir() && !strings.HasPrefix(name, ".") {
			// A report's folder (comparison/): its files are listed as the report's, by
			// their path ("comparison/pairs.csv"); deeper folders are not.
			sub, err := os.ReadDir(filepath.Join(dir, name))
			if err != nil {
				return rf, err
			}
			for _, f := range sub {
				if f.Type().IsRegular() && filepath.Ext(f.Name()) == ".csv" {
					rf.has[name+"/"+f.Name()] = true
					rf.csv = append(rf.csv, name+"/"+f.Name())
				}
			}
			continue
		}
		if !e.Type().IsRegular() || strings.HasPrefix(name, ".") {
			continue
		}
		rf.has[name] = true
		switch filepath.Ext(name) {
		case ".md":
			rf.md = append(rf.md, name)
		case ".svg":
			rf.svg = append(rf.svg, name)
		case ".csv":
			rf.csv = append(rf.csv, name)
		default:
			rf.other = append(rf.other, name)
		}
	}
	return rf, nil
}

// reportOrder is the manifest's reports in config order, then any other report with a Markdown
// file, sorted. A manifest without reports (an older run) gives every report found: those with a
// Markdown file and those known by their plots alone (dendrograms), sorted.
func reportOrder(listed []string, rf reportFiles) []string {
	order := slices.Clone(listed)
	var found []string
	for _, md := range rf.md {
		found = append(found, strings.TrimSuffix(md, ".md"))
	}
	if len(listed) == 0 {
		for _, svg := range rf.svg {
			for _, o := range plotOwners() {
				if strings.HasPrefix(svg, o.prefix) {
					found = append(found, o.report)
					break
				}
			}
		}
		slices.Sort(found)
	}
	for _, name := range found {
		if !slices.Contains(order, name) {
			order = append(order, name)
		}
	}
	return order
}

// plotOwner returns the section of the report that drew the plot file name, if it is on the
// page, and the prefix by which it knows the plot.
func plotOwner(name string, sections map[string]*section) (*section, string) {
	for _, o := range plotOwners() {
		if s := sections[o.report]; s != nil && strings.HasPrefix(name, o.prefix) {
			return s, o.prefix
		}
	}
	s := fileOwner(name, sections)
	if s == nil {
		return nil, ""
	}
	return s, s.Report
}

// fileOwner returns the section of the report whose name the file name starts with, followed by
// '.', '-' or '_' (summary.csv, evidence_differences.csv), the longest such name winning.
func fileOwner(name string, sections map[string]*section) *section {
	var best *section
	for r, s := range sections {
		if len(name) > len(r) && strings.HasPrefix(name, r) && strings.ContainsRune(".-_/", rune(name[len(r)])) {
			if best == nil || len(r) > len(best.Report) {
				best = s
			}
		}
	}
	return best
}

// readPlot describes the plot reports/name: its links and its size, read from the SVG's root
// element.
func readPlot(dir, name string, rf reportFiles, ids map[string]bool) (figure, error) {
	stem := strings.TrimSuffix(name, ".svg")
	pl := figure{ID: uniqueID(ids, "plot-"+slug(stem)), Name: name, Href: href(results.ReportsDir + "/" + name)}
	if rf.has[stem+".png"] {
		pl.PNG = href(results.ReportsDir + "/" + stem + ".png")
	}
	if rf.has[stem+".pdf"] {
		pl.PDF = href(results.ReportsDir + "/" + stem + ".pdf")
	}
	b, err := os.ReadFile(filepath.Join(dir, results.ReportsDir, name))
	if err != nil {
		return pl, err
	}
	w, h, ok := svgSize(string(b))
	if !ok {
		pl.Problem = "no <svg> element in this file"
		return pl, nil
	}
	pl.Width, pl.Height = w, h
	return pl, nil
}

// svgRoot matches the start tag of an <svg> element.
var svgRoot = regexp.MustCompile(`<svg(?:[\s/][^>]*)?>`)

// svgLength matches a width or height attribute: a number with an optional unit.
var svgLength = regexp.MustCompile(`\s(width|height)\s*=\s*["']\s*([0-9]*\.?[0-9]+)\s*(px|pt|in|cm|mm)?\s*["']`)

// svgSize returns the size of the first <svg> element of an SVG file in CSS pixels (96 to the
// inch; gonum writes points, 72 to the inch); ok is false when there is no <svg> element. A
// size it does not give, or gives in another unit (%, em), is 0: the browser then sizes the image.
func svgSize(s string) (w, h int, ok bool) {
	tag := svgRoot.FindString(s)
	if tag == "" {
		return 0, 0, false
	}
	perUnit := map[string]float64{"": 1, "px": 1, "pt": 96.0 / 72, "in": 96, "cm": 96 / 2.54, "mm": 96 / 25.4}
	for _, m := range svgLength.FindAllStringSubmatch(tag, -1) {
		v, err := strconv.ParseFloat(m[2], 64)
		if err != nil {
			continue
		}
		px := int(math.Round(v * perUnit[m[3]]))
		if m[1] == "width" {
			w = px
		} else {
			h = px
		}
	}
	return w, h, true
}

func reportLink(dir, name string) link {
	l := link{Name: name, Href: href(results.ReportsDir + "/" + name)}
	if fi, err := os.Stat(filepath.Join(dir, results.ReportsDir, name)); err == nil {
		l.Size = size(fi.Size())
	}
	return l
}

// href makes a relative URL of a slash-separated path inside the run directory.
func href(rel string) string {
	u := url.URL{Path: rel}
	return u.String()
}

// size formats a file size for people.
func size(n int64) string {
	switch {
	case n < 1<<10:
		return fmt.Sprintf("%d B", n)
	case n < 1<<20:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	case n < 1<<30:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	}
	return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
}

// slug keeps ASCII letters, digits, '-' and '_' of s and makes everything else '-'.
func slug(s string) string {
	b := []byte(s)
	for i, c := range b {
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-' || c == '_') {
			b[i] = '-'
		}
	}
	return string(b)
}

// uniqueID returns id, or id with a number appended if the page already has it.
func uniqueID(ids map[string]bool, id string) string {
	out := id
	for n := 2; ids[out]; n++ {
		out = id + "-" + strconv.Itoa(n)
	}
	ids[out] = true
	return out
}

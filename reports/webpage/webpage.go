// Package webpage builds index.html for a run directory: one self-contained page that shows the
// run at a glance in a browser opened from disk, with no server and no network. It holds a summary
// of the manifest (status, task counts, times, build and host), the run's warnings, links to the
// run's files, and one section per report: the report's Markdown rendered as HTML tables, its
// plots inlined as SVG, and links to its CSV files. Every plot not claimed by a report is shown at
// the end. The page has no JavaScript, no external style sheet, font or image, and no timestamp of
// its own, so the same run directory always gives the same page.
package webpage

import (
	"bytes"
	"embed"
	"errors"
	"fmt"
	"html/template"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/hcbench/hcbench/experiments/results"
	"github.com/hcbench/hcbench/reports"
)

// File is the name of the page inside the run directory.
const File = results.PageFile

// topFiles are the run's own files the page links to when they exist, in this order.
var topFiles = []struct{ name, what string }{
	{results.ConfigFile, "the resolved config"},
	{results.ResultsFile, "one record per task"},
	{results.BenchFile, "benchmark output"},
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
	Summary  []row
	Warnings []string
	Links    []link
	Sections []*section
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

// section is a report (or the closing "Other plots" / "Other files").
type section struct {
	ID, Title string
	Report    string // the report's name; "" for the closing sections
	Blocks    []block
	Plots     []figure
	Files     []link
	Empty     bool // the report is in the manifest but no file of it was found
}

// Headings are the section's headings with anchors, for the table of contents.
func (s *section) Headings() []block {
	var hs []block
	for _, b := range s.Blocks {
		if b.Kind == "heading" && b.ID != "" {
			hs = append(hs, b)
		}
	}
	return hs
}

// figure is an SVG file inlined in the page.
type figure struct {
	ID, Name string
	Href     string
	PNG      string // href of the PNG twin, if any
	SVG      template.HTML
	Problem  string // why the file could not be inlined
}

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
	p.Status = fmt.Sprintf("%s, %d of %d tasks finished", m.Status, m.Finished, m.Tasks)
	if m.Failed > 0 {
		p.Status += fmt.Sprintf(", %d failed", m.Failed)
	}
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
	ids := map[string]bool{"run": true, "contents": true, "warnings": true, "end": true, "other-plots": true, "other-files": true} // the page's own
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
			s.Blocks = parseMarkdown(string(b))
			if len(s.Blocks) > 0 && s.Blocks[0].Kind == "heading" && s.Blocks[0].Level == 1 {
				s.Title = s.Blocks[0].Text
				s.Blocks = s.Blocks[1:]
			}
			n := 0
			for i := range s.Blocks {
				if s.Blocks[i].Kind == "heading" {
					n++
					s.Blocks[i].ID = uniqueID(ids, s.ID+"-"+strconv.Itoa(n))
				}
			}
		}
	}

	other := &section{ID: "other-plots", Title: "Other plots"}
	for _, name := range rf.svg {
		s := other
		if owner := plotOwner(name, bySection); owner != nil {
			s = owner
		}
		pl, err := readPlot(dir, name, rf, ids)
		if err != nil {
			return nil, err
		}
		s.Plots = append(s.Plots, pl)
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
		if strings.HasSuffix(name, ".png") && rf.has[strings.TrimSuffix(name, ".png")+".svg"] {
			continue // the PNG twin of an inlined SVG, linked beside it
		}
		files.Files = append(files.Files, reportLink(dir, name))
	}
	for _, s := range p.Sections {
		s.Empty = len(s.Blocks) == 0 && len(s.Plots) == 0 && len(s.Files) == 0
	}
	if len(other.Plots) > 0 {
		p.Sections = append(p.Sections, other)
	}
	if len(files.Files) > 0 {
		p.Sections = append(p.Sections, files)
	}
	return p, nil
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
			text := fmt.Sprintf("%s, %s: %d records", se.Build, se.Host, se.Records)
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
	if t := m.Thresholds; t != (results.Thresholds{}) {
		add("Thresholds", fmt.Sprintf("log_likelihood %g, exact_gap %g, log_evidence %g, purity %g, time %g",
			t.LogLikelihood, t.ExactGap, t.LogEvidence, t.Purity, t.Time), false)
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

// plotOwner returns the section of the report that drew the plot file name, if it is on the page.
func plotOwner(name string, sections map[string]*section) *section {
	for _, o := range plotOwners() {
		if s := sections[o.report]; s != nil && strings.HasPrefix(name, o.prefix) {
			return s
		}
	}
	return fileOwner(name, sections)
}

// fileOwner returns the section of the report whose name the file name starts with, followed by
// '.', '-' or '_' (summary.csv, evidence_differences.csv), the longest such name winning.
func fileOwner(name string, sections map[string]*section) *section {
	var best *section
	for r, s := range sections {
		if len(name) > len(r) && strings.HasPrefix(name, r) && strings.ContainsRune(".-_", rune(name[len(r)])) {
			if best == nil || len(r) > len(best.Report) {
				best = s
			}
		}
	}
	return best
}

// readPlot reads reports/name and makes it inline SVG markup.
func readPlot(dir, name string, rf reportFiles, ids map[string]bool) (figure, error) {
	stem := strings.TrimSuffix(name, ".svg")
	pl := figure{ID: uniqueID(ids, "plot-"+slug(stem)), Name: name, Href: href(results.ReportsDir + "/" + name)}
	if rf.has[stem+".png"] {
		pl.PNG = href(results.ReportsDir + "/" + stem + ".png")
	}
	b, err := os.ReadFile(filepath.Join(dir, results.ReportsDir, name))
	if err != nil {
		return pl, err
	}
	svg, ok := stripProlog(string(b))
	if !ok {
		pl.Problem = "no <svg> element in this file"
		return pl, nil
	}
	// The SVG files are our own plots (gonum/plot output) in the run directory: trusted markup.
	pl.SVG = template.HTML(svg)
	return pl, nil
}

// stripProlog drops what comes before the <svg> element (XML declaration, doctype, comments)
// and trailing white space, since none of that belongs inside HTML.
func stripProlog(s string) (string, bool) {
	for i := 0; ; {
		j := strings.Index(s[i:], "<svg")
		if j < 0 {
			return "", false
		}
		i += j
		if k := i + len("<svg"); k < len(s) && strings.ContainsRune(" \t\r\n>/", rune(s[k])) {
			return strings.TrimSpace(s[i:]), true
		}
		i++
	}
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

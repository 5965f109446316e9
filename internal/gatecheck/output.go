package main

import (
	"context"
	"encoding/csv"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/hcbench/hcbench/internal/docregion"
)

// regionName is the region of docs/nightly.md that report -doc writes.
const regionName = "nightly.gate"

// report analyses the measurements in dirs together, prints the table and, with doc, writes it
// into doc's region.
func report(ctx context.Context, dirs []string, g grid, doc string, stdout io.Writer) error {
	ms, err := analyse(ctx, dirs, g)
	if err != nil {
		return err
	}
	for _, m := range ms {
		if err := writeFiles(m); err != nil {
			return err
		}
	}
	text := table(ms)
	fmt.Fprintln(stdout, text)
	if doc == "" {
		return nil
	}
	return writeRegion(doc, text)
}

// writeOutputs writes one measurement's files and prints its table.
func writeOutputs(m *measurement, stdout io.Writer) error {
	if err := writeFiles(m); err != nil {
		return err
	}
	fmt.Fprintln(stdout, table([]*measurement{m}))
	fmt.Fprintf(stdout, "gatecheck: wrote %s, %s and %s\n", filepath.Join(m.dir, "gate.md"), filepath.Join(m.dir, "settings.csv"), filepath.Join(m.dir, "pairs.csv"))
	return nil
}

// writeRegion writes text into the region regionName of the page doc, which must have it.
func writeRegion(doc, text string) error {
	b, err := os.ReadFile(doc)
	if err != nil {
		return err
	}
	spans, err := docregion.Parse(doc, string(b))
	if err != nil {
		return err
	}
	found := false
	for _, s := range spans {
		found = found || (s.Name == regionName && s.Block)
	}
	if !found {
		return fmt.Errorf("%s has no block region numbers:%s (<!-- begin numbers:%s --> … <!-- end numbers:%s -->)", doc, regionName, regionName, regionName)
	}
	return os.WriteFile(doc, []byte(docregion.Rewrite(string(b), map[string]string{regionName: text})), 0o644)
}

// table is the Markdown of the measurements: what was measured, the recommended setting, and
// every setting's counts per measurement.
func table(ms []*measurement) string {
	var b strings.Builder
	labels := map[*measurement]string{}
	seen := map[string]int{}
	for _, m := range ms {
		seen[m.label()]++
	}
	for _, m := range ms {
		labels[m] = m.label()
		if seen[m.label()] > 1 { // two measurements under one load: name them by directory
			labels[m] += " (" + filepath.Base(m.dir) + ")"
		}
	}
	for _, m := range ms {
		fmt.Fprintf(&b, "- %s: %d runs on %s (%d CPUs) from %s, `-count %d -workers %d`, background load: %s; %d A/A pairs, %d planted pairs",
			labels[m], len(m.runs), m.host, m.cpus, m.start, m.plan.KMax, m.plan.Workers, loadName(m.plan.Load), count(m, true), count(m, false))
		if m.revision != "" {
			fmt.Fprintf(&b, "; revision %.12s", m.revision)
		}
		if note := timeNote(m); note != "" {
			fmt.Fprintf(&b, "; **no time could regress**: %s", note)
		}
		b.WriteString(".\n")
	}
	best, ok, why := recommend(ms)
	if ok {
		fmt.Fprintf(&b, "\nRecommended (the smallest K, then the smallest threshold, with fewer than 1 A/A pair in %d flagged and a 10 %% slowdown flagged in at least %d of %d pairs, under every load measured): %s.\n", aaLimit, aimDetect, aimOf, describe(best))
	} else {
		fmt.Fprintf(&b, "\n%s. Closest: %s.\n", capitalise(why), describe(best))
	}
	b.WriteString("\n| test | α | time threshold | K |")
	sep := "\n|---|---|---|---|"
	for _, m := range ms {
		fmt.Fprintf(&b, " %s: A/A flagged | 5 %% | 10 %% | 20 %% |", labels[m])
		sep += "---|---|---|---|"
	}
	b.WriteString(sep + "\n")
	for _, s := range ms[0].settings {
		fmt.Fprintf(&b, "| %s | %g | %g | %d |", s.Test, s.Alpha, s.Threshold, s.K)
		for _, m := range ms {
			t := m.tally(s)
			fmt.Fprintf(&b, " %d/%d | %d/%d | %d/%d | %d/%d |", t.AAFlagged, t.AA, t.Detected[0], t.Planted, t.Detected[1], t.Planted, t.Detected[2], t.Planted)
		}
		b.WriteString("\n")
	}
	return strings.TrimRight(b.String(), "\n")
}

func describe(s setting) string {
	return fmt.Sprintf("`%s` test, α = %g, `time` threshold %g, `-count %d`", s.Test, s.Alpha, s.Threshold, s.K)
}

func capitalise(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// count counts a measurement's A/A (aa) or planted pairs.
func count(m *measurement, aa bool) int {
	n := 0
	for _, p := range m.pairs {
		if p.isAA() == aa {
			n++
		}
	}
	return n
}

// timeNote is compare's reason, in any pair, why no time could regress ("" if none).
func timeNote(m *measurement) string {
	for _, os := range m.outcomes {
		for _, o := range os {
			if o.timeNote != "" {
				return o.timeNote
			}
		}
	}
	return ""
}

// writeFiles writes gate.md (the table), settings.csv (a setting's counts a line) and pairs.csv
// (a setting's verdict on a pair a line) into the measurement's directory.
func writeFiles(m *measurement) error {
	if err := os.WriteFile(filepath.Join(m.dir, "gate.md"), []byte(table([]*measurement{m})+"\n"), 0o644); err != nil {
		return err
	}
	g := func(v float64) string { return strconv.FormatFloat(v, 'g', 6, 64) }
	settings := [][]string{{"test", "alpha", "threshold", "k", "aa_pairs", "aa_flagged", "planted_pairs"}}
	pairs := [][]string{{"test", "alpha", "threshold", "k", "pair", "kind", "old", "new", "flagged_rows", "flagged"}}
	for _, l := range planted {
		settings[0] = append(settings[0], "detected_"+l.label)
		pairs[0] = append(pairs[0], l.label+"_flagged", l.label+"_ratio", l.label+"_effect", l.label+"_p")
	}
	for _, s := range m.settings {
		head := []string{s.Test, g(s.Alpha), g(s.Threshold), strconv.Itoa(s.K)}
		t := m.tally(s)
		line := append(append([]string{}, head...), strconv.Itoa(t.AA), strconv.Itoa(t.AAFlagged), strconv.Itoa(t.Planted))
		for _, d := range t.Detected {
			line = append(line, strconv.Itoa(d))
		}
		settings = append(settings, line)
		for _, o := range m.outcomes[s] {
			p := m.pairs[o.pair]
			line := append(append([]string{}, head...), strconv.Itoa(o.pair), p.kind, p.old.name, p.new.name, strconv.Itoa(len(o.flagged)), strings.Join(o.flagged, ";"))
			for _, l := range planted {
				r, ok := o.planted[l.label]
				if !ok {
					line = append(line, "", "", "", "")
					continue
				}
				line = append(line, strconv.FormatBool(r.Flagged), g(r.Ratio), g(r.Effect), g(r.P))
			}
			pairs = append(pairs, line)
		}
	}
	for name, rows := range map[string][][]string{"settings.csv": settings, "pairs.csv": pairs} {
		f, err := os.Create(filepath.Join(m.dir, name))
		if err != nil {
			return err
		}
		w := csv.NewWriter(f)
		w.WriteAll(rows)
		if err := w.Error(); err != nil {
			f.Close()
			return err
		}
		if err := f.Close(); err != nil {
			return err
		}
	}
	return nil
}

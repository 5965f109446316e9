// Package table renders report tables, the one place that talks to tablewriter: Markdown for
// people (tablewriter's Markdown renderer, numbers right-aligned) and CSV for programs
// (encoding/csv, full precision).
package table

import (
	"encoding/csv"
	"io"
	"strings"

	"github.com/olekukonko/tablewriter"
	"github.com/olekukonko/tablewriter/renderer"
	"github.com/olekukonko/tablewriter/tw"
)

// Table is a header and rows of cells. Numeric marks the columns to right-align in Markdown.
type Table struct {
	Header  []string
	Rows    [][]string
	Numeric []bool
}

// WriteMarkdown renders t as a GitHub-flavoured Markdown table. Cells are escaped, since
// tablewriter does not escape '|'.
func WriteMarkdown(w io.Writer, t Table) error {
	align := make([]tw.Align, len(t.Header))
	for i := range align {
		align[i] = tw.AlignLeft
		if i < len(t.Numeric) && t.Numeric[i] {
			align[i] = tw.AlignRight
		}
	}
	tb := tablewriter.NewTable(w,
		tablewriter.WithRenderer(renderer.NewMarkdown()),
		tablewriter.WithHeaderAutoFormat(tw.Off),
		tablewriter.WithHeaderAlignmentConfig(tw.CellAlignment{PerColumn: align}),
		tablewriter.WithRowAlignmentConfig(tw.CellAlignment{PerColumn: align}),
		tablewriter.WithRowAutoWrap(tw.WrapNone),
		tablewriter.WithHeaderAutoWrap(tw.WrapNone),
	)
	header := make([]any, len(t.Header))
	for i, h := range t.Header {
		header[i] = escape(h)
	}
	tb.Header(header...)
	for _, r := range t.Rows {
		row := make([]any, len(r))
		for i, c := range r {
			row[i] = escape(c)
		}
		if err := tb.Append(row...); err != nil {
			return err
		}
	}
	return tb.Render()
}

func escape(s string) string { return strings.ReplaceAll(s, "|", `\|`) }

// WriteCSV writes t as CSV with a header line.
func WriteCSV(w io.Writer, t Table) error {
	cw := csv.NewWriter(w)
	if err := cw.Write(t.Header); err != nil {
		return err
	}
	if err := cw.WriteAll(t.Rows); err != nil {
		return err
	}
	cw.Flush()
	return cw.Error()
}

// WithoutColumn returns a copy of t without column i.
func (t Table) WithoutColumn(i int) Table {
	drop := func(s []string) []string { return append(append([]string(nil), s[:i]...), s[i+1:]...) }
	out := Table{Header: drop(t.Header)}
	if len(t.Numeric) > i {
		out.Numeric = append(append([]bool(nil), t.Numeric[:i]...), t.Numeric[i+1:]...)
	}
	for _, r := range t.Rows {
		out.Rows = append(out.Rows, drop(r))
	}
	return out
}

// WithoutEmptyColumns returns a copy of t without the columns that no row fills (every cell
// empty); a table without rows keeps every column.
func (t Table) WithoutEmptyColumns() Table {
	if len(t.Rows) == 0 {
		return t
	}
	out := t
	for i := len(t.Header) - 1; i >= 0; i-- {
		empty := true
		for _, r := range t.Rows {
			empty = empty && (i >= len(r) || r[i] == "")
		}
		if empty {
			out = out.WithoutColumn(i)
		}
	}
	return out
}

package webpage

import (
	"regexp"
	"strings"
)

// This file converts the restricted Markdown that package reports writes (writeMarkdown and
// table.WriteMarkdown) into blocks that the page template renders; the template, not this code,
// escapes every text. The Markdown is ours, so only what reports writes is understood:
//
//	# title                       the report's title (first line)
//	## heading                    a section heading
//	| a | b |                     a table: header row, alignment row (|:---|---:|), rows;
//	|:--|--:|                     cells may hold \| for a literal '|'
//	any other line                a note, shown as a paragraph of its own
//
// Blank lines separate blocks. A run of '|' lines without an alignment row as its second line
// is not a table and is shown as notes, line by line, so nothing is ever dropped.

// block is one rendered unit of a report: a heading, a table or a paragraph.
type block struct {
	Kind  string // "heading", "table", "p" or "image"
	Level int    // heading: Markdown level (1 for #, 2 for ##, …)
	ID    string // heading: anchor, set by the page builder
	Text  string // heading and paragraph text; an image's caption (its alt text)
	Src   string // image: the file, beside the Markdown
	Table *htmlTable
}

// htmlTable is a Markdown table's cells, unescaped, with each column's alignment.
type htmlTable struct {
	Header []string
	Align  []string // per column: "l", "r", "c" or "" (no alignment given)
	Rows   [][]string
}

// AlignOf returns the alignment class of column i ("" past the alignment row).
func (t *htmlTable) AlignOf(i int) string {
	if i < len(t.Align) {
		return t.Align[i]
	}
	return ""
}

// parseMarkdown splits src into blocks.
func parseMarkdown(src string) []block {
	lines := strings.Split(strings.ReplaceAll(src, "\r\n", "\n"), "\n")
	var out []block
	for i := 0; i < len(lines); {
		line := strings.TrimSpace(lines[i])
		switch {
		case line == "":
			i++
		case headingLevel(line) > 0:
			n := headingLevel(line)
			out = append(out, block{Kind: "heading", Level: n, Text: strings.TrimSpace(line[n:])})
			i++
		case imageLine.MatchString(line):
			m := imageLine.FindStringSubmatch(line)
			out = append(out, block{Kind: "image", Text: m[1], Src: m[2]})
			i++
		case strings.HasPrefix(line, "|"):
			j := i
			for j < len(lines) && strings.HasPrefix(strings.TrimSpace(lines[j]), "|") {
				j++
			}
			out = append(out, tableBlocks(lines[i:j])...)
			i = j
		default:
			out = append(out, block{Kind: "p", Text: line})
			i++
		}
	}
	return out
}

// imageLine matches a line that is a Markdown image alone, ![caption](file.svg): a report's
// figure with its caption, which the page shows where the plot is placed (section.place).
var imageLine = regexp.MustCompile(`^!\[([^\]]*)\]\(([^()\s]+)\)$`)

// headingLevel returns the number of leading '#' of an ATX heading ("## x"), or 0.
func headingLevel(line string) int {
	n := 0
	for n < len(line) && line[n] == '#' {
		n++
	}
	if n == 0 || n > 6 || (n < len(line) && line[n] != ' ' && line[n] != '\t') {
		return 0
	}
	return n
}

// tableBlocks turns a run of '|' lines into a table, or into paragraphs when it is not one.
func tableBlocks(lines []string) []block {
	if len(lines) >= 2 {
		if align, ok := alignRow(lines[1]); ok {
			t := &htmlTable{Header: splitRow(lines[0]), Align: align}
			for _, l := range lines[2:] {
				row := splitRow(l)
				for len(row) < len(t.Header) {
					row = append(row, "")
				}
				t.Rows = append(t.Rows, row)
			}
			return []block{{Kind: "table", Table: t}}
		}
	}
	var out []block
	for _, l := range lines {
		out = append(out, block{Kind: "p", Text: strings.TrimSpace(l)})
	}
	return out
}

// splitRow returns the cells of a table row, trimmed, with "\|" unescaped to "|".
func splitRow(line string) []string {
	s := strings.TrimSpace(line)
	s = strings.TrimPrefix(s, "|")
	var cells []string
	var cell strings.Builder
	closed := false // the row ended with an unescaped '|'
	for i := 0; i < len(s); i++ {
		switch {
		case s[i] == '\\' && i+1 < len(s) && s[i+1] == '|':
			cell.WriteByte('|')
			i++
			closed = false
		case s[i] == '|':
			cells = append(cells, strings.TrimSpace(cell.String()))
			cell.Reset()
			closed = true
		default:
			cell.WriteByte(s[i])
			if s[i] != ' ' && s[i] != '\t' {
				closed = false
			}
		}
	}
	if !closed {
		cells = append(cells, strings.TrimSpace(cell.String()))
	}
	return cells
}

// alignRow parses an alignment row (|:---|---:|:---:|---|) into "l", "r", "c" or "".
func alignRow(line string) ([]string, bool) {
	cells := splitRow(line)
	if len(cells) == 0 {
		return nil, false
	}
	align := make([]string, len(cells))
	for i, c := range cells {
		left, right := strings.HasPrefix(c, ":"), strings.HasSuffix(c, ":")
		dashes := strings.TrimSuffix(strings.TrimPrefix(c, ":"), ":")
		if dashes == "" || strings.Trim(dashes, "-") != "" {
			return nil, false
		}
		switch {
		case left && right:
			align[i] = "c"
		case right:
			align[i] = "r"
		case left:
			align[i] = "l"
		}
	}
	return align, true
}

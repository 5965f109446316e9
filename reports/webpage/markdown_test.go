package webpage

import (
	"reflect"
	"strings"
	"testing"

	"github.com/hcbench/hcbench/reports/table"
)

func TestSplitRow(t *testing.T) {
	for _, c := range []struct {
		line string
		want []string
	}{
		{"| a | b |", []string{"a", "b"}},
		{"|a|b|", []string{"a", "b"}},
		{"| a \\| b | c |", []string{"a | b", "c"}},
		{"| a\\|b |", []string{"a|b"}},
		{"| x \\| |", []string{"x |"}},
		{"|  |  |", []string{"", ""}},
		{"| a | b", []string{"a", "b"}},
		{"  | lead |  ", []string{"lead"}},
		{`| a\b | \\ |`, []string{`a\b`, `\\`}},
	} {
		if got := splitRow(c.line); !reflect.DeepEqual(got, c.want) {
			t.Errorf("splitRow(%q) = %q, want %q", c.line, got, c.want)
		}
	}
}

func TestAlignRow(t *testing.T) {
	for _, c := range []struct {
		line string
		want []string
		ok   bool
	}{
		{"|:---|---:|:-:|---|", []string{"l", "r", "c", ""}, true},
		{"|:----------|------:|", []string{"l", "r"}, true},
		{"| a | b |", nil, false},
		{"|:--|:|", nil, false},
		{"| - x |", nil, false},
	} {
		got, ok := alignRow(c.line)
		if ok != c.ok || !reflect.DeepEqual(got, c.want) {
			t.Errorf("alignRow(%q) = %q, %v; want %q, %v", c.line, got, ok, c.want, c.ok)
		}
	}
}

func TestParseMarkdown(t *testing.T) {
	var b strings.Builder
	b.WriteString("# Title: x\n\n## first | section\n\n")
	if err := table.WriteMarkdown(&b, table.Table{
		Header: []string{"name", "n"}, Numeric: []bool{false, true},
		Rows: [][]string{{"a|b", "1"}, {"c", "22"}},
	}); err != nil {
		t.Fatal(err)
	}
	b.WriteString("\n## second\n\n| not | a table |\n| just | lines |\n\nnote one\nnote two\n")
	got := parseMarkdown(b.String())
	want := []block{
		{Kind: "heading", Level: 1, Text: "Title: x"},
		{Kind: "heading", Level: 2, Text: "first | section"},
		{Kind: "table", Table: &htmlTable{
			Header: []string{"name", "n"}, Align: []string{"l", "r"},
			Rows: [][]string{{"a|b", "1"}, {"c", "22"}},
		}},
		{Kind: "heading", Level: 2, Text: "second"},
		{Kind: "p", Text: "| not | a table |"},
		{Kind: "p", Text: "| just | lines |"},
		{Kind: "p", Text: "note one"},
		{Kind: "p", Text: "note two"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("parseMarkdown:\n got %+v\nwant %+v", got, want)
		for i := range got {
			if got[i].Table != nil {
				t.Logf("table %d: %+v", i, *got[i].Table)
			}
		}
	}
	// A short row is padded to the header; "#tag" is no heading.
	got = parseMarkdown("| a | b |\n|---|---|\n| 1 |\n#tag\n")
	if len(got) != 2 || !reflect.DeepEqual(got[0].Table.Rows, [][]string{{"1", ""}}) || got[1].Kind != "p" {
		t.Errorf("got %+v", got)
	}
}

// TestSVGSize reads the size of a plot as the page gives it to its <img>: gonum writes points
// (4/3 CSS pixels each); other units convert at 96 pixels to the inch; a missing or relative size
// is 0 (the browser sizes the image); a file without an <svg> element is refused.
func TestSVGSize(t *testing.T) {
	for _, c := range []struct {
		in   string
		w, h int
	}{
		{"<?xml version=\"1.0\"?>\n<!-- c -->\n<svg width=\"432pt\" height=\"288pt\" viewBox=\"0 0 432 288\">x</svg>", 576, 384},
		{"<!-- <svgfoo> -->\n<svg\n width='1in' height=\"2.54cm\"/>", 96, 96},
		{"<svg width=\"100\" height=\"50px\">", 100, 50},
		{"<svg width=\"100%\">y</svg>", 0, 0},
		{"<svg>", 0, 0},
	} {
		if w, h, ok := svgSize(c.in); !ok || w != c.w || h != c.h {
			t.Errorf("svgSize(%q) = %d, %d, %v; want %d, %d", c.in, w, h, ok, c.w, c.h)
		}
	}
	for _, bad := range []string{"<html></html>", "<svgfoo>"} {
		if _, _, ok := svgSize(bad); ok {
			t.Errorf("%q accepted as SVG", bad)
		}
	}
}

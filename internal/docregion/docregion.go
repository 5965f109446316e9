// Package docregion reads and rewrites the generated regions of the documentation: text between
// two HTML comments, which Markdown does not show, that a script computes from runs
// (internal/docnumbers for the documented numbers, internal/gatecheck for the gate's measured
// false-alarm rate):
//
//	<!-- numbers:NAME -->0.42 ± 0.51<!-- /numbers -->            within a line
//
//	<!-- begin numbers:NAME -->                                   a block of lines
//	| a generated | table |
//	<!-- end numbers:NAME -->
//
// NAME names the region; internal/docnumbers's table lists every name and which script writes it.
package docregion

import (
	"fmt"
	"regexp"
	"strings"
)

var (
	inlineMarker = regexp.MustCompile(`<!-- numbers:([A-Za-z0-9_.\-]+) -->(.*?)<!-- /numbers -->`)
	blockBegin   = regexp.MustCompile(`^<!-- begin numbers:([A-Za-z0-9_.\-]+) -->$`)
	blockEnd     = regexp.MustCompile(`^<!-- end numbers:([A-Za-z0-9_.\-]+) -->$`)
	// anyMarker finds what looks like a marker, so that a misspelt one is an error, not prose.
	anyMarker = regexp.MustCompile(`<!--\s*(/?numbers|begin numbers|end numbers)\b`)
)

// A Span is one occurrence of a region in a file: its name, the line it starts on (1-based) and
// the text between its markers.
type Span struct {
	Name  string
	Line  int
	Block bool
	Text  string
}

// Parse lists the regions of a file's text, in order. A block's text is its lines joined by
// "\n" (without the marker lines); an inline region's text is what stands between its markers.
// A begin without its end, an end without a begin, nested blocks or a malformed marker are errors
// naming file and line.
func Parse(file, text string) ([]Span, error) {
	var out []Span
	lines := strings.Split(text, "\n")
	open := -1 // the index in out of the open block
	var body []string
	for i, l := range lines {
		n := i + 1
		if m := blockBegin.FindStringSubmatch(l); m != nil {
			if open >= 0 {
				return nil, fmt.Errorf("%s:%d: begin numbers:%s inside the block numbers:%s of line %d", file, n, m[1], out[open].Name, out[open].Line)
			}
			out = append(out, Span{Name: m[1], Line: n, Block: true})
			open, body = len(out)-1, nil
			continue
		}
		if m := blockEnd.FindStringSubmatch(l); m != nil {
			if open < 0 || out[open].Name != m[1] {
				return nil, fmt.Errorf("%s:%d: end numbers:%s without its begin", file, n, m[1])
			}
			out[open].Text = strings.Join(body, "\n")
			open = -1
			continue
		}
		found := 0
		for _, m := range inlineMarker.FindAllStringSubmatch(l, -1) {
			out = append(out, Span{Name: m[1], Line: n, Text: m[2]})
			found++
		}
		if c := len(anyMarker.FindAllString(l, -1)); c != 2*found {
			return nil, fmt.Errorf("%s:%d: a numbers marker that is not <!-- numbers:NAME -->TEXT<!-- /numbers --> on one line, or a begin/end line of its own", file, n)
		}
		if open >= 0 {
			body = append(body, l)
		}
	}
	if open >= 0 {
		return nil, fmt.Errorf("%s:%d: begin numbers:%s has no end", file, out[open].Line, out[open].Name)
	}
	return out, nil
}

// Rewrite returns text with every region's content replaced by texts[name]; regions without an
// entry keep their text. A block's new text is put on lines of its own.
func Rewrite(text string, texts map[string]string) string {
	lines := strings.Split(text, "\n")
	var out []string
	skipping := false
	for _, l := range lines {
		if m := blockBegin.FindStringSubmatch(l); m != nil {
			out = append(out, l)
			if t, ok := texts[m[1]]; ok {
				out = append(out, strings.Split(strings.TrimRight(t, "\n"), "\n")...)
				skipping = true
			}
			continue
		}
		if blockEnd.MatchString(l) {
			skipping = false
			out = append(out, l)
			continue
		}
		if skipping {
			continue
		}
		l = inlineMarker.ReplaceAllStringFunc(l, func(s string) string {
			m := inlineMarker.FindStringSubmatch(s)
			t, ok := texts[m[1]]
			if !ok {
				return s
			}
			return "<!-- numbers:" + m[1] + " -->" + t + "<!-- /numbers -->"
		})
		out = append(out, l)
	}
	return strings.Join(out, "\n")
}

// IsBlockMarker reports whether line is the begin or the end line of a block region.
func IsBlockMarker(line string) (begin, end bool) {
	return blockBegin.MatchString(line), blockEnd.MatchString(line)
}

// StripInline returns line without its inline regions (markers and text).
func StripInline(line string) string { return inlineMarker.ReplaceAllString(line, "") }

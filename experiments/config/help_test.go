package config

import (
	"bytes"
	"strings"
	"testing"
	"unicode/utf8"
)

// TestHelpFitsWidth: no line of `help config` is wider than helpWidth (120) characters, and the
// wrapping loses no word: the text, with its runs of spaces collapsed, is that of the rows and
// paragraphs it wraps (checked on a meaning that the external algorithm's long help holds).
func TestHelpFitsWidth(t *testing.T) {
	var b bytes.Buffer
	if err := WriteHelp(&b); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(b.String(), "\n")
	wide := 0
	for i, l := range lines {
		if n := utf8.RuneCountInString(l); n > helpWidth {
			wide++
			if wide <= 5 {
				t.Errorf("help config line %d is %d characters wide, more than %d: %q", i+1, n, helpWidth, l)
			}
		}
	}
	if wide > 5 {
		t.Errorf("and %d more lines wider than %d", wide-5, helpWidth)
	}
	if len(lines) < 100 {
		t.Fatalf("help config has %d lines; expected every key of every source and algorithm", len(lines))
	}
	flat := strings.Join(strings.Fields(b.String()), " ")
	for _, want := range []string{
		"budget that the trellis tasks running at once share (a task waits for its share).",
		"Algorithm external: your own program, in any language, scored and reported like a built-in algorithm",
	} {
		if !strings.Contains(flat, want) {
			t.Errorf("help config lost words: no %q", want)
		}
	}
}

// TestHelpColumns: the meanings of a section start in one column, continuation lines included,
// and a row whose type is too long for a column of its own writes its meaning from the next line
// under that column (the trellis's memory_limit, whose type names its units).
func TestHelpColumns(t *testing.T) {
	var b bytes.Buffer
	if err := WriteHelp(&b); err != nil {
		t.Fatal(err)
	}
	section := sectionOf(b.String(), "Algorithm trellis:")
	col := -1
	for _, l := range section {
		if strings.HasPrefix(l, "  mode ") {
			col = strings.Index(l, "full:") // mode's meaning
		}
	}
	if col < 0 {
		t.Fatalf("no mode row with its meaning in the trellis section:\n%s", strings.Join(section, "\n"))
	}
	memory := -1
	for i, l := range section {
		if strings.HasPrefix(l, "  memory_limit") {
			memory = i
		}
	}
	if memory < 0 || memory+1 >= len(section) {
		t.Fatal("no memory_limit row")
	}
	if got := strings.TrimRight(section[memory], " "); !strings.HasSuffix(got, "default 0") {
		t.Errorf("memory_limit's first line %q: want its key, type and default alone", got)
	}
	for _, l := range section[memory+1 : memory+3] {
		if len(l) <= col || strings.TrimSpace(l[:col]) != "" || l[col] == ' ' {
			t.Errorf("meaning line %q does not start at column %d", l, col)
		}
	}
}

// sectionOf returns the lines of the section whose title starts with title, up to the blank
// line that ends it.
func sectionOf(help, title string) []string {
	lines := strings.Split(help, "\n")
	for i, l := range lines {
		if !strings.HasPrefix(l, title) {
			continue
		}
		var out []string
		for k := i; k < len(lines) && lines[k] != ""; k++ {
			out = append(out, lines[k])
		}
		return out
	}
	return nil
}

func TestWrapWords(t *testing.T) {
	for _, c := range []struct {
		in    string
		width int
		want  []string
	}{
		{"", 10, nil},
		{"a b c", 10, []string{"a b c"}},
		{"one two three four", 9, []string{"one two", "three", "four"}},
		{"λ_root ≤ t_cut x", 8, []string{"λ_root ≤", "t_cut x"}}, // widths count characters, not bytes
		{"abcdefghijkl mn", 5, []string{"abcde", "fghij", "kl mn"}},
	} {
		got := wrapWords(c.in, c.width)
		if strings.Join(got, "|") != strings.Join(c.want, "|") || len(got) != len(c.want) {
			t.Errorf("wrapWords(%q, %d) = %q, want %q", c.in, c.width, got, c.want)
		}
	}
}

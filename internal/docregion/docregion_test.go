package docregion

import (
	"strings"
	"testing"
)

// TestMarkers: Rewrite replaces exactly the text between the markers, keeps everything else,
// and Parse refuses malformed markers with file and line.
func TestMarkers(t *testing.T) {
	text := "a <!-- numbers:x -->1<!-- /numbers --> b <!-- numbers:y -->2<!-- /numbers -->\n<!-- begin numbers:z -->\nold\nlines\n<!-- end numbers:z -->\ntail"
	got := Rewrite(text, map[string]string{"x": "10", "z": "new\n"})
	want := "a <!-- numbers:x -->10<!-- /numbers --> b <!-- numbers:y -->2<!-- /numbers -->\n<!-- begin numbers:z -->\nnew\n<!-- end numbers:z -->\ntail"
	if got != want {
		t.Errorf("rewrite:\n%s\nwant\n%s", got, want)
	}
	spans, err := Parse("f.md", want)
	if err != nil {
		t.Fatal(err)
	}
	if len(spans) != 3 || spans[2].Text != "new" || spans[2].Line != 2 || spans[0].Text != "10" {
		t.Errorf("spans %+v", spans)
	}
	for _, bad := range []string{
		"<!-- begin numbers:a -->\ntext",                           // no end
		"text\n<!-- end numbers:a -->",                             // no begin
		"<!-- begin numbers:a -->\n<!-- begin numbers:b -->",       // nested
		"a <!-- numbers:x -->1",                                    // inline without its end
		"<!-- begin numbers:a -->\n<!-- end numbers:b -->",         // mismatched
		"a <!--numbers:x -->1<!-- /numbers -->",                    // misspelt
		"<!-- begin numbers:a --> text\n<!-- end numbers:a -->",    // begin not alone on its line
		"x <!-- numbers:a -->1\n2<!-- /numbers -->",                // inline across lines
		"<!-- begin numbers:a -->\nx\n<!-- end numbers:a --> tail", // end not alone on its line
	} {
		if _, err := Parse("f.md", bad); err == nil || !strings.Contains(err.Error(), "f.md:") {
			t.Errorf("%q: error %v, want one naming f.md:LINE", bad, err)
		}
	}
}

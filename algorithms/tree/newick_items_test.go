package tree

import (
	"strings"
	"testing"
)

// TestParseNewickItems: a tree over exactly n items, leaves named by names or by index (the first
// leaf decides), and errors that name the leaf at fault or the leaves missing.
func TestParseNewickItems(t *testing.T) {
	names := []string{"a", "b c", "it's", "3"}
	for tr := range AllBinary(4) {
		for _, nm := range [][]string{nil, names} {
			s := tr.Newick(nm)
			back, err := ParseNewickItems(s, 4, names)
			if err != nil {
				t.Fatalf("ParseNewickItems(%q): %v", s, err)
			}
			if !SameClusters(tr, back) {
				t.Fatalf("%q read as %q", s, back.Newick(nil))
			}
		}
	}
	// A label that is a name is a name, even where it reads as an index.
	tr, err := ParseNewickItems("((3,a),('b c','it''s'));", 4, names)
	if err != nil || tr.Canonical().Newick(nil) != "((0,3),(1,2));" {
		t.Errorf("names: %v, %v", tr, err)
	}
	if tr, err := ParseNewickItems("((0:1.5,1)x,(2,3));", 4, nil); err != nil || tr.Items() != 4 {
		t.Errorf("indices with lengths and internal labels: %v", err)
	}
	if tr, err := ParseNewickItems("(0,1,2);", 3, nil); err != nil || tr.IsBinary() {
		t.Errorf("rose tree: %v", err)
	}
	if tr, err := ParseNewickItems("0;", 1, nil); err != nil || tr.Items() != 1 {
		t.Errorf("one leaf: %v", err)
	}
	for _, c := range []struct {
		s, want string
		names   []string
	}{
		{"((0,1),(2,0));", "leaf 0 appears twice", nil},
		{"((a,b c),a);", `unknown leaf label "b"`, names},
		{"((a,'b c'),a);", `leaf "a" appears twice`, names},
		{"((0,1),2);", `1 of the 4 leaves missing: 3`, nil},
		{"((a,'b c'),'it''s');", `1 of the 4 leaves missing: "3"`, names},
		{"((0,1),(2,7));", "leaf 7 is not one of the items 0..3", nil},
		{"((0,1),(2,a));", `leaf label "a" is not an item index`, nil},
		{"((0,1),(2,a));", `leaf label "a" is not an item index`, []string{"a", "b", "c", "d"}}, // the first leaf chose indices
		{"(((((0,1)),2)),3);", "nested deeper than any tree over 4 items", nil},
		{strings.Repeat("(", 1e6) + "0", "nested deeper than any tree over 4 items", nil},
		{"((0,1),(2,3))", "want ';' at the end", nil},
		{"((0,(1)),(2,3));", "internal node", nil},
	} {
		_, err := ParseNewickItems(c.s, 4, c.names)
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.HasPrefix(err.Error(), "newick") {
			s := c.s
			if len(s) > 40 {
				s = s[:40] + "…"
			}
			t.Errorf("ParseNewickItems(%q): %v, want %q", s, err, c.want)
		}
	}
}

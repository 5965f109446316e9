package tree

import (
	"errors"
	"strings"
	"testing"
)

// TestParseNewickItems: a tree over exactly n items, leaves read by index or by name as asked,
// a label read the other way a *LabelError (a whole tree written the other way, or one that
// mixes the two), and errors that name the leaf at fault or the leaves missing.
func TestParseNewickItems(t *testing.T) {
	names := []string{"a", "b c", "it's", "3"}
	for tr := range AllBinary(4) {
		for _, by := range []LeafLabels{ByIndex, ByName} {
			nm := names
			if by == ByIndex {
				nm = nil
			}
			s := tr.Newick(nm)
			back, err := ParseNewickItems(s, 4, names, by)
			if err != nil {
				t.Fatalf("ParseNewickItems(%q, by %s): %v", s, by, err)
			}
			if !SameClusters(tr, back) {
				t.Fatalf("%q read as %q", s, back.Newick(nil))
			}
		}
	}
	// A label that is a name is a name when leaves are read by name, and an index when they
	// are read by index, even where it reads as both.
	tr, err := ParseNewickItems("((3,a),('b c','it''s'));", 4, names, ByName)
	if err != nil || tr.Canonical().Newick(nil) != "((0,3),(1,2));" {
		t.Errorf("names: %v, %v", tr, err)
	}
	perm := []string{"2", "0", "3", "1"} // names that are a permutation of the indices
	for by, want := range map[LeafLabels]string{ByIndex: "((0,1),(2,3));", ByName: "((0,2),(1,3));"} {
		if tr, err := ParseNewickItems("((0,1),(2,3));", 4, perm, by); err != nil || tr.Canonical().Newick(nil) != want {
			t.Errorf("by %s over names %q: %v, %v, want %s", by, perm, tr, err, want)
		}
	}
	if tr, err := ParseNewickItems("((0:1.5,1)x,(2,3));", 4, nil, ByIndex); err != nil || tr.Items() != 4 {
		t.Errorf("indices with lengths and internal labels: %v", err)
	}
	if tr, err := ParseNewickItems("(0,1,2);", 3, nil, ByIndex); err != nil || tr.IsBinary() {
		t.Errorf("rose tree: %v", err)
	}
	if tr, err := ParseNewickItems("0;", 1, nil, ByIndex); err != nil || tr.Items() != 1 {
		t.Errorf("one leaf: %v", err)
	}
	for _, c := range []struct {
		s, want string
		names   []string
		by      LeafLabels
	}{
		{"((0,1),(2,0));", "leaf 0 appears twice", nil, ByIndex},
		{"((a,b c),a);", `unknown leaf label "b"`, names, ByName},
		{"((a,'b c'),a);", `leaf "a" appears twice`, names, ByName},
		{"((0,1),2);", `1 of the 4 leaves missing: 3`, nil, ByIndex},
		{"((a,'b c'),'it''s');", `1 of the 4 leaves missing: "3"`, names, ByName},
		{"((0,1),(2,7));", "leaf 7 is not one of the items 0..3", nil, ByIndex},
		{"((0,1),(2,x));", `leaf label "x" is not an item index`, nil, ByIndex},
		{"((0,1),(2,x));", `leaf label "x" is not an item index`, []string{"a", "b", "c", "d"}, ByIndex},
		{"((0,1),(2,3));", `names`, []string{"a", "b", "c"}, ByName},
		{"((a,b),(c,a));", `items 0 and 3 have the same name "a"`, []string{"a", "b", "c", "a"}, ByName},
		{"(((((0,1)),2)),3);", "nested deeper than any tree over 4 items", nil, ByIndex},
		{strings.Repeat("(", 1e6) + "0", "nested deeper than any tree over 4 items", nil, ByIndex},
		{"((0,1),(2,3))", "want ';' at the end", nil, ByIndex},
		{"((0,(1)),(2,3));", "internal node", nil, ByIndex},
	} {
		_, err := ParseNewickItems(c.s, 4, c.names, c.by)
		var le *LabelError
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.HasPrefix(err.Error(), "newick") || errors.As(err, &le) {
			s := c.s
			if len(s) > 40 {
				s = s[:40] + "…"
			}
			t.Errorf("ParseNewickItems(%q, by %s): %v, want %q", s, c.by, err, c.want)
		}
	}
	// Labels read the other way: the whole tree, or a tree that mixes names and indices.
	for _, c := range []struct {
		s     string
		by    LeafLabels
		label string
		mixed bool
		want  string
	}{
		{"((a,'b c'),('it''s',3));", ByIndex, "a", false, `leaf "a" is one of the names, not an item index (leaves are read by index here)`},
		{"((0,1),('it''s',3));", ByIndex, "it's", true, `leaf "it's" is one of the names, not an item index (the leaves before it were given by index: the tree mixes names and indices)`},
		{"((0,1),(2,3));", ByName, "0", false, `leaf "0" is not one of the names but an item index (leaves are read by name here)`},
		{"((a,'b c'),(2,3));", ByName, "2", true, `the leaves before it were given by name: the tree mixes names and indices`},
	} {
		_, err := ParseNewickItems(c.s, 4, names, c.by)
		var le *LabelError
		if !errors.As(err, &le) || le.Label != c.label || le.Mixed != c.mixed || le.By != c.by || !strings.Contains(err.Error(), c.want) {
			t.Errorf("ParseNewickItems(%q, by %s): %v, want a LabelError for %q (mixed %v): %q", c.s, c.by, err, c.label, c.mixed, c.want)
		}
	}
}

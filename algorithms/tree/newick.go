package tree

import (
	"fmt"
	"strconv"
	"strings"
	"unicode"
)

// Newick writes t in Newick format, ending in ";". Leaves are labelled by names[item] when names is
// non-nil, else by their 0-based item index. Internal nodes are unlabelled and there are no branch
// lengths.
//
// A label is written as it is only when every character is a letter, a digit or one of
// !#$%&*+-./<>?@^`|~ (and it is not empty); any other label is quoted as the Newick standard
// says, in single quotes with a quote inside doubled:
//
//	'a b'  'a_b'  'it''s'
//
// That quotes more than the standard's punctuation, ()[]':;, and blanks, because readers differ
// on the rest: DendroPy reads an unquoted _ as a blank and refuses an unquoted " = \ { or }.
//
// Bio.Phylo (1.80), DendroPy (4.5.2) and ape (5.7) read a label written unquoted as it is (a
// test runs them where they are installed). Of a quoted label, Bio.Phylo and DendroPy read the
// name and ape keeps the quotes in the tip label, except: Bio.Phylo reads no doubled quote or
// line break, and takes \' for an escaped quote, so that a label ending in a backslash runs on;
// DendroPy reads a quoted label of one of ( ) , : ; alone as that punctuation; ape makes the
// label of a doubled quote NA. No writing of those names is read right by them.
func (t *Tree) Newick(names []string) string {
	var b strings.Builder
	var write func(v int)
	write = func(v int) {
		nd := t.Nodes[v]
		if nd.IsLeaf() {
			if names != nil {
				b.WriteString(quoteLabel(names[nd.Item]))
			} else {
				b.WriteString(strconv.Itoa(nd.Item))
			}
			return
		}
		b.WriteByte('(')
		for i, c := range nd.Children {
			if i > 0 {
				b.WriteByte(',')
			}
			write(c)
		}
		b.WriteByte(')')
	}
	write(t.Root)
	b.WriteByte(';')
	return b.String()
}

// newickPunctuation ends an unquoted label when reading.
const newickPunctuation = "()[]':;, \t\n\r"

// plainLabel reports whether s may be written without quotes (see Tree.Newick).
func plainLabel(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) && !strings.ContainsRune("!#$%&*+-./<>?@^`|~", r) {
			return false
		}
	}
	return true
}

func quoteLabel(s string) string {
	if plainLabel(s) {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", "''") + "'"
}

// ParseNewick reads a tree written by Newick (or any Newick text without branch lengths on the
// items' labels). Leaf labels are looked up in names when names is non-nil, else read as 0-based
// item indices. Internal labels and branch lengths are accepted and ignored. The result is
// validated against len(names) items, or against the number of leaves when names is nil.
func ParseNewick(s string, names []string) (*Tree, error) {
	p := newickParser{s: strings.TrimSpace(s)}
	if names != nil {
		p.index = make(map[string]int, len(names))
		for i, n := range names {
			p.index[n] = i
		}
	}
	t := &Tree{}
	root, err := p.node(t)
	if err != nil {
		return nil, err
	}
	p.skipLabelAndLength()
	if p.pos >= len(p.s) || p.s[p.pos] != ';' {
		return nil, p.errorf("want ';' at the end")
	}
	if rest := strings.TrimSpace(p.s[p.pos+1:]); rest != "" {
		return nil, p.errorf("text after ';'")
	}
	t.Root = root
	n := len(names)
	if names == nil {
		n = t.Items()
	}
	if err := t.Validate(n); err != nil {
		return nil, fmt.Errorf("newick: %w", err)
	}
	return t, nil
}

type newickParser struct {
	s     string
	pos   int
	index map[string]int
	// ParseNewickItems: names are the items' names (by reads leaves by them or by index), seen
	// marks the items read, leaves counts them, and depth and maxDepth bound the nesting.
	names           map[string]int
	by              LeafLabels
	seen            []bool
	leaves          int
	depth, maxDepth int
}

// LeafLabels says how ParseNewickItems reads a leaf's label.
type LeafLabels int

const (
	// ByIndex reads a label as the item's 0-based index.
	ByIndex LeafLabels = iota
	// ByName reads a label as the item's name.
	ByName
)

func (by LeafLabels) String() string {
	if by == ByName {
		return "name"
	}
	return "index"
}

// LabelError is ParseNewickItems's error for a leaf label that the other way of reading
// labels would take: a name where labels are indices, or an index where they are names.
type LabelError struct {
	Pos   int        // the byte where the label ends
	Label string     // the label
	By    LeafLabels // how labels are read
	// Mixed: leaves before it were read the asked way, so the tree mixes names and indices;
	// otherwise it is the first leaf, and the whole tree is likely written the other way.
	Mixed bool
}

func (e *LabelError) Error() string {
	what := "one of the names, not an item index"
	if e.By == ByName {
		what = "not one of the names but an item index"
	}
	why := fmt.Sprintf("leaves are read by %s here", e.By)
	if e.Mixed {
		why = fmt.Sprintf("the leaves before it were given by %s: the tree mixes names and indices", e.By)
	}
	return fmt.Sprintf("newick: at byte %d: leaf %q is %s (%s)", e.Pos, e.Label, what, why)
}

// ParseNewickItems reads a Newick tree (ParseNewick's syntax) over exactly the items 0..n−1,
// each leaf's label read as by says: its index, or its name (names[i] is item i's). names may
// be nil for ByIndex, where they only explain a label that is a name; for ByName they must be
// n distinct names. A label read the other way gives a *LabelError; other errors name the leaf
// at fault (an unknown label, an index outside 0..n−1, a leaf given twice) or the items
// missing. Nesting deeper than n, which no tree over n items has, is refused as it is read, so
// that no text can exhaust the stack.
func ParseNewickItems(s string, n int, names []string, by LeafLabels) (*Tree, error) {
	p := newickParser{s: strings.TrimSpace(s), by: by, seen: make([]bool, n), maxDepth: max(n, 1)}
	if by == ByName && len(names) != n {
		return nil, fmt.Errorf("newick: %d names for %d items", len(names), n)
	}
	if names != nil {
		p.names = make(map[string]int, len(names))
		for i, nm := range names {
			if j, dup := p.names[nm]; dup {
				if by == ByName {
					return nil, fmt.Errorf("newick: items %d and %d have the same name %q, so leaves cannot be read by name", j, i, nm)
				}
				continue
			}
			p.names[nm] = i
		}
	}
	if by == ByName {
		p.index = p.names
	}
	t := &Tree{}
	root, err := p.node(t)
	if err != nil {
		return nil, err
	}
	p.skipLabelAndLength()
	if p.pos >= len(p.s) || p.s[p.pos] != ';' {
		return nil, p.errorf("want ';' at the end")
	}
	if rest := strings.TrimSpace(p.s[p.pos+1:]); rest != "" {
		return nil, p.errorf("text after ';'")
	}
	t.Root = root
	var missing []string
	count := 0
	for i, ok := range p.seen {
		if !ok {
			if count++; count <= 10 {
				missing = append(missing, p.leafName(i))
			}
		}
	}
	if count > 0 {
		more := ""
		if count > len(missing) {
			more = fmt.Sprintf(" and %d more", count-len(missing))
		}
		return nil, fmt.Errorf("newick: %d of the %d leaves missing: %s%s", count, n, strings.Join(missing, ", "), more)
	}
	if err := t.Validate(n); err != nil {
		return nil, fmt.Errorf("newick: %w", err)
	}
	return t, nil
}

// leafName writes item i as the text names it: its quoted name, or its index.
func (p *newickParser) leafName(i int) string {
	if p.index != nil {
		for name, j := range p.index {
			if j == i {
				return strconv.Quote(name)
			}
		}
	}
	return strconv.Itoa(i)
}

func (p *newickParser) errorf(format string, args ...any) error {
	return fmt.Errorf("newick: at byte %d: %s", p.pos, fmt.Sprintf(format, args...))
}

func (p *newickParser) node(t *Tree) (int, error) {
	if p.pos >= len(p.s) {
		return 0, p.errorf("unexpected end")
	}
	if p.s[p.pos] != '(' {
		label, err := p.label()
		if err != nil {
			return 0, err
		}
		p.skipLength()
		item, err := p.item(label)
		if err != nil {
			return 0, err
		}
		t.Nodes = append(t.Nodes, Node{Item: item})
		return len(t.Nodes) - 1, nil
	}
	p.pos++ // '('
	p.depth++
	if p.maxDepth > 0 && p.depth > p.maxDepth {
		return 0, p.errorf("nested deeper than any tree over %d items", p.maxDepth)
	}
	defer func() { p.depth-- }()
	var children []int
	for {
		c, err := p.node(t)
		if err != nil {
			return 0, err
		}
		children = append(children, c)
		if p.pos >= len(p.s) {
			return 0, p.errorf("unclosed '('")
		}
		if p.s[p.pos] == ',' {
			p.pos++
			continue
		}
		if p.s[p.pos] == ')' {
			p.pos++
			break
		}
		return 0, p.errorf("want ',' or ')', got %q", p.s[p.pos])
	}
	p.skipLabelAndLength()
	t.Nodes = append(t.Nodes, Node{Children: children, Item: -1})
	return len(t.Nodes) - 1, nil
}

func (p *newickParser) item(label string) (int, error) {
	i := 0
	if p.index != nil {
		var ok bool
		if i, ok = p.index[label]; !ok {
			if j, err := strconv.Atoi(label); p.seen != nil && err == nil && j >= 0 && j < len(p.seen) {
				return 0, &LabelError{Pos: p.pos, Label: label, By: ByName, Mixed: p.leaves > 0}
			}
			return 0, p.errorf("unknown leaf label %q", label)
		}
	} else {
		var err error
		i, err = strconv.Atoi(label)
		_, isName := p.names[label]
		switch {
		case (err != nil || i < 0 || p.seen != nil && i >= len(p.seen)) && isName:
			return 0, &LabelError{Pos: p.pos, Label: label, By: ByIndex, Mixed: p.leaves > 0}
		case err != nil || i < 0:
			return 0, p.errorf("leaf label %q is not an item index", label)
		}
	}
	if p.seen != nil {
		if i >= len(p.seen) {
			return 0, p.errorf("leaf %s is not one of the items 0..%d", label, len(p.seen)-1)
		}
		if p.seen[i] {
			return 0, p.errorf("leaf %s appears twice", p.leafName(i))
		}
		p.seen[i] = true
		p.leaves++
	}
	return i, nil
}

func (p *newickParser) label() (string, error) {
	if p.pos < len(p.s) && p.s[p.pos] == '\'' {
		var b strings.Builder
		p.pos++
		for p.pos < len(p.s) {
			c := p.s[p.pos]
			p.pos++
			if c != '\'' {
				b.WriteByte(c)
				continue
			}
			if p.pos < len(p.s) && p.s[p.pos] == '\'' {
				b.WriteByte('\'')
				p.pos++
				continue
			}
			return b.String(), nil
		}
		return "", p.errorf("unclosed quote")
	}
	start := p.pos
	for p.pos < len(p.s) && !strings.ContainsRune(newickPunctuation, rune(p.s[p.pos])) {
		p.pos++
	}
	if p.pos == start {
		return "", p.errorf("want a leaf label")
	}
	return p.s[start:p.pos], nil
}

func (p *newickParser) skipLabelAndLength() {
	if p.pos < len(p.s) && (p.s[p.pos] == '\'' || !strings.ContainsRune(newickPunctuation, rune(p.s[p.pos]))) {
		_, _ = p.label()
	}
	p.skipLength()
}

func (p *newickParser) skipLength() {
	if p.pos < len(p.s) && p.s[p.pos] == ':' {
		p.pos++
		for p.pos < len(p.s) && !strings.ContainsRune("(),;", rune(p.s[p.pos])) {
			p.pos++
		}
	}
}

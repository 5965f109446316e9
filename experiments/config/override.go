package config

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/hcbench/hcbench/experiments/registry"
	"github.com/hcbench/hcbench/experiments/results"
)

// Overrides: `-set PATH=VALUE` flags change a config as if its file said so. PATH names a key by
// its keys and list indices from the top (seed, datasets[0].jets, algorithms[2].beam_size);
// VALUE is YAML: a scalar (3, 3n, true, a string) or a flow list or mapping ([summary,
// runtime], {name: beam, beam_size: 3}). The value is put into the config's YAML tree before
// decoding, so it is checked as strictly as the file: an unknown key gets the file's "did you
// mean", a bad value the file's message, each naming the flag instead of a line. A key the
// entry does not write is added; an algorithm written as a bare name (`- beam`) becomes the
// mapping {name: beam} to take one. Overrides apply in order, so a later one of the same path
// wins.

// overrideLine is the line given to the YAML nodes of the i-th override: past any line of a
// config within MaxConfigBytes, so that a problem at such a line is told from the file's, and
// relocated to the flag (Config.relocate).
const overrideLine = 1 << 30

// pathStep is one step of an override's path: a mapping key, or a list index when key is "".
type pathStep struct {
	key   string
	index int
}

var pathStepPattern = regexp.MustCompile(`^([A-Za-z0-9_-]+)((?:\[\d+\])*)$`)

// parseOverride splits a -set flag into its path and YAML value.
func parseOverride(flag string) (path string, steps []pathStep, value *yaml.Node, err error) {
	path, text, ok := strings.Cut(flag, "=")
	if !ok || path == "" {
		return "", nil, nil, fmt.Errorf("want PATH=VALUE (for example seed=3, datasets[0].jets=50 or algorithms[2].beam_size=3n)")
	}
	for part := range strings.SplitSeq(path, ".") {
		m := pathStepPattern.FindStringSubmatch(part)
		if m == nil {
			return "", nil, nil, fmt.Errorf("%q is not a key path: keys are separated by '.', list entries are written [i] after their key (for example datasets[0].jets)", path)
		}
		steps = append(steps, pathStep{key: m[1]})
		for idx := range strings.SplitSeq(strings.Trim(m[2], "[]"), "][") {
			if idx == "" {
				continue
			}
			i, err := strconv.Atoi(idx)
			if err != nil {
				return "", nil, nil, fmt.Errorf("list index %q of %q is too large", idx, path)
			}
			steps = append(steps, pathStep{index: i})
		}
	}
	var doc yaml.Node
	if err := yaml.Unmarshal([]byte(text), &doc); err != nil {
		return "", nil, nil, fmt.Errorf("the value %q is not YAML: %s", text, strings.TrimPrefix(err.Error(), "yaml: "))
	}
	if len(doc.Content) == 0 {
		value = &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!null"}
	} else {
		value = doc.Content[0]
	}
	return path, steps, value, nil
}

// setLine gives every node of the tree under n the line line.
func setLine(n *yaml.Node, line int) {
	n.Line, n.Column = line, 0
	for _, c := range n.Content {
		setLine(c, line)
	}
}

// applyOverrides puts the overrides into the expanded config tree root and returns the new root;
// nodes along an override's path are copied before they change, since aliases share them. A
// flag that is malformed, or whose path does not lead into the config (an index past a list's
// end, a key under a scalar), is a problem naming it.
func (d *decoder) applyOverrides(root *yaml.Node, flags []string) *yaml.Node {
	for i, flag := range flags {
		_, steps, value, err := parseOverride(flag)
		if err == nil {
			setLine(value, overrideLine+i)
			var next *yaml.Node
			if next, err = override(root, steps, value, overrideLine+i); err == nil {
				root = next
			}
		}
		if err != nil {
			d.problems = append(d.problems, Problem{File: setFlag(flag), Msg: err.Error()})
		}
	}
	return root
}

// setFlag names a -set flag in a message.
func setFlag(flag string) string { return "-set " + flag }

// override sets the value at steps under root, copying the nodes along the way; line is the line
// of the nodes it adds.
func override(root *yaml.Node, steps []pathStep, value *yaml.Node, line int) (*yaml.Node, error) {
	root = copyNode(root)
	cur, at := root, ""
	for k, s := range steps {
		last := k == len(steps)-1
		if s.key == "" {
			if cur.Kind != yaml.SequenceNode {
				return nil, fmt.Errorf("%s is not a list (it is %s)", orTop(at), registry.Describe(cur))
			}
			if s.index >= len(cur.Content) {
				return nil, fmt.Errorf("%s has %d %s, so [%d] is past its end", at, len(cur.Content), results.Plural(len(cur.Content), "entry", "entries"), s.index)
			}
			at = fmt.Sprintf("%s[%d]", at, s.index)
			if last {
				cur.Content[s.index] = value
				return root, nil
			}
			cur.Content[s.index] = copyNode(cur.Content[s.index])
			cur = cur.Content[s.index]
			continue
		}
		if cur.Kind == yaml.ScalarNode && isAlgorithmEntry(steps[:k]) {
			// `- beam` takes parameters as {name: beam}.
			name := &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: "name", Line: cur.Line, Column: cur.Column}
			*cur = yaml.Node{Kind: yaml.MappingNode, Tag: "!!map", Line: cur.Line, Column: cur.Column, Content: []*yaml.Node{name, copyNode(cur)}}
		}
		if cur.Kind != yaml.MappingNode {
			return nil, fmt.Errorf("%s is not a mapping (it is %s), so it has no key %q", orTop(at), registry.Describe(cur), s.key)
		}
		at = join(at, s.key)
		j := keyIndex(cur, s.key)
		if j < 0 {
			// A new key: the decoder checks it as it checks one written in the file.
			next := value
			if !last {
				next = &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map", Line: line}
			}
			cur.Content = append(cur.Content, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: s.key, Line: line}, next)
			cur = next
			continue
		}
		cur.Content[j] = &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: s.key, Line: line} // the key's line is the flag's
		if last {
			cur.Content[j+1] = value
			return root, nil
		}
		cur.Content[j+1] = copyNode(cur.Content[j+1])
		cur = cur.Content[j+1]
	}
	return root, nil // the last step added a key
}

// isAlgorithmEntry reports whether steps lead to an entry of the algorithms list.
func isAlgorithmEntry(steps []pathStep) bool {
	return len(steps) == 2 && steps[0].key == "algorithms" && steps[1].key == ""
}

// keyIndex returns the position of key in a mapping's Content, or -1.
func keyIndex(m *yaml.Node, key string) int {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			return i
		}
	}
	return -1
}

// copyNode copies a node and its list of children (not the children).
func copyNode(n *yaml.Node) *yaml.Node {
	c := *n
	c.Content = append([]*yaml.Node(nil), n.Content...)
	return &c
}

// lineRef matches a message's reference to another line of the config ("first on line 12"), and
// lineNote its note of the line of the value it is about ("params.x (line 12): …", as an
// algorithm's parameters word it).
var (
	lineRef  = regexp.MustCompile(`\bon line (\d+)`)
	lineNote = regexp.MustCompile(` \(line (\d+)\)`)
)

// relocateLines rewrites a message's references to the lines of overrides ("already used on
// line 12" where line 12 is an override's) to name the flag; a note of the line of the override
// own (-1: none), whose flag the problem names already, is dropped.
func relocateLines(msg string, flags []string, own int) string {
	flagOf := func(re *regexp.Regexp, ref string) (int, bool) {
		n, err := strconv.Atoi(re.FindStringSubmatch(ref)[1])
		i := n - overrideLine
		return i, err == nil && i >= 0 && i < len(flags)
	}
	msg = lineRef.ReplaceAllStringFunc(msg, func(ref string) string {
		if i, ok := flagOf(lineRef, ref); ok {
			return "in " + setFlag(flags[i])
		}
		return ref
	})
	return lineNote.ReplaceAllStringFunc(msg, func(ref string) string {
		i, ok := flagOf(lineNote, ref)
		switch {
		case !ok:
			return ref
		case i == own:
			return ""
		}
		return " (in " + setFlag(flags[i]) + ")"
	})
}

// relocate moves a problem found at an override's line to its flag: the problem then names
// "-set PATH=VALUE" instead of a file and line, and its message loses the key path that the flag
// already names.
func relocate(p Problem, flags []string) Problem {
	i := p.Line - overrideLine
	if i < 0 || i >= len(flags) {
		p.Msg = relocateLines(p.Msg, flags, -1)
		return p
	}
	flag := flags[i]
	path, _, _ := strings.Cut(flag, "=")
	prefixes := []string{"config"}
	for k := range path {
		if path[k] == '.' || path[k] == '[' {
			prefixes = append(prefixes, path[:k])
		}
	}
	prefixes = append(prefixes, path)
	msg := relocateLines(p.Msg, flags, i)
	for j := len(prefixes) - 1; j >= 0; j-- {
		if rest, ok := strings.CutPrefix(msg, prefixes[j]+": "); ok {
			msg = rest
			break
		}
	}
	return Problem{File: setFlag(flag), Msg: msg}
}

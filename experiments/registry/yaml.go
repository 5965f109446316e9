package registry

import (
	"slices"
	"strconv"

	"go.yaml.in/yaml/v3"
)

// YAMLDecoder is implemented by parameter types that read their own YAML value (a beam size
// given as a number or a formula in n, a memory size with a unit); config calls DecodeYAML
// instead of decoding the value by its Go type, and reports its error at the value's line.
type YAMLDecoder interface {
	DecodeYAML(n *yaml.Node) error
	// YAMLType says what the value is, for help: "number or formula in n".
	YAMLType() string
}

// IsNumber reports whether n is a scalar that YAML reads as one of tags. A quoted number ("5",
// or !!str 5) is a string in YAML, and is not a number here either, for integers and floats alike.
func IsNumber(n *yaml.Node, tags ...string) bool {
	return n.Kind == yaml.ScalarNode && slices.Contains(tags, n.ShortTag())
}

// QuotedNumber explains why a quoted number is refused ("" for another node).
func QuotedNumber(n *yaml.Node) string {
	if n.Kind != yaml.ScalarNode || n.ShortTag() != "!!str" {
		return ""
	}
	if _, err := strconv.ParseFloat(n.Value, 64); err != nil {
		return ""
	}
	return " (a quoted number is a string in YAML; write it without quotes)"
}

// Describe names what a node holds, for "want X, got Y" messages.
func Describe(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	}
	if n.ShortTag() == "!!null" {
		return "nothing"
	}
	return strconv.Quote(n.Value)
}

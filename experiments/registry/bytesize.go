package registry

import (
	"fmt"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// ByteSize is a memory size in bytes, written in a config as an integer or as a number with a unit
// (KiB, MiB, GiB, TiB; KB, MB, GB, TB for powers of ten).
type ByteSize int64

var byteUnits = []struct {
	suffix string
	mult   float64
}{
	{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"GiB", 1 << 30}, {"TiB", 1 << 40},
	{"KB", 1e3}, {"MB", 1e6}, {"GB", 1e9}, {"TB", 1e12}, {"B", 1},
}

func (b *ByteSize) DecodeYAML(n *yaml.Node) error {
	if n.Kind != yaml.ScalarNode {
		return fmt.Errorf("want a size such as 8GiB, got %s", Describe(n))
	}
	v, err := ParseByteSize(n.Value)
	if err != nil {
		return err
	}
	*b = v
	return nil
}

// ParseByteSize reads "1073741824", "512MiB", "1.5 GiB" or "8GB".
func ParseByteSize(s string) (ByteSize, error) {
	t := strings.TrimSpace(s)
	mult := 1.0
	for _, u := range byteUnits {
		if strings.HasSuffix(t, u.suffix) {
			t, mult = strings.TrimSpace(strings.TrimSuffix(t, u.suffix)), u.mult
			break
		}
	}
	x, err := strconv.ParseFloat(t, 64)
	if err != nil || !(x >= 0) || x*mult > 1<<62 { // !(x >= 0) also refuses NaN
		return 0, fmt.Errorf("want a size such as 8GiB or 512MiB, got %q", s)
	}
	return ByteSize(x * mult), nil
}

// YAMLType names the value's syntax for help.
func (*ByteSize) YAMLType() string { return "size (bytes, or a number with KiB, MiB, GiB)" }

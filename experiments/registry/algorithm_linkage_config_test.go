package registry_test

import (
	"context"
	"strings"
	"testing"

	"github.com/hcbench/hcbench/experiments/config"
	"github.com/hcbench/hcbench/experiments/plan"
)

// TestLinkageWardConfig: `method: ward` passes config validation on a data set of feature
// vectors, and is reported at its line with distance: weights and for a misspelt method; on jets,
// which have no feature vectors, the plan refuses it.
func TestLinkageWardConfig(t *testing.T) {
	const head = `version: 1
name: ward
datasets:
  - name: gaussian
    generator: mixture
    kind: gaussian
    items: 1
    points: 30
    components: 3
    dims: 2
    separation: 6
    spread: 1
`
	if _, err := config.Parse("ward.yaml", []byte(head+"algorithms:\n  - {name: linkage, method: ward}\n")); err != nil {
		t.Errorf("ward on vectors: %v", err)
	}
	for _, c := range []struct{ what, src, want string }{
		{"weights", head + "algorithms:\n  - {name: linkage, method: ward, distance: weights}\n",
			"ward.yaml:14: algorithms[0].method: ward needs distance: euclidean"},
		{"misspelt", head + "algorithms:\n  - {name: linkage, method: wrd}\n",
			"ward.yaml:14: algorithms[0].method:"},
	} {
		_, err := config.Parse("ward.yaml", []byte(c.src))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err = %v, want %q", c.what, err, c.want)
		}
	}
	jets, err := config.Parse("jets.yaml", []byte(`version: 1
name: ward
datasets:
  - name: qcd
    generator: ginkgo
    jets: 2
    t_cut: 16
algorithms:
  - {name: linkage, method: ward}
`))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := plan.New(context.Background(), jets); err == nil || !strings.Contains(err.Error(), "ward linkage needs feature vectors") {
		t.Errorf("ward on jets: plan error %v", err)
	}
}

package shareddata

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestHint checks that a missing file's hint is chosen from its folder: the derived pam50 CSV
// says how to make it from the TSV, the TSV and the UCI sets name their upstream, and a path
// outside the shared folders gets none.
func TestHint(t *testing.T) {
	cases := []struct {
		path string
		want []string // substrings; nil: no hint
	}{
		{"../../shared/data/pam50/pam50_232x50_zerofilled.csv", []string{"derived from the pam50 matrix", "github.com/hoadley-lab/pam50", "220arrays_nonUBCcommon+12normal_50g.txt", "missing cells as 0"}},
		{"../../shared/data/pam50/220arrays_nonUBCcommon+12normal_50g.txt", []string{"github.com/hoadley-lab/pam50", ".legacy/bioclassifier_R/"}},
		{"/data/uci/wine_data.csv", []string{"sklearn/datasets/data/", "UCI Machine Learning Repository"}},
		{"shared/data/uci/digits.csv.gz", []string{"scikit-learn"}},
		{"../shared/data/clustertrellis/truth_9.jsonl", []string{"github.com/SebastianMacaluso/ClusterTrellis", "ab931e8", "torch"}},
		{"runs/x/data/qcd.jsonl", nil},
		{"uci", nil}, // a file named like a folder is not inside it
	}
	for _, c := range cases {
		h := Hint(filepath.FromSlash(c.path))
		if c.want == nil && h != "" {
			t.Errorf("Hint(%q) = %q, want none", c.path, h)
		}
		if c.want != nil && h == "" {
			t.Errorf("Hint(%q) is empty", c.path)
		}
		for _, w := range c.want {
			if !strings.Contains(h, w) {
				t.Errorf("Hint(%q) = %q, want it to contain %q", c.path, h, w)
			}
		}
	}
}

// TestPathMissing points the shared directory at an empty one: Path must name the file and say
// where to get it.
func TestPathMissing(t *testing.T) {
	t.Setenv(EnvDir, t.TempDir())
	_, err := Path("uci/iris.csv")
	if err == nil {
		t.Fatal("Path of a missing file succeeded")
	}
	for _, w := range []string{filepath.Join("uci", "iris.csv"), "is missing", "scikit-learn", EnvDir} {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("error %q does not contain %q", err, w)
		}
	}
}

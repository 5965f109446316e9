// Package shareddata locates the real data sets that live beside the checkout in ../shared/data
// (pam50, UCI sets, the public ClusterTrellis jets). They are never copied into the repository;
// tests and configs read them in place, and a missing file gives an error that says where to get
// it (Hint, used by config validation, by the run and by Path).
package shareddata

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// EnvDir overrides the location of the shared data directory.
const EnvDir = "HCBENCH_SHARED_DATA"

// Dir returns the shared data directory: $HCBENCH_SHARED_DATA if set, else ../shared/data next to
// the module root (the directory holding go.mod), found by walking up from the working directory.
func Dir() (string, error) {
	if d := os.Getenv(EnvDir); d != "" {
		return d, nil
	}
	wd, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for d := wd; ; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
			return filepath.Join(filepath.Dir(d), "shared", "data"), nil
		}
		if filepath.Dir(d) == d {
			return "", errors.New("shared data: no go.mod above the working directory; set " + EnvDir)
		}
	}
}

// Path returns the path of rel inside the shared data directory, or an error naming the file
// and where to get it when it is missing.
func Path(rel string) (string, error) {
	d, err := Dir()
	if err != nil {
		return "", err
	}
	p := filepath.Join(d, rel)
	if _, err := os.Stat(p); err != nil {
		msg := fmt.Sprintf("shared data file %s is missing", p)
		if h := Hint(p); h != "" {
			msg += "; " + h
		}
		return "", fmt.Errorf("%s (the data sets live beside the checkout in ../shared/data, or set %s)", msg, EnvDir)
	}
	return p, nil
}

// pam50CSV is the one shared file that no upstream distributes: it is derived from the TSV.
const pam50CSV = "pam50_232x50_zerofilled.csv"

// hints say where the files of each folder of the shared data directory come from.
var hints = map[string]string{
	"pam50": "the pam50 matrix is 220arrays_nonUBCcommon+12normal_50g.txt from github.com/hoadley-lab/pam50, " +
		"folder .legacy/bioclassifier_R/ (MIT); see the README, \"Real data beside the checkout\"",
	"uci": "the UCI sets (iris.csv, wine_data.csv, breast_cancer.csv, digits.csv.gz) are scikit-learn's bundled " +
		"copies, in sklearn/datasets/data/ of github.com/scikit-learn/scikit-learn or of any scikit-learn install; " +
		"the originals are in the UCI Machine Learning Repository, archive.ics.uci.edu",
	"clustertrellis": "the jets are data/truth_4.pkl, truth_5.pkl and truth_9.pkl of github.com/SebastianMacaluso/ClusterTrellis " +
		"at ab931e8 (MIT), converted to JSON Lines as the README, \"Jets format\", shows (reading the pickles needs torch)",
}

// Hint says where to get a missing data file, judged from its path: a file inside a folder named
// pam50, uci or clustertrellis (the folders of ../shared/data) gets that folder's source; any
// other path gets "".
func Hint(path string) string {
	parts := strings.FieldsFunc(filepath.ToSlash(filepath.Clean(path)), func(r rune) bool { return r == '/' })
	if len(parts) < 2 {
		return ""
	}
	dirs := parts[:len(parts)-1]
	for i := len(dirs) - 1; i >= 0; i-- {
		h, ok := hints[dirs[i]]
		if !ok {
			continue
		}
		if dirs[i] == "pam50" && parts[len(parts)-1] == pam50CSV {
			return pam50CSV + " is derived from the pam50 matrix, not distributed: transpose " +
				"220arrays_nonUBCcommon+12normal_50g.txt (github.com/hoadley-lab/pam50, folder .legacy/bioclassifier_R/, MIT) " +
				"to one row per sample under the header index,sample,subtype,<genes>, writing missing cells as 0 and empty " +
				"subtypes as Unknown (../shared/data/pam50/README.md); or read the matrix itself with format: pam50"
		}
		return h
	}
	return ""
}

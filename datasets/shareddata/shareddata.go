// Package shareddata locates the real data sets that live beside the checkout in ../shared/data
// (pam50, UCI sets, the public ClusterTrellis jets). They are never copied into the repository;
// tests and configs read them in place, and a missing file gives an error that says where to get it.
package shareddata

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
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
// and where the data come from when it is missing.
func Path(rel string) (string, error) {
	d, err := Dir()
	if err != nil {
		return "", err
	}
	p := filepath.Join(d, rel)
	if _, err := os.Stat(p); err != nil {
		return "", fmt.Errorf("shared data file %s is missing: the data sets live beside the checkout in ../shared/data (see the README, \"Data\", for downloads), or set %s", p, EnvDir)
	}
	return p, nil
}

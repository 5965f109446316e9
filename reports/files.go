package reports

import (
	"io"

	"github.com/hcbench/hcbench/experiments/results"
)

// writeFile writes the file path with write, through a temporary file synced and renamed into
// place (results.CreateAtomic), as every report file is written: a report killed or stopped by a
// full disk leaves each file whole, as it was before or as it is now, never empty or cut, and a
// file is listed as written only once it is all there.
func writeFile(path string, write func(io.Writer) error) error {
	f, err := results.CreateAtomic(path)
	if err != nil {
		return err
	}
	defer f.Close()
	if err := write(f); err != nil {
		return err
	}
	return f.Commit()
}

package results

import (
	"bufio"
	"encoding/json"
	"errors"
	"io"
	"os"
)

// The run log's last entry of a run that ended (the runner writes it): the process's peak
// resident memory beside the plan's estimate, in bytes under PeakKey and EstimateKey, so that
// the next batch job's memory limit, and the check of the estimates, can be read from a run.
const (
	PeakMsg     = "memory"
	PeakKey     = "peak_bytes"
	EstimateKey = "estimate_bytes"
)

// LoggedPeak returns the peak resident memory (Linux's VmHWM) that the run whose log is at path
// logged as it ended, and false where it logged none (a run that did not end, a system without
// /proc). The usage that wait4 returns for a child process would not do: Linux carries the peak
// of the process that started a program over into the program's across exec. Lines longer than
// the reader's buffer (an external program's stderr, bounded elsewhere) are skipped.
func LoggedPeak(path string) (int64, bool, error) {
	f, err := OpenNoFollow(path, os.O_RDONLY, 0)
	if err != nil {
		return 0, false, err
	}
	defer f.Close()
	r := bufio.NewReaderSize(f, 64<<10)
	var peak int64
	for {
		line, isPrefix, err := r.ReadLine()
		if errors.Is(err, io.EOF) {
			return peak, peak > 0, nil
		}
		if err != nil {
			return 0, false, err
		}
		if isPrefix {
			for isPrefix && err == nil {
				_, isPrefix, err = r.ReadLine()
			}
			continue
		}
		var entry map[string]any
		if json.Unmarshal(line, &entry) != nil || entry["msg"] != PeakMsg {
			continue
		}
		if v, ok := entry[PeakKey].(float64); ok && v > 0 {
			peak = int64(v) // the last one: a resumed run logs one a session
		}
	}
}

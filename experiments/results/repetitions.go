package results

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/hcbench/hcbench/internal/linelimit"
)

// OrderInterleaved is how a run with repetitions orders them (Repetitions.Order): repetition-major
// in a seeded random order. Round r (1 to Count) runs once every task whose repeat is at least r,
// in ascending order of seeds.Uint64(Seed, "repetition=r|"+key), so that the same seed gives the
// same order, whatever the shard, the resume or the workers; a repetition of round r+1 may start
// while round r's last are still running, and starts follow the order.
const OrderInterleaved = "interleaved"

// Repetitions says how a run with repeated tasks (-count K, an entry's repeat) ordered their
// repetitions; a run whose tasks all run once has none.
type Repetitions struct {
	// Count is the largest repeat among the run's tasks: the number of rounds.
	Count int `json:"count"`
	// Order is OrderInterleaved.
	Order string `json:"order"`
	// Seed is the seed the order was drawn from: the run's seed.
	Seed uint64 `json:"seed,string"`
}

// Repetition is a line of the repetitions file (RepetitionsFile): one finished repetition of a
// task whose record is not yet written, so that a run killed between the repetitions of a task
// loses none of its finished ones. A resume reads them back and runs only the missing ones.
type Repetition struct {
	Key string `json:"key"`
	// N is the repetition's number, 1 to the task's repeat.
	N       int     `json:"repetition"`
	Seconds float64 `json:"seconds"`
	// Digest is the SHA-256 (hex) of the repetition's record without its times, which every
	// repetition of a deterministic algorithm shares.
	Digest string `json:"digest"`
	// Record is the first repetition's record (without times): the one the task's record is
	// made from, as without repetitions. Other repetitions have none.
	Record *Record `json:"record,omitempty"`
}

// WriteRepetition appends a repetition to a repetitions file as one JSON line.
func (w *Writer) WriteRepetition(r *Repetition) error {
	b, err := json.Marshal(r)
	if err != nil {
		return fmt.Errorf("repetition %d of %s: %w", r.N, r.Key, err)
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	_, err = w.f.Write(append(b, '\n'))
	return err
}

// ReadRepetitions reads a repetitions file: its repetitions, and how many lines it dropped that
// are none (the torn last line a kill leaves, or a damaged one). A missing file holds none.
func ReadRepetitions(path string) (reps []Repetition, dropped int, err error) {
	f, err := OpenNoFollow(path, os.O_RDONLY, 0)
	if errors.Is(err, os.ErrNotExist) {
		return nil, 0, nil
	}
	if err != nil {
		return nil, 0, err
	}
	defer f.Close()
	lr := linelimit.NewReader(f, MaxLine)
	for {
		raw, err := lr.Line()
		if err == io.EOF {
			return reps, dropped, nil
		}
		if e, ok := linelimit.IsTooLong(err); ok {
			return nil, 0, fmt.Errorf("%s:%d: line longer than %s, the limit for one line; remove the file to run the repetitions of the unfinished tasks again", path, e.Line, linelimit.Size(e.Limit))
		}
		if err != nil {
			return nil, 0, fmt.Errorf("%s:%d: %w", path, lr.Lines()+1, err)
		}
		b := bytes.TrimSpace(raw)
		if len(b) == 0 {
			continue
		}
		var r Repetition
		if raw[len(raw)-1] != '\n' || json.Unmarshal(b, &r) != nil || r.Key == "" || r.N < 1 || r.Record != nil && r.Record.Schema != RecordSchema {
			dropped++
			continue
		}
		reps = append(reps, r)
	}
}

package jets_test

import (
	"io"
	"os"
	"strings"
	"testing"

	"github.com/hcbench/hcbench/datasets/jets"
	"github.com/hcbench/hcbench/internal/limittest"
)

// TestReadLineTooLong: a line of 200 MiB without a newline, after a good jet and a blank line, is
// refused with the file, its line and the 64 MiB limit, having read and allocated about the
// limit: not the 200 MiB, nor twice the limit, which a doubling buffer (bufio.Scanner's) takes.
func TestReadLineTooLong(t *testing.T) {
	src := &limittest.Stream{Byte: ' ', Len: 200 << 20}
	var err error
	a := limittest.Allocated(func() {
		_, err = jets.Read(io.MultiReader(strings.NewReader(jet3+"\n\n{"), src), "x.jsonl")
	})
	want := "x.jsonl:3: line longer than 64 MiB (67108864 bytes), the limit for one jet; stopped reading there"
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("error %v, want it to contain %q", err, want)
	}
	const slack = 3 << 20 // buffers, the last 1 MiB chunk of the line, the jet before it
	if src.Served > jets.MaxLine+slack || a > jets.MaxLine+slack {
		t.Errorf("read %d bytes of the stream and allocated %d, want about the limit %d", src.Served, a, jets.MaxLine)
	}
	t.Logf("read %d bytes, allocated %d", src.Served, a)
}

// TestReadFileDevZero: /dev/zero read as a jets file fails at the limit.
func TestReadFileDevZero(t *testing.T) {
	if _, err := os.Stat("/dev/zero"); err != nil {
		t.Skip("no /dev/zero")
	}
	_, err := jets.ReadFile("/dev/zero")
	if want := "/dev/zero:1: line longer than 64 MiB"; err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("error %v, want it to contain %q", err, want)
	}
}

// TestReadLimit: ReadLimit keeps the first limit jets and stops reading there, so that a config's
// limit holds only the jets it uses (a bad line after them is not read).
func TestReadLimit(t *testing.T) {
	other := strings.Replace(jet3, `"id": "a"`, `"id": "b"`, 1)
	r := strings.NewReader(jet3 + "\n\n" + other + "\nnot a jet\n")
	js, err := jets.ReadLimit(r, "x.jsonl", 2)
	if err != nil || len(js) != 2 || js[1].ID != "b" {
		t.Fatalf("ReadLimit 2: %d jets, %v", len(js), err)
	}
	if _, err := jets.ReadLimit(strings.NewReader(jet3+"\nnot a jet\n"), "x.jsonl", 0); err == nil || !strings.Contains(err.Error(), "x.jsonl:2: not a jet") {
		t.Fatalf("ReadLimit 0 reads every line: %v", err)
	}
}

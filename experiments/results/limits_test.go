package results

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hcbench/hcbench/internal/limittest"
)

const goodRecord = `{"schema":1,"experiment":"e","key":"k","dataset":"d","item":"0","algorithm":"greedy","algorithm_name":"greedy","params":{},"n":3,"seed":"7","seconds":0.5}` + "\n"

// TestReadLineTooLong: a line of 200 MiB without a newline, after a good record, is refused with
// the file, its line and the 64 MiB limit, having read and allocated about the limit, not the
// 200 MiB (bufio.Reader.ReadBytes, used before, held it all, growing by doubling).
func TestReadLineTooLong(t *testing.T) {
	src := &limittest.Stream{Byte: '{', Len: 200 << 20}
	var err error
	a := limittest.Allocated(func() {
		_, err = Read(io.MultiReader(strings.NewReader(goodRecord), src), "results.jsonl")
	})
	want := "results.jsonl:2: line longer than 64 MiB (67108864 bytes), the limit for one result record"
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("error %v, want it to contain %q", err, want)
	}
	const slack = 3 << 20 // buffers, the last 1 MiB chunk of the line, the record before it
	if src.Served > MaxLine+slack || a > MaxLine+slack {
		t.Errorf("read %d bytes of the stream and allocated %d, want about the limit %d", src.Served, a, MaxLine)
	}
}

// TestReadManifestTooLarge: a manifest larger than 16 MiB is refused with its size before it is
// read when the size is known, and after 16 MiB read when it is not (/dev/zero).
func TestReadManifestTooLarge(t *testing.T) {
	path := filepath.Join(t.TempDir(), "manifest.json")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(MaxManifestBytes + 1); err != nil { // sparse: nothing written
		t.Fatal(err)
	}
	f.Close()
	var a uint64
	a = limittest.Allocated(func() { _, err = ReadManifest(path) })
	want := path + ": 16.0 MiB (16777217 bytes), larger than 16 MiB (16777216 bytes), the limit for a run manifest"
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("error %v, want it to contain %q", err, want)
	}
	if a > 1<<20 {
		t.Errorf("allocated %d bytes refusing a file by its size", a)
	}

	if _, err := os.Stat("/dev/zero"); err == nil {
		a = limittest.Allocated(func() { _, err = ReadManifest("/dev/zero") })
		want := "/dev/zero: larger than 16 MiB (16777216 bytes), the limit for a run manifest"
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("error %v, want it to contain %q", err, want)
		}
		if a > 2*MaxManifestBytes+1<<20 {
			t.Errorf("allocated %d bytes reading /dev/zero, want at most twice the limit %d", a, MaxManifestBytes)
		}
	}

	// A manifest at the limit is read (and here refused as JSON, not for its size).
	if err := os.WriteFile(path, []byte(`{"schema": 1}`+strings.Repeat(" ", MaxManifestBytes-13)), 0o644); err != nil {
		t.Fatal(err)
	}
	if m, err := ReadManifest(path); err != nil || m.Schema != 1 {
		t.Errorf("manifest at the limit: %v", err)
	}
}

package results

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestLoggedPeak: the last memory entry of a log counts (a resumed run logs one a session);
// lines that are not JSON, other entries, and lines longer than the reader's buffer are passed
// over; a log without one says so.
func TestLoggedPeak(t *testing.T) {
	dir := t.TempDir()
	long := `{"msg":"memory","peak_bytes":999,"x":"` + strings.Repeat("y", 200<<10) + `"}`
	cases := []struct {
		name, log string
		want      int64
		ok        bool
	}{
		{"one session", `{"time":"t","level":"INFO","msg":"run","tasks":3}` + "\n" + `{"msg":"memory","peak":"24 MiB","peak_bytes":25165824,"estimate_bytes":30000000}` + "\n", 25165824, true},
		{"two sessions", `{"msg":"memory","peak_bytes":100}` + "\nnot json\n" + `{"msg":"memory","peak_bytes":200}` + "\n", 200, true},
		{"a long line", `{"msg":"memory","peak_bytes":100}` + "\n" + long + "\n", 100, true},
		{"unterminated", `{"msg":"memory","peak_bytes":100}`, 100, true},
		{"cut short", `{"msg":"memory","peak_bytes":100}` + "\n" + `{"msg":"memory","peak_b`, 100, true},
		{"none", `{"msg":"run"}` + "\n" + `{"msg":"memorys","peak_bytes":5}` + "\n", 0, false},
	}
	for _, c := range cases {
		path := filepath.Join(dir, strings.ReplaceAll(c.name, " ", "-")+".log")
		if err := os.WriteFile(path, []byte(c.log), 0o644); err != nil {
			t.Fatal(err)
		}
		got, ok, err := LoggedPeak(path)
		if err != nil || got != c.want || ok != c.ok {
			t.Errorf("%s: LoggedPeak = %d, %v, %v; want %d, %v, nil", c.name, got, ok, err, c.want, c.ok)
		}
	}
	if _, _, err := LoggedPeak(filepath.Join(dir, "absent.log")); err == nil {
		t.Error("LoggedPeak of an absent log: no error")
	}
}

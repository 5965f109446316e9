package badlines

import (
	"errors"
	"strings"
	"testing"
)

// TestList: problems keep their order, file and line; beyond Max they are counted; no problem is
// a nil error.
func TestList(t *testing.T) {
	l := New("f.csv")
	if l.Err() != nil {
		t.Fatalf("empty list: %v", l.Err())
	}
	l.Add(0, errors.New("empty file"))
	for line := 2; line <= Max+3; line++ {
		l.Addf(line, "bad %d", line)
	}
	err := l.Err()
	got := strings.Split(err.Error(), "\n")
	want := []string{"f.csv: empty file", "f.csv:2: bad 2", "f.csv:3: bad 3"}
	if len(got) != Max+1 || l.Len() != Max+3 {
		t.Fatalf("%d lines, %d problems:\n%v", len(got), l.Len(), err)
	}
	for i, w := range want {
		if got[i] != w {
			t.Errorf("line %d = %q, want %q", i, got[i], w)
		}
	}
	if last := got[Max]; last != "f.csv: and 3 more bad lines" {
		t.Errorf("last line %q", last)
	}
	if j, ok := err.(interface{ Unwrap() []error }); !ok || len(j.Unwrap()) != Max+1 {
		t.Error("the error does not list its problems through Unwrap")
	}
}

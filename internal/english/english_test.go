package english

import "testing"

func TestCount(t *testing.T) {
	for n, want := range map[int]string{0: "0 data sets", 1: "1 data set", 2: "2 data sets", -1: "-1 data sets"} {
		if got := Count(n, "data set", "data sets"); got != want {
			t.Errorf("Count(%d) = %q, want %q", n, got, want)
		}
	}
}

package english

import "testing"

func TestCount(t *testing.T) {
	for n, want := range map[int]string{0: "0 data sets", 1: "1 data set", 2: "2 data sets", -1: "-1 data sets"} {
		if got := Count(n, "data set", "data sets"); got != want {
			t.Errorf("Count(%d) = %q, want %q", n, got, want)
		}
	}
}

func TestThousands(t *testing.T) {
	for n, want := range map[int]string{0: "0", 7: "7", 999: "999", 1000: "1,000", 105600: "105,600", 1234567: "1,234,567", -1000: "-1,000", -999: "-999"} {
		if got := Thousands(n); got != want {
			t.Errorf("Thousands(%d) = %q, want %q", n, got, want)
		}
	}
}

func TestClosest(t *testing.T) {
	known := []string{"wut", "sipu", "fcps", "graves", "other", "uci"}
	for name, want := range map[string]string{"wtu": "wut", "sipuu": "sipu", "grave": "graves", "xyzzy": "", "uci": "uci"} {
		if got := Closest(name, known); got != want {
			t.Errorf("Closest(%q) = %q, want %q", name, got, want)
		}
	}
}

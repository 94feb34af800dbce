package bench

import "testing"

func TestStatCPUSeconds(t *testing.T) {
	for _, c := range []struct {
		name, stat string
		want       float64
	}{
		{"plain", "4242 (rangecopy) S 1 4242 4242 0 -1 4194560 900 0 0 0 250 75 0 0 20 0 12 0 100 0", 3.25},
		{"name with spaces and parentheses", "7 (a (b) c) R 1 7 7 0 -1 0 0 0 0 0 100 100 0 0", 2},
		{"no name", "7 R 1 7", 0},
		{"short", "7 (x) R 1 2 3", 0},
		{"not numbers", "7 (x) R 1 7 7 0 -1 0 0 0 0 0 a b 0 0", 0},
	} {
		if got := statCPUSeconds(c.stat); got != c.want {
			t.Errorf("%s: statCPUSeconds = %v, want %v", c.name, got, c.want)
		}
	}
}

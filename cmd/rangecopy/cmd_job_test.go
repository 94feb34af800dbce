package main

import "testing"

func TestParseRate(t *testing.T) {
	for _, c := range []struct {
		in   string
		want float64
		ok   bool
	}{
		{"50MB/s", 50e6, true}, {"1.5GiB/s", 1.5 * (1 << 30), true}, {"1048576", 1 << 20, true},
		{"0", 0, true}, {"0/s", 0, true}, {"-5MB/s", 0, false}, {"fast", 0, false}, {"5XB/s", 0, false},
	} {
		got, err := parseRate(c.in)
		if (err == nil) != c.ok || got != c.want {
			t.Errorf("parseRate(%q) = %v, %v; want %v, ok %v", c.in, got, err, c.want, c.ok)
		}
	}
}

package units

import (
	"math"
	"strings"
	"testing"
)

func TestParseBytes(t *testing.T) {
	for _, c := range []struct {
		in   string
		want float64
		err  string
	}{
		{"512MiB", 512 << 20, ""},
		{"1.5 GiB", 1.5 * (1 << 30), ""},
		{"200MB", 200e6, ""},
		{"4k", 4096, ""},
		{"17", 17, ""},
		{"12 B", 12, ""},
		{"", 0, "no number"},
		{"MiB", 0, "no number"},
		{"1.2.3MB", 0, "bad number"},
		{"5 parsecs", 0, "unknown unit"},
	} {
		got, err := ParseBytes(c.in)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("ParseBytes(%q) = %v, %v; want error with %q", c.in, got, err, c.err)
			}
			continue
		}
		if err != nil || got != c.want {
			t.Errorf("ParseBytes(%q) = %v, %v; want %v", c.in, got, err, c.want)
		}
	}
}

func TestParseRate(t *testing.T) {
	if v, err := ParseRate("200MB/s"); err != nil || v != 200e6 {
		t.Errorf("ParseRate(200MB/s) = %v, %v", v, err)
	}
	if v, err := ParseRate("1GiB"); err != nil || v != 1<<30 {
		t.Errorf("ParseRate(1GiB) = %v, %v", v, err)
	}
	for _, bad := range []string{"0", "0MB/s", "fast", "-1MB/s"} {
		if _, err := ParseRate(bad); err == nil || !strings.Contains(err.Error(), bad) {
			t.Errorf("ParseRate(%q): error %v, want one naming the input", bad, err)
		}
	}
}

func TestParseBandwidth(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want float64
		err  bool
	}{
		{in: "200MB/s", want: 200e6},
		{in: "1.5GiB/s", want: 1.5 * (1 << 30)},
		{in: "1048576", want: 1 << 20},
		{in: "64KiB/s", want: 64 << 10},
		{in: "10M", want: 10 << 20},
		{in: "2 GB/s", want: 2e9},
		{in: "100b/s", want: 100},
		{in: "1TB", want: 1e12},
		{in: "", err: true},
		{in: "fast", err: true},
		{in: "0MB/s", err: true},
		{in: "10XB/s", err: true},
		{in: "1.2.3MB", err: true},
		{in: "-5MB/s", err: true},
	} {
		got, err := ParseRate(tc.in)
		if (err != nil) != tc.err {
			t.Errorf("ParseRate(%q) err = %v, want error %v", tc.in, err, tc.err)
			continue
		}
		if !tc.err && math.Abs(got-tc.want) > 1e-6 {
			t.Errorf("ParseRate(%q) = %v, want %v", tc.in, got, tc.want)
		}
	}
}

func TestParseLimit(t *testing.T) {
	for in, want := range map[string]float64{"0": 0, "0/s": 0, "none": 0, "Unlimited": 0, "10MB/s": 10e6,
		"1.5GiB/s": 1.5 * (1 << 30), "1048576": 1 << 20} {
		if got, err := ParseLimit(in); err != nil || got != want {
			t.Errorf("ParseLimit(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, bad := range []string{"-3", "-5MB/s", "fast", "5XB/s"} {
		if _, err := ParseLimit(bad); err == nil {
			t.Errorf("ParseLimit(%q): no error", bad)
		}
	}
}

// TestParseRateMax refuses rates past MaxRate, whatever their spelling, naming the limit.
func TestParseRateMax(t *testing.T) {
	for _, c := range []struct {
		in   string
		want float64
		err  string
	}{
		{"1TB/s", 1e12, ""},
		{"2e8", 2e8, ""},
		{"2.5E+3KB/s", 2.5e6, ""},
		{"1e21GB/s", 0, "1TB/s"},
		{"1.01TB/s", 0, "1TB/s"},
		{"1TiB/s", 0, "1TB/s"},
		{"99999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999TB/s", 0, "1TB/s"},
		{"1e", 0, "unknown unit"},
	} {
		got, err := ParseRate(c.in)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("ParseRate(%q) = %v, %v; want an error naming %q", c.in, got, err, c.err)
			}
			continue
		}
		if err != nil || got != c.want {
			t.Errorf("ParseRate(%q) = %v, %v; want %v", c.in, got, err, c.want)
		}
	}
	if _, err := ParseLimit("1e21GB/s"); err == nil || !strings.Contains(err.Error(), "1TB/s") {
		t.Errorf("ParseLimit(1e21GB/s): %v; want the limit named", err)
	}
	if _, err := ParseBytes("1e3"); err == nil {
		t.Error("ParseBytes(1e3): no error; sizes take no exponent")
	}
}

package render

import (
	"math"
	"testing"
	"time"

	"rangecopy/rowkey"
)

func TestRows(t *testing.T) {
	for _, tc := range []struct {
		start, stop []byte
		want        string
	}{
		{nil, nil, "all rows"},
		{nil, []byte("k500"), `[first row, "k500")`},
		{[]byte("k100"), nil, `["k100", last row]`},
		{[]byte("k100"), []byte("k500"), `["k100", "k500")`},
		{[]byte{0, 0xff, '\\'}, []byte(`a"b c`), `["\x00\xFF\x5C", "a\x22b c")`},
		{[]byte{}, []byte{0}, `[first row, "\x00")`},
	} {
		if got := RowRange(tc.start, tc.stop); got != tc.want {
			t.Errorf("RowRange(%q, %q) = %s, want %s", tc.start, tc.stop, got, tc.want)
		}
		if got := Rows(rowkey.Format(tc.start), rowkey.Format(tc.stop)); got != tc.want {
			t.Errorf("Rows(%q, %q) = %s, want %s", tc.start, tc.stop, got, tc.want)
		}
	}
	// A key written back parses to its bytes.
	k := []byte("a\"b\x00\\")
	s := Key(k)
	back, err := rowkey.Parse(s[1 : len(s)-1])
	if err != nil || string(back) != string(k) {
		t.Errorf("Key(%q) = %s reads back as %q, %v", k, s, back, err)
	}
	if StartRow("") != "first row" || StopRow("") != "last row" || StartRow(`r\x01`) != `"r\x01"` {
		t.Errorf("bounds: %s %s %s", StartRow(""), StopRow(""), StartRow(`r\x01`))
	}
}

func TestTimes(t *testing.T) {
	t0 := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC).UnixMilli()
	for _, tc := range []struct {
		from, until int64
		want        string
	}{
		{0, 0, "all time"},
		{0, math.MaxInt64, "all time"},
		{-5, math.MaxInt64, "all time"},
		{t0, 0, "from 2026-03-01T12:00:00Z on"},
		{t0, math.MaxInt64, "from 2026-03-01T12:00:00Z on"},
		{0, t0, "before 2026-03-01T12:00:00Z"},
		{t0, t0 + 300_250, "[2026-03-01T12:00:00Z, 2026-03-01T12:05:00.25Z)"},
		{1, 2, "[1970-01-01T00:00:00.001Z, 1970-01-01T00:00:00.002Z)"},
	} {
		if got := Times(tc.from, tc.until); got != tc.want {
			t.Errorf("Times(%d, %d) = %s, want %s", tc.from, tc.until, got, tc.want)
		}
	}
	if got := TimesPtr(nil, &t0); got != "before 2026-03-01T12:00:00Z" {
		t.Errorf("TimesPtr = %s", got)
	}
	berlin := time.FixedZone("CET", 3600)
	if got := Time(time.Date(2026, 3, 1, 13, 0, 0, 0, berlin)); got != "2026-03-01T12:00:00Z" {
		t.Errorf("Time in CET = %s, want UTC", got)
	}
	if Time(time.Time{}) != "never" {
		t.Error("the zero time")
	}
}

func TestCounts(t *testing.T) {
	for _, tc := range []struct {
		n    map[string]int
		want string
	}{
		{map[string]int{"ran": 4}, "4 ran"},
		{map[string]int{"skipped": 1, "ran": 4, "failed": 0}, "4 ran, 1 skipped"},
		{map[string]int{"zzz": 2, "running": 1, "aaa": 3}, "1 running, 3 aaa, 2 zzz"},
		{nil, "none"},
	} {
		if got := Outcomes(tc.n); got != tc.want {
			t.Errorf("Outcomes(%v) = %s, want %s", tc.n, got, tc.want)
		}
	}
}

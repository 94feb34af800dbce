package bench

import (
	"bytes"
	"testing"
)

func TestRowKey(t *testing.T) {
	// What Java's String.format("%016x-%083d", i * 0x9E3779B97F4A7C15L, i)
	// gives (Java prints a negative long in %x as its two's complement).
	k := RowKey(1)
	if len(k) != KeyBytes {
		t.Fatalf("key is %d bytes, want %d", len(k), KeyBytes)
	}
	if !bytes.HasPrefix(k, []byte("9e3779b97f4a7c15-000")) || !bytes.HasSuffix(k, []byte("0001")) {
		t.Fatalf("RowKey(1) = %s", k)
	}
	if got := RowKey(2)[:16]; string(got) != "3c6ef372fe94f82a" {
		t.Fatalf("RowKey(2) starts %s, want 3c6ef372fe94f82a (wrapped multiply)", got)
	}
	if len(RowKey(1_000_000_000)) != KeyBytes {
		t.Fatal("a large row number changes the key length")
	}
}

func TestTimestampAndNewest(t *testing.T) {
	const rows, start, span = 1000, 1_700_000_000_000, 7 * 24 * 3600 * 1000
	if got := Timestamp(0, rows, start, span); got != start {
		t.Fatalf("Timestamp(0) = %d", got)
	}
	if got := Timestamp(rows, rows, start, span); got != start+span {
		t.Fatalf("Timestamp(rows) = %d", got)
	}
	from := NewestFrom(rows, 0.01)
	if from != 990 {
		t.Fatalf("NewestFrom = %d, want 990", from)
	}
	// Every older row is strictly older than the first of the newest 1%.
	if Timestamp(from-1, rows, start, span) >= Timestamp(from, rows, start, span) {
		t.Fatal("timestamps do not grow with the row number")
	}
}

func TestRangeShare(t *testing.T) {
	// About 10% of rows fall in [RangeStart, RangeStop).
	const n = 100000
	in := 0
	for i := int64(0); i < n; i++ {
		if InRange(RowKey(i), RangeStart, RangeStop) {
			in++
		}
	}
	if in < n*9/100 || in > n*11/100 {
		t.Fatalf("%d of %d rows in the range, want about 10%%", in, n)
	}
	if !InRange([]byte("x"), nil, nil) || InRange([]byte("a"), []byte("b"), nil) || InRange([]byte("b"), nil, []byte("b")) {
		t.Fatal("InRange ends wrong")
	}
}

func TestRowsForSize(t *testing.T) {
	if got := RowsForSize(2 << 30); got < 1_400_000 || got > 1_800_000 {
		t.Fatalf("RowsForSize(2 GiB) = %d", got)
	}
	if RowsForSize(0) != 1 {
		t.Fatal("RowsForSize(0) != 1")
	}
}

func TestParseSize(t *testing.T) {
	for in, want := range map[string]int64{"2GiB": 2 << 30, "16MiB": 16 << 20, "1.5G": 3 << 29, "100MB": 100e6, "4096": 4096, " 8 KiB ": 8 << 10} {
		got, err := ParseSize(in)
		if err != nil || got != want {
			t.Errorf("ParseSize(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, bad := range []string{"", "big", "-1GiB", "0", "1XB", "0.1B"} {
		if _, err := ParseSize(bad); err == nil {
			t.Errorf("ParseSize(%q) accepted", bad)
		}
	}
}

func TestParseMethods(t *testing.T) {
	all, err := ParseMethods("all")
	if err != nil || len(all) != len(Methods) {
		t.Fatalf("ParseMethods(all) = %v, %v", all, err)
	}
	got, err := ParseMethods("rangecopy, raw-hdfs,rangecopy")
	if err != nil || len(got) != 2 || got[0] != RangecopyFull || got[1] != RawHDFS {
		t.Fatalf("ParseMethods = %v, %v", got, err)
	}
	if _, err := ParseMethods("rangecopy-bandwidth"); err == nil {
		t.Error("bandwidth without the full copy was accepted")
	}
	if _, err := ParseMethods("raw-hdfs,distcp"); err == nil {
		t.Error("an unknown method was accepted")
	}
}

func TestOverlaps(t *testing.T) {
	for _, tc := range []struct {
		start, end string
		want       bool
	}{
		{"", "1", false}, {"7", "8", false}, {"8", "9", true}, {"9", "a", true}, {"a", "b", false}, {"f", "", false}, {"", "", true}, {"9999", "9a", false}, {"99", "9a", true},
	} {
		if got := overlaps([]byte(tc.start), []byte(tc.end), RangeStart, RangeStop); got != tc.want {
			t.Errorf("overlaps([%q, %q)) = %v, want %v", tc.start, tc.end, got, tc.want)
		}
	}
}

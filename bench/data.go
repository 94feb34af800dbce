package bench

import (
	"bytes"
	"fmt"
)

// The benchmark table's shape: every row has a KeyBytes-byte key, one cell
// "d:v" of DValueBytes random bytes and one cell "m:v" of MValueBytes random
// bytes, both with the row's timestamp. testenv's BenchLoad writes it.
const (
	KeyBytes    = 100
	DValueBytes = 1000
	MValueBytes = 100
	// rowDiskBytes estimates a row's size in HFiles: per cell the
	// KeyValue framing (lengths, family, qualifier, timestamp, type, tags
	// length) of about 25 bytes plus key and value.
	rowDiskBytes = 2*(KeyBytes+25) + DValueBytes + MValueBytes
	// keySpread spreads consecutive row numbers over the key space (an odd
	// 64-bit constant, the golden ratio's).
	keySpread = 0x9E3779B97F4A7C15
)

// Families are the benchmark table's column families.
var Families = []string{"d", "m"}

// RowsForSize is how many rows make a table of about size bytes of HFiles.
func RowsForSize(size int64) int64 {
	return max(size/rowDiskBytes, 1)
}

// RowKey is row i's key, as BenchLoad writes it: 16 hex digits of i spread
// over the key space, a dash, and i in 83 decimal digits.
func RowKey(i int64) []byte {
	return fmt.Appendf(nil, "%016x-%083d", uint64(i)*keySpread, i)
}

// Timestamp is row i's timestamp in a table of rows rows written from startMs
// over spanMs, as BenchLoad computes it (in float64, truncated).
func Timestamp(i, rows, startMs, spanMs int64) int64 {
	return startMs + int64(float64(i)*float64(spanMs)/float64(rows))
}

// NewestFrom is the first row of the newest frac of rows (by timestamp, which
// grows with the row number).
func NewestFrom(rows int64, frac float64) int64 {
	return rows - int64(float64(rows)*frac)
}

// SplitKeys are the table's region boundaries: the 15 hex digits 1..f, so 16
// regions of about equal size.
func SplitKeys() [][]byte {
	var out [][]byte
	for _, c := range "123456789abcdef" {
		out = append(out, []byte{byte(c)})
	}
	return out
}

// RangeStart and RangeStop bound the 10% key range the range copy takes:
// keys from hex 8000 up to hex 9999 are 0x1999/0x10000 of the key space.
var (
	RangeStart = []byte("8000")
	RangeStop  = []byte("9999")
)

// InRange reports whether key lies in [start, stop); nil ends are open.
func InRange(key, start, stop []byte) bool {
	return (start == nil || bytes.Compare(key, start) >= 0) && (stop == nil || bytes.Compare(key, stop) < 0)
}

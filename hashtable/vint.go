package hashtable

import (
	"errors"
	"fmt"
)

// ErrFormat is the error of a malformed file.
var ErrFormat = errors.New("hashtable: malformed")

// ErrUnsupported is the error of a well-formed file this package does not
// read (a compression codec other than zlib's, say).
var ErrUnsupported = errors.New("hashtable: unsupported")

// appendVLong appends v as Hadoop's WritableUtils.writeVLong writes it:
// one byte for -112..127, else a length byte (-113..-120 for positive,
// -121..-128 for negative numbers, which are stored complemented) and the
// big-endian bytes.
func appendVLong(dst []byte, v int64) []byte {
	if v >= -112 && v <= 127 {
		return append(dst, byte(v))
	}
	l := -112
	if v < 0 {
		v ^= -1
		l = -120
	}
	for t := v; t != 0; t >>= 8 {
		l--
	}
	dst = append(dst, byte(int8(l)))
	n := -(l + 112)
	if l < -120 {
		n = -(l + 120)
	}
	for i := n; i > 0; i-- {
		dst = append(dst, byte(v>>((i-1)*8)))
	}
	return dst
}

// readVLong reads a number appendVLong wrote from b and returns it and the
// bytes it took.
func readVLong(b []byte) (int64, int, error) {
	if len(b) == 0 {
		return 0, 0, fmt.Errorf("vint: no bytes")
	}
	first := int8(b[0])
	if first >= -112 {
		return int64(first), 1, nil
	}
	n := int(-111 - int(first))
	neg := first < -120
	if neg {
		n = int(-119 - int(first))
	}
	if len(b) < n {
		return 0, 0, fmt.Errorf("vint: %d bytes of %d", len(b), n)
	}
	var v int64
	for _, x := range b[1:n] {
		v = v<<8 | int64(x)
	}
	if neg {
		v ^= -1
	}
	return v, n, nil
}

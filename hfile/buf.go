package hfile

import (
	"encoding/binary"
)

// readBuf decodes big-endian values from a byte slice. Reads past the end set
// a sticky error and return zero values, so callers check err once at the end.
type readBuf struct {
	b   []byte
	off int
	err error
}

func (r *readBuf) fail() {
	if r.err == nil {
		r.err = formatError("short buffer at %d of %d bytes", r.off, len(r.b))
	}
}

func (r *readBuf) remaining() int { return len(r.b) - r.off }

func (r *readBuf) u8() byte {
	if r.err != nil || r.remaining() < 1 {
		r.fail()
		return 0
	}
	v := r.b[r.off]
	r.off++
	return v
}

func (r *readBuf) u32() uint32 {
	if b := r.bytes(4); b != nil {
		return binary.BigEndian.Uint32(b)
	}
	return 0
}

func (r *readBuf) u64() uint64 {
	if b := r.bytes(8); b != nil {
		return binary.BigEndian.Uint64(b)
	}
	return 0
}

// bytes returns the next n bytes without copying.
func (r *readBuf) bytes(n int) []byte {
	if r.err != nil || n < 0 || r.remaining() < n {
		r.fail()
		return nil
	}
	v := r.b[r.off : r.off+n : r.off+n]
	r.off += n
	return v
}

// vlong reads a Hadoop WritableUtils VLong.
func (r *readBuf) vlong() int64 {
	if r.err != nil {
		return 0
	}
	v, n := readVLong(r.b[r.off:])
	if n <= 0 {
		r.fail()
		return 0
	}
	r.off += n
	return v
}

// uvarint reads an HBase "compressed int" (LEB128, at most 5 bytes, 32 bits).
func (r *readBuf) uvarint32() int {
	if r.err != nil {
		return 0
	}
	v, n := readCompressedInt(r.b[r.off:])
	if n <= 0 {
		r.fail()
		return 0
	}
	r.off += n
	return v
}

// readCompressedInt decodes ByteBufferUtils.readCompressedInt: 7 bits per byte,
// least significant group first. It returns n <= 0 on malformed input and
// refuses values that do not fit a non-negative int32.
func readCompressedInt(b []byte) (int, int) {
	var v uint64
	for i := 0; i < 5 && i < len(b); i++ {
		v |= uint64(b[i]&0x7f) << (7 * i)
		if b[i]&0x80 == 0 {
			if v > 1<<31-1 {
				return 0, -1
			}
			return int(v), i + 1
		}
	}
	return 0, -1
}

// appendCompressedInt appends v in ByteBufferUtils.putCompressedInt form.
func appendCompressedInt(dst []byte, v int) []byte {
	return binary.AppendUvarint(dst, uint64(uint32(v)))
}

// readVLong decodes a Hadoop WritableUtils VLong. It returns n <= 0 when b is
// too short.
func readVLong(b []byte) (int64, int) {
	if len(b) == 0 {
		return 0, -1
	}
	first := int8(b[0])
	if first >= -112 {
		return int64(first), 1
	}
	var size int
	if first < -120 {
		size = -119 - int(first)
	} else {
		size = -111 - int(first)
	}
	if len(b) < size {
		return 0, -1
	}
	var v uint64
	for i := 1; i < size; i++ {
		v = v<<8 | uint64(b[i])
	}
	if first < -120 {
		return int64(^v), size
	}
	return int64(v), size
}

// appendVLong appends v in Hadoop WritableUtils.writeVLong form.
func appendVLong(dst []byte, v int64) []byte {
	if v >= -112 && v <= 127 {
		return append(dst, byte(v))
	}
	l := int64(-112)
	if v < 0 {
		v = ^v
		l = -120
	}
	n := 0
	for t := v; t != 0; t >>= 8 {
		n++
	}
	dst = append(dst, byte(l-int64(n)))
	for i := n - 1; i >= 0; i-- {
		dst = append(dst, byte(v>>(8*uint(i))))
	}
	return dst
}

// vlongSize is the encoded size of v as a Hadoop VLong.
func vlongSize(v int64) int {
	if v >= -112 && v <= 127 {
		return 1
	}
	if v < 0 {
		v = ^v
	}
	n := 1
	for t := v; t != 0; t >>= 8 {
		n++
	}
	return n
}

func appendU16(b []byte, v uint16) []byte { return binary.BigEndian.AppendUint16(b, v) }
func appendU32(b []byte, v uint32) []byte { return binary.BigEndian.AppendUint32(b, v) }
func appendU64(b []byte, v uint64) []byte { return binary.BigEndian.AppendUint64(b, v) }

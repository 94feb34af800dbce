package hfile

import "encoding/binary"

// Minimal protobuf (proto2) helpers for the few small messages HFiles carry:
// the trailer, file info pairs, TimeRangeTracker and Reference.

// pbField is one decoded protobuf field. For varint fields v holds the value,
// for length-delimited fields b holds the bytes.
type pbField struct {
	num  int
	wire int
	v    uint64
	b    []byte
}

// pbNext decodes the field at the start of b and returns it with the number
// of bytes consumed, or ok=false on malformed input. Fixed32/fixed64 fields
// are decoded into v; groups are refused.
func pbNext(b []byte) (f pbField, n int, ok bool) {
	tag, n := binary.Uvarint(b)
	if n <= 0 || tag>>3 == 0 || tag>>3 > 1<<29 {
		return f, 0, false
	}
	f.num = int(tag >> 3)
	f.wire = int(tag & 7)
	rest := b[n:]
	switch f.wire {
	case 0:
		v, m := binary.Uvarint(rest)
		if m <= 0 {
			return f, 0, false
		}
		f.v = v
		return f, n + m, true
	case 1:
		if len(rest) < 8 {
			return f, 0, false
		}
		f.v = binary.LittleEndian.Uint64(rest)
		return f, n + 8, true
	case 2:
		l, m := binary.Uvarint(rest)
		if m <= 0 || l > uint64(len(rest)-m) {
			return f, 0, false
		}
		f.b = rest[m : m+int(l) : m+int(l)]
		return f, n + m + int(l), true
	case 5:
		if len(rest) < 4 {
			return f, 0, false
		}
		f.v = uint64(binary.LittleEndian.Uint32(rest))
		return f, n + 4, true
	}
	return f, 0, false
}

// pbEach calls fn for every field of msg and reports malformed input.
func pbEach(msg []byte, fn func(f pbField) error) error {
	for len(msg) > 0 {
		f, n, ok := pbNext(msg)
		if !ok {
			return formatError("malformed protobuf message")
		}
		if err := fn(f); err != nil {
			return err
		}
		msg = msg[n:]
	}
	return nil
}

func pbAppendVarint(b []byte, num int, v uint64) []byte {
	b = binary.AppendUvarint(b, uint64(num)<<3)
	return binary.AppendUvarint(b, v)
}

func pbAppendBytes(b []byte, num int, v []byte) []byte {
	b = binary.AppendUvarint(b, uint64(num)<<3|2)
	b = binary.AppendUvarint(b, uint64(len(v)))
	return append(b, v...)
}

// pbMagic prefixes protobuf-serialized HBase metadata (ProtobufMagic.PB_MAGIC).
const pbMagic = "PBUF"

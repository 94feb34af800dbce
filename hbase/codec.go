package hbase

import (
	"encoding/binary"
	"fmt"
	"math"
)

// KeyValueCodec cell block layout (HBase's KeyValueCodec, no tags), per cell:
//
//	int32  length of what follows
//	int32  key length
//	int32  value length
//	int16  row length, row, int8 family length, family, qualifier,
//	int64  timestamp, int8 type
//	value
//
// All integers are big-endian. The qualifier length is what remains of the key.

const (
	kvLenSize        = 4
	kvFixedSize      = 8             // key length + value length
	keyFixedOverhead = 2 + 1 + 8 + 1 // row length, family length, timestamp, type
	maxRowLen        = math.MaxInt16 // HBase's Short.MAX_VALUE row limit
)

// cellSize is the number of bytes c takes in a KeyValueCodec cell block.
func cellSize(c *Cell) int {
	return kvLenSize + kvFixedSize + keyFixedOverhead + len(c.Row) + len(c.Family) + len(c.Qualifier) + len(c.Value)
}

// appendCell appends c in KeyValueCodec form.
func appendCell(b []byte, c *Cell) ([]byte, error) {
	if len(c.Row) > maxRowLen {
		return b, fmt.Errorf("cell row of %d bytes exceeds %d", len(c.Row), maxRowLen)
	}
	if len(c.Family) > math.MaxInt8 {
		return b, fmt.Errorf("cell family of %d bytes exceeds %d", len(c.Family), math.MaxInt8)
	}
	if !c.Type.valid() {
		return b, fmt.Errorf("cell %s: invalid type", c)
	}
	keyLen := keyFixedOverhead + len(c.Row) + len(c.Family) + len(c.Qualifier)
	total := kvFixedSize + keyLen + len(c.Value)
	if total > math.MaxInt32 {
		return b, fmt.Errorf("cell %s: %d bytes is too large", c, total)
	}
	b = binary.BigEndian.AppendUint32(b, uint32(total))
	b = binary.BigEndian.AppendUint32(b, uint32(keyLen))
	b = binary.BigEndian.AppendUint32(b, uint32(len(c.Value)))
	b = binary.BigEndian.AppendUint16(b, uint16(len(c.Row)))
	b = append(b, c.Row...)
	b = append(b, byte(len(c.Family)))
	b = append(b, c.Family...)
	b = append(b, c.Qualifier...)
	b = binary.BigEndian.AppendUint64(b, c.Timestamp)
	b = append(b, byte(c.Type))
	return append(b, c.Value...), nil
}

// encodeCellBlock encodes cells as one KeyValueCodec cell block.
func encodeCellBlock(cells []Cell) ([]byte, error) {
	n := 0
	for i := range cells {
		n += cellSize(&cells[i])
	}
	b := make([]byte, 0, n)
	var err error
	for i := range cells {
		if b, err = appendCell(b, &cells[i]); err != nil {
			return nil, err
		}
	}
	return b, nil
}

// decodeCell decodes the cell at the start of b and returns the rest. The
// cell's slices alias b.
func decodeCell(b []byte) (Cell, []byte, error) {
	var c Cell
	if len(b) < kvLenSize+kvFixedSize {
		return c, nil, fmt.Errorf("%w: cell block: %d bytes left, need at least %d for a cell", ErrProtocol, len(b), kvLenSize+kvFixedSize)
	}
	total := uint64(binary.BigEndian.Uint32(b))
	b = b[kvLenSize:]
	if total > uint64(len(b)) {
		return c, nil, fmt.Errorf("%w: cell block: cell of %d bytes, %d left", ErrProtocol, total, len(b))
	}
	kv, rest := b[:total], b[total:]
	if len(kv) < kvFixedSize {
		return c, nil, fmt.Errorf("%w: cell block: cell of %d bytes is too short", ErrProtocol, len(kv))
	}
	keyLen := uint64(binary.BigEndian.Uint32(kv))
	valLen := uint64(binary.BigEndian.Uint32(kv[4:]))
	if kvFixedSize+keyLen+valLen != total {
		return c, nil, fmt.Errorf("%w: cell block: key %d + value %d bytes do not match cell length %d", ErrProtocol, keyLen, valLen, total)
	}
	if keyLen < keyFixedOverhead {
		return c, nil, fmt.Errorf("%w: cell block: key of %d bytes is too short", ErrProtocol, keyLen)
	}
	key := kv[kvFixedSize : kvFixedSize+keyLen]
	c.Value = kv[kvFixedSize+keyLen:]
	rowLen := uint64(binary.BigEndian.Uint16(key))
	if 2+rowLen+1 > keyLen-8-1 {
		return c, nil, fmt.Errorf("%w: cell block: row of %d bytes does not fit a key of %d", ErrProtocol, rowLen, keyLen)
	}
	c.Row = key[2 : 2+rowLen]
	famLen := uint64(key[2+rowLen])
	famStart := 2 + rowLen + 1
	tsStart := keyLen - 8 - 1
	if famStart+famLen > tsStart {
		return c, nil, fmt.Errorf("%w: cell block: family of %d bytes does not fit a key of %d", ErrProtocol, famLen, keyLen)
	}
	c.Family = key[famStart : famStart+famLen]
	c.Qualifier = key[famStart+famLen : tsStart]
	c.Timestamp = binary.BigEndian.Uint64(key[tsStart:])
	c.Type = CellType(key[keyLen-1])
	// Limit the slices' capacity so appends by callers cannot overwrite
	// neighbouring cells.
	c.Row = c.Row[:len(c.Row):len(c.Row)]
	c.Family = c.Family[:len(c.Family):len(c.Family)]
	c.Qualifier = c.Qualifier[:len(c.Qualifier):len(c.Qualifier)]
	c.Value = c.Value[:len(c.Value):len(c.Value)]
	return c, rest, nil
}

// decodeCellBlock decodes exactly n cells from the front of b and returns the
// remaining bytes. n < 0 decodes until b is empty.
func decodeCellBlock(b []byte, n int) ([]Cell, []byte, error) {
	var cells []Cell
	if n > 0 {
		// Each cell takes at least this many bytes: cap the allocation by
		// what b can hold.
		if max := len(b) / (kvLenSize + kvFixedSize + keyFixedOverhead); n > max {
			return nil, nil, fmt.Errorf("%w: cell block: %d cells announced, %d bytes hold at most %d", ErrProtocol, n, len(b), max)
		}
		cells = make([]Cell, 0, n)
	}
	for n < 0 && len(b) > 0 || len(cells) < n {
		c, rest, err := decodeCell(b)
		if err != nil {
			return nil, nil, fmt.Errorf("cell %d: %w", len(cells), err)
		}
		cells = append(cells, c)
		b = rest
	}
	return cells, b, nil
}

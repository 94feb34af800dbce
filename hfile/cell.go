package hfile

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"strconv"
)

// CellType is the type byte of a KeyValue (KeyValue.Type in HBase).
type CellType uint8

// Cell types. Minimum and Maximum are search sentinels and never appear as
// data in a file.
const (
	TypeMinimum             CellType = 0
	TypePut                 CellType = 4
	TypeDelete              CellType = 8
	TypeDeleteFamilyVersion CellType = 10
	TypeDeleteColumn        CellType = 12
	TypeDeleteFamily        CellType = 14
	TypeMaximum             CellType = 255
)

// String returns the HBase name of the type.
func (t CellType) String() string {
	switch t {
	case TypeMinimum:
		return "Minimum"
	case TypePut:
		return "Put"
	case TypeDelete:
		return "Delete"
	case TypeDeleteFamilyVersion:
		return "DeleteFamilyVersion"
	case TypeDeleteColumn:
		return "DeleteColumn"
	case TypeDeleteFamily:
		return "DeleteFamily"
	case TypeMaximum:
		return "Maximum"
	}
	return "CellType(" + strconv.Itoa(int(t)) + ")"
}

// valid reports whether t is a type that may be stored in a file.
func (t CellType) valid() bool {
	switch t {
	case TypePut, TypeDelete, TypeDeleteFamilyVersion, TypeDeleteColumn, TypeDeleteFamily:
		return true
	}
	return false
}

// LatestTimestamp is HBase's HConstants.LATEST_TIMESTAMP.
const LatestTimestamp = math.MaxInt64

// Limits of the KeyValue layout.
const (
	maxRowLen    = math.MaxInt16
	maxFamilyLen = math.MaxInt8
	maxTagsLen   = math.MaxUint16
	// keyInfrastructure is rowLen(2) + famLen(1) + timestamp(8) + type(1).
	keyInfrastructure = 12
)

// Cell is one HBase cell. When a Scanner returns a Cell, its byte slices
// point into the scanner's buffers and stay valid only until the next call
// to Next or Seek.
type Cell struct {
	Row       []byte
	Family    []byte
	Qualifier []byte
	Timestamp int64
	Type      CellType
	Value     []byte
	Tags      []byte
	// SeqID is the MVCC / sequence id; 0 when the file carries none.
	SeqID uint64
}

// String formats the key of c like HBase does (row/family:qualifier/ts/type).
func (c *Cell) String() string {
	return fmt.Sprintf("%q/%q:%q/%d/%s", c.Row, c.Family, c.Qualifier, c.Timestamp, c.Type)
}

// Clone returns a deep copy of c that owns its bytes.
func (c *Cell) Clone() *Cell {
	n := len(c.Row) + len(c.Family) + len(c.Qualifier) + len(c.Value) + len(c.Tags)
	buf := make([]byte, 0, n)
	cp := func(b []byte) []byte {
		if b == nil {
			return nil
		}
		start := len(buf)
		buf = append(buf, b...)
		return buf[start:len(buf):len(buf)]
	}
	out := *c
	out.Row = cp(c.Row)
	out.Family = cp(c.Family)
	out.Qualifier = cp(c.Qualifier)
	out.Value = cp(c.Value)
	out.Tags = cp(c.Tags)
	return &out
}

// keyLen is the length of the serialized KeyValue key of c.
func (c *Cell) keyLen() int {
	return len(c.Row) + len(c.Family) + len(c.Qualifier) + keyInfrastructure
}

// FirstOnRow returns the smallest possible key of row, as HBase's
// PrivateCellUtil.createFirstOnRow: it sorts before every cell of the row.
func FirstOnRow(row []byte) *Cell {
	return &Cell{Row: row, Timestamp: LatestTimestamp, Type: TypeMaximum}
}

// Compare orders cells like HBase's CellComparatorImpl.compare: row,
// family, qualifier ascending (unsigned bytes), timestamp descending, type
// descending, then sequence id descending.
func Compare(a, b *Cell) int {
	if c := CompareKeys(a, b); c != 0 {
		return c
	}
	switch {
	case a.SeqID > b.SeqID:
		return -1
	case a.SeqID < b.SeqID:
		return 1
	}
	return 0
}

// CompareKeys is Compare without the sequence id, as the HFile writer and
// seeks use it (PrivateCellUtil.compareKeyIgnoresMvcc).
func CompareKeys(a, b *Cell) int {
	if c := bytes.Compare(a.Row, b.Row); c != 0 {
		return c
	}
	// A key with no family and qualifier and type Minimum is the last
	// possible key on its row.
	aLast := len(a.Family)+len(a.Qualifier) == 0 && a.Type == TypeMinimum
	bLast := len(b.Family)+len(b.Qualifier) == 0 && b.Type == TypeMinimum
	if aLast || bLast {
		switch {
		case aLast && bLast:
			return 0
		case aLast:
			return 1
		default:
			return -1
		}
	}
	if c := bytes.Compare(a.Family, b.Family); c != 0 {
		return c
	}
	if c := bytes.Compare(a.Qualifier, b.Qualifier); c != 0 {
		return c
	}
	switch {
	case a.Timestamp > b.Timestamp:
		return -1
	case a.Timestamp < b.Timestamp:
		return 1
	}
	switch {
	case a.Type > b.Type:
		return -1
	case a.Type < b.Type:
		return 1
	}
	return 0
}

// appendKey appends the serialized KeyValue key of c:
// int16 rowLen, row, int8 famLen, family, qualifier, int64 ts, uint8 type.
func appendKey(dst []byte, c *Cell) []byte {
	dst = appendU16(dst, uint16(len(c.Row)))
	dst = append(dst, c.Row...)
	dst = append(dst, byte(len(c.Family)))
	dst = append(dst, c.Family...)
	dst = append(dst, c.Qualifier...)
	dst = appendU64(dst, uint64(c.Timestamp))
	return append(dst, byte(c.Type))
}

// KeyBytes returns the serialized KeyValue key of c, the form HBase stores in
// indexes, file info (LASTKEY) and references.
func KeyBytes(c *Cell) []byte {
	return appendKey(make([]byte, 0, c.keyLen()), c)
}

// parseKey fills the key fields of c from a serialized key without copying.
func parseKey(k []byte, c *Cell) error {
	if len(k) < keyInfrastructure {
		return formatError("key of %d bytes is shorter than %d", len(k), keyInfrastructure)
	}
	rl := int(binary.BigEndian.Uint16(k))
	if rl > maxRowLen || 2+rl+1 > len(k)-9 {
		return formatError("key of %d bytes has row length %d", len(k), rl)
	}
	fl := int(k[2+rl])
	qStart := 2 + rl + 1 + fl
	qEnd := len(k) - 9
	if qStart > qEnd {
		return formatError("key of %d bytes has family length %d", len(k), fl)
	}
	c.Row = k[2 : 2+rl : 2+rl]
	c.Family = k[2+rl+1 : qStart : qStart]
	c.Qualifier = k[qStart:qEnd:qEnd]
	c.Timestamp = int64(binary.BigEndian.Uint64(k[qEnd:]))
	c.Type = CellType(k[len(k)-1])
	return nil
}

// ParseKey decodes a serialized KeyValue key (as found in LASTKEY or an index)
// into a Cell whose slices point into k.
func ParseKey(k []byte) (*Cell, error) {
	c := new(Cell)
	if err := parseKey(k, c); err != nil {
		return nil, err
	}
	return c, nil
}

// compareKeyBytes compares two serialized keys with CompareKeys. Malformed
// keys sort by raw bytes so that a corrupt index cannot cause a panic.
func compareKeyBytes(a, b []byte) int {
	var ca, cb Cell
	if parseKey(a, &ca) != nil || parseKey(b, &cb) != nil {
		return bytes.Compare(a, b)
	}
	return CompareKeys(&ca, &cb)
}

// compareKeyCell compares a serialized key with a cell.
func compareKeyCell(k []byte, c *Cell) int {
	var ck Cell
	if parseKey(k, &ck) != nil {
		return -1
	}
	return CompareKeys(&ck, c)
}

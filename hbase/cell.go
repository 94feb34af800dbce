package hbase

import (
	"bytes"
	"fmt"
	"math"
)

// CellType is the type byte of a cell (HBase's KeyValue.Type).
type CellType byte

// Cell types as they appear on the wire and in HFiles.
const (
	CellTypePut                 CellType = 4
	CellTypeDelete              CellType = 8  // one version of a column
	CellTypeDeleteFamilyVersion CellType = 10 // one version of every column of a family
	CellTypeDeleteColumn        CellType = 12 // all versions of a column up to a timestamp
	CellTypeDeleteFamily        CellType = 14 // all columns of a family up to a timestamp
)

// String returns HBase's name for the type.
func (t CellType) String() string {
	switch t {
	case CellTypePut:
		return "Put"
	case CellTypeDelete:
		return "Delete"
	case CellTypeDeleteFamilyVersion:
		return "DeleteFamilyVersion"
	case CellTypeDeleteColumn:
		return "DeleteColumn"
	case CellTypeDeleteFamily:
		return "DeleteFamily"
	}
	return fmt.Sprintf("CellType(%d)", byte(t))
}

// valid reports whether t is a type a client may send or receive.
func (t CellType) valid() bool {
	switch t {
	case CellTypePut, CellTypeDelete, CellTypeDeleteFamilyVersion, CellTypeDeleteColumn, CellTypeDeleteFamily:
		return true
	}
	return false
}

// LatestTimestamp asks the server to use its current time (HBase's
// HConstants.LATEST_TIMESTAMP).
const LatestTimestamp = math.MaxInt64

// Cell is one HBase cell. Slices returned by the client may alias a response
// buffer; they are not modified afterwards.
type Cell struct {
	Row       []byte
	Family    []byte
	Qualifier []byte
	Timestamp uint64
	Type      CellType
	Value     []byte
}

// String formats the cell like HBase's KeyValue.toString, without the value.
func (c Cell) String() string {
	return fmt.Sprintf("%q/%s:%s/%d/%s/vlen=%d", c.Row, c.Family, c.Qualifier, c.Timestamp, c.Type, len(c.Value))
}

// Equal reports whether two cells have the same key, type and value.
func (c Cell) Equal(o Cell) bool {
	return c.Timestamp == o.Timestamp && c.Type == o.Type && bytes.Equal(c.Row, o.Row) &&
		bytes.Equal(c.Family, o.Family) && bytes.Equal(c.Qualifier, o.Qualifier) && bytes.Equal(c.Value, o.Value)
}

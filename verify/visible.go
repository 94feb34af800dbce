package verify

import (
	"bytes"
	"math"

	"rangecopy/hbase"
	"rangecopy/hfile"
)

// Rules are a family's read settings that decide which versions a read
// returns.
type Rules struct {
	// MaxVersions is VERSIONS: at most this many versions of a column.
	MaxVersions int
	// MinVersions is MIN_VERSIONS: this many versions are kept even when
	// the TTL has expired them.
	MinVersions int
	// OldestUnexpired is the smallest timestamp the TTL leaves readable
	// (now minus the TTL); math.MinInt64 when the family has no TTL.
	OldestUnexpired int64
}

// RulesOf returns the read rules of family d as of now (Unix ms). A TTL of
// 0 or HBase's FOREVER (2147483647 s) never expires.
func RulesOf(d hbase.FamilyDescriptor, nowMs int64) Rules {
	r := Rules{MaxVersions: max(d.MaxVersions, 1), MinVersions: max(d.MinVersions, 0), OldestUnexpired: math.MinInt64}
	if d.TTL > 0 && d.TTL != math.MaxInt32 {
		r.OldestUnexpired = nowMs - int64(d.TTL)*1000
	}
	return r
}

// Visible passes on what a read of every version (not raw) returns from a
// merged stream of one region, as HBase's ScanQueryMatcher with its default
// delete tracker decides it, per row and family:
//
//   - a DeleteFamily marker masks every cell of the family in the row at or
//     before its timestamp; a DeleteFamilyVersion marker the cells of
//     exactly its timestamp; a DeleteColumn marker the cells of its column
//     at or before its timestamp; a Delete marker the cell of its column at
//     exactly its timestamp. A marker masks a put of any sequence id (HBase
//     without NEW_VERSION_BEHAVIOR);
//   - of the puts left, the newest MaxVersions of each column are returned,
//     and of those only the ones the TTL has not expired, except that the
//     newest MinVersions are kept even when expired;
//   - markers themselves are not returned.
//
// Cell TTLs (tags) and visibility labels are not applied. The stream's cells
// must be distinct keys in key order (a Merged).
type Visible struct {
	In CellIter
	// Rules returns the rules of a family; it is called once per family and
	// row.
	Rules func(family []byte) Rules

	row, family, qual []byte
	rules             Rules
	started           bool

	hasFamilyStamp bool
	familyStamp    int64
	familyVersions map[int64]bool

	hasDelete   bool
	deleteQual  []byte
	deleteType  hfile.CellType
	deleteStamp int64

	count int // versions of the current column returned or passed over
}

// Next moves to the next visible cell.
func (v *Visible) Next() bool {
	for v.In.Next() {
		c := v.In.Cell()
		if !v.started || !bytes.Equal(c.Row, v.row) || !bytes.Equal(c.Family, v.family) {
			v.startFamily(c)
		}
		if !bytes.Equal(c.Qualifier, v.qual) || v.count < 0 {
			v.qual = append(v.qual[:0], c.Qualifier...)
			v.count = 0
		}
		if c.Type != hfile.TypePut {
			v.addDelete(c)
			continue
		}
		if v.deleted(c) {
			continue
		}
		v.count++
		if v.count > v.rules.MaxVersions {
			continue
		}
		if c.Timestamp < v.rules.OldestUnexpired && v.count > v.rules.MinVersions {
			continue
		}
		return true
	}
	return false
}

func (v *Visible) startFamily(c *hfile.Cell) {
	v.started = true
	v.row = append(v.row[:0], c.Row...)
	v.family = append(v.family[:0], c.Family...)
	v.rules = v.Rules(c.Family)
	v.hasFamilyStamp = false
	clear(v.familyVersions)
	v.hasDelete = false
	v.count = -1 // a new column starts on the next cell whatever its qualifier
}

// addDelete records a marker, as ScanDeleteTracker.add does.
func (v *Visible) addDelete(c *hfile.Cell) {
	if v.hasFamilyStamp && c.Timestamp <= v.familyStamp {
		return
	}
	switch c.Type {
	case hfile.TypeDeleteFamily:
		v.hasFamilyStamp, v.familyStamp = true, c.Timestamp
		return
	case hfile.TypeDeleteFamilyVersion:
		if v.familyVersions == nil {
			v.familyVersions = map[int64]bool{}
		}
		v.familyVersions[c.Timestamp] = true
		return
	}
	if v.hasDelete && c.Type < v.deleteType && bytes.Equal(c.Qualifier, v.deleteQual) {
		return // a less specific marker of a column a DeleteColumn covers
	}
	v.hasDelete = true
	v.deleteQual = append(v.deleteQual[:0], c.Qualifier...)
	v.deleteType, v.deleteStamp = c.Type, c.Timestamp
}

// deleted says whether a put is masked, as ScanDeleteTracker.isDeleted does.
func (v *Visible) deleted(c *hfile.Cell) bool {
	if v.hasFamilyStamp && c.Timestamp <= v.familyStamp {
		return true
	}
	if v.familyVersions[c.Timestamp] {
		return true
	}
	if !v.hasDelete {
		return false
	}
	if !bytes.Equal(c.Qualifier, v.deleteQual) {
		v.hasDelete = false // a marker of an earlier column
		return false
	}
	if v.deleteType == hfile.TypeDeleteColumn {
		return true
	}
	if c.Timestamp == v.deleteStamp {
		return true
	}
	v.hasDelete = false // an older version than the Delete marker's
	return false
}

// Cell is the current cell.
func (v *Visible) Cell() *hfile.Cell { return v.In.Cell() }

// Err is the input's error.
func (v *Visible) Err() error { return v.In.Err() }

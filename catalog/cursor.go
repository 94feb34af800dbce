package catalog

import (
	"encoding/base64"
	"encoding/binary"
	"fmt"
	"time"
	"unicode/utf8"

	"gorm.io/gorm"
)

// A cursor is where a page ends: the sort key of its last row. Clients get it as an opaque
// string (unpadded base64url) and must hand it back unchanged; it is untrusted input.
//
// Layout:
//
//	kind (1 byte) | micros (8 bytes, big endian, signed) | key (the rest, UTF-8, ≤ 191 bytes)
//
// Jobs sort newest first by (submittedAt, id): micros is submittedAt in Unix microseconds,
// key the id.
// Audit entries sort newest first by id: micros holds the id, key is empty.
type cursor struct {
	kind   byte
	micros int64
	key    string
}

const (
	// cursorJobs: jobs sort newest first by (submittedAt, id). Releases that listed them
	// oldest first gave out 'j' cursors; those are refused, not read the other way round.
	cursorJobs  byte = 'J'
	cursorAudit byte = 'a'
	// cursorVerifications: verifications sort newest first by (createdAt, id).
	cursorVerifications byte = 'v'
	// cursorRelocations: relocations sort newest first by (createdAt, id); the oldest-first
	// releases' 'r' cursors are refused.
	cursorRelocations byte = 'R'
	// maxCursorKey bounds a cursor's key: the longest job id the schema holds.
	maxCursorKey = 191
	// maxCursorLen bounds the encoded form before it is decoded.
	maxCursorLen = 4*(1+8+maxCursorKey)/3 + 4
)

// encode returns the cursor's opaque string.
func (c cursor) encode() string {
	b := make([]byte, 9, 9+len(c.key))
	b[0] = c.kind
	binary.BigEndian.PutUint64(b[1:9], uint64(c.micros))
	b = append(b, c.key...)
	return base64.RawURLEncoding.EncodeToString(b)
}

// decodeCursor parses s as a cursor of the given kind; an error wraps ErrInvalid.
func decodeCursor(s string, kind byte) (cursor, error) {
	if len(s) > maxCursorLen {
		return cursor{}, fmt.Errorf("%w: cursor: %d characters, more than a cursor has", ErrInvalid, len(s))
	}
	b, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil {
		return cursor{}, fmt.Errorf("%w: cursor: not one this catalog gave out", ErrInvalid)
	}
	if len(b) < 9 {
		return cursor{}, fmt.Errorf("%w: cursor: too short", ErrInvalid)
	}
	if b[0] != kind {
		return cursor{}, fmt.Errorf("%w: cursor: from another listing", ErrInvalid)
	}
	c := cursor{kind: b[0], micros: int64(binary.BigEndian.Uint64(b[1:9])), key: string(b[9:])}
	if len(c.key) > maxCursorKey || !utf8.ValidString(c.key) {
		return cursor{}, fmt.Errorf("%w: cursor: malformed key", ErrInvalid)
	}
	switch kind {
	case cursorJobs, cursorVerifications, cursorRelocations:
		if c.key == "" {
			return cursor{}, fmt.Errorf("%w: cursor: no id", ErrInvalid)
		}
		// Times the databases can hold: years 1 to 9999.
		if c.micros < minMicros || c.micros > maxMicros {
			return cursor{}, fmt.Errorf("%w: cursor: time out of range", ErrInvalid)
		}
	case cursorAudit:
		if c.key != "" || c.micros <= 0 {
			return cursor{}, fmt.Errorf("%w: cursor: malformed audit position", ErrInvalid)
		}
	}
	return c, nil
}

// The times the databases can hold, years 1 to 9999, in Unix microseconds.
const (
	minMicros = -62135596800000000 // 0001-01-01T00:00:00Z
	maxMicros = 253402300799999999 // 9999-12-31T23:59:59.999999Z
)

// microsTime is the UTC time of Unix microseconds.
func microsTime(us int64) time.Time { return time.UnixMicro(us).UTC() }

// fetchPage reads a page of at most limit rows of q, which orders them, and the cursor of the
// page after: at makes it from the page's last row. The cursor is empty on the last page.
func fetchPage[T any](q *gorm.DB, limit int, at func(last T) cursor) ([]T, string, error) {
	var rows []T
	if err := q.Limit(limit + 1).Find(&rows).Error; err != nil {
		return nil, "", err
	}
	if len(rows) <= limit {
		return rows, "", nil
	}
	rows = rows[:limit]
	return rows, at(rows[limit-1]).encode(), nil
}

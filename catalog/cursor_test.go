package catalog

import (
	"errors"
	"strings"
	"testing"
)

func TestCursorRoundTrip(t *testing.T) {
	for _, c := range []cursor{
		{kind: cursorJobs, micros: 1740830400123456, key: "copy-t1-0123456789abcdef"},
		{kind: cursorJobs, micros: -5, key: "é"},
		{kind: cursorJobs, micros: maxMicros, key: strings.Repeat("x", maxCursorKey)},
		{kind: cursorAudit, micros: 42},
	} {
		got, err := decodeCursor(c.encode(), c.kind)
		if err != nil || got != c {
			t.Errorf("decode(encode(%+v)) = %+v, %v", c, got, err)
		}
	}
}

func TestCursorRefused(t *testing.T) {
	jobs := cursor{kind: cursorJobs, micros: 1, key: "j"}.encode()
	for name, s := range map[string]string{
		"not base64":     "!!!",
		"padded":         jobs + "=",
		"too short":      cursor{kind: cursorJobs}.encode()[:4],
		"other listing":  cursor{kind: cursorAudit, micros: 1}.encode(),
		"no job id":      cursor{kind: cursorJobs, micros: 1}.encode(),
		"key too long":   cursor{kind: cursorJobs, micros: 1, key: strings.Repeat("x", maxCursorKey+1)}.encode(),
		"not UTF-8":      cursor{kind: cursorJobs, micros: 1, key: "\xff"}.encode(),
		"time too large": cursor{kind: cursorJobs, micros: maxMicros + 1, key: "j"}.encode(),
		"very long":      strings.Repeat("A", 10000),
	} {
		if _, err := decodeCursor(s, cursorJobs); !errors.Is(err, ErrInvalid) {
			t.Errorf("%s: decodeCursor(%q) = %v, want ErrInvalid", name, s, err)
		}
	}
	if _, err := decodeCursor(cursor{kind: cursorAudit, micros: 0}.encode(), cursorAudit); !errors.Is(err, ErrInvalid) {
		t.Errorf("audit cursor at 0: %v, want ErrInvalid", err)
	}
}

// FuzzDecodeCursor: a cursor comes from a client, so any string must decode to a cursor of
// the asked kind that encodes back to itself, or be refused with ErrInvalid; never a panic.
func FuzzDecodeCursor(f *testing.F) {
	f.Add(cursor{kind: cursorJobs, micros: 1740830400123456, key: "copy-t1-0123456789abcdef"}.encode(), true)
	f.Add(cursor{kind: cursorAudit, micros: 7}.encode(), false)
	f.Add("", true)
	f.Add("ag", false)
	f.Add("!!", true)
	f.Add(strings.Repeat("_", 300), true)
	f.Fuzz(func(t *testing.T, s string, jobs bool) {
		kind := cursorAudit
		if jobs {
			kind = cursorJobs
		}
		c, err := decodeCursor(s, kind)
		if err != nil {
			if !errors.Is(err, ErrInvalid) {
				t.Fatalf("decodeCursor(%q) = %v, not ErrInvalid", s, err)
			}
			return
		}
		if c.kind != kind {
			t.Fatalf("decodeCursor(%q) has kind %q, asked %q", s, c.kind, kind)
		}
		again, err := decodeCursor(c.encode(), kind)
		if err != nil || again != c {
			t.Fatalf("cursor %+v does not survive encode and decode: %+v, %v", c, again, err)
		}
	})
}

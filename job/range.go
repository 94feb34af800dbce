package job

import (
	"bytes"
	"math"

	"rangecopy/render"
)

// KeyRange is a half-open range of row keys, [Start, End). An empty Start is
// the beginning of the table and an empty End its end, as in HBase's region
// boundaries and scans.
type KeyRange struct {
	Start, End []byte
}

// String writes the range as people read ranges everywhere (render.RowRange):
// ["k100", "k500"), [first row, "k500"), ["k100", last row] or all rows.
func (r KeyRange) String() string { return render.RowRange(r.Start, r.End) }

// Empty reports whether no key lies in the range.
func (r KeyRange) Empty() bool {
	return len(r.End) > 0 && bytes.Compare(r.Start, r.End) >= 0
}

// Contains reports whether key lies in the range.
func (r KeyRange) Contains(key []byte) bool {
	return bytes.Compare(key, r.Start) >= 0 && (len(r.End) == 0 || bytes.Compare(key, r.End) < 0)
}

// Covers reports whether every key of o lies in r.
func (r KeyRange) Covers(o KeyRange) bool {
	if bytes.Compare(o.Start, r.Start) < 0 {
		return false
	}
	if len(r.End) == 0 {
		return true
	}
	return len(o.End) > 0 && bytes.Compare(o.End, r.End) <= 0
}

// Intersect returns the keys in both ranges, and false when there are none.
func (r KeyRange) Intersect(o KeyRange) (KeyRange, bool) {
	out := KeyRange{Start: r.Start, End: r.End}
	if bytes.Compare(o.Start, out.Start) > 0 {
		out.Start = o.Start
	}
	if len(out.End) == 0 || (len(o.End) > 0 && bytes.Compare(o.End, out.End) < 0) {
		out.End = o.End
	}
	if out.Empty() {
		return KeyRange{}, false
	}
	return out, true
}

// OverlapsRows reports whether any row in [first, last] (both inclusive, as
// an HFile's first and last keys are) lies in r.
func (r KeyRange) OverlapsRows(first, last []byte) bool {
	if bytes.Compare(last, r.Start) < 0 {
		return false
	}
	return len(r.End) == 0 || bytes.Compare(first, r.End) < 0
}

// TimeRange is a half-open range of cell timestamps in milliseconds,
// [Min, Max), as HBase's scans take it.
type TimeRange struct {
	Min, Max int64
}

// AllTime is the time range that holds every timestamp.
func AllTime() TimeRange { return TimeRange{Min: 0, Max: math.MaxInt64} }

// IsAll reports whether t holds every timestamp.
func (t TimeRange) IsAll() bool { return t.Min <= 0 && t.Max == math.MaxInt64 }

// String writes the range as people read time ranges everywhere (render.Times): RFC 3339
// times in UTC, "all time" for every timestamp. An empty or reversed range shows both its
// bounds, as they are.
func (t TimeRange) String() string {
	if t.Max != math.MaxInt64 && t.Max <= t.Min {
		return "[" + render.Millis(t.Min) + ", " + render.Millis(t.Max) + ")"
	}
	return render.Times(t.Min, t.Max)
}

// Contains reports whether ts lies in the range.
func (t TimeRange) Contains(ts int64) bool { return ts >= t.Min && ts < t.Max }

// Overlaps reports whether any timestamp in [min, max] (both inclusive, as an
// HFile's TIMERANGE records its oldest and newest cell) lies in t.
func (t TimeRange) Overlaps(min, max int64) bool { return max >= t.Min && min < t.Max }

// Covers reports whether every timestamp in [min, max] (inclusive) lies in t.
func (t TimeRange) Covers(min, max int64) bool { return min >= t.Min && max < t.Max }

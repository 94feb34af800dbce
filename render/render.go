// Package render writes row ranges, time ranges and counts one way for people, in the CLI's
// output, the API's messages, the dashboard and the logs.
//
//	all rows                  every row of a table
//	[first row, "k500")       from the table's first row up to k500, not included
//	["k100", last row]        from k100 to the table's last row, included
//	["k100", "k500")          a range between two keys
//	all time                  every cell time
//	before 2026-03-01T12:00:00Z, from 2026-03-01T12:00:00Z on,
//	[2026-03-01T12:00:00Z, 2026-03-01T12:05:00.123Z)
//	4 ran, 1 skipped          counts by outcome
//
// Keys are written as HBase's shell writes them (rowkey.Format: \xNN for bytes that are not
// printable), with a double quote as \x22, between double quotes so that an empty-looking
// or spaced key reads as one; rowkey.Parse reads one back. Times are RFC 3339 in UTC, to
// the millisecond when there is one.
package render

import (
	"fmt"
	"math"
	"sort"
	"strings"
	"time"

	"rangecopy/rowkey"
)

// Key writes one row key (bytes) between double quotes.
func Key(b []byte) string {
	return `"` + strings.ReplaceAll(rowkey.Format(b), `"`, `\x22`) + `"`
}

// EscapedKey writes one row key already in rowkey.Format's \xNN form (as the API and the
// catalog carry keys) between double quotes.
func EscapedKey(s string) string {
	return `"` + strings.ReplaceAll(s, `"`, `\x22`) + `"`
}

// RowRange writes the rows [start, stop) of keys as bytes; an empty bound is the table's
// start or end.
func RowRange(start, stop []byte) string {
	return rows(len(start) == 0, len(stop) == 0, func() string { return Key(start) }, func() string { return Key(stop) })
}

// Rows writes the rows [start, stop) of keys in \xNN form; an empty bound is the table's
// start or end.
func Rows(start, stop string) string {
	return rows(start == "", stop == "", func() string { return EscapedKey(start) }, func() string { return EscapedKey(stop) })
}

func rows(noStart, noStop bool, start, stop func() string) string {
	switch {
	case noStart && noStop:
		return "all rows"
	case noStop:
		return "[" + start() + ", last row]"
	case noStart:
		return "[first row, " + stop() + ")"
	}
	return "[" + start() + ", " + stop() + ")"
}

// StartRow writes a range's first bound alone ("first row" when empty), StopRow its end
// ("last row" when empty), for a column or a field of their own.
func StartRow(s string) string {
	if s == "" {
		return "first row"
	}
	return EscapedKey(s)
}

// StopRow writes a range's stop bound alone: the key, not included, or "last row" (included)
// when empty.
func StopRow(s string) string {
	if s == "" {
		return "last row"
	}
	return EscapedKey(s)
}

// timeLayout is RFC 3339 in UTC with milliseconds when there are any.
const timeLayout = "2006-01-02T15:04:05.999Z07:00"

// Time writes a time as RFC 3339 in UTC (milliseconds when there are any); the zero time
// is "never".
func Time(t time.Time) string {
	if t.IsZero() {
		return "never"
	}
	return t.UTC().Format(timeLayout)
}

// Millis writes a cell timestamp in milliseconds since the epoch as Time does.
func Millis(ms int64) string {
	return time.UnixMilli(ms).UTC().Format(timeLayout)
}

// Times writes the cell times [from, until), in milliseconds since the epoch. A from of 0
// or less has no lower bound; an until of 0 or math.MaxInt64 has no upper bound (0 is how
// the API and the catalog write "none", as for a relocation's full copy).
func Times(from, until int64) string {
	open := until == 0 || until == math.MaxInt64
	switch {
	case from <= 0 && open:
		return "all time"
	case open:
		return "from " + Millis(from) + " on"
	case from <= 0:
		return "before " + Millis(until)
	}
	return "[" + Millis(from) + ", " + Millis(until) + ")"
}

// TimesPtr is Times of optional bounds (nil: none), as a job request carries them.
func TimesPtr(from, until *int64) string {
	var f, u int64
	if from != nil {
		f = *from
	}
	if until != nil {
		u = *until
	}
	return Times(f, u)
}

// Counts writes counts by name, "4 ran, 1 skipped": the names in order first, then any
// others by name; zero counts are left out, and nothing at all is "none".
func Counts(n map[string]int, order ...string) string {
	var parts []string
	seen := map[string]bool{}
	for _, k := range order {
		seen[k] = true
		if n[k] > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n[k], k))
		}
	}
	var rest []string
	for k, v := range n {
		if !seen[k] && v > 0 {
			rest = append(rest, k)
		}
	}
	sort.Strings(rest)
	for _, k := range rest {
		parts = append(parts, fmt.Sprintf("%d %s", n[k], k))
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, ", ")
}

// Outcomes writes a relocation's windows by outcome, "4 ran, 1 skipped", in the order of
// their lives: ran, skipped, failed, running.
func Outcomes(n map[string]int) string {
	return Counts(n, "ran", "skipped", "failed", "running")
}

package verify

import (
	"rangecopy/hfile"
	"rangecopy/job"
	"rangecopy/storeread"
)

// CellIter is a stream of cells in key order (storeread.CellIter); verify
// reads, merges, filters and compares such streams.
type CellIter = storeread.CellIter

// InTime passes on the cells of in whose timestamp lies in tr: the time
// range selects cells and delete markers alike, before any delete applies,
// as a copy of that range selects them.
type InTime struct {
	In   CellIter
	Time job.TimeRange
}

// Next moves to the next cell in the range.
func (t *InTime) Next() bool {
	for t.In.Next() {
		if t.Time.Contains(t.In.Cell().Timestamp) {
			return true
		}
	}
	return false
}

// Cell is the current cell.
func (t *InTime) Cell() *hfile.Cell { return t.In.Cell() }

// Err is the input's error.
func (t *InTime) Err() error { return t.In.Err() }

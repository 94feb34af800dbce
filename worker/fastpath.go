package worker

import (
	"bytes"

	"rangecopy/hfile"
	"rangecopy/job"
)

// FastPathRule is the verdict on whether an input file is copied byte for
// byte: FastPathOK, or the first rule that keeps it on the decode path.
//
// Settings differences are acceptable: the target family's compression,
// encoding, block size and bloom type are not required of a copied file.
// HBase opens any valid HFile per its own trailer and file info, and the next
// compaction rewrites it with the family's settings; the file's data is the
// same either way. (Encrypted and MOB files are refused at planning.)
type FastPathRule int

// Fast path verdicts.
const (
	FastPathOK FastPathRule = iota
	// FastPathDisabled: the caller turned the fast path off.
	FastPathDisabled
	// FastPathReference: the input is a half file (split reference).
	FastPathReference
	// FastPathEmpty: the file holds no cells.
	FastPathEmpty
	// FastPathOutsideTask: some rows of the file lie outside the task's range.
	FastPathOutsideTask
	// FastPathResumed: the file starts below the checkpoint's resume row.
	FastPathResumed
	// FastPathTime: the file's TIMERANGE is unknown or not inside the job's.
	FastPathTime
	// FastPathRegions: the file's rows are not inside one target region.
	FastPathRegions
	// FastPathOverlap: another input of the family shares a row with it,
	// and is decoded or holds timestamps of its time range.
	FastPathOverlap
	// FastPathSharedRegion: the file's cells are visible only if the
	// region server gives its load a sequence id (see fileFacts.NeedsSeqID),
	// and its target region reaches beyond the task, so other tasks may load
	// into that region at the same time.
	FastPathSharedRegion
)

// String names the verdict.
func (r FastPathRule) String() string {
	switch r {
	case FastPathOK:
		return "fast path"
	case FastPathDisabled:
		return "fast path disabled"
	case FastPathReference:
		return "half file (reference)"
	case FastPathEmpty:
		return "empty file"
	case FastPathOutsideTask:
		return "rows outside the task range"
	case FastPathResumed:
		return "starts below the resume row"
	case FastPathTime:
		return "time range unknown or not inside the job's"
	case FastPathRegions:
		return "rows not inside one target region"
	case FastPathOverlap:
		return "overlaps another input of the family"
	case FastPathSharedRegion:
		return "needs a sequence id, and other tasks load into its target region"
	}
	return "FastPathRule(?)"
}

// fileFacts is what the fast path decision needs to know of an input, read
// from its trailer and file info.
type fileFacts struct {
	Reference         bool
	FirstRow, LastRow []byte // nil when the file is empty
	HasTime           bool
	MinTime, MaxTime  int64
	// NeedsSeqID: the file's cells are visible in the target only if the
	// region server assigns its bulk load a sequence id. A region server
	// that finds a flush of the region already running when it flushes
	// before a load (HRegion.bulkLoadHFiles; loads of one family each into
	// one region take only its shared lock, so two such loads race) loads
	// the file without one: the file keeps its own name, and then
	//   - a file with BULKLOAD_TIMESTAMP in its file info counts as bulk
	//     loaded, and every cell is read with the file's MAX_SEQ_ID_KEY;
	//   - any other file's cells keep the MVCC values stored with them.
	// Either way cells whose sequence id is past the region's read point
	// stay hidden from every read until the region reopens. That is true
	// of a byte-for-byte copy of a source flush file (its cells carry the
	// source region's MVCC values, far past a new target region's), never
	// of a file the worker writes (no MVCC, MAX_SEQ_ID_KEY 0).
	NeedsSeqID bool
}

// needsSeqID reports whether a file with this file info needs its bulk load
// to be given a sequence id for its cells to be visible (fileFacts.NeedsSeqID).
func needsSeqID(info hfile.FileInfo) bool {
	if _, ok := info.Raw[hfile.FileInfoBulkLoadTimestamp]; ok {
		return info.HasMaxSeqID && info.MaxSeqID > 0
	}
	return info.IncludesMVCC && info.MaxMemstoreTS > 0
}

// fastPathDecision decides whether input i of a family (facts[i]) may be
// copied byte for byte. regions are the target's regions in key order;
// resume is the row the family's reading starts at. See fastPathDecisions.
func fastPathDecision(facts []fileFacts, i int, task job.KeyRange, resume []byte, times job.TimeRange, regions []job.Region) FastPathRule {
	return fastPathDecisions(facts, task, resume, times, regions)[i]
}

// fastPathDecisions decides for every input of a family whether it may be
// copied byte for byte: the file lies wholly inside the task, above the
// resume row, inside the job's time range and inside one target region; and
// every other input that shares a row with it is copied byte for byte too
// and holds no timestamp of its time range. Two such files cannot hold the
// same key (row, column, timestamp, type), so neither can override the other
// whatever order they are loaded in, and no decoded cell lies among their
// rows, so the family's checkpoint can pass them file by file.
func fastPathDecisions(facts []fileFacts, task job.KeyRange, resume []byte, times job.TimeRange, regions []job.Region) []FastPathRule {
	rules := make([]FastPathRule, len(facts))
	for i, f := range facts {
		rules[i] = fastPathAlone(f, task, resume, times, regions)
	}
	// A file that overlaps one on the decode path, or one whose time range
	// meets its own, is decoded too; repeat until nothing changes.
	for changed := true; changed; {
		changed = false
		for i, f := range facts {
			if rules[i] != FastPathOK {
				continue
			}
			for j, o := range facts {
				if j == i || o.FirstRow == nil {
					continue // an empty file overlaps nothing
				}
				// Overlap in rows, both ends inclusive.
				span := job.KeyRange{Start: f.FirstRow, End: rowAfter(f.LastRow)}
				if !span.OverlapsRows(o.FirstRow, o.LastRow) {
					continue
				}
				apart := rules[j] == FastPathOK && (f.MaxTime < o.MinTime || o.MaxTime < f.MinTime)
				if !apart {
					rules[i] = FastPathOverlap
					changed = true
					break
				}
			}
		}
	}
	return rules
}

// fastPathAlone applies the rules that look at one file only.
func fastPathAlone(f fileFacts, task job.KeyRange, resume []byte, times job.TimeRange, regions []job.Region) FastPathRule {
	switch {
	case f.Reference:
		return FastPathReference
	case f.FirstRow == nil:
		return FastPathEmpty
	case !task.Contains(f.FirstRow) || !task.Contains(f.LastRow):
		return FastPathOutsideTask
	case bytes.Compare(f.FirstRow, resume) < 0:
		return FastPathResumed
	case !f.HasTime || !times.Covers(f.MinTime, f.MaxTime):
		return FastPathTime
	}
	r := regionFor(regions, f.FirstRow)
	if r < 0 || !regions[r].Rows.Contains(f.LastRow) {
		return FastPathRegions
	}
	// The planner's tasks do not overlap, so no other task of the job loads
	// into a region that lies inside this one; the Loader runs one load into
	// a region at a time.
	if f.NeedsSeqID && !task.Covers(regions[r].Rows) {
		return FastPathSharedRegion
	}
	return FastPathOK
}

// regionFor returns the index of the region holding row, or -1.
func regionFor(regions []job.Region, row []byte) int {
	lo, hi := 0, len(regions)
	for lo < hi { // first region whose end is past row
		m := (lo + hi) / 2
		if e := regions[m].Rows.End; len(e) != 0 && bytes.Compare(e, row) <= 0 {
			lo = m + 1
		} else {
			hi = m
		}
	}
	if lo < len(regions) && regions[lo].Rows.Contains(row) {
		return lo
	}
	return -1
}

// rowAfter is the smallest row that sorts after row.
func rowAfter(row []byte) []byte {
	out := make([]byte, len(row)+1)
	copy(out, row)
	return out
}

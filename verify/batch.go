package verify

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"hash"
	"slices"

	"rangecopy/hfile"
	"rangecopy/job"
)

// WeightedRow is a row where a batch may start and the bytes estimated to
// lie between it and the next such row of its file.
type WeightedRow struct {
	Row   []byte
	Bytes int64
}

// PlanBatches cuts rows into row-aligned batches: at every row of cuts (the
// region boundaries of both sides, so each batch lies in one region of each
// side) and, between them, at the first row of weights once the bytes
// since the last cut reach target. Both sides are hashed over the same
// batches. Pure; the batches are in key order and tile rows.
func PlanBatches(rows job.KeyRange, cuts [][]byte, weights []WeightedRow, target int64) []job.KeyRange {
	type point struct {
		row   []byte
		bytes int64
		hard  bool
	}
	var pts []point
	inside := func(r []byte) bool {
		return len(r) > 0 && bytes.Compare(r, rows.Start) > 0 && (len(rows.End) == 0 || bytes.Compare(r, rows.End) < 0)
	}
	for _, c := range cuts {
		if inside(c) {
			pts = append(pts, point{row: c, hard: true})
		}
	}
	for _, w := range weights {
		if rows.Contains(w.Row) {
			pts = append(pts, point{row: w.Row, bytes: w.Bytes})
		}
	}
	slices.SortStableFunc(pts, func(a, b point) int { return bytes.Compare(a.row, b.row) })
	var out []job.KeyRange
	start := rows.Start
	var acc int64
	for _, p := range pts {
		if bytes.Equal(p.row, start) {
			acc += p.bytes
			continue
		}
		if p.hard || acc >= target {
			out = append(out, job.KeyRange{Start: start, End: p.row})
			start, acc = p.row, 0
		}
		acc += p.bytes
	}
	return append(out, job.KeyRange{Start: start, End: rows.End})
}

// BatchHash is what one side holds in one batch.
type BatchHash struct {
	// Cells and Rows count the batch's cells and distinct rows.
	Cells, Rows int64
	// Sum is the SHA-256 of the batch's cells in key order, each framed as
	// AppendFrame writes it.
	Sum [sha256.Size]byte
	// Proven says the batch was not read: both sides' store files for it
	// are the same by their checksums (provenBatches). Cells, Rows and Sum
	// are then zero.
	Proven bool
}

// AppendFrame appends the length-framed encoding of c that batch hashes
// cover: row, family and qualifier each as a uvarint length and the bytes,
// the timestamp as 8 bytes big-endian, the type byte, then the value as a
// uvarint length and the bytes. Tags and sequence ids are left out.
func AppendFrame(dst []byte, c *hfile.Cell) []byte {
	dst = binary.AppendUvarint(dst, uint64(len(c.Row)))
	dst = append(dst, c.Row...)
	dst = binary.AppendUvarint(dst, uint64(len(c.Family)))
	dst = append(dst, c.Family...)
	dst = binary.AppendUvarint(dst, uint64(len(c.Qualifier)))
	dst = append(dst, c.Qualifier...)
	dst = binary.BigEndian.AppendUint64(dst, uint64(c.Timestamp))
	dst = append(dst, byte(c.Type))
	dst = binary.AppendUvarint(dst, uint64(len(c.Value)))
	return append(dst, c.Value...)
}

// Hasher hashes a stream of cells into consecutive batches.
type Hasher struct {
	batches []job.KeyRange
	out     []BatchHash
	i       int
	h       hash.Hash
	buf     []byte
	lastRow []byte
	hasRow  bool
}

// NewHasher hashes into batches (in key order); the cells added must lie in
// them and come in key order.
func NewHasher(batches []job.KeyRange) *Hasher {
	return &Hasher{batches: batches, out: make([]BatchHash, len(batches)), h: sha256.New()}
}

// Add hashes one cell into its batch.
func (hs *Hasher) Add(c *hfile.Cell) {
	for hs.i < len(hs.batches)-1 && len(hs.batches[hs.i].End) > 0 && bytes.Compare(c.Row, hs.batches[hs.i].End) >= 0 {
		hs.seal()
		hs.i++
	}
	b := &hs.out[hs.i]
	b.Cells++
	if !hs.hasRow || !bytes.Equal(c.Row, hs.lastRow) {
		b.Rows++
		hs.lastRow = append(hs.lastRow[:0], c.Row...)
		hs.hasRow = true
	}
	hs.buf = AppendFrame(hs.buf[:0], c)
	hs.h.Write(hs.buf)
}

func (hs *Hasher) seal() {
	hs.h.Sum(hs.out[hs.i].Sum[:0])
	hs.h.Reset()
}

// Sealed returns the hashes of the batches finished so far: those before the
// batch of the last cell added (all of them after Finish). They do not
// change any more.
func (hs *Hasher) Sealed() []BatchHash {
	return hs.out[:min(hs.i, len(hs.out))]
}

// Finish returns the hashes of every batch, empty ones included.
func (hs *Hasher) Finish() []BatchHash {
	for ; hs.i < len(hs.batches); hs.i++ {
		hs.seal()
	}
	return hs.out
}

// Mismatched returns the indexes of the batches whose hashes differ. The
// lists are of the same batches. Pure.
func Mismatched(src, dst []BatchHash) []int {
	var out []int
	for i := range src {
		if src[i] != dst[i] {
			out = append(out, i)
		}
	}
	return out
}

// JoinRanges joins the batches of the indexes (ascending) into the fewest
// ranges: batches that touch make one range. Pure.
func JoinRanges(batches []job.KeyRange, idx []int) []job.KeyRange {
	var out []job.KeyRange
	for n, i := range idx {
		if n > 0 && len(out[len(out)-1].End) > 0 && bytes.Equal(out[len(out)-1].End, batches[i].Start) {
			out[len(out)-1].End = batches[i].End
			continue
		}
		out = append(out, batches[i])
	}
	return out
}

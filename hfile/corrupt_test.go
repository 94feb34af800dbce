package hfile

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"testing"
)

// scanAll opens b, scans every cell, seeks back to the first key, asks the
// bloom filter about every cell and samples the index (what copying and planning read), and
// returns the cells of the scan or the first error.
func scanAll(b []byte) ([]*Cell, error) {
	r, err := Open(bytes.NewReader(b), int64(len(b)), "test.hfile")
	if err != nil {
		return nil, err
	}
	s := r.Scanner(ScanOptions{})
	var cells []*Cell
	for s.Next() {
		cells = append(cells, s.Cell().Clone())
	}
	if err := s.Err(); err != nil {
		return nil, err
	}
	if c := r.FirstKey(); c != nil {
		s.Seek(c)
		s.Next()
		if err := s.Err(); err != nil {
			return nil, err
		}
	}
	// Every row's bloom chunk.
	for _, c := range cells {
		if _, err := r.MayContain(c.Row, c.Qualifier); err != nil {
			return nil, err
		}
	}
	// Planning samples the index of untrusted files too.
	if _, err := r.IndexSample(1 << 20); err != nil {
		return nil, err
	}
	return cells, nil
}

// wrapsSentinel reports whether err wraps one of the package's sentinel errors.
func wrapsSentinel(err error) bool {
	return errors.Is(err, ErrFormat) || errors.Is(err, ErrChecksum) || errors.Is(err, ErrUnsupported)
}

// checkDamaged reads the damaged file c: the read must fail with one of the
// package's errors, or, when mustFail is false (no checksum covers the
// damage, or it is in bytes no read needs), give exactly the cells want.
func checkDamaged(t *testing.T, what string, c []byte, want []*Cell, mustFail bool) {
	t.Helper()
	got, err := scanAll(c)
	switch {
	case err != nil && !wrapsSentinel(err):
		t.Errorf("%s: error %v wraps none of ErrFormat, ErrChecksum, ErrUnsupported", what, err)
	case err == nil && mustFail:
		t.Errorf("%s: damage a checksum covers was read without an error (%d cells)", what, len(got))
	case err == nil && !sameCellList(got, want):
		t.Errorf("%s: read without an error, but %d cells differ from the %d of the intact file", what, len(got), len(want))
	}
}

// sameCellList reports whether a and b hold equal cells in the same order.
func sameCellList(a, b []*Cell) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !cellsEqual(a[i], b[i]) {
			return false
		}
	}
	return true
}

func TestCorruptDataBlockChecksum(t *testing.T) {
	cells := genCells(500, 5, false, false)
	b := writeFile(t, WriterOptions{BlockSize: 1024}, cells)
	r := openBytes(t, b)
	off := r.root[1].offset
	c := append([]byte(nil), b...)
	c[off+headerSize+10] ^= 0x40
	_, err := scanAll(c)
	if !errors.Is(err, ErrChecksum) {
		t.Fatalf("flipped data byte: %v", err)
	}
	msg := err.Error()
	if !strings.Contains(msg, "test.hfile") || !strings.Contains(msg, "offset "+strconv.FormatInt(off, 10)) {
		t.Fatalf("error does not name the file and block offset %d: %s", off, msg)
	}
}

func TestCorruptTruncated(t *testing.T) {
	b := writeFile(t, WriterOptions{BlockSize: 512, Encoding: EncodingFastDiff, Compression: CompressionSnappy, IncludeTags: true, IncludeMVCC: true}, genCells(300, 6, true, true))
	for _, n := range []int{0, 1, 100, 211, 212, 4095, 4096, len(b) / 2, len(b) - 4097, len(b) - 4096, len(b) - 1} {
		if n < 0 || n >= len(b) {
			continue
		}
		_, err := scanAll(b[:n])
		if err == nil {
			t.Errorf("file truncated to %d of %d bytes opened", n, len(b))
		}
		if !errors.Is(err, ErrFormat) && !errors.Is(err, ErrUnsupported) {
			t.Errorf("truncated to %d: %v is not ErrFormat", n, err)
		}
	}
	// A file cut in the data section but keeping its tail: the reader
	// sees the trailer of a longer file.
	cut := append(append([]byte(nil), b[:1000]...), b[len(b)-4096:]...)
	if _, err := scanAll(cut); err == nil {
		t.Error("spliced file opened")
	}
}

func TestCorruptTrailer(t *testing.T) {
	b := writeFile(t, WriterOptions{}, genCells(50, 7, false, false))
	tail := len(b) - trailerSizeV3
	for name, mut := range map[string]func([]byte){
		"magic":      func(c []byte) { c[tail] = 'x' },
		"version":    func(c []byte) { c[len(c)-1] = 7 },
		"pb":         func(c []byte) { c[tail+9] = 0xff },
		"load":       func(c []byte) { c[tail+8] = 0; c[tail+9] = 0 }, // zero-length protobuf
		"encryption": nil,
	} {
		c := append([]byte(nil), b...)
		if mut == nil {
			continue
		}
		mut(c)
		if _, err := scanAll(c); err == nil {
			t.Errorf("%s: corrupt trailer accepted", name)
		}
	}
}

// rewriteBlock replaces the payload of the uncompressed block at off with
// mut(payload) of the same length and recomputes its checksums.
func rewriteBlock(t *testing.T, b []byte, off int64, mut func([]byte)) []byte {
	h, err := parseBlockHeader(b[off:], off, int64(len(b))-off)
	if err != nil {
		t.Fatal(err)
	}
	payload := append([]byte(nil), b[off+headerSize:off+int64(h.onDiskDataWithHdr)]...)
	mut(payload)
	blk := appendBlock(nil, h.typ, payload, len(payload), h.prevBlockOffset, h.bytesPerChecksum)
	if len(blk) != h.onDiskSize() {
		t.Fatalf("rewritten block is %d bytes, was %d", len(blk), h.onDiskSize())
	}
	c := append([]byte(nil), b...)
	copy(c[off:], blk)
	return c
}

func TestCorruptIndex(t *testing.T) {
	cells := genCells(400, 8, false, false)
	b := writeFile(t, WriterOptions{BlockSize: 512}, cells)
	r := openBytes(t, b)
	lo := int64(r.Trailer().LoadOnOpenDataOffset)
	for name, mut := range map[string]func([]byte){
		"offset past end": func(p []byte) { copy(p[12+1+len(r.root[0].key):], []byte{0, 0, 0, 0, 0x7f, 0, 0, 0}) },
		"size":            func(p []byte) { p[8+2+12+len(r.root[0].key)+1] ^= 0x10 }, // second entry's size
		"key length":      func(p []byte) { p[12] = 0x8f; p[13] = 0x7f },
		"offset negative": func(p []byte) { p[0] = 0xff },
	} {
		c := rewriteBlock(t, b, lo, mut)
		_, err := scanAll(c)
		if err == nil {
			// A seek through the damaged entry must fail.
			rr := openBytes(t, c)
			s := rr.Scanner(ScanOptions{})
			for _, cell := range cells {
				s.Seek(cell)
				s.Next()
			}
			err = s.Err()
		}
		if !errors.Is(err, ErrFormat) {
			t.Errorf("%s: %v", name, err)
		}
	}
}

// TestCorruptEveryByte flips each byte of small files in turn. Every block
// has a checksum over its header and payload, so a flip in the block section
// must fail the read; a flip in the trailer, which no checksum covers, must
// fail it or leave the cells as they were.
func TestCorruptEveryByte(t *testing.T) {
	if testing.Short() {
		t.Skip("long")
	}
	for _, enc := range allEncodings {
		for _, comp := range []Compression{CompressionNone, CompressionGZ} {
			cells := genCells(20, 9, true, true)
			b := writeFile(t, WriterOptions{BlockSize: 128, Encoding: enc, Compression: comp, IncludeTags: true, IncludeMVCC: true,
				IndexBlockSize: 64, IndexMinEntries: 2, BytesPerChecksum: 1 << 20, Bloom: BloomRow}, cells)
			assertCells(t, readAll(t, openBytes(t, b), ScanOptions{}), cells)
			tail := len(b) - trailerSizeV3
			for i := 0; i < tail+64; i++ {
				c := append([]byte(nil), b...)
				c[i] ^= 0x5a
				checkDamaged(t, fmt.Sprintf("%s/%s: byte %d of %d flipped", enc, comp, i, len(b)), c, cells, i < tail)
			}
		}
	}
}

// refRead is the reference read of an uncompressed file b: each data block's
// cells decoded on their own, block by block in file order, with the layout
// and encoding of the intact file's reader r.
func refRead(b []byte, r *Reader) ([]*Cell, error) {
	var out []*Cell
	var err error
	eachBlock(b, func(h blockHeader, blk []byte) {
		if err != nil || (h.typ != BlockData && h.typ != BlockEncodedData) {
			return
		}
		p := blk[headerSize:h.onDiskDataWithHdr]
		if h.typ == BlockEncodedData {
			if len(p) < 2 || Encoding(binary.BigEndian.Uint16(p)) != r.info.Encoding {
				err = formatError("block at offset %d: encoding", h.offset)
				return
			}
			if p, err = decodeBlock(r.info.Encoding, p[2:], r.layout, nil, nil); err != nil {
				return
			}
		}
		var rc rawCell
		for off := 0; off < len(p); {
			if off, err = nextNoneCell(p, off, r.layout, &rc); err != nil {
				return
			}
			var c Cell
			if err = parseKey(rc.key, &c); err != nil {
				return
			}
			c.Value, c.Tags, c.SeqID = rc.value, rc.tags, uint64(rc.mvcc)
			out = append(out, c.Clone())
		}
	})
	return out, err
}

// TestCorruptBlockContents damages the payload of every block while keeping
// its checksums valid, so the decoders themselves see the damage. A damaged
// data block must fail the read, or give the cells the reference read of the
// damaged file gives (when that fails, the read must fail too); damage
// elsewhere must fail the read or leave the cells as they were.
func TestCorruptBlockContents(t *testing.T) {
	for _, enc := range allEncodings {
		cells := genCells(60, 10, true, true)
		b := writeFile(t, WriterOptions{BlockSize: 256, Encoding: enc, IncludeTags: true, IncludeMVCC: true,
			IndexBlockSize: 100, IndexMinEntries: 2, Bloom: BloomRowCol}, cells)
		r := openBytes(t, b)
		if ref, err := refRead(b, r); err != nil {
			t.Fatal(err)
		} else {
			assertCells(t, ref, cells)
		}
		for off := int64(0); off < int64(len(b)-trailerSizeV3); {
			h, err := parseBlockHeader(b[off:], off, int64(len(b))-off)
			if err != nil {
				t.Fatal(err)
			}
			n := h.onDiskDataWithHdr - headerSize
			for i := 0; i < n; i += 1 + i/128 {
				for _, x := range []byte{0x01, 0xff} {
					c := rewriteBlock(t, b, off, func(p []byte) { p[i] ^= x })
					what := fmt.Sprintf("%s: %s block at %d: payload byte %d ^ %#x", enc, h.typ, off, i, x)
					switch h.typ {
					case BlockData, BlockEncodedData:
						ref, err := refRead(c, r)
						checkDamaged(t, what, c, ref, err != nil)
					default:
						checkDamaged(t, what, c, cells, false)
					}
				}
			}
			off += int64(h.onDiskSize())
		}
	}
}

package hfile

import (
	"bytes"
	"errors"
	"strconv"
	"strings"
	"testing"
)

// scanAll opens b and scans every cell, returning the first error.
func scanAll(b []byte) error {
	r, err := Open(bytes.NewReader(b), int64(len(b)), "test.hfile")
	if err != nil {
		return err
	}
	s := r.Scanner(ScanOptions{})
	for s.Next() {
	}
	if s.Err() != nil {
		return s.Err()
	}
	if c := r.FirstKey(); c != nil {
		s.Seek(c)
		s.Next()
	}
	r.MayContain([]byte("row"), nil)
	if err := s.Err(); err != nil {
		return err
	}
	// Planning samples the index of untrusted files too.
	_, err = r.IndexSample(1 << 20)
	return err
}

func TestCorruptDataBlockChecksum(t *testing.T) {
	cells := genCells(500, 5, false, false)
	b := writeFile(t, WriterOptions{BlockSize: 1024}, cells)
	r := openBytes(t, b)
	off := r.root[1].offset
	c := append([]byte(nil), b...)
	c[off+headerSize+10] ^= 0x40
	err := scanAll(c)
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
		err := scanAll(b[:n])
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
	if err := scanAll(cut); err == nil {
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
		if err := scanAll(c); err == nil {
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
		err := scanAll(c)
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

// TestCorruptEveryByte flips each byte of small files in turn: every result
// is a clean error or a successful read, never a panic.
func TestCorruptEveryByte(t *testing.T) {
	if testing.Short() {
		t.Skip("long")
	}
	for _, enc := range allEncodings {
		for _, comp := range []Compression{CompressionNone, CompressionGZ} {
			b := writeFile(t, WriterOptions{BlockSize: 128, Encoding: enc, Compression: comp, IncludeTags: true, IncludeMVCC: true,
				IndexBlockSize: 64, IndexMinEntries: 2, BytesPerChecksum: 1 << 20, Bloom: BloomRow}, genCells(20, 9, true, true))
			for i := 0; i < len(b)-trailerSizeV3+64; i++ {
				c := append([]byte(nil), b...)
				c[i] ^= 0x5a
				scanAll(c)
			}
		}
	}
}

// TestCorruptBlockContents damages the payload of every block while keeping
// its checksums valid, so the decoders themselves see the damage.
func TestCorruptBlockContents(t *testing.T) {
	for _, enc := range allEncodings {
		b := writeFile(t, WriterOptions{BlockSize: 256, Encoding: enc, IncludeTags: true, IncludeMVCC: true,
			IndexBlockSize: 100, IndexMinEntries: 2, Bloom: BloomRowCol}, genCells(60, 10, true, true))
		for off := int64(0); off < int64(len(b)-trailerSizeV3); {
			h, err := parseBlockHeader(b[off:], off, int64(len(b))-off)
			if err != nil {
				t.Fatal(err)
			}
			n := h.onDiskDataWithHdr - headerSize
			for i := 0; i < n; i += 1 + i/128 {
				for _, x := range []byte{0x01, 0xff} {
					c := rewriteBlock(t, b, off, func(p []byte) { p[i] ^= x })
					scanAll(c)
				}
			}
			off += int64(h.onDiskSize())
		}
	}
}

package snapshot

import (
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"io"

	"rangecopy/hfile"
	"rangecopy/job"
)

// The hfile package reads a file's root data index but does not export it,
// so the few lines needed to read it for planning live here: the block
// header of HFile v2/v3 (minor version >= 1, with checksums) and the root
// index format (BlockIndexReader.readRootIndex), with the codecs of codec.go.
// The accessor belongs in hfile; until it exports one, this stays here.

const (
	blockHeaderSize = 33
	rootIndexMagic  = "IDXROOT2"
	// maxRootIndexBlock caps the root index block read (HBase's default
	// index chunk is 128 KiB; a root index may exceed it, within reason).
	maxRootIndexBlock = 64 << 20
)

var crc32c = crc32.MakeTable(crc32.Castagnoli)

// readRootIndex reads the root data index of an uncompressed HFile: one entry
// per data block (single-level index) or per leaf index block (multi-level;
// those sit among the data blocks, so their offsets still place keys in the
// file). ok is false when the file has no data index (or predates checksums
// in block headers, minor version 0).
func readRootIndex(r io.ReaderAt, t hfile.Trailer, name string) (entries []job.IndexEntry, ok bool, err error) {
	if t.MinorVersion < 1 || t.DataIndexCount == 0 {
		return nil, false, nil
	}
	off := int64(t.LoadOnOpenDataOffset)
	hdr := make([]byte, blockHeaderSize)
	if _, err := r.ReadAt(hdr, off); err != nil {
		return nil, false, fmt.Errorf("hfile %s: root index header at offset %d: %w", name, off, err)
	}
	if string(hdr[:8]) != rootIndexMagic {
		return nil, false, fmt.Errorf("hfile %s: block at offset %d is %q, want %s: %w", name, off, hdr[:8], rootIndexMagic, hfile.ErrFormat)
	}
	onDisk := int64(int32(binary.BigEndian.Uint32(hdr[8:])))
	uncompressed := int64(int32(binary.BigEndian.Uint32(hdr[12:])))
	checksumType := hdr[24]
	perChecksum := int64(int32(binary.BigEndian.Uint32(hdr[25:])))
	dataWithHdr := int64(int32(binary.BigEndian.Uint32(hdr[29:])))
	if onDisk < 0 || onDisk > maxRootIndexBlock || dataWithHdr < blockHeaderSize || dataWithHdr > blockHeaderSize+onDisk || perChecksum < 0 ||
		uncompressed < 0 || uncompressed > maxRootIndexBlock {
		return nil, false, fmt.Errorf("hfile %s: root index block at offset %d: sizes %d/%d: %w", name, off, onDisk, dataWithHdr, hfile.ErrFormat)
	}
	blk := make([]byte, blockHeaderSize+onDisk)
	if _, err := r.ReadAt(blk, off); err != nil {
		return nil, false, fmt.Errorf("hfile %s: root index block at offset %d: %w", name, off, err)
	}
	if err := verifyBlock(blk, dataWithHdr, perChecksum, checksumType); err != nil {
		return nil, false, fmt.Errorf("hfile %s: root index block at offset %d: %w", name, off, err)
	}
	payload, err := decompressBlock(t.Compression, blk[blockHeaderSize:dataWithHdr], int(uncompressed))
	if err != nil {
		return nil, false, fmt.Errorf("hfile %s: root index block at offset %d: %w", name, off, err)
	}
	entries, err = parseRootIndex(payload, int(t.DataIndexCount))
	if err != nil {
		return nil, false, fmt.Errorf("hfile %s: root index block at offset %d: %w", name, off, err)
	}
	return entries, true, nil
}

// verifyBlock checks a block's checksums: one per perChecksum bytes of header
// and data, 4 bytes each, after the data.
func verifyBlock(blk []byte, dataWithHdr, perChecksum int64, typ byte) error {
	if typ == 0 || perChecksum == 0 {
		return nil
	}
	var table *crc32.Table
	switch typ {
	case 1:
		table = crc32.IEEETable
	case 2:
		table = crc32c
	default:
		return fmt.Errorf("checksum type %d: %w", typ, hfile.ErrFormat)
	}
	sums := blk[dataWithHdr:]
	for i, start := int64(0), int64(0); start < dataWithHdr; i, start = i+1, start+perChecksum {
		end := min(start+perChecksum, dataWithHdr)
		if int64(len(sums)) < 4*(i+1) {
			return fmt.Errorf("checksum area truncated: %w", hfile.ErrFormat)
		}
		if crc32.Checksum(blk[start:end], table) != binary.BigEndian.Uint32(sums[4*i:]) {
			return fmt.Errorf("bytes [%d, %d): %w", start, end, hfile.ErrChecksum)
		}
	}
	return nil
}

// parseRootIndex decodes n entries of u64 offset, u32 on-disk size and a
// VLong-prefixed KeyValue key.
func parseRootIndex(b []byte, n int) ([]job.IndexEntry, error) {
	if n < 0 || n > len(b)/13 {
		return nil, fmt.Errorf("root index claims %d entries in %d bytes: %w", n, len(b), hfile.ErrFormat)
	}
	out := make([]job.IndexEntry, 0, n)
	for i := 0; i < n; i++ {
		if len(b) < 12 {
			return nil, fmt.Errorf("root index entry %d truncated: %w", i, hfile.ErrFormat)
		}
		off := int64(binary.BigEndian.Uint64(b))
		b = b[12:]
		kl, w, err := vlong(b)
		if err != nil || kl < 0 || kl > int64(len(b)-w) {
			return nil, fmt.Errorf("root index entry %d: key length: %w", i, hfile.ErrFormat)
		}
		key := b[w : w+int(kl)]
		b = b[w+int(kl):]
		c, err := hfile.ParseKey(key)
		if err != nil {
			return nil, fmt.Errorf("root index entry %d: %w", i, err)
		}
		if off < 0 {
			return nil, fmt.Errorf("root index entry %d: offset %d: %w", i, off, hfile.ErrFormat)
		}
		out = append(out, job.IndexEntry{Row: append([]byte(nil), c.Row...), Offset: off})
	}
	return out, nil
}

// vlong decodes Hadoop's WritableUtils VLong.
func vlong(b []byte) (int64, int, error) {
	if len(b) == 0 {
		return 0, 0, io.ErrUnexpectedEOF
	}
	first := int8(b[0])
	if first >= -112 {
		return int64(first), 1, nil
	}
	// The first byte encodes the total size and the sign
	// (WritableUtils.decodeVIntSize, isNegativeVInt).
	n := -119 - int(first) - 1
	neg := true
	if first >= -120 {
		n = -111 - int(first) - 1
		neg = false
	}
	if len(b) < 1+n {
		return 0, 0, io.ErrUnexpectedEOF
	}
	var v int64
	for _, c := range b[1 : 1+n] {
		v = v<<8 | int64(c)
	}
	if neg {
		v = ^v
	}
	return v, 1 + n, nil
}

// sampleIndex keeps at most max entries, evenly spread, always the first.
func sampleIndex(entries []job.IndexEntry, max int) []job.IndexEntry {
	if len(entries) <= max || max <= 0 {
		return entries
	}
	out := make([]job.IndexEntry, 0, max)
	for i := 0; i < max; i++ {
		out = append(out, entries[i*len(entries)/max])
	}
	return out
}

package hfile

import (
	"encoding/binary"
	"fmt"
	"hash/crc32"
)

// BlockType is the kind of an HFile block, identified by its 8-byte magic.
type BlockType uint8

// Block types.
const (
	BlockUnknown BlockType = iota
	BlockData
	BlockEncodedData
	BlockLeafIndex
	BlockBloomChunk
	BlockMeta
	BlockIntermediateIndex
	BlockRootIndex
	BlockFileInfo
	BlockGeneralBloomMeta
	BlockDeleteFamilyBloomMeta
)

var blockMagics = [...]string{
	BlockData:                  "DATABLK*",
	BlockEncodedData:           "DATABLKE",
	BlockLeafIndex:             "IDXLEAF2",
	BlockBloomChunk:            "BLMFBLK2",
	BlockMeta:                  "METABLKc",
	BlockIntermediateIndex:     "IDXINTE2",
	BlockRootIndex:             "IDXROOT2",
	BlockFileInfo:              "FILEINF2",
	BlockGeneralBloomMeta:      "BLMFMET2",
	BlockDeleteFamilyBloomMeta: "DFBLMET2",
}

// String returns the block's magic.
func (t BlockType) String() string {
	if int(t) < len(blockMagics) && t != BlockUnknown {
		return blockMagics[t]
	}
	return "UNKNOWN"
}

func blockTypeOf(magic []byte) BlockType {
	for t, m := range blockMagics {
		if m != "" && m == string(magic) {
			return BlockType(t)
		}
	}
	return BlockUnknown
}

// Checksum types (ChecksumType).
const (
	checksumNull   = 0
	checksumCRC32  = 1
	checksumCRC32C = 2
)

// headerSize is the size of a block header with checksum fields.
const headerSize = 33

// defaultBytesPerChecksum is HBase's default checksum chunk.
const defaultBytesPerChecksum = 16384

// blockHeader is the 33-byte header in front of every block.
type blockHeader struct {
	typ                BlockType
	onDiskSizeNoHeader int // payload + checksums
	uncompressedSize   int // payload after decompression
	prevBlockOffset    int64
	checksumType       byte
	bytesPerChecksum   int
	onDiskDataWithHdr  int // header + on-disk payload
	offset             int64
}

// onDiskSize is the block's full size on disk.
func (h *blockHeader) onDiskSize() int { return headerSize + h.onDiskSizeNoHeader }

// parseBlockHeader decodes and sanity-checks a header read at offset off.
// limit is the number of bytes the block may occupy (to the end of its
// section).
func parseBlockHeader(b []byte, off int64, limit int64) (blockHeader, error) {
	var h blockHeader
	if len(b) < headerSize {
		return h, formatError("header truncated")
	}
	h.offset = off
	h.typ = blockTypeOf(b[:8])
	if h.typ == BlockUnknown {
		return h, formatError("unknown magic %q", b[:8])
	}
	h.onDiskSizeNoHeader = int(int32(binary.BigEndian.Uint32(b[8:])))
	h.uncompressedSize = int(int32(binary.BigEndian.Uint32(b[12:])))
	h.prevBlockOffset = int64(binary.BigEndian.Uint64(b[16:]))
	h.checksumType = b[24]
	h.bytesPerChecksum = int(int32(binary.BigEndian.Uint32(b[25:])))
	h.onDiskDataWithHdr = int(int32(binary.BigEndian.Uint32(b[29:])))
	switch {
	case h.onDiskSizeNoHeader < 0 || int64(h.onDiskSizeNoHeader)+headerSize > limit:
		return h, formatError("on-disk size %d exceeds the %d bytes available", h.onDiskSizeNoHeader, limit-headerSize)
	case h.uncompressedSize < 0 || h.uncompressedSize > maxBlockSize:
		return h, formatError("uncompressed size %d out of range", h.uncompressedSize)
	case h.checksumType > checksumCRC32C:
		return h, formatError("unknown checksum type %d", h.checksumType)
	case h.bytesPerChecksum < 0:
		return h, formatError("bytes per checksum %d", h.bytesPerChecksum)
	case h.onDiskDataWithHdr < headerSize || h.onDiskDataWithHdr > h.onDiskSize():
		return h, formatError("data size %d inconsistent with on-disk size %d", h.onDiskDataWithHdr, h.onDiskSize())
	}
	if h.onDiskSize()-h.onDiskDataWithHdr != checksumBytes(h.onDiskDataWithHdr, h.bytesPerChecksum) {
		return h, formatError("checksum area of %d bytes, want %d", h.onDiskSize()-h.onDiskDataWithHdr, checksumBytes(h.onDiskDataWithHdr, h.bytesPerChecksum))
	}
	return h, nil
}

// checksumBytes is the size of the checksum area for dataLen checksummed bytes.
func checksumBytes(dataLen, bytesPerChecksum int) int {
	if bytesPerChecksum <= 0 {
		return 0
	}
	return 4 * ((dataLen + bytesPerChecksum - 1) / bytesPerChecksum)
}

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// checksum computes one chunk's checksum.
func checksum(typ byte, chunk []byte) uint32 {
	if typ == checksumCRC32 {
		return crc32.ChecksumIEEE(chunk)
	}
	return crc32.Checksum(chunk, castagnoli)
}

// verifyChecksums checks the checksums of a whole on-disk block.
func verifyChecksums(h *blockHeader, blk []byte) error {
	if h.checksumType == checksumNull || h.bytesPerChecksum == 0 {
		return nil
	}
	data := blk[:h.onDiskDataWithHdr]
	sums := blk[h.onDiskDataWithHdr:]
	for i := 0; len(data) > 0; i++ {
		n := min(len(data), h.bytesPerChecksum)
		want := binary.BigEndian.Uint32(sums[4*i:])
		if got := checksum(h.checksumType, data[:n]); got != want {
			return &checksumError{offset: h.offset + int64(i*h.bytesPerChecksum), got: got, want: want}
		}
		data = data[n:]
	}
	return nil
}

// checksumError describes a mismatch; it unwraps to ErrChecksum.
type checksumError struct {
	offset    int64
	got, want uint32
}

// Error describes the mismatch and where it is.
func (e *checksumError) Error() string {
	return fmt.Sprintf("checksum mismatch in chunk at offset %d: computed 0x%08x, stored 0x%08x", e.offset, e.got, e.want)
}

// Unwrap makes errors.Is(err, ErrChecksum) hold.
func (e *checksumError) Unwrap() error { return ErrChecksum }

// appendBlock appends a complete on-disk block (header, payload, CRC32C
// checksums) to dst. payload is already compressed.
func appendBlock(dst []byte, typ BlockType, payload []byte, uncompressedSize int, prevOffset int64, bytesPerChecksum int) []byte {
	start := len(dst)
	dataLen := headerSize + len(payload)
	sums := checksumBytes(dataLen, bytesPerChecksum)
	dst = append(dst, blockMagics[typ]...)
	dst = appendU32(dst, uint32(len(payload)+sums))
	dst = appendU32(dst, uint32(uncompressedSize))
	dst = appendU64(dst, uint64(prevOffset))
	if bytesPerChecksum > 0 {
		dst = append(dst, checksumCRC32C)
	} else {
		dst = append(dst, checksumNull)
	}
	dst = appendU32(dst, uint32(bytesPerChecksum))
	dst = appendU32(dst, uint32(dataLen))
	dst = append(dst, payload...)
	if bytesPerChecksum > 0 {
		data := dst[start:]
		for len(data) > 0 {
			n := min(len(data), bytesPerChecksum)
			dst = appendU32(dst, crc32.Checksum(data[:n], castagnoli))
			data = data[n:]
		}
	}
	return dst
}

package hfile

import (
	"encoding/binary"
	"fmt"
)

// Trailer sizes and versions.
const (
	trailerSizeV2 = 212
	trailerSizeV3 = 4096
	trailerMagic  = "TRABLK\"$"
	// notPBSize is the magic plus the version int that frame the protobuf.
	notPBSize = 8 + 4
	// writerMinorVersion is what HBase 2.x writes (HFileReaderImpl.MAX_MINOR_VERSION).
	writerMinorVersion = 3
)

// Comparator class names.
const (
	// ComparatorKV is the name HBase 2 writes for CellComparatorImpl.
	ComparatorKV = "org.apache.hadoop.hbase.KeyValue$KVComparator"
)

// Trailer is the fixed file trailer (FixedFileTrailer).
type Trailer struct {
	MajorVersion              int
	MinorVersion              int
	FileInfoOffset            uint64
	LoadOnOpenDataOffset      uint64
	UncompressedDataIndexSize uint64
	TotalUncompressedBytes    uint64
	DataIndexCount            uint32
	MetaIndexCount            uint32
	EntryCount                uint64
	NumDataIndexLevels        uint32
	// FirstDataBlockOffset and LastDataBlockOffset are -1 in a file with no
	// data blocks.
	FirstDataBlockOffset int64
	LastDataBlockOffset  int64
	ComparatorClassName  string
	Compression          Compression
	// CompressionOrdinal is the raw compression_codec value.
	CompressionOrdinal uint32
	EncryptionKey      []byte
}

// size is the on-disk size of the trailer for its major version.
func (t *Trailer) size() int {
	if t.MajorVersion == 2 {
		return trailerSizeV2
	}
	return trailerSizeV3
}

// parseTrailer decodes a trailer from the last bytes of a file. tail must
// hold at least the last trailerSizeV3 bytes, or the whole file if smaller.
func parseTrailer(tail []byte) (*Trailer, error) {
	if len(tail) < 4 {
		return nil, formatError("file of %d bytes is too short for a trailer", len(tail))
	}
	ver := binary.BigEndian.Uint32(tail[len(tail)-4:])
	t := &Trailer{MajorVersion: int(ver & 0xffffff), MinorVersion: int(ver >> 24)}
	switch {
	case t.MajorVersion == 3:
	case t.MajorVersion == 2 && t.MinorVersion >= 3:
	case t.MajorVersion == 2 || t.MajorVersion == 1:
		return nil, unsupportedError("HFile version %d.%d (HBase 2 needs 3, or 2 with minor >= 3)", t.MajorVersion, t.MinorVersion)
	default:
		return nil, formatError("trailer has unknown version %d.%d (raw 0x%08x)", t.MajorVersion, t.MinorVersion, ver)
	}
	size := t.size()
	if len(tail) < size {
		return nil, formatError("file of %d bytes is shorter than its %d-byte trailer", len(tail), size)
	}
	b := tail[len(tail)-size:]
	if string(b[:8]) != trailerMagic {
		return nil, formatError("bad trailer magic %q", b[:8])
	}
	body := b[8 : size-4]
	l, n := binary.Uvarint(body)
	if n <= 0 || l > uint64(len(body)-n) {
		return nil, formatError("bad trailer protobuf length")
	}
	t.FirstDataBlockOffset = -1
	t.LastDataBlockOffset = -1
	t.Compression = CompressionNone
	err := pbEach(body[n:n+int(l)], func(f pbField) error {
		if f.wire != 0 && f.num != 11 && f.num != 13 {
			return nil // unknown or mistyped fields are ignored
		}
		switch f.num {
		case 1:
			t.FileInfoOffset = f.v
		case 2:
			t.LoadOnOpenDataOffset = f.v
		case 3:
			t.UncompressedDataIndexSize = f.v
		case 4:
			t.TotalUncompressedBytes = f.v
		case 5:
			t.DataIndexCount = uint32(f.v)
		case 6:
			t.MetaIndexCount = uint32(f.v)
		case 7:
			t.EntryCount = f.v
		case 8:
			t.NumDataIndexLevels = uint32(f.v)
		case 9:
			t.FirstDataBlockOffset = int64(f.v)
		case 10:
			t.LastDataBlockOffset = int64(f.v)
		case 11:
			t.ComparatorClassName = string(f.b)
		case 12:
			t.Compression = compressionFromOrdinal(f.v)
			t.CompressionOrdinal = uint32(f.v)
		case 13:
			t.EncryptionKey = append([]byte(nil), f.b...)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("trailer: %w", err)
	}
	return t, nil
}

// marshal encodes a v3 trailer of exactly trailerSizeV3 bytes.
func (t *Trailer) marshal() ([]byte, error) {
	var pb []byte
	pb = pbAppendVarint(pb, 1, t.FileInfoOffset)
	pb = pbAppendVarint(pb, 2, t.LoadOnOpenDataOffset)
	pb = pbAppendVarint(pb, 3, t.UncompressedDataIndexSize)
	pb = pbAppendVarint(pb, 4, t.TotalUncompressedBytes)
	pb = pbAppendVarint(pb, 5, uint64(t.DataIndexCount))
	pb = pbAppendVarint(pb, 6, uint64(t.MetaIndexCount))
	pb = pbAppendVarint(pb, 7, t.EntryCount)
	pb = pbAppendVarint(pb, 8, uint64(t.NumDataIndexLevels))
	pb = pbAppendVarint(pb, 9, uint64(t.FirstDataBlockOffset))
	pb = pbAppendVarint(pb, 10, uint64(t.LastDataBlockOffset))
	pb = pbAppendBytes(pb, 11, []byte(t.ComparatorClassName))
	pb = pbAppendVarint(pb, 12, uint64(t.Compression.ordinal()))
	out := make([]byte, 0, trailerSizeV3)
	out = append(out, trailerMagic...)
	out = binary.AppendUvarint(out, uint64(len(pb)))
	out = append(out, pb...)
	if len(out) > trailerSizeV3-4 {
		return nil, fmt.Errorf("hfile: trailer of %d bytes does not fit", len(out))
	}
	out = out[:trailerSizeV3-4]
	return appendU32(out, uint32(t.MinorVersion)<<24|uint32(t.MajorVersion)&0xffffff), nil
}

package bulkload

import (
	"fmt"
	"strconv"
	"strings"

	"rangecopy/hbase"
	"rangecopy/hfile"
)

// ZstdHadoopCodec is the codec class HBase uses for ZSTD by default
// (hbase.io.compress.zstd.codec): Hadoop's native ZStandardCodec, which writes
// each block as one plain zstd frame. HBase's own codecs,
// org.apache.hadoop.hbase.io.compress.zstd.ZstdCodec (zstd-jni) and
// org.apache.hadoop.hbase.io.compress.aircompressor.ZstdCodec, write and read
// Hadoop's BlockCompressorStream framing instead.
const ZstdHadoopCodec = "org.apache.hadoop.io.compress.ZStandardCodec"

// FamilySettings are the settings of the files written for one target
// family: the ones its descriptor fixes.
type FamilySettings struct {
	Compression hfile.Compression
	Encoding    hfile.Encoding
	// BlockSize is the data block size; 0 means 64 KiB.
	BlockSize int
	Bloom     hfile.BloomType
	// ZstdFraming matters only for ZSTD: it matches the target's codec class.
	ZstdFraming hfile.ZstdFraming
}

// WriterOptions maps the settings onto the hfile writer's options for a file
// with or without tags, recording task as its source task when not empty.
func (s FamilySettings) WriterOptions(includeTags bool, task string) hfile.WriterOptions {
	return hfile.WriterOptions{
		BlockSize:   s.BlockSize,
		Encoding:    s.Encoding,
		Compression: s.Compression,
		ZstdFraming: s.ZstdFraming,
		Bloom:       s.Bloom,
		IncludeTags: includeTags,
		SourceTask:  task,
	}
}

// SettingsFor maps a target family's descriptor onto the settings of the
// files written for it, the copied ones and the parts of a re-split file
// alike. zstdCodec is the target's hbase.io.compress.zstd.codec (empty:
// HBase's default, ZstdHadoopCodec); it matters only for ZSTD families. An
// empty BLOOMFILTER is HBase's default, ROW. MOB and encrypted families, and
// settings the hfile writer lacks, are refused with an error naming the
// family.
func SettingsFor(fd hbase.FamilyDescriptor, zstdCodec string) (FamilySettings, error) {
	var s FamilySettings
	fail := func(format string, args ...any) (FamilySettings, error) {
		return FamilySettings{}, fmt.Errorf("target family %s: %s", fd.Name, fmt.Sprintf(format, args...))
	}
	if v := fd.Attributes["IS_MOB"]; strings.EqualFold(v, "true") {
		return fail("MOB families are not supported (their large values live in MOB files that a bulk load does not write)")
	}
	if v := fd.Attributes["ENCRYPTION"]; v != "" {
		return fail("encrypted families (ENCRYPTION %s) are not supported", v)
	}
	switch c := strings.ToUpper(fd.Compression); c {
	case "", "NONE":
	case "GZ":
		s.Compression = hfile.CompressionGZ
	case "SNAPPY":
		s.Compression = hfile.CompressionSnappy
	case "LZ4":
		s.Compression = hfile.CompressionLZ4
	case "ZSTD":
		s.Compression = hfile.CompressionZSTD
		s.ZstdFraming = hfile.ZstdHadoopBlock
		if zstdCodec == "" || zstdCodec == ZstdHadoopCodec {
			s.ZstdFraming = hfile.ZstdPlainFrame
		}
	default:
		return fail("compression %s is not supported", c)
	}
	if e := strings.ToUpper(fd.DataBlockEncoding); e != "" {
		var ok bool
		if s.Encoding, ok = hfile.ParseEncoding(e); !ok {
			return fail("data block encoding %s is not supported", e)
		}
	}
	switch b := strings.ToUpper(fd.BloomFilter); b {
	case "", "ROW": // ROW is HBase's default (ColumnFamilyDescriptorBuilder.DEFAULT_BLOOMFILTER)
		s.Bloom = hfile.BloomRow
	case "NONE":
	case "ROWCOL":
		s.Bloom = hfile.BloomRowCol
	default:
		// ROWPREFIX_FIXED_LENGTH needs a prefix length the writer does not
		// take; a file without a bloom is valid, only slower to read, and
		// compaction adds it.
		s.Bloom = hfile.BloomNone
	}
	if fd.BlockSize < 0 {
		return fail("block size %d", fd.BlockSize)
	}
	s.BlockSize = fd.BlockSize
	if s.BlockSize == 0 {
		if v, ok := fd.Attributes["BLOCKSIZE"]; ok {
			n, err := strconv.Atoi(v)
			if err != nil || n <= 0 {
				return fail("block size %q", v)
			}
			s.BlockSize = n
		}
	}
	return s, nil
}

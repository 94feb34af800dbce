package hfile

import (
	"encoding/binary"
	"fmt"
	"sort"
)

// File info keys (HFileInfo, HFileWriterImpl, HStoreFile).
const (
	FileInfoLastKey             = "hfile.LASTKEY"
	FileInfoAvgKeyLen           = "hfile.AVG_KEY_LEN"
	FileInfoAvgValueLen         = "hfile.AVG_VALUE_LEN"
	FileInfoCreateTime          = "hfile.CREATE_TIME_TS"
	FileInfoMaxTagsLen          = "hfile.MAX_TAGS_LEN"
	FileInfoTagsCompressed      = "hfile.TAGS_COMPRESSED"
	FileInfoKeyValueVersion     = "KEY_VALUE_VERSION"
	FileInfoMaxMemstoreTS       = "MAX_MEMSTORE_TS_KEY"
	FileInfoDataBlockEncoding   = "DATA_BLOCK_ENCODING"
	FileInfoMaxSeqID            = "MAX_SEQ_ID_KEY"
	FileInfoMajorCompaction     = "MAJOR_COMPACTION_KEY"
	FileInfoExcludeFromMinor    = "EXCLUDE_FROM_MINOR_COMPACTION"
	FileInfoTimeRange           = "TIMERANGE"
	FileInfoEarliestPutTS       = "EARLIEST_PUT_TS"
	FileInfoBulkLoadSourceTask  = "BULKLOAD_SOURCE_TASK"
	FileInfoBulkLoadTimestamp   = "BULKLOAD_TIMESTAMP"
	FileInfoBloomFilterType     = "BLOOM_FILTER_TYPE"
	FileInfoBloomFilterParam    = "BLOOM_FILTER_PARAM"
	FileInfoLastBloomKey        = "LAST_BLOOM_KEY"
	FileInfoDeleteFamilyCount   = "DELETE_FAMILY_COUNT"
	keyValueVersionWithMemstore = 1
)

// FileInfo is the parsed FILE_INFO block.
type FileInfo struct {
	// Raw holds every entry as stored.
	Raw map[string][]byte

	FirstKey    []byte // from the data index; nil in an empty file
	LastKey     []byte
	AvgKeyLen   int
	AvgValueLen int
	CreateTime  int64
	// IncludesTags is true when MAX_TAGS_LEN is present: every cell then
	// carries a tags length, even if it is 0.
	IncludesTags   bool
	MaxTagsLen     int
	TagsCompressed bool
	// IncludesMVCC is true when KEY_VALUE_VERSION is 1.
	IncludesMVCC  bool
	MaxMemstoreTS int64
	Encoding      Encoding
	MaxSeqID      int64
	HasMaxSeqID   bool
	// TimeRange is [Min, Max] of timestamps; HasTimeRange is false when the
	// file does not record one.
	TimeRangeMin, TimeRangeMax int64
	HasTimeRange               bool
	BloomType                  BloomType
}

// parseFileInfo decodes a FILE_INFO payload: "PBUF" + varint length +
// FileInfoProto{repeated BytesBytesPair map_entry = 1}.
func parseFileInfo(b []byte) (FileInfo, error) {
	fi := FileInfo{Raw: map[string][]byte{}}
	if len(b) < 4 || string(b[:4]) != pbMagic {
		return fi, unsupportedError("file info without PBUF magic (pre-0.96 Writable form)")
	}
	b = b[4:]
	l, n := binary.Uvarint(b)
	if n <= 0 || l > uint64(len(b)-n) {
		return fi, formatError("file info: bad protobuf length")
	}
	err := pbEach(b[n:n+int(l)], func(f pbField) error {
		if f.num != 1 || f.wire != 2 {
			return nil
		}
		var k, v []byte
		var hasK, hasV bool
		if err := pbEach(f.b, func(p pbField) error {
			switch {
			case p.num == 1 && p.wire == 2:
				k, hasK = p.b, true
			case p.num == 2 && p.wire == 2:
				v, hasV = p.b, true
			}
			return nil
		}); err != nil {
			return err
		}
		if !hasK || !hasV {
			return formatError("file info entry without key or value")
		}
		fi.Raw[string(k)] = v
		return nil
	})
	if err != nil {
		return fi, fmt.Errorf("file info: %w", err)
	}
	return fi, fi.interpret()
}

func beInt(v []byte, name string) (int64, error) {
	switch len(v) {
	case 4:
		return int64(int32(binary.BigEndian.Uint32(v))), nil
	case 8:
		return int64(binary.BigEndian.Uint64(v)), nil
	}
	return 0, formatError("file info %s: %d-byte value", name, len(v))
}

// interpret fills the typed fields from Raw.
func (fi *FileInfo) interpret() error {
	var err error
	geti := func(name string) (int64, bool) {
		v, ok := fi.Raw[name]
		if !ok || err != nil {
			return 0, false
		}
		var x int64
		x, err = beInt(v, name)
		return x, err == nil
	}
	fi.LastKey = fi.Raw[FileInfoLastKey]
	if x, ok := geti(FileInfoAvgKeyLen); ok {
		fi.AvgKeyLen = int(x)
	}
	if x, ok := geti(FileInfoAvgValueLen); ok {
		fi.AvgValueLen = int(x)
	}
	if x, ok := geti(FileInfoCreateTime); ok {
		fi.CreateTime = x
	}
	if x, ok := geti(FileInfoMaxTagsLen); ok {
		fi.IncludesTags = true
		fi.MaxTagsLen = int(x)
	}
	if v, ok := fi.Raw[FileInfoTagsCompressed]; ok {
		fi.TagsCompressed = len(v) == 1 && v[0] != 0
	}
	if x, ok := geti(FileInfoKeyValueVersion); ok {
		fi.IncludesMVCC = x == keyValueVersionWithMemstore
	}
	if x, ok := geti(FileInfoMaxMemstoreTS); ok {
		fi.MaxMemstoreTS = x
	}
	if x, ok := geti(FileInfoMaxSeqID); ok {
		fi.MaxSeqID, fi.HasMaxSeqID = x, true
	}
	if err != nil {
		return err
	}
	if v, ok := fi.Raw[FileInfoDataBlockEncoding]; ok {
		e, ok := ParseEncoding(string(v))
		if !ok {
			return unsupportedError("data block encoding %q", v)
		}
		fi.Encoding = e
	}
	if v, ok := fi.Raw[FileInfoTimeRange]; ok {
		lo, hi, err := parseTimeRange(v)
		if err != nil {
			return err
		}
		fi.TimeRangeMin, fi.TimeRangeMax, fi.HasTimeRange = lo, hi, true
	}
	if v, ok := fi.Raw[FileInfoBloomFilterType]; ok {
		fi.BloomType = bloomTypeByName(string(v))
	}
	return nil
}

// parseTimeRange accepts both TimeRangeTracker forms: two int64s, or "PBUF"
// + TimeRangeTracker{from = 1, to = 2}.
func parseTimeRange(v []byte) (lo, hi int64, err error) {
	if len(v) >= 4 && string(v[:4]) == pbMagic {
		lo, hi = 0, LatestTimestamp
		err = pbEach(v[4:], func(f pbField) error {
			if f.wire != 0 {
				return nil
			}
			switch f.num {
			case 1:
				lo = int64(f.v)
			case 2:
				hi = int64(f.v)
			}
			return nil
		})
		return lo, hi, err
	}
	if len(v) != 16 {
		return 0, 0, formatError("TIMERANGE of %d bytes", len(v))
	}
	return int64(binary.BigEndian.Uint64(v)), int64(binary.BigEndian.Uint64(v[8:])), nil
}

// marshalFileInfo encodes entries sorted by key, as HBase does.
func marshalFileInfo(entries map[string][]byte) []byte {
	keys := make([]string, 0, len(entries))
	for k := range entries {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var msg, pair []byte
	for _, k := range keys {
		pair = pbAppendBytes(pair[:0], 1, []byte(k))
		pair = pbAppendBytes(pair, 2, entries[k])
		msg = pbAppendBytes(msg, 1, pair)
	}
	out := append([]byte(pbMagic), binary.AppendUvarint(nil, uint64(len(msg)))...)
	return append(out, msg...)
}

func int32Bytes(v int32) []byte { return appendU32(nil, uint32(v)) }
func int64Bytes(v int64) []byte { return appendU64(nil, uint64(v)) }
func boolBytes(v bool) []byte {
	if v {
		return []byte{0xff}
	}
	return []byte{0}
}

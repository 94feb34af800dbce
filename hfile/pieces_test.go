package hfile

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"testing"
)

func TestTrailerRoundTrip(t *testing.T) {
	tr := Trailer{MajorVersion: 3, MinorVersion: 3, FileInfoOffset: 1000, LoadOnOpenDataOffset: 900,
		UncompressedDataIndexSize: 77, TotalUncompressedBytes: 5000, DataIndexCount: 3, EntryCount: 42,
		NumDataIndexLevels: 2, FirstDataBlockOffset: 0, LastDataBlockOffset: 800,
		ComparatorClassName: ComparatorKV, Compression: CompressionSnappy}
	b, err := tr.marshal()
	if err != nil {
		t.Fatal(err)
	}
	if len(b) != trailerSizeV3 || string(b[:8]) != "TRABLK\"$" || !bytes.Equal(b[4092:], []byte{3, 0, 0, 3}) {
		t.Fatalf("trailer framing: len %d magic %q version %x", len(b), b[:8], b[4092:])
	}
	got, err := parseTrailer(append(make([]byte, 100), b...))
	if err != nil {
		t.Fatal(err)
	}
	if got.CompressionOrdinal != 3 {
		t.Errorf("snappy ordinal %d, want 3", got.CompressionOrdinal)
	}
	got.CompressionOrdinal = 0
	if fmt.Sprint(*got) != fmt.Sprint(tr) {
		t.Fatalf("got %+v\nwant %+v", *got, tr)
	}
	// Empty-file offsets (-1) survive the uint64 encoding.
	tr.FirstDataBlockOffset, tr.LastDataBlockOffset = -1, -1
	b, _ = tr.marshal()
	got, _ = parseTrailer(b)
	if got.FirstDataBlockOffset != -1 || got.LastDataBlockOffset != -1 {
		t.Fatalf("offsets %d %d", got.FirstDataBlockOffset, got.LastDataBlockOffset)
	}
	bad := func(mut func([]byte)) error {
		c := append([]byte(nil), b...)
		mut(c)
		_, err := parseTrailer(c)
		return err
	}
	for name, mut := range map[string]func([]byte){
		"magic":      func(c []byte) { c[0] = 'X' },
		"version":    func(c []byte) { c[4095] = 9 },
		"v1":         func(c []byte) { c[4095] = 1; c[4092] = 0 },
		"pb length":  func(c []byte) { c[8] = 0xff; c[9] = 0xff; c[10] = 0x7f },
		"pb garbage": func(c []byte) { c[9] = 0x07 },
	} {
		if err := bad(mut); err == nil {
			t.Errorf("%s: corrupt trailer accepted", name)
		}
	}
	if _, err := parseTrailer(b[:100]); !errors.Is(err, ErrFormat) {
		t.Errorf("short trailer: %v", err)
	}
}

func TestBlockHeader(t *testing.T) {
	payload := bytes.Repeat([]byte("abc"), 10000)
	blk := appendBlock(nil, BlockData, payload, len(payload), -1, 512)
	h, err := parseBlockHeader(blk, 0, int64(len(blk)))
	if err != nil {
		t.Fatal(err)
	}
	if h.typ != BlockData || h.onDiskSize() != len(blk) || h.uncompressedSize != len(payload) || h.checksumType != checksumCRC32C || h.prevBlockOffset != -1 {
		t.Fatalf("header %+v", h)
	}
	if err := verifyChecksums(&h, blk); err != nil {
		t.Fatal(err)
	}
	blk[5000] ^= 1
	err = verifyChecksums(&h, blk)
	if !errors.Is(err, ErrChecksum) {
		t.Fatalf("flipped byte: %v", err)
	}
	var ce *checksumError
	if !errors.As(err, &ce) || ce.offset != 4608 {
		t.Fatalf("checksum error offset: %v", err)
	}
	blk[5000] ^= 1
	// CRC32 (IEEE) files verify too.
	c := append([]byte(nil), blk...)
	c[24] = checksumCRC32
	data := c[:h.onDiskDataWithHdr]
	for i, off := 0, 0; off < len(data); i, off = i+1, off+512 {
		end := min(off+512, len(data))
		sum := checksum(checksumCRC32, data[off:end])
		s := c[h.onDiskDataWithHdr+4*i:]
		s[0], s[1], s[2], s[3] = byte(sum>>24), byte(sum>>16), byte(sum>>8), byte(sum)
	}
	h.checksumType = checksumCRC32
	if err := verifyChecksums(&h, c); err != nil {
		t.Fatalf("crc32: %v", err)
	}
	for name, mut := range map[string]func([]byte){
		"magic":          func(c []byte) { c[0] = 'X' },
		"size":           func(c []byte) { c[8] = 0x7f },
		"negative size":  func(c []byte) { c[8] = 0xff },
		"uncompressed":   func(c []byte) { c[12] = 0x7f },
		"checksum type":  func(c []byte) { c[24] = 9 },
		"data size":      func(c []byte) { c[29] = 0x7f },
		"bytes per csum": func(c []byte) { c[27] = 0x7f },
	} {
		c := append([]byte(nil), blk...)
		mut(c)
		if _, err := parseBlockHeader(c, 0, int64(len(c))); !errors.Is(err, ErrFormat) {
			t.Errorf("%s: %v", name, err)
		}
	}
	// No checksums: bytesPerChecksum 0.
	blk = appendBlock(nil, BlockMeta, payload[:10], 10, 5, 0)
	h, err = parseBlockHeader(blk, 0, int64(len(blk)))
	if err != nil || h.onDiskSize() != headerSize+10 || verifyChecksums(&h, blk) != nil {
		t.Fatalf("no checksum block: %+v %v", h, err)
	}
}

func TestIndexFormats(t *testing.T) {
	entries := []indexEntry{
		{offset: 0, size: 100, key: KeyBytes(&Cell{Row: []byte("a"), Type: TypePut})},
		{offset: 100, size: 200, key: KeyBytes(&Cell{Row: []byte("m"), Type: TypePut})},
		{offset: 300, size: 50, key: KeyBytes(&Cell{Row: bytes.Repeat([]byte("z"), 300), Type: TypePut})},
	}
	root := appendRootIndex(nil, entries)
	if len(root) != rootIndexSize(entries) {
		t.Fatalf("root size %d, computed %d", len(root), rootIndexSize(entries))
	}
	got, rest, err := parseRootIndex(append(root, 1, 2), 3)
	if err != nil || len(rest) != 2 || fmt.Sprint(got) != fmt.Sprint(entries) {
		t.Fatalf("root: %v %v %v", got, rest, err)
	}
	if _, _, err := parseRootIndex(root, 4); err == nil {
		t.Error("root index with too many entries accepted")
	}
	if _, _, err := parseRootIndex(root, 1<<30); err == nil {
		t.Error("huge root count accepted")
	}
	nr := appendNonRootIndex(nil, entries)
	if len(nr) != nonRootIndexSize(entries) {
		t.Fatalf("non-root size %d, computed %d", len(nr), nonRootIndexSize(entries))
	}
	x, err := parseNonRootIndex(nr)
	if err != nil || x.n != 3 {
		t.Fatal(err)
	}
	for i := range entries {
		if fmt.Sprint(x.entry(i)) != fmt.Sprint(entries[i]) {
			t.Fatalf("entry %d: %v", i, x.entry(i))
		}
	}
	for _, tt := range []struct {
		row  string
		want int
	}{{"", -1}, {"a", -1}, {"a\x00", 0}, {"b", 0}, {"m", 0}, {"m\x00", 1}, {"y", 1}, {strings.Repeat("z", 300), 1}, {strings.Repeat("z", 301), 2}} {
		k := FirstOnRow([]byte(tt.row))
		if got := x.search(k); got != tt.want {
			t.Errorf("search(%q) = %d, want %d", tt.row, got, tt.want)
		}
		if got := searchEntries(entries, k); got != tt.want {
			t.Errorf("searchEntries(%q) = %d, want %d", tt.row, got, tt.want)
		}
	}
	for name, mut := range map[string]func([]byte){
		"count":     func(c []byte) { c[0] = 0x7f },
		"secondary": func(c []byte) { c[11] = 0xff },
		"order":     func(c []byte) { c[7] = 0x10 },
	} {
		c := append([]byte(nil), nr...)
		mut(c)
		if _, err := parseNonRootIndex(c); err == nil {
			t.Errorf("%s: corrupt non-root index accepted", name)
		}
	}
}

func TestFileInfo(t *testing.T) {
	m := map[string][]byte{
		FileInfoLastKey:           KeyBytes(&Cell{Row: []byte("z"), Type: TypePut}),
		FileInfoAvgKeyLen:         int32Bytes(20),
		FileInfoAvgValueLen:       int32Bytes(7),
		FileInfoMaxTagsLen:        int32Bytes(0),
		FileInfoKeyValueVersion:   int32Bytes(1),
		FileInfoMaxMemstoreTS:     int64Bytes(0),
		FileInfoDataBlockEncoding: []byte("FAST_DIFF"),
		FileInfoTimeRange:         append(int64Bytes(5), int64Bytes(10)...),
		FileInfoMaxSeqID:          int64Bytes(99),
	}
	fi, err := parseFileInfo(marshalFileInfo(m))
	if err != nil {
		t.Fatal(err)
	}
	if !fi.IncludesTags || !fi.IncludesMVCC || fi.Encoding != EncodingFastDiff || fi.AvgKeyLen != 20 || fi.AvgValueLen != 7 ||
		!fi.HasTimeRange || fi.TimeRangeMin != 5 || fi.TimeRangeMax != 10 || fi.MaxSeqID != 99 {
		t.Fatalf("file info %+v", fi)
	}
	// TIMERANGE in the protobuf form.
	lo, hi, err := parseTimeRange([]byte("PBUF\x08\x05\x10\x0a"))
	if err != nil || lo != 5 || hi != 10 {
		t.Fatalf("pb time range %d %d %v", lo, hi, err)
	}
	m[FileInfoDataBlockEncoding] = []byte("PREFIX_TREE")
	if _, err := parseFileInfo(marshalFileInfo(m)); !errors.Is(err, ErrUnsupported) {
		t.Fatalf("prefix tree: %v", err)
	}
	m[FileInfoDataBlockEncoding] = []byte("NONE")
	m[FileInfoAvgKeyLen] = []byte{1, 2, 3}
	if _, err := parseFileInfo(marshalFileInfo(m)); !errors.Is(err, ErrFormat) {
		t.Fatalf("3-byte int: %v", err)
	}
	if _, err := parseFileInfo([]byte("PBUF\x05\x0a")); err == nil {
		t.Fatal("truncated file info accepted")
	}
}

// encoderCases are small blocks that exercise every branch of the delta
// encoders: row length changes, shared rows, same values, negative and
// diffed timestamps, type changes, empty qualifiers and values.
func encoderCases() [][]*Cell {
	c := func(row, qual string, ts int64, typ CellType, val string) *Cell {
		return &Cell{Row: []byte(row), Family: []byte("fam"), Qualifier: []byte(qual), Timestamp: ts, Type: typ, Value: []byte(val)}
	}
	longRow := string(bytes.Repeat([]byte{0xff}, 300))
	return [][]*Cell{
		{c("a", "q", 1, TypePut, "v")},
		{c("a", "q", 1, TypePut, "v"), c("a", "q", 0, TypePut, "v"), c("a", "r", 0, TypeDelete, ""), c("ab", "", -5, TypePut, "v")},
		{c("row1", "qual", 1<<40, TypePut, "x"), c("row1", "qual", 1<<40-1, TypePut, "x"), c("row2", "qual", 1<<40, TypeDeleteColumn, "y")},
		{c("", "", 0, TypeDeleteFamily, ""), c("\x00", "", -1<<62, TypePut, "v"), c("\x00\x00", "q", 1<<62, TypePut, "v")},
		{c(longRow[:255], "a", 3, TypePut, "1"), c(longRow[:256], "a", 3, TypePut, "1"), c(longRow, "a", 3, TypePut, "2")},
		{c("r", "q", -1<<63, TypePut, "a"), c("r", "q", -1<<63, TypePut, "a"), c("s", "q", 1<<63-1, TypePut, "a")},
	}
}

func TestEncoders(t *testing.T) {
	for ci, cells := range encoderCases() {
		for _, l := range []cellLayout{{}, {tags: true}, {mvcc: true}, {tags: true, mvcc: true}, {tags: true, compressedTags: true}, {tags: true, mvcc: true, compressedTags: true}} {
			var none []byte
			for i, c := range cells {
				c := *c
				if l.tags && i%2 == 0 {
					c.Tags = []byte{0, 2, 1, 'x'}
				}
				if l.tags && i%3 == 1 {
					c.Tags = []byte{0, 2, 1, 'x', 0, 3, 2, 'y', 'z', 0, 2, 1, 'x'}
				}
				if l.mvcc {
					c.SeqID = uint64(i * 1000)
				}
				none = appendNoneCell(none, &c, l)
			}
			for _, enc := range allEncodings {
				encoded, err := encodeBlock(enc, none, l, nil, nil)
				if err != nil {
					t.Fatalf("case %d %s: encode: %v", ci, enc, err)
				}
				decoded, err := decodeBlock(enc, encoded, l, nil, nil)
				if err != nil {
					t.Fatalf("case %d %s %+v: decode: %v", ci, enc, l, err)
				}
				if !bytes.Equal(decoded, none) {
					t.Fatalf("case %d %s %+v: decoded\n%x\nwant\n%x", ci, enc, l, decoded, none)
				}
				// Every truncation fails cleanly or decodes a prefix.
				for n := 0; n < len(encoded); n++ {
					decodeBlock(enc, encoded[:n], l, nil, nil)
				}
			}
		}
	}
}

// TestFastDiffBytes pins the FAST_DIFF encoding of two cells to bytes worked
// out by hand from FastDiffDeltaEncoder.compressSingleKeyValue.
func TestFastDiffBytes(t *testing.T) {
	a := &Cell{Row: []byte("r1"), Family: []byte("f"), Qualifier: []byte("q"), Timestamp: 0x100, Type: TypePut, Value: []byte("v")}
	b := &Cell{Row: []byte("r1"), Family: []byte("f"), Qualifier: []byte("s"), Timestamp: 0x101, Type: TypePut, Value: []byte("v")}
	none := appendNoneCell(appendNoneCell(nil, a, cellLayout{}), b, cellLayout{})
	got, err := encodeBlock(EncodingFastDiff, none, cellLayout{}, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := []byte{0, 0, 0, byte(len(none))}
	want = append(want, 0x00, 16, 1, 0)
	want = append(want, KeyBytes(a)...)
	want = append(want, 'v')
	// flag: ts prefix 7, same key len, same value len, same type, same value
	want = append(want, 0x07|0x08|0x10|0x20|0x40, 6, 's', 0x01)
	if !bytes.Equal(got, want) {
		t.Fatalf("FAST_DIFF bytes\n got %x\nwant %x", got, want)
	}
}

func TestCompressionCodecs(t *testing.T) {
	data := bytes.Repeat([]byte("hfile compression test data 0123456789 "), 10000) // ~390 KB, several Hadoop groups
	var cs codecs
	for _, alg := range allCompressions {
		for _, zf := range []ZstdFraming{ZstdHadoopBlock, ZstdPlainFrame} {
			comp, err := cs.compress(alg, zf, nil, data)
			if err != nil {
				t.Fatal(err)
			}
			got, err := cs.decompress(alg, nil, comp, len(data))
			if err != nil || !bytes.Equal(got, data) {
				t.Fatalf("%s/%d: %v", alg, zf, err)
			}
			if alg != CompressionNone {
				if _, err := cs.decompress(alg, nil, comp, len(data)-1); err == nil {
					t.Errorf("%s: wrong size accepted", alg)
				}
				if _, err := cs.decompress(alg, nil, comp[:len(comp)/2], len(data)); err == nil {
					t.Errorf("%s: truncated stream accepted", alg)
				}
			}
		}
	}
	// Hadoop framing with several chunks in one group, as BlockCompressorStream
	// writes for one large write().
	var framed []byte
	framed = appendU32(framed, uint32(len(data)))
	for off := 0; off < len(data); off += 1000 {
		part := data[off:min(off+1000, len(data))]
		c, _ := cs.compress(CompressionSnappy, 0, nil, part)
		c = c[8:] // strip our own group header
		framed = appendU32(framed, uint32(len(c)))
		framed = append(framed, c...)
	}
	got, err := cs.decompress(CompressionSnappy, nil, framed, len(data))
	if err != nil || !bytes.Equal(got, data) {
		t.Fatalf("multi-chunk group: %v", err)
	}
	if _, err := cs.decompress(CompressionLZO, nil, data, 5); !errors.Is(err, ErrUnsupported) {
		t.Fatalf("LZO: %v", err)
	}
	for c := CompressionNone; c < compressionUnknown; c++ {
		if compressionFromOrdinal(uint64(c.ordinal())) != c {
			t.Errorf("ordinal round trip of %s", c)
		}
	}
}

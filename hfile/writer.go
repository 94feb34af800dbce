package hfile

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"time"
)

// WriterOptions configures a Writer. The zero value writes 64 KiB NONE
// blocks without compression, tags or MVCC, with CRC32C checksums.
type WriterOptions struct {
	// BlockSize is the unencoded data block size target (default 64 KiB).
	BlockSize int
	// Encoding is the data block encoding.
	Encoding Encoding
	// Compression is the block compression.
	Compression Compression
	// ZstdFraming selects the ZSTD stream format; match the codec class the
	// target cluster uses (hbase.io.compress.zstd.codec).
	ZstdFraming ZstdFraming
	// IncludeTags makes every cell carry a tags length (HFileOutputFormat2
	// does this); cells with tags require it.
	IncludeTags bool
	// CompressTags dictionary-compresses tags in PREFIX, DIFF and FAST_DIFF
	// blocks, as region servers do for families with COMPRESS_TAGS (the
	// default). It needs IncludeTags and an encoding other than NONE.
	CompressTags bool
	// IncludeMVCC makes every cell carry its SeqID as a VLong.
	IncludeMVCC bool
	// BytesPerChecksum is the checksum chunk size (default 16384). A
	// negative value writes no checksums (checksum type NULL, 0 bytes per
	// checksum); HBase accepts such files but cannot detect corruption.
	BytesPerChecksum int
	// IndexBlockSize is the index chunk size that makes the data index
	// grow a level (default 128 KiB, hfile.index.block.max.size).
	IndexBlockSize int
	// IndexMinEntries is the minimum number of entries per intermediate
	// index block (default 16, hfile.index.block.min.entries).
	IndexMinEntries int
	// Bloom selects a general bloom filter (ROW or ROWCOL).
	Bloom BloomType
	// BloomErrorRate is the target false positive rate (default 0.01).
	BloomErrorRate float64
	// BloomBlockSize is the bloom chunk size hint in bytes (default 128 KiB).
	BloomBlockSize int
	// CreateTime is hfile.CREATE_TIME_TS in milliseconds (default now).
	CreateTime int64
	// BulkLoadTime is BULKLOAD_TIMESTAMP in milliseconds (default CreateTime).
	BulkLoadTime int64
	// MaxSeqID is written as MAX_SEQ_ID_KEY if it exceeds every cell's SeqID.
	MaxSeqID int64
	// SourceTask, if set, is written as BULKLOAD_SOURCE_TASK.
	SourceTask string
	// FileInfo holds extra file info entries. Keys may not start with
	// "hfile." (HBase reserves them).
	FileInfo map[string][]byte
}

func (o *WriterOptions) setDefaults() error {
	if o.BlockSize <= 0 {
		o.BlockSize = 64 << 10
	}
	if o.BytesPerChecksum == 0 {
		o.BytesPerChecksum = defaultBytesPerChecksum
	}
	if o.BytesPerChecksum < 0 {
		o.BytesPerChecksum = 0
	} else if o.BytesPerChecksum < headerSize {
		return fmt.Errorf("hfile: bytes per checksum %d below %d", o.BytesPerChecksum, headerSize)
	}
	if o.IndexBlockSize <= 0 {
		o.IndexBlockSize = 128 << 10
	}
	if o.IndexMinEntries <= 0 {
		o.IndexMinEntries = 16
	}
	if o.IndexMinEntries < 2 {
		o.IndexMinEntries = 2
	}
	if !o.Compression.supported() {
		return fmt.Errorf("hfile: cannot write compression %s: %w", o.Compression, ErrUnsupported)
	}
	if !o.Encoding.supported() {
		return fmt.Errorf("hfile: cannot write encoding %s: %w", o.Encoding, ErrUnsupported)
	}
	if o.CreateTime == 0 {
		o.CreateTime = time.Now().UnixMilli()
	}
	if o.BulkLoadTime == 0 {
		o.BulkLoadTime = o.CreateTime
	}
	for k := range o.FileInfo {
		if strings.HasPrefix(k, "hfile.") {
			return fmt.Errorf("hfile: file info key %q uses the reserved prefix \"hfile.\"", k)
		}
	}
	switch o.Bloom {
	case BloomNone, BloomRow, BloomRowCol:
	default:
		return fmt.Errorf("hfile: cannot write bloom type %s: %w", o.Bloom, ErrUnsupported)
	}
	return nil
}

// Writer writes one HFile (version 3) to an io.Writer. Cells must be
// appended in CompareKeys order and share one family. The first error is
// sticky: every later call returns it.
type Writer struct {
	w      io.Writer
	opts   WriterOptions
	layout cellLayout
	err    error
	closed bool
	cs     codecs

	off      int64
	prevOff  [16]int64 // previous block offset per block type id
	family   []byte
	haveLast bool
	lastKey  []byte
	lastCell Cell // parsed view of lastKey

	block         []byte // current data block, NONE layout
	blockFirstKey []byte
	encBuf        []byte
	compBuf       []byte
	outBuf        []byte

	leaf        []indexEntry // current leaf index chunk
	leafLevel   []indexEntry // root entries pointing at leaf blocks
	leafCounts  []int        // cumulative data blocks per leafLevel entry
	dataBlocks  int
	firstData   int64
	lastData    int64
	indexBytes  uint64
	totalUncomp uint64

	entries       uint64
	totalKeyLen   uint64
	totalValueLen uint64
	maxTagsLen    int
	maxSeqID      uint64
	tsMin, tsMax  int64
	earliestPut   int64
	deleteFamily  int64

	bloom *bloomWriter
	dict  tagDict
}

// NewWriter returns a writer of one HFile to w. Option errors surface on the
// first Append or on Close.
func NewWriter(w io.Writer, opts WriterOptions) *Writer {
	wr := &Writer{
		w:           w,
		opts:        opts,
		firstData:   -1,
		lastData:    -1,
		tsMin:       LatestTimestamp,
		tsMax:       -1,
		earliestPut: LatestTimestamp,
	}
	for i := range wr.prevOff {
		wr.prevOff[i] = -1
	}
	wr.err = wr.opts.setDefaults()
	wr.layout = cellLayout{tags: wr.opts.IncludeTags, mvcc: wr.opts.IncludeMVCC,
		compressedTags: wr.opts.IncludeTags && wr.opts.CompressTags && wr.opts.Encoding != EncodingNone}
	if wr.err == nil && wr.opts.Bloom != BloomNone {
		wr.bloom = newBloomWriter(wr.opts.Bloom, wr.opts.BloomErrorRate, wr.opts.BloomBlockSize)
	}
	return wr
}

// Append adds c, which must not sort before the previous cell.
func (w *Writer) Append(c *Cell) error {
	if w.err != nil {
		return w.err
	}
	if w.closed {
		return errors.New("hfile: append to a closed writer")
	}
	if err := w.check(c); err != nil {
		return err // a refused cell is not sticky: nothing was written
	}
	if len(w.block) >= w.opts.BlockSize && CompareKeys(c, &w.lastCell) != 0 {
		if err := w.finishBlock(); err != nil {
			w.err = err
			return err
		}
	}
	if len(w.block) == 0 {
		w.blockFirstKey = appendKey(w.blockFirstKey[:0], c)
	}
	w.block = appendNoneCell(w.block, c, w.layout)
	if !w.haveLast {
		w.family = append([]byte(nil), c.Family...)
	}
	w.lastKey = appendKey(w.lastKey[:0], c)
	if err := parseKey(w.lastKey, &w.lastCell); err != nil {
		w.err = err
		return err
	}
	w.haveLast = true
	w.entries++
	w.totalKeyLen += uint64(c.keyLen())
	w.totalValueLen += uint64(len(c.Value))
	w.maxTagsLen = max(w.maxTagsLen, len(c.Tags))
	if w.layout.mvcc {
		w.maxSeqID = max(w.maxSeqID, c.SeqID)
	}
	w.tsMin = min(w.tsMin, c.Timestamp)
	w.tsMax = max(w.tsMax, c.Timestamp)
	switch c.Type {
	case TypeDeleteColumn, TypeDeleteFamily:
		w.tsMin = min(w.tsMin, 0)
		w.tsMax = max(w.tsMax, 0)
	case TypePut:
		w.earliestPut = min(w.earliestPut, c.Timestamp)
	}
	if c.Type == TypeDeleteFamily || c.Type == TypeDeleteFamilyVersion {
		w.deleteFamily++
	}
	if w.bloom != nil {
		w.bloom.add(c)
	}
	return nil
}

// check validates c before anything is written.
func (w *Writer) check(c *Cell) error {
	switch {
	case len(c.Row) > maxRowLen:
		return fmt.Errorf("hfile: cell %s: row of %d bytes exceeds %d", c, len(c.Row), maxRowLen)
	case len(c.Family) > maxFamilyLen:
		return fmt.Errorf("hfile: cell %s: family of %d bytes exceeds %d", c, len(c.Family), maxFamilyLen)
	case !c.Type.valid():
		return fmt.Errorf("hfile: cell %s: type %s cannot be stored", c, c.Type)
	case len(c.Tags) > 0 && !w.layout.tags:
		return fmt.Errorf("hfile: cell %s has tags but the writer was created without IncludeTags", c)
	case len(c.Tags) > maxTagsLen:
		return fmt.Errorf("hfile: cell %s: %d bytes of tags exceed %d", c, len(c.Tags), maxTagsLen)
	case w.layout.compressedTags && !validTags(c.Tags):
		return fmt.Errorf("hfile: cell %s: malformed tags (want [uint16 length][type][value]...)", c)
	case c.SeqID > 1<<63-1:
		return fmt.Errorf("hfile: cell %s: sequence id %d out of range", c, c.SeqID)
	case c.keyLen()+len(c.Value)+len(c.Tags)+32 > maxBlockSize:
		return fmt.Errorf("hfile: cell %s of %d bytes is too large", c, c.keyLen()+len(c.Value))
	}
	if w.haveLast {
		if string(c.Family) != string(w.family) {
			return fmt.Errorf("hfile: cell %s: family %q differs from the file's family %q", c, c.Family, w.family)
		}
		if CompareKeys(c, &w.lastCell) < 0 {
			return fmt.Errorf("hfile: cell %s sorts before the previous cell %s", c, &w.lastCell)
		}
	}
	return nil
}

// writeBlock compresses payload, frames it as a block of type typ, writes it
// and returns its offset and on-disk size.
func (w *Writer) writeBlock(typ BlockType, payload []byte) (int64, int, error) {
	var err error
	data := payload
	if w.opts.Compression != CompressionNone {
		w.compBuf, err = w.cs.compress(w.opts.Compression, w.opts.ZstdFraming, w.compBuf[:0], payload)
		if err != nil {
			return 0, 0, fmt.Errorf("hfile: compressing %s block: %w", typ, err)
		}
		data = w.compBuf
	}
	id := typ
	if typ == BlockEncodedData {
		id = BlockData // they share a previous-offset chain
	}
	w.outBuf = appendBlock(w.outBuf[:0], typ, data, len(payload), w.prevOff[id], w.opts.BytesPerChecksum)
	off := w.off
	if _, err := w.w.Write(w.outBuf); err != nil {
		return 0, 0, fmt.Errorf("hfile: writing %s block at offset %d: %w", typ, off, err)
	}
	w.prevOff[id] = off
	w.off += int64(len(w.outBuf))
	w.totalUncomp += uint64(headerSize + len(payload))
	return off, len(w.outBuf), nil
}

// finishBlock writes the current data block and any inline blocks due.
func (w *Writer) finishBlock() error {
	if len(w.block) == 0 {
		return nil
	}
	typ := BlockData
	payload := w.block
	if w.opts.Encoding != EncodingNone {
		typ = BlockEncodedData
		var err error
		w.encBuf = appendU16(w.encBuf[:0], uint16(w.opts.Encoding))
		w.encBuf, err = encodeBlock(w.opts.Encoding, w.block, w.layout, w.encBuf, &w.dict)
		if err != nil {
			return err
		}
		payload = w.encBuf
	}
	off, size, err := w.writeBlock(typ, payload)
	if err != nil {
		return err
	}
	if w.firstData < 0 {
		w.firstData = off
	}
	w.lastData = off
	w.dataBlocks++
	w.leaf = append(w.leaf, indexEntry{offset: off, size: size, key: append([]byte(nil), w.blockFirstKey...)})
	w.block = w.block[:0]
	if nonRootIndexSize(w.leaf) >= w.opts.IndexBlockSize {
		if err := w.writeLeaf(); err != nil {
			return err
		}
	}
	for w.bloom != nil && w.bloom.full() {
		if err := w.writeBloomChunk(); err != nil {
			return err
		}
	}
	return nil
}

// writeLeaf writes the pending leaf index chunk as an inline block.
func (w *Writer) writeLeaf() error {
	if len(w.leaf) == 0 {
		return nil
	}
	payload := appendNonRootIndex(nil, w.leaf)
	off, size, err := w.writeBlock(BlockLeafIndex, payload)
	if err != nil {
		return err
	}
	w.indexBytes += uint64(len(payload))
	w.leafLevel = append(w.leafLevel, indexEntry{offset: off, size: size, key: w.leaf[0].key})
	w.leafCounts = append(w.leafCounts, w.dataBlocks)
	w.leaf = w.leaf[:0:0]
	return nil
}

// writeBloomChunk writes the next bloom chunk; at close it also closes a
// partial chunk. It reports whether it wrote one.
func (w *Writer) writeBloomChunk() error {
	_, err := w.writeOneBloomChunk()
	return err
}

func (w *Writer) writeOneBloomChunk() (bool, error) {
	payload, key := w.bloom.takeChunk()
	if payload == nil {
		return false, nil
	}
	off, size, err := w.writeBlock(BlockBloomChunk, payload)
	if err != nil {
		return false, err
	}
	w.bloom.chunkWritten(off, size, key)
	return true, nil
}

// Close finishes the file: the last data block, the index, file info and
// trailer. It does not close the underlying io.Writer.
func (w *Writer) Close() error {
	if w.closed {
		if w.err != nil {
			return w.err
		}
		return nil
	}
	w.closed = true
	if w.err != nil {
		return w.err
	}
	w.err = w.close()
	return w.err
}

func (w *Writer) close() error {
	if err := w.finishBlock(); err != nil {
		return err
	}
	// A single-level index if it fits, otherwise flush the last leaf.
	levels := 1
	cur := w.leaf
	if len(w.leafLevel) > 0 || rootIndexSize(w.leaf) > w.opts.IndexBlockSize {
		if err := w.writeLeaf(); err != nil {
			return err
		}
		levels = 2
		cur = w.leafLevel
	}
	for w.bloom != nil {
		wrote, err := w.writeOneBloomChunk()
		if err != nil {
			return err
		}
		if !wrote {
			break
		}
	}
	var mid []byte
	if levels > 1 {
		mid = w.midKey()
	}
	for rootIndexSize(cur) > w.opts.IndexBlockSize && len(cur) > w.opts.IndexMinEntries {
		var parent, chunk []indexEntry
		flush := func() error {
			payload := appendNonRootIndex(nil, chunk)
			off, size, err := w.writeBlock(BlockIntermediateIndex, payload)
			if err != nil {
				return err
			}
			w.indexBytes += uint64(len(payload))
			parent = append(parent, indexEntry{offset: off, size: size, key: chunk[0].key})
			chunk = nil
			return nil
		}
		for _, e := range cur {
			chunk = append(chunk, e)
			if nonRootIndexSize(chunk) >= w.opts.IndexBlockSize && len(chunk) >= w.opts.IndexMinEntries {
				if err := flush(); err != nil {
					return err
				}
			}
		}
		if len(chunk) > 0 {
			if err := flush(); err != nil {
				return err
			}
		}
		cur = parent
		levels++
	}
	rootPayload := appendRootIndex(nil, cur)
	rootPayload = append(rootPayload, mid...)
	rootOff, _, err := w.writeBlock(BlockRootIndex, rootPayload)
	if err != nil {
		return err
	}
	w.indexBytes += uint64(len(rootPayload))
	if _, _, err := w.writeBlock(BlockRootIndex, nil); err != nil { // meta index
		return err
	}
	fiOff, _, err := w.writeBlock(BlockFileInfo, marshalFileInfo(w.fileInfo()))
	if err != nil {
		return err
	}
	if w.bloom != nil && w.bloom.chunks() > 0 {
		if _, _, err := w.writeBlock(BlockGeneralBloomMeta, w.bloom.meta()); err != nil {
			return err
		}
	}
	t := Trailer{
		MajorVersion:              3,
		MinorVersion:              writerMinorVersion,
		FileInfoOffset:            uint64(fiOff),
		LoadOnOpenDataOffset:      uint64(rootOff),
		UncompressedDataIndexSize: w.indexBytes,
		TotalUncompressedBytes:    w.totalUncomp + trailerSizeV3,
		DataIndexCount:            uint32(len(cur)),
		MetaIndexCount:            0,
		EntryCount:                w.entries,
		NumDataIndexLevels:        uint32(levels),
		FirstDataBlockOffset:      w.firstData,
		LastDataBlockOffset:       w.lastData,
		ComparatorClassName:       ComparatorKV,
		Compression:               w.opts.Compression,
	}
	tb, err := t.marshal()
	if err != nil {
		return err
	}
	if _, err := w.w.Write(tb); err != nil {
		return fmt.Errorf("hfile: writing trailer at offset %d: %w", w.off, err)
	}
	w.off += int64(len(tb))
	return nil
}

// midKey is the 16-byte mid-key metadata of a multi-level root.
func (w *Writer) midKey() []byte {
	total := w.leafCounts[len(w.leafCounts)-1]
	mid := (total - 1) / 2
	i := 0
	for w.leafCounts[i] <= mid {
		i++
	}
	before := 0
	if i > 0 {
		before = w.leafCounts[i-1]
	}
	b := appendU64(nil, uint64(w.leafLevel[i].offset))
	b = appendU32(b, uint32(w.leafLevel[i].size))
	return appendU32(b, uint32(mid-before))
}

// fileInfo assembles the FILE_INFO entries.
func (w *Writer) fileInfo() map[string][]byte {
	fi := make(map[string][]byte, 24)
	for k, v := range w.opts.FileInfo {
		fi[k] = v
	}
	var avgK, avgV int32
	if w.entries > 0 {
		fi[FileInfoLastKey] = append([]byte(nil), w.lastKey...)
		avgK = int32(w.totalKeyLen / w.entries)
		avgV = int32(w.totalValueLen / w.entries)
	}
	fi[FileInfoAvgKeyLen] = int32Bytes(avgK)
	fi[FileInfoAvgValueLen] = int32Bytes(avgV)
	fi[FileInfoCreateTime] = int64Bytes(w.opts.CreateTime)
	if w.layout.tags {
		fi[FileInfoMaxTagsLen] = int32Bytes(int32(w.maxTagsLen))
		fi[FileInfoTagsCompressed] = boolBytes(w.layout.compressedTags)
	}
	if w.layout.mvcc {
		fi[FileInfoKeyValueVersion] = int32Bytes(keyValueVersionWithMemstore)
		fi[FileInfoMaxMemstoreTS] = int64Bytes(int64(w.maxSeqID))
	}
	if w.opts.Encoding != EncodingNone {
		fi[FileInfoDataBlockEncoding] = []byte(w.opts.Encoding.String())
	}
	fi[FileInfoMaxSeqID] = int64Bytes(max(w.opts.MaxSeqID, int64(w.maxSeqID)))
	fi[FileInfoMajorCompaction] = boolBytes(true)
	fi[FileInfoExcludeFromMinor] = boolBytes(false)
	fi[FileInfoTimeRange] = append(int64Bytes(w.tsMin), int64Bytes(w.tsMax)...)
	fi[FileInfoEarliestPutTS] = int64Bytes(w.earliestPut)
	fi[FileInfoBulkLoadTimestamp] = int64Bytes(w.opts.BulkLoadTime)
	if w.opts.SourceTask != "" {
		fi[FileInfoBulkLoadSourceTask] = []byte(w.opts.SourceTask)
	}
	fi[FileInfoDeleteFamilyCount] = int64Bytes(w.deleteFamily)
	if w.bloom != nil && w.bloom.chunks() > 0 {
		fi[FileInfoBloomFilterType] = []byte(w.opts.Bloom.String())
		fi[FileInfoLastBloomKey] = w.bloom.lastKey()
	}
	return fi
}

// validTags reports whether b is a sequence of [uint16 len][len bytes] tags.
func validTags(b []byte) bool {
	for len(b) > 0 {
		if len(b) < 2 {
			return false
		}
		l := int(b[0])<<8 | int(b[1])
		if l > len(b)-2 {
			return false
		}
		b = b[2+l:]
	}
	return true
}

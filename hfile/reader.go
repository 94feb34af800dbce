package hfile

import (
	"errors"
	"fmt"
	"io"
)

// Reader reads one HFile. After Open it is immutable and safe for concurrent
// use; each Scanner has its own buffers.
type Reader struct {
	r       io.ReaderAt
	size    int64
	name    string
	trailer Trailer
	info    FileInfo
	layout  cellLayout
	root    []indexEntry // data index root
	midKey  *midKeyInfo
	meta    []indexEntry // meta index, keyed by block name
	// loadOnOpen holds the decompressed payloads of the remaining
	// load-on-open blocks (bloom metadata), by type.
	bloomMeta       []byte
	deleteBloomMeta []byte
}

// Open reads the trailer and the load-on-open section of the HFile of the
// given size behind r. name is used in error messages.
func Open(r io.ReaderAt, size int64, name string) (*Reader, error) {
	rd := &Reader{r: r, size: size, name: name}
	if err := rd.open(); err != nil {
		return nil, fmt.Errorf("hfile %s: %w", name, err)
	}
	return rd, nil
}

func (r *Reader) open() error {
	if r.size < trailerSizeV2 {
		return formatError("file of %d bytes is shorter than any trailer", r.size)
	}
	tailLen := min(r.size, trailerSizeV3)
	tail := make([]byte, tailLen)
	if err := r.readAt(tail, r.size-tailLen); err != nil {
		return err
	}
	t, err := parseTrailer(tail)
	if err != nil {
		return err
	}
	r.trailer = *t
	if len(t.EncryptionKey) > 0 {
		return unsupportedError("encrypted HFile")
	}
	if !t.Compression.supported() {
		return unsupportedError("compression %s", t.Compression)
	}
	switch t.ComparatorClassName {
	case "", ComparatorKV, "org.apache.hadoop.hbase.KeyValue$KeyComparator",
		"org.apache.hadoop.hbase.CellComparator", "org.apache.hadoop.hbase.CellComparatorImpl":
	default:
		return unsupportedError("comparator %q", t.ComparatorClassName)
	}
	end := r.size - int64(t.size())
	lo := int64(t.LoadOnOpenDataOffset)
	if lo < 0 || lo >= end || int64(t.FileInfoOffset) < lo || int64(t.FileInfoOffset) >= end {
		return formatError("trailer: load-on-open offset %d / file info offset %d outside [0, %d)", t.LoadOnOpenDataOffset, t.FileInfoOffset, end)
	}
	if t.NumDataIndexLevels > 16 {
		return formatError("trailer: %d data index levels", t.NumDataIndexLevels)
	}
	if t.DataIndexCount > 0 {
		if t.NumDataIndexLevels == 0 || t.FirstDataBlockOffset < 0 || t.LastDataBlockOffset < t.FirstDataBlockOffset || t.LastDataBlockOffset >= lo {
			return formatError("trailer: data blocks [%d, %d] with %d index levels outside the data section [0, %d)", t.FirstDataBlockOffset, t.LastDataBlockOffset, t.NumDataIndexLevels, lo)
		}
	}
	section := make([]byte, end-lo)
	if err := r.readAt(section, lo); err != nil {
		return err
	}
	var cs codecs
	for i, off := 0, 0; off < len(section); i++ {
		h, err := parseBlockHeader(section[off:], lo+int64(off), int64(len(section)-off))
		if err != nil {
			return fmt.Errorf("block at offset %d: %w", lo+int64(off), err)
		}
		blk := section[off : off+h.onDiskSize()]
		payload, err := r.payload(&h, blk, &cs, nil)
		if err != nil {
			return err
		}
		want := BlockUnknown
		switch i {
		case 0, 1:
			want = BlockRootIndex
		case 2:
			want = BlockFileInfo
		}
		if want != BlockUnknown && h.typ != want {
			return formatError("block at offset %d: load-on-open block %d is %s, want %s", h.offset, i, h.typ, want)
		}
		switch i {
		case 0:
			// Keys must outlive the shared buffer.
			payload = append([]byte(nil), payload...)
			entries, rest, err := parseRootIndex(payload, int(t.DataIndexCount))
			if err != nil {
				return fmt.Errorf("data index at offset %d: %w", h.offset, err)
			}
			r.root = entries
			// After the entries comes nothing, or the mid-key metadata of a
			// multi-level index: anything else means the trailer's entry
			// count is not this block's (a damaged trailer, which no
			// checksum covers, would otherwise hide blocks from a scan).
			switch {
			case t.NumDataIndexLevels > 1 && len(rest) == 16:
				rb := readBuf{b: rest}
				r.midKey = &midKeyInfo{leafOffset: int64(rb.u64()), leafSize: int(int32(rb.u32())), entry: int(int32(rb.u32()))}
			case len(rest) != 0:
				return formatError("data index at offset %d: %d bytes after the %d entries the trailer counts", h.offset, len(rest), t.DataIndexCount)
			}
		case 1:
			payload = append([]byte(nil), payload...)
			entries, _, err := parseRootIndex(payload, int(t.MetaIndexCount))
			if err != nil {
				return fmt.Errorf("meta index at offset %d: %w", h.offset, err)
			}
			r.meta = entries
		case 2:
			if h.offset != int64(t.FileInfoOffset) {
				return formatError("file info block at offset %d, trailer says %d", h.offset, t.FileInfoOffset)
			}
			fi, err := parseFileInfo(append([]byte(nil), payload...))
			if err != nil {
				return fmt.Errorf("file info at offset %d: %w", h.offset, err)
			}
			r.info = fi
		default:
			switch h.typ {
			case BlockGeneralBloomMeta:
				r.bloomMeta = append([]byte(nil), payload...)
			case BlockDeleteFamilyBloomMeta:
				r.deleteBloomMeta = append([]byte(nil), payload...)
			}
		}
		off += h.onDiskSize()
	}
	if r.info.Raw == nil {
		return formatError("load-on-open section lacks a file info block")
	}
	if len(r.root) == 0 && t.EntryCount != 0 {
		return formatError("trailer: %d cells but an empty data index", t.EntryCount)
	}
	if len(r.root) > 0 {
		r.info.FirstKey = r.root[0].key
	}
	// A single-level index lists the data blocks themselves: the first and
	// the last are the trailer's.
	if t.NumDataIndexLevels == 1 && len(r.root) > 0 &&
		(r.root[0].offset != t.FirstDataBlockOffset || r.root[len(r.root)-1].offset != t.LastDataBlockOffset) {
		return formatError("trailer: data blocks [%d, %d], the index says [%d, %d]", t.FirstDataBlockOffset, t.LastDataBlockOffset,
			r.root[0].offset, r.root[len(r.root)-1].offset)
	}
	r.layout = cellLayout{tags: r.info.IncludesTags, mvcc: r.info.IncludesMVCC, compressedTags: r.info.TagsCompressed}
	if !r.info.Encoding.supported() {
		return unsupportedError("data block encoding %s", r.info.Encoding)
	}
	return nil
}

// readAt reads exactly len(b) bytes at off.
func (r *Reader) readAt(b []byte, off int64) error {
	n, err := r.r.ReadAt(b, off)
	if n == len(b) {
		return nil
	}
	if err == nil || errors.Is(err, io.EOF) {
		return formatError("read of %d bytes at offset %d: file truncated after %d bytes", len(b), off, n)
	}
	return fmt.Errorf("read of %d bytes at offset %d: %w", len(b), off, err)
}

// payload verifies the checksums of the on-disk block blk and returns its
// decompressed payload, using dst as the buffer when decompression is needed.
func (r *Reader) payload(h *blockHeader, blk []byte, cs *codecs, dst []byte) ([]byte, error) {
	if err := verifyChecksums(h, blk); err != nil {
		return nil, fmt.Errorf("%s block at offset %d: %w", h.typ, h.offset, err)
	}
	data := blk[headerSize:h.onDiskDataWithHdr]
	if r.trailer.Compression == CompressionNone {
		if len(data) != h.uncompressedSize {
			return nil, formatError("%s block at offset %d: payload of %d bytes, header says %d", h.typ, h.offset, len(data), h.uncompressedSize)
		}
		return data, nil
	}
	out, err := cs.decompress(r.trailer.Compression, dst, data, h.uncompressedSize)
	if err != nil {
		return nil, fmt.Errorf("%s block at offset %d: %w", h.typ, h.offset, err)
	}
	return out, nil
}

// blockReader reads blocks of one reader with reusable buffers.
type blockReader struct {
	raw   []byte
	plain []byte
	cs    codecs
	hint  int // size of the last block read
	// reserve, if set, is told of buffer growth (ScanOptions.Reserve); held
	// is what it was told so far, other the buffers of the scanner beyond
	// raw and plain (a decoded block).
	reserve func(n int) error
	held    int
	other   int
}

// account tells reserve that the buffers grow to total bytes, if that is
// more than it was told so far.
func (br *blockReader) account(total int) error {
	if br.reserve == nil || total <= br.held {
		return nil
	}
	if err := br.reserve(total - br.held); err != nil {
		return err
	}
	br.held = total
	return nil
}

// read reads the block at off. size is its on-disk size with header when
// known from an index, or 0. The returned payload is valid until the next call.
func (r *Reader) readBlock(br *blockReader, off int64, size int) (blockHeader, []byte, error) {
	limit := int64(r.trailer.LoadOnOpenDataOffset) - off
	if off < 0 || limit < headerSize {
		return blockHeader{}, nil, formatError("block at offset %d: outside the block section [0, %d)", off, r.trailer.LoadOnOpenDataOffset)
	}
	if size != 0 && (size < headerSize || int64(size) > limit) {
		return blockHeader{}, nil, formatError("block at offset %d: indexed size %d outside the block section", off, size)
	}
	// Without a size from the index, read as much as the previous block
	// took: sequential scans then need one read per block, not two.
	n := size
	if n == 0 {
		n = int(min(int64(max(headerSize, br.hint)), limit))
	}
	if err := br.account(max(cap(br.raw), n) + cap(br.plain) + br.other); err != nil {
		return blockHeader{}, nil, err
	}
	br.raw = grow(br.raw[:0], n)[:n]
	if err := r.readAt(br.raw, off); err != nil {
		return blockHeader{}, nil, err
	}
	h, err := parseBlockHeader(br.raw, off, limit)
	if err != nil {
		return h, nil, fmt.Errorf("block at offset %d: %w", off, err)
	}
	if size != 0 && h.onDiskSize() != size {
		return h, nil, formatError("block at offset %d: index says %d bytes, header says %d", off, size, h.onDiskSize())
	}
	plain := cap(br.plain)
	if r.trailer.Compression != CompressionNone {
		plain = max(plain, h.uncompressedSize)
	}
	if err := br.account(max(cap(br.raw), h.onDiskSize()) + plain + br.other); err != nil {
		return h, nil, err
	}
	if h.onDiskSize() > n {
		br.raw = grow(br.raw, h.onDiskSize()-n)[:h.onDiskSize()]
		if err := r.readAt(br.raw[n:], off+int64(n)); err != nil {
			return h, nil, err
		}
	}
	br.raw = br.raw[:h.onDiskSize()]
	br.hint = h.onDiskSize()
	p, err := r.payload(&h, br.raw, &br.cs, br.plain)
	if err != nil {
		return h, nil, err
	}
	if r.trailer.Compression != CompressionNone {
		br.plain = p
	}
	return h, p, nil
}

// Name returns the name given to Open.
func (r *Reader) Name() string { return r.name }

// Size returns the file size given to Open.
func (r *Reader) Size() int64 { return r.size }

// Info returns the parsed file info. Its byte slices must not be modified.
func (r *Reader) Info() FileInfo { return r.info }

// Trailer returns the fixed file trailer.
func (r *Reader) Trailer() Trailer { return r.trailer }

// EntryCount is the number of cells in the file according to the trailer.
func (r *Reader) EntryCount() uint64 { return r.trailer.EntryCount }

// FirstKey returns the first cell key of the file, or nil if it is empty.
func (r *Reader) FirstKey() *Cell { return infoKey(r.info.FirstKey) }

// LastKey returns the last cell key of the file, or nil if it is empty.
func (r *Reader) LastKey() *Cell { return infoKey(r.info.LastKey) }

// infoKey parses a key of the file info, or returns nil when it is empty or
// does not parse.
func infoKey(b []byte) *Cell {
	if len(b) == 0 {
		return nil
	}
	c, err := ParseKey(b)
	if err != nil {
		return nil
	}
	return c
}

// wrap wraps err with the file name.
func (r *Reader) wrap(err error) error {
	return fmt.Errorf("hfile %s: %w", r.name, err)
}

package hfile

import (
	"encoding/binary"
	"fmt"
)

// ScanOptions bounds a scan. The effective range is the intersection of the
// row bounds and the key bounds; nil fields are unbounded.
type ScanOptions struct {
	// StartRow is the first row to return (inclusive).
	StartRow []byte
	// StopRow is the first row not to return (exclusive). Empty (nil or
	// not) is unbounded, as a region's or a key range's empty end is.
	StopRow []byte
	// StartKey is the first cell key to return (inclusive).
	StartKey *Cell
	// StopKey is the first cell key not to return (exclusive).
	StopKey *Cell
	// Reserve, if set, is told of every growth of the scanner's block
	// buffers before it happens where the size is known from a block's
	// header (the on-disk block and its decompressed payload), and right
	// after decoding an encoded block into a larger buffer: n is the number
	// of bytes the buffers grow by. An error stops the scan with that error.
	Reserve func(n int) error
}

// Scanner iterates over the cells of a Reader in key order. It does not
// allocate per cell: the Cell it returns points into its buffers and is valid
// until the next call to Next or Seek. A Scanner is not safe for concurrent
// use; open one per goroutine.
type Scanner struct {
	r            *Reader
	lower, upper *Cell
	// end is the offset the scan stops at: the end of the last data block
	// that may hold a cell below upper, found in the block index at the
	// first seek; no block at or after it is read.
	end       int64
	br        blockReader
	dec       []byte // decoded NONE-layout cells of encoded blocks
	dict      tagDict
	cells     []byte // cells of the current block
	pos       int
	blockOff  int64
	blockSize int
	loaded    bool
	// whole is set while the scan runs from the first cell with no bounds
	// and no seek; n counts its cells, which at its end must be the
	// trailer's entry count.
	whole   bool
	n       uint64
	started bool
	pending bool
	done    bool
	cell    Cell
	rc      rawCell
	err     error
}

// Scanner returns a new scanner over the range in opts. It is positioned
// before the first cell of the range.
func (r *Reader) Scanner(opts ScanOptions) *Scanner {
	s := &Scanner{r: r, end: -1}
	s.br.reserve = opts.Reserve
	if opts.StartRow != nil {
		s.lower = FirstOnRow(opts.StartRow)
	}
	if opts.StartKey != nil && (s.lower == nil || CompareKeys(opts.StartKey, s.lower) > 0) {
		s.lower = opts.StartKey
	}
	if len(opts.StopRow) != 0 {
		s.upper = FirstOnRow(opts.StopRow)
	}
	if opts.StopKey != nil && (s.upper == nil || CompareKeys(opts.StopKey, s.upper) < 0) {
		s.upper = opts.StopKey
	}
	return s
}

// Err returns the first error the scanner met.
func (s *Scanner) Err() error { return s.err }

// Cell returns the current cell. It is valid until the next call to Next or
// Seek.
func (s *Scanner) Cell() *Cell { return &s.cell }

func (s *Scanner) fail(err error) bool {
	if s.err == nil {
		s.err = s.r.wrap(err)
	}
	s.done = true
	return false
}

// Next advances to the next cell and reports whether there is one.
func (s *Scanner) Next() bool {
	if s.err != nil || s.done {
		return false
	}
	if !s.started {
		s.started = true
		if err := s.setEnd(); err != nil {
			return s.fail(err)
		}
		if s.lower != nil {
			s.seek(s.lower)
		} else {
			s.first()
		}
		if s.err != nil || s.done {
			return false
		}
	}
	if s.pending {
		s.pending = false
		return s.inRange()
	}
	if !s.advance() {
		return false
	}
	return s.inRange()
}

func (s *Scanner) inRange() bool {
	if s.upper != nil && CompareKeys(&s.cell, s.upper) >= 0 {
		s.done = true
		return false
	}
	return true
}

// Seek positions the scanner so that the next call to Next returns the first
// cell whose key is >= key (ignoring sequence ids) within the scan range.
func (s *Scanner) Seek(key *Cell) {
	if s.err != nil {
		return
	}
	if !s.started {
		s.started = true
		if err := s.setEnd(); err != nil {
			s.fail(err)
			return
		}
	}
	s.done = false
	s.pending = false
	if s.lower != nil && CompareKeys(key, s.lower) < 0 {
		key = s.lower
	}
	s.seek(key)
}

// SeekRow is Seek to the first cell of row.
func (s *Scanner) SeekRow(row []byte) { s.Seek(FirstOnRow(row)) }

// first loads the first data block.
func (s *Scanner) first() {
	if len(s.r.root) == 0 {
		s.done = true
		return
	}
	s.whole = s.upper == nil
	if err := s.load(s.r.trailer.FirstDataBlockOffset, 0); err != nil {
		s.fail(err)
	}
}

func (s *Scanner) seek(key *Cell) {
	s.whole = false
	if len(s.r.root) == 0 {
		s.done = true
		return
	}
	off, size, err := s.locate(key)
	if err == nil {
		err = s.load(off, size)
	}
	if err != nil {
		s.fail(err)
		return
	}
	for s.advance() {
		if CompareKeys(&s.cell, key) >= 0 {
			s.pending = true
			return
		}
	}
}

// setEnd sets the offset the scan stops at from the upper bound.
func (s *Scanner) setEnd() error {
	if s.upper == nil || len(s.r.root) == 0 {
		return nil
	}
	off, size, err := s.r.locate(&s.br, s.upper)
	if err != nil {
		return err
	}
	s.end = off + int64(size)
	return nil
}

// locate walks the block index to the data block that may hold key.
func (s *Scanner) locate(key *Cell) (int64, int, error) {
	return s.r.locate(&s.br, key)
}

// locate walks the block index to the data block that may hold key: the
// last one whose index key is at or before key, or the first one when key
// sorts before every index key. It returns its offset and on-disk size. A
// nil key locates the last data block.
func (r *Reader) locate(br *blockReader, key *Cell) (int64, int, error) {
	i := len(r.root) - 1
	if key != nil {
		i = searchEntries(r.root, key)
	}
	if i < 0 {
		return r.locateFirst(br)
	}
	e := r.root[i]
	levels := int(r.trailer.NumDataIndexLevels)
	for level := 1; level < levels; level++ {
		h, p, err := r.readBlock(br, e.offset, e.size)
		if err != nil {
			return 0, 0, err
		}
		want := BlockIntermediateIndex
		if level == levels-1 {
			want = BlockLeafIndex
		}
		if h.typ != want {
			return 0, 0, formatError("block at offset %d: index level %d is %s, want %s", h.offset, level, h.typ, want)
		}
		x, err := parseNonRootIndex(p)
		if err != nil {
			return 0, 0, fmt.Errorf("%s block at offset %d: %w", h.typ, h.offset, err)
		}
		if x.n == 0 {
			return 0, 0, formatError("%s block at offset %d: no entries", h.typ, h.offset)
		}
		j := x.n - 1
		if key != nil {
			j = max(x.search(key), 0)
		}
		e = x.entry(j)
		e.key = nil // points into a reused buffer
	}
	return e.offset, e.size, nil
}

// load reads the data block at off (size from the index, or 0).
func (s *Scanner) load(off int64, size int) error {
	h, p, err := s.r.readBlock(&s.br, off, size)
	if err != nil {
		return err
	}
	if !s.setBlock(&h, p) {
		return formatError("block at offset %d: %s where a data block was expected", off, h.typ)
	}
	return s.err
}

// setBlock installs a data block; it returns false for other block types.
func (s *Scanner) setBlock(h *blockHeader, p []byte) bool {
	switch h.typ {
	case BlockData:
		s.cells = p
	case BlockEncodedData:
		if len(p) < 2 {
			s.fail(formatError("block at offset %d: encoded block of %d bytes", h.offset, len(p)))
			return true
		}
		id := Encoding(binary.BigEndian.Uint16(p))
		if id != s.r.info.Encoding {
			s.fail(formatError("block at offset %d: encoding %s, file info says %s", h.offset, id, s.r.info.Encoding))
			return true
		}
		var err error
		s.dec, err = decodeBlock(id, p[2:], s.r.layout, s.dec, &s.dict)
		if err != nil {
			s.fail(fmt.Errorf("%s block at offset %d: %w", id, h.offset, err))
			return true
		}
		if cap(s.dec) > s.br.other {
			s.br.other = cap(s.dec)
			if err := s.br.account(cap(s.br.raw) + cap(s.br.plain) + s.br.other); err != nil {
				s.fail(fmt.Errorf("%s block at offset %d: %w", id, h.offset, err))
				return true
			}
		}
		s.cells = s.dec
	default:
		return false
	}
	s.blockOff = h.offset
	s.blockSize = h.onDiskSize()
	s.pos = 0
	s.loaded = true
	return true
}

// advance moves to the next cell, crossing into later blocks as needed.
func (s *Scanner) advance() bool {
	for s.pos >= len(s.cells) {
		if !s.nextBlock() {
			return false
		}
	}
	next, err := nextNoneCell(s.cells, s.pos, s.r.layout, &s.rc)
	if err != nil {
		return s.fail(fmt.Errorf("data block at offset %d: %w", s.blockOff, err))
	}
	if err := parseKey(s.rc.key, &s.cell); err != nil {
		return s.fail(fmt.Errorf("data block at offset %d: cell at %d: %w", s.blockOff, s.pos, err))
	}
	s.pos = next
	s.n++
	s.cell.Value = s.rc.value
	s.cell.Tags = s.rc.tags
	s.cell.SeqID = uint64(s.rc.mvcc)
	return true
}

// nextBlock loads the data block after the current one, skipping inline
// index and bloom blocks.
func (s *Scanner) nextBlock() bool {
	if s.err != nil || !s.loaded {
		s.done = true
		return false
	}
	off := s.blockOff + int64(s.blockSize)
	for off <= s.r.trailer.LastDataBlockOffset && (s.end < 0 || off < s.end) {
		h, p, err := s.r.readBlock(&s.br, off, 0)
		if err != nil {
			return s.fail(err)
		}
		if s.setBlock(&h, p) {
			return s.err == nil
		}
		off += int64(h.onDiskSize())
	}
	if off > s.r.trailer.LastDataBlockOffset {
		// The end of the data: the trailer's last data block was the last
		// one read, and a whole scan read every cell. The trailer has no
		// checksum; this is where a damaged one would lose cells unseen.
		if s.blockOff != s.r.trailer.LastDataBlockOffset {
			return s.fail(formatError("data ends at offset %d, after the data block at %d; the trailer says the last is at %d",
				off, s.blockOff, s.r.trailer.LastDataBlockOffset))
		}
		if s.whole && s.n != s.r.trailer.EntryCount {
			return s.fail(formatError("%d cells in the data blocks, the trailer counts %d", s.n, s.r.trailer.EntryCount))
		}
	}
	s.done = true
	return false
}

// Extent is the byte range of a file's block section that a scan reads.
type Extent struct {
	// From and To bound the range [From, To): from the first data block
	// that may hold a cell of the scan to the end of the last one.
	From, To int64
}

// Len is the extent's length in bytes.
func (e Extent) Len() int64 { return e.To - e.From }

// Extent returns the byte range of the data blocks a scan of opts reads,
// found in the block index (reading the index blocks of a multi-level
// index): a read-ahead confined to it reads no byte the scan does not
// need. A file without cells has an empty extent.
func (r *Reader) Extent(opts ScanOptions) (Extent, error) {
	if len(r.root) == 0 {
		return Extent{}, nil
	}
	s := r.Scanner(opts)
	var br blockReader
	from := r.trailer.FirstDataBlockOffset
	if s.lower != nil {
		off, _, err := r.locate(&br, s.lower)
		if err != nil {
			return Extent{}, r.wrap(err)
		}
		from = off
	}
	off, size, err := r.locate(&br, s.upper)
	if err != nil {
		return Extent{}, r.wrap(err)
	}
	return Extent{From: from, To: max(from, off+int64(size))}, nil
}

// locateFirst returns the offset and size of the first data block.
func (r *Reader) locateFirst(br *blockReader) (int64, int, error) {
	e := r.root[0]
	levels := int(r.trailer.NumDataIndexLevels)
	for level := 1; level < levels; level++ {
		_, p, err := r.readBlock(br, e.offset, e.size)
		if err != nil {
			return 0, 0, err
		}
		x, err := parseNonRootIndex(p)
		if err != nil {
			return 0, 0, err
		}
		if x.n == 0 {
			return 0, 0, formatError("index block at offset %d: no entries", e.offset)
		}
		e = x.entry(0)
		e.key = nil
	}
	return e.offset, e.size, nil
}

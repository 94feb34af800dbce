package hfile

import "fmt"

// BlockInfo describes one block of a file's block section.
type BlockInfo struct {
	Type   BlockType
	Offset int64
	// OnDiskSize counts the header, the (possibly compressed) payload and
	// the checksums; UncompressedSize the payload alone, decompressed.
	OnDiskSize       int
	UncompressedSize int
}

// Blocks walks every block of the block section in file order (data blocks
// and the inline leaf index and bloom chunks between them), reading each
// from the file, verifying its checksums and decompressing it, and calls fn
// with what it found. It stops at the first error, from the file or from fn.
func (r *Reader) Blocks(fn func(BlockInfo) error) error {
	var br blockReader
	end := int64(r.trailer.LoadOnOpenDataOffset)
	for off := int64(0); off < end; {
		h, _, err := r.readBlock(&br, off, 0)
		if err != nil {
			return r.wrap(err)
		}
		info := BlockInfo{Type: h.typ, Offset: off, OnDiskSize: h.onDiskSize(), UncompressedSize: h.uncompressedSize}
		if err := fn(info); err != nil {
			return err
		}
		off += int64(h.onDiskSize())
	}
	return nil
}

// DataBlock is a data block as the block index lists it.
type DataBlock struct {
	// Offset and Size (on disk, with header and checksums) locate the block.
	Offset int64
	Size   int
	// Key is the index key of the block: its first cell's key, or a key
	// sorting between the previous block's last cell and its first.
	Key *Cell
}

// DataIndex returns the data index in key order, reading the intermediate
// and leaf index blocks of a multi-level index. The cells it returns own
// their bytes.
func (r *Reader) DataIndex() ([]DataBlock, error) {
	var br blockReader
	var out []DataBlock
	levels := int(r.trailer.NumDataIndexLevels)
	// Bounds the walk: no index lists more blocks than fit in the file.
	limit := int(r.trailer.LoadOnOpenDataOffset/headerSize) + 1
	var walk func(e indexEntry, level int) error
	walk = func(e indexEntry, level int) error {
		if level >= levels {
			if len(out) >= limit {
				return formatError("data index lists more than %d blocks", limit)
			}
			c, err := ParseKey(e.key)
			if err != nil {
				return fmt.Errorf("data index entry for block at offset %d: %w", e.offset, err)
			}
			out = append(out, DataBlock{Offset: e.offset, Size: e.size, Key: c.Clone()})
			return nil
		}
		h, p, err := r.readBlock(&br, e.offset, e.size)
		if err != nil {
			return err
		}
		want := BlockIntermediateIndex
		if level == levels-1 {
			want = BlockLeafIndex
		}
		if h.typ != want {
			return formatError("block at offset %d: index level %d is %s, want %s", h.offset, level, h.typ, want)
		}
		x, err := parseNonRootIndex(p)
		if err != nil {
			return fmt.Errorf("%s block at offset %d: %w", h.typ, h.offset, err)
		}
		// The payload lives in a reused buffer: copy the entries out first.
		entries := make([]indexEntry, x.n)
		for i := range entries {
			ent := x.entry(i)
			ent.key = append([]byte(nil), ent.key...)
			entries[i] = ent
		}
		for _, ent := range entries {
			if err := walk(ent, level+1); err != nil {
				return err
			}
		}
		return nil
	}
	if levels < 1 {
		levels = 1
	}
	for _, e := range r.root {
		if err := walk(e, 1); err != nil {
			return nil, r.wrap(err)
		}
	}
	return out, nil
}

// IndexSample returns index entries that sample the file's key space in
// order: the root level, or, while a level has fewer than want entries and
// the index has more levels below it, the next level down (reading its index
// blocks: at most one level's worth of blocks at each step). Entries above
// the data level give the offset and first key of an index block, which lies
// in the file right after the data blocks it indexes, so offsets still place
// the keys in the file. The cells own their bytes.
func (r *Reader) IndexSample(want int) ([]DataBlock, error) {
	level := append([]indexEntry(nil), r.root...)
	levels := max(int(r.trailer.NumDataIndexLevels), 1)
	var br blockReader
	for depth := 1; depth < levels && len(level) < want; depth++ {
		wantType := BlockIntermediateIndex
		if depth == levels-1 {
			wantType = BlockLeafIndex
		}
		var next []indexEntry
		for _, e := range level {
			h, p, err := r.readBlock(&br, e.offset, e.size)
			if err != nil {
				return nil, r.wrap(err)
			}
			if h.typ != wantType {
				return nil, r.wrap(formatError("block at offset %d: index level %d is %s, want %s", h.offset, depth, h.typ, wantType))
			}
			x, err := parseNonRootIndex(p)
			if err != nil {
				return nil, r.wrap(fmt.Errorf("%s block at offset %d: %w", h.typ, h.offset, err))
			}
			for i := 0; i < x.n; i++ {
				ent := x.entry(i)
				ent.key = append([]byte(nil), ent.key...)
				next = append(next, ent)
			}
		}
		level = next
	}
	out := make([]DataBlock, 0, len(level))
	for _, e := range level {
		c, err := ParseKey(e.key)
		if err != nil {
			return nil, r.wrap(fmt.Errorf("index entry for block at offset %d: %w", e.offset, err))
		}
		out = append(out, DataBlock{Offset: e.offset, Size: e.size, Key: c.Clone()})
	}
	return out, nil
}

// RootIndex returns the root level of the data index, read at Open, without
// further I/O. In a single-level index these are the data blocks; in a
// multi-level one they point at index blocks, whose first keys and offsets
// still sample the file's key space in order, which is what planning needs
// to cut a large file's range and estimate the bytes of part of it. The
// cells own their bytes.
func (r *Reader) RootIndex() ([]DataBlock, error) {
	out := make([]DataBlock, 0, len(r.root))
	for _, e := range r.root {
		c, err := ParseKey(e.key)
		if err != nil {
			return nil, r.wrap(fmt.Errorf("root index entry for block at offset %d: %w", e.offset, err))
		}
		out = append(out, DataBlock{Offset: e.offset, Size: e.size, Key: c.Clone()})
	}
	return out, nil
}

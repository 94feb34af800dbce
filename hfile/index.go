package hfile

import (
	"encoding/binary"
	"sort"
)

// indexEntry is one block index entry: the first key (or a key sorting
// between the previous block's last key and this block's first key), the
// block offset and its on-disk size including header and checksums.
type indexEntry struct {
	offset int64
	size   int
	key    []byte
}

// midKeyInfo is the optional metadata after a multi-level root index.
type midKeyInfo struct {
	leafOffset int64
	leafSize   int
	entry      int
}

// parseRootIndex decodes n root-format entries from b. It returns the
// entries and the bytes that follow them. Keys point into b.
func parseRootIndex(b []byte, n int) ([]indexEntry, []byte, error) {
	// Every entry takes at least 13 bytes, which bounds n before allocating.
	if n < 0 || n > len(b)/13 {
		return nil, nil, formatError("root index claims %d entries in %d bytes", n, len(b))
	}
	entries := make([]indexEntry, n)
	r := readBuf{b: b}
	for i := range entries {
		entries[i].offset = int64(r.u64())
		entries[i].size = int(int32(r.u32()))
		kl := r.vlong()
		if kl < 0 || kl > int64(r.remaining()) {
			return nil, nil, formatError("root index entry %d: key length %d", i, kl)
		}
		entries[i].key = r.bytes(int(kl))
		if r.err != nil {
			return nil, nil, formatError("root index entry %d truncated", i)
		}
		if entries[i].offset < 0 || entries[i].size < headerSize {
			return nil, nil, formatError("root index entry %d: offset %d size %d", i, entries[i].offset, entries[i].size)
		}
	}
	return entries, b[r.off:], nil
}

// appendRootIndex appends entries in root format.
func appendRootIndex(dst []byte, entries []indexEntry) []byte {
	for _, e := range entries {
		dst = appendU64(dst, uint64(e.offset))
		dst = appendU32(dst, uint32(e.size))
		dst = appendVLong(dst, int64(len(e.key)))
		dst = append(dst, e.key...)
	}
	return dst
}

// rootIndexSize is the serialized root-format size of entries.
func rootIndexSize(entries []indexEntry) int {
	n := 0
	for _, e := range entries {
		n += 12 + vlongSize(int64(len(e.key))) + len(e.key)
	}
	return n
}

// nonRootIndex is a parsed LEAF_INDEX or INTERMEDIATE_INDEX payload.
type nonRootIndex struct {
	b []byte // the payload
	n int    // number of entries
}

// parseNonRootIndex validates the secondary index of a non-root index block.
func parseNonRootIndex(b []byte) (nonRootIndex, error) {
	if len(b) < 8 {
		return nonRootIndex{}, formatError("non-root index of %d bytes", len(b))
	}
	n := int(int32(binary.BigEndian.Uint32(b)))
	if n < 0 || n > (len(b)-8)/16 {
		return nonRootIndex{}, formatError("non-root index claims %d entries in %d bytes", n, len(b))
	}
	idx := nonRootIndex{b: b, n: n}
	base := 4 + 4*(n+1)
	prev := 0
	for i := 0; i <= n; i++ {
		off := int(int32(binary.BigEndian.Uint32(b[4+4*i:])))
		if off < prev || base+off > len(b) || (i > 0 && off-prev < 12) {
			return nonRootIndex{}, formatError("non-root index: bad secondary offset %d for entry %d", off, i)
		}
		if i == 0 && off != 0 {
			return nonRootIndex{}, formatError("non-root index: first entry at %d", off)
		}
		prev = off
	}
	return idx, nil
}

// entry returns entry i; parseNonRootIndex has validated the bounds.
func (x nonRootIndex) entry(i int) indexEntry {
	base := 4 + 4*(x.n+1)
	start := base + int(binary.BigEndian.Uint32(x.b[4+4*i:]))
	end := base + int(binary.BigEndian.Uint32(x.b[4+4*(i+1):]))
	return indexEntry{
		offset: int64(binary.BigEndian.Uint64(x.b[start:])),
		size:   int(int32(binary.BigEndian.Uint32(x.b[start+8:]))),
		key:    x.b[start+12 : end : end],
	}
}

// search returns the index of the last entry whose key is <= key, or -1
// when key sorts before every entry.
func (x nonRootIndex) search(key *Cell) int {
	i := sort.Search(x.n, func(i int) bool { return compareKeyCell(x.entry(i).key, key) > 0 })
	return i - 1
}

// searchEntries is search over root entries.
func searchEntries(entries []indexEntry, key *Cell) int {
	i := sort.Search(len(entries), func(i int) bool { return compareKeyCell(entries[i].key, key) > 0 })
	return i - 1
}

// appendNonRootIndex appends entries in non-root format.
func appendNonRootIndex(dst []byte, entries []indexEntry) []byte {
	dst = appendU32(dst, uint32(len(entries)))
	off := 0
	for _, e := range entries {
		dst = appendU32(dst, uint32(off))
		off += 12 + len(e.key)
	}
	dst = appendU32(dst, uint32(off))
	for _, e := range entries {
		dst = appendU64(dst, uint64(e.offset))
		dst = appendU32(dst, uint32(e.size))
		dst = append(dst, e.key...)
	}
	return dst
}

// nonRootIndexSize is the serialized non-root size of entries.
func nonRootIndexSize(entries []indexEntry) int {
	n := 8
	for _, e := range entries {
		n += 16 + len(e.key)
	}
	return n
}

// seekBeforeKeys returns index keys to seek to when looking for the last
// cell before key: the key of the data block that may hold key, then the key
// of the data block before it. Either may be missing.
func (r *Reader) seekBeforeKeys(br *blockReader, key *Cell) ([]*Cell, error) {
	i := searchEntries(r.root, key)
	if i < 0 {
		return nil, nil
	}
	levels := int(r.trailer.NumDataIndexLevels)
	e := r.root[i]
	var prev *indexEntry
	prevLevel := 0
	if i > 0 {
		p := r.root[i-1]
		prev = &p
	}
	readIndex := func(e indexEntry, level int) (nonRootIndex, error) {
		h, p, err := r.readBlock(br, e.offset, e.size)
		if err != nil {
			return nonRootIndex{}, err
		}
		want := BlockIntermediateIndex
		if level == levels-1 {
			want = BlockLeafIndex
		}
		if h.typ != want {
			return nonRootIndex{}, formatError("block at offset %d: index level %d is %s, want %s", h.offset, level, h.typ, want)
		}
		x, err := parseNonRootIndex(p)
		if err == nil && x.n == 0 {
			err = formatError("block at offset %d: empty index block", h.offset)
		}
		return x, err
	}
	for level := 1; level < levels; level++ {
		x, err := readIndex(e, level)
		if err != nil {
			return nil, err
		}
		j := max(x.search(key), 0)
		if j > 0 {
			p := x.entry(j - 1)
			p.key = append([]byte(nil), p.key...)
			prev, prevLevel = &p, level
		}
		e = x.entry(j)
		e.key = append([]byte(nil), e.key...)
	}
	var out []*Cell
	c, err := ParseKey(e.key)
	if err != nil {
		return nil, err
	}
	out = append(out, c)
	if prev != nil {
		pe := *prev
		for level := prevLevel + 1; level < levels; level++ {
			x, err := readIndex(pe, level)
			if err != nil {
				return nil, err
			}
			pe = x.entry(x.n - 1)
			pe.key = append([]byte(nil), pe.key...)
		}
		c, err := ParseKey(pe.key)
		if err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	return out, nil
}

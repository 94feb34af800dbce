package hfile

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"sort"
)

// Hash types of a bloom filter (Hash in HBase).
const (
	hashJenkins = 0
	hashMurmur  = 1 // MurmurHash2, HBase's default (hbase.hash.type=murmur)
	hashMurmur3 = 2
)

const (
	bloomMetaVersion   = 3
	bloomMaxFold       = 7
	bloomComparatorRow = "org.apache.hadoop.hbase.CellComparatorImpl"
)

// murmur2 is HBase's MurmurHash.hash: MurmurHash2 with sign-extended tail
// bytes, as the Java code reads them.
func murmur2(b []byte, seed int32) int32 {
	const m = 0x5bd1e995
	h := uint32(seed) ^ uint32(len(b))
	n4 := len(b) >> 2
	for i := 0; i < n4; i++ {
		k := binary.LittleEndian.Uint32(b[4*i:])
		k *= m
		k ^= k >> 24
		k *= m
		h *= m
		h ^= k
	}
	t := b[4*n4:]
	if len(t) > 0 {
		if len(t) >= 3 {
			h ^= uint32(int32(int8(t[2]))) << 16
		}
		if len(t) >= 2 {
			h ^= uint32(int32(int8(t[1]))) << 8
		}
		h ^= uint32(int32(int8(t[0])))
		h *= m
	}
	h ^= h >> 13
	h *= m
	h ^= h >> 15
	return int32(h)
}

// murmur3 is HBase's MurmurHash3.hash (x86, 32 bit).
func murmur3(b []byte, seed int32) int32 {
	const c1, c2 = 0xcc9e2d51, 0x1b873593
	h := uint32(seed)
	end := len(b) &^ 3
	rotl := func(x uint32, r uint) uint32 { return x<<r | x>>(32-r) }
	for i := 0; i < end; i += 4 {
		k := binary.LittleEndian.Uint32(b[i:])
		k *= c1
		k = rotl(k, 15)
		k *= c2
		h ^= k
		h = rotl(h, 13)
		h = h*5 + 0xe6546b64
	}
	var k uint32
	switch len(b) & 3 {
	case 3:
		k = uint32(b[end+2]) << 16
		fallthrough
	case 2:
		k |= uint32(b[end+1]) << 8
		fallthrough
	case 1:
		k |= uint32(b[end])
		k *= c1
		k = rotl(k, 15)
		k *= c2
		h ^= k
	}
	h ^= uint32(len(b))
	h ^= h >> 16
	h *= 0x85ebca6b
	h ^= h >> 13
	h *= 0xc2b2ae35
	h ^= h >> 16
	return int32(h)
}

func bloomHash(typ int32, b []byte, seed int32) (int32, bool) {
	switch typ {
	case hashMurmur:
		return murmur2(b, seed), true
	case hashMurmur3:
		return murmur3(b, seed), true
	}
	return 0, false
}

// bloomBit returns the bit index for hash round i, as BloomFilterChunk does:
// abs((h1 + i*h2) mod bits) with int32 wrap-around.
func bloomBit(h1, h2 int32, i int, bits int64) int64 {
	v := int64(h1+int32(i)*h2) % bits
	if v < 0 {
		v = -v
	}
	return v
}

// appendRowColKey appends the serialized key of
// PrivateCellUtil.createFirstOnRowCol(cell): row, an empty family, the
// qualifier, LATEST_TIMESTAMP and type Maximum. RowColBloomHashKey hashes
// the same bytes.
func appendRowColKey(dst []byte, row, qualifier []byte) []byte {
	dst = appendU16(dst, uint16(len(row)))
	dst = append(dst, row...)
	dst = append(dst, 0)
	dst = append(dst, qualifier...)
	dst = appendU64(dst, LatestTimestamp)
	return append(dst, byte(TypeMaximum))
}

// bloomChunk is one compound-bloom chunk being filled.
type bloomChunk struct {
	bits     []byte
	keys     int
	maxKeys  int
	firstKey []byte
}

type readyChunk struct {
	bits     []byte
	maxKeys  int
	firstKey []byte
}

// bloomWriter builds a compound bloom filter (CompoundBloomFilterWriter).
type bloomWriter struct {
	typ       BloomType
	byteSize  int
	maxKeys   int
	hashCount int
	cur       *bloomChunk
	ready     []readyChunk
	index     []indexEntry
	totalKeys int64
	totalMax  int64
	totalSize int64
	prevRow   []byte
	prevQual  []byte
	last      []byte
	hashKey   []byte
	havePrev  bool
}

func newBloomWriter(typ BloomType, errRate float64, sizeHint int) *bloomWriter {
	if errRate <= 0 || errRate >= 1 {
		errRate = 0.01
	}
	if sizeHint <= 0 {
		sizeHint = 128 << 10
	}
	bw := &bloomWriter{typ: typ}
	// BloomFilterUtil.createBySize
	byteSize := int64(sizeHint)
	const mask = 1<<bloomMaxFold - 1
	if byteSize&mask != 0 {
		byteSize = (byteSize>>bloomMaxFold + 1) << bloomMaxFold
	}
	bits := byteSize * 8
	ln2sq := math.Ln2 * math.Ln2
	maxKeys := int64(float64(bits) * (ln2sq / -math.Log(errRate)))
	hashCount := int(math.Ceil(math.Ln2 * float64(bits/maxKeys)))
	maxKeys = int64(-float64(bits) / float64(hashCount) * math.Log(1-math.Exp(math.Log(errRate)/float64(hashCount))))
	bw.byteSize = int(byteSize)
	bw.maxKeys = int(maxKeys)
	bw.hashCount = hashCount
	return bw
}

// add records a cell; only the first cell of each row (ROW) or column
// (ROWCOL) adds a key.
func (bw *bloomWriter) add(c *Cell) {
	if bw.havePrev && bytes.Equal(c.Row, bw.prevRow) && (bw.typ == BloomRow || bytes.Equal(c.Qualifier, bw.prevQual)) {
		return
	}
	bw.prevRow = append(bw.prevRow[:0], c.Row...)
	bw.prevQual = append(bw.prevQual[:0], c.Qualifier...)
	bw.havePrev = true
	if bw.typ == BloomRow {
		bw.hashKey = append(bw.hashKey[:0], c.Row...)
		bw.last = append(bw.last[:0], c.Row...)
	} else {
		// PrivateCellUtil.createFirstOnRowCol leaves the family out, so
		// the chunk index key, LAST_BLOOM_KEY and the hash key are the
		// same bytes.
		bw.hashKey = appendRowColKey(bw.hashKey[:0], c.Row, c.Qualifier)
		bw.last = append(bw.last[:0], bw.hashKey...)
	}
	if bw.cur == nil {
		bw.cur = &bloomChunk{bits: make([]byte, bw.byteSize), maxKeys: bw.maxKeys, firstKey: append([]byte(nil), bw.last...)}
	}
	h1 := murmur2(bw.hashKey, 0)
	h2 := murmur2(bw.hashKey, h1)
	nbits := int64(len(bw.cur.bits)) * 8
	for i := 0; i < bw.hashCount; i++ {
		b := bloomBit(h1, h2, i, nbits)
		bw.cur.bits[b>>3] |= 1 << (b & 7)
	}
	bw.cur.keys++
	bw.totalKeys++
	if bw.cur.keys >= bw.cur.maxKeys {
		bw.closeChunk()
	}
}

// closeChunk folds the current chunk (compactBloom) and queues it.
func (bw *bloomWriter) closeChunk() {
	c := bw.cur
	if c == nil || c.keys == 0 {
		return
	}
	bw.cur = nil
	size, maxKeys, pieces := len(c.bits), c.maxKeys, 1
	for size&1 == 0 && maxKeys > c.keys<<1 {
		pieces <<= 1
		size >>= 1
		maxKeys >>= 1
	}
	bits := c.bits
	if pieces > 1 {
		for p := 1; p < pieces; p++ {
			for i := 0; i < size; i++ {
				bits[i] |= bits[p*size+i]
			}
		}
		bits = bits[:size]
	}
	bw.ready = append(bw.ready, readyChunk{bits: bits, maxKeys: maxKeys, firstKey: c.firstKey})
}

func (bw *bloomWriter) full() bool { return len(bw.ready) > 0 }

// takeChunk pops the next chunk to write, closing a partial one if no full
// chunk is waiting (used at close).
func (bw *bloomWriter) takeChunk() ([]byte, []byte) {
	if len(bw.ready) == 0 {
		bw.closeChunk()
	}
	if len(bw.ready) == 0 {
		return nil, nil
	}
	c := bw.ready[0]
	bw.ready = bw.ready[1:]
	bw.totalMax += int64(c.maxKeys)
	bw.totalSize += int64(len(c.bits))
	return c.bits, c.firstKey
}

func (bw *bloomWriter) chunkWritten(off int64, size int, key []byte) {
	bw.index = append(bw.index, indexEntry{offset: off, size: size, key: key})
}

func (bw *bloomWriter) chunks() int { return len(bw.index) }

func (bw *bloomWriter) lastKey() []byte { return append([]byte(nil), bw.last...) }

// meta is the GENERAL_BLOOM_META payload.
func (bw *bloomWriter) meta() []byte {
	b := appendU32(nil, bloomMetaVersion)
	b = appendU64(b, uint64(bw.totalSize))
	b = appendU32(b, uint32(bw.hashCount))
	b = appendU32(b, hashMurmur)
	b = appendU64(b, uint64(bw.totalKeys))
	b = appendU64(b, uint64(bw.totalMax))
	b = appendU32(b, uint32(len(bw.index)))
	if bw.typ == BloomRowCol {
		b = appendVLong(b, int64(len(bloomComparatorRow)))
		b = append(b, bloomComparatorRow...)
	} else {
		b = appendVLong(b, 0)
	}
	return appendRootIndex(b, bw.index)
}

// BloomMeta describes a file's general bloom filter.
type BloomMeta struct {
	Type       BloomType
	TotalBytes int64
	HashCount  int
	HashType   int
	KeyCount   int64
	MaxKeys    int64
	Chunks     int
	Comparator string
	index      []indexEntry
}

func parseBloomMeta(b []byte) (*BloomMeta, error) {
	r := readBuf{b: b}
	if v := r.u32(); r.err == nil && v != bloomMetaVersion {
		return nil, unsupportedError("bloom meta version %d", v)
	}
	m := &BloomMeta{}
	m.TotalBytes = int64(r.u64())
	m.HashCount = int(int32(r.u32()))
	m.HashType = int(int32(r.u32()))
	m.KeyCount = int64(r.u64())
	m.MaxKeys = int64(r.u64())
	m.Chunks = int(int32(r.u32()))
	cl := r.vlong()
	if r.err != nil || cl < 0 || cl > int64(r.remaining()) {
		return nil, formatError("bloom meta truncated")
	}
	m.Comparator = string(r.bytes(int(cl)))
	if m.HashCount <= 0 || m.HashCount > 64 {
		return nil, formatError("bloom meta: hash count %d", m.HashCount)
	}
	idx, _, err := parseRootIndex(b[r.off:], m.Chunks)
	if err != nil {
		return nil, fmt.Errorf("bloom meta index: %w", err)
	}
	m.index = idx
	return m, nil
}

// BloomMeta returns the general bloom filter's metadata, or nil if the file
// has none (or its type is not recorded in the file info, as HBase requires).
func (r *Reader) BloomMeta() (*BloomMeta, error) {
	if r.bloomMeta == nil || r.info.BloomType == BloomNone {
		return nil, nil
	}
	m, err := parseBloomMeta(r.bloomMeta)
	if err != nil {
		return nil, r.wrap(err)
	}
	m.Type = r.info.BloomType
	return m, nil
}

// MayContain reports whether the file may hold cells of row (ROW blooms)
// or of row and qualifier (ROWCOL blooms). It returns true when the file has
// no usable bloom filter.
func (r *Reader) MayContain(row, qualifier []byte) (bool, error) {
	m, err := r.BloomMeta()
	if err != nil || m == nil || m.Chunks == 0 {
		return true, err
	}
	var hashKey []byte
	var i int
	switch m.Type {
	case BloomRow:
		hashKey = row
		i = sort.Search(len(m.index), func(i int) bool { return bytes.Compare(m.index[i].key, row) > 0 }) - 1
	case BloomRowCol:
		hashKey = appendRowColKey(nil, row, qualifier)
		i = searchEntries(m.index, &Cell{Row: row, Qualifier: qualifier, Timestamp: LatestTimestamp, Type: TypeMaximum})
	default:
		return true, nil
	}
	if i < 0 {
		return false, nil
	}
	var br blockReader
	h, p, err := r.readBlock(&br, m.index[i].offset, m.index[i].size)
	if err != nil {
		return true, r.wrap(err)
	}
	if h.typ != BlockBloomChunk || len(p) == 0 {
		return true, r.wrap(formatError("block at offset %d: %s where a bloom chunk was expected", h.offset, h.typ))
	}
	h1, ok := bloomHash(int32(m.HashType), hashKey, 0)
	if !ok {
		return true, nil
	}
	h2, _ := bloomHash(int32(m.HashType), hashKey, h1)
	nbits := int64(len(p)) * 8
	for k := 0; k < m.HashCount; k++ {
		b := bloomBit(h1, h2, k, nbits)
		if p[b>>3]&(1<<(b&7)) == 0 {
			return false, nil
		}
	}
	return true, nil
}

package hfile

import (
	"encoding/binary"
	"strconv"
)

// Encoding is a data block encoding (DataBlockEncoding); its value is the
// 2-byte id stored at the start of every ENCODED_DATA block.
type Encoding uint16

// Data block encodings.
const (
	EncodingNone       Encoding = 0
	EncodingPrefix     Encoding = 2
	EncodingDiff       Encoding = 3
	EncodingFastDiff   Encoding = 4
	EncodingPrefixTree Encoding = 6
	EncodingRowIndexV1 Encoding = 7
)

// String returns the name HBase stores in DATA_BLOCK_ENCODING.
func (e Encoding) String() string {
	switch e {
	case EncodingNone:
		return "NONE"
	case EncodingPrefix:
		return "PREFIX"
	case EncodingDiff:
		return "DIFF"
	case EncodingFastDiff:
		return "FAST_DIFF"
	case EncodingPrefixTree:
		return "PREFIX_TREE"
	case EncodingRowIndexV1:
		return "ROW_INDEX_V1"
	}
	return "Encoding(" + strconv.Itoa(int(e)) + ")"
}

// ParseEncoding returns the encoding HBase names s (as in
// DATA_BLOCK_ENCODING), if this package reads and writes it.
func ParseEncoding(s string) (Encoding, bool) {
	for _, e := range []Encoding{EncodingNone, EncodingPrefix, EncodingDiff, EncodingFastDiff, EncodingRowIndexV1} {
		if e.String() == s {
			return e, true
		}
	}
	return 0, false
}

// supported reports whether this package reads and writes e.
func (e Encoding) supported() bool {
	switch e {
	case EncodingNone, EncodingPrefix, EncodingDiff, EncodingFastDiff, EncodingRowIndexV1:
		return true
	}
	return false
}

// cellLayout says which optional per-cell fields a file carries.
type cellLayout struct {
	tags bool // a tags length (and tags) follows each value
	mvcc bool // a VLong sequence id follows each cell
	// compressedTags says PREFIX, DIFF and FAST_DIFF blocks carry
	// dictionary-compressed tags (hfile.TAGS_COMPRESSED).
	compressedTags bool
}

// rawCell is one cell of an unencoded (NONE layout) block.
type rawCell struct {
	key, value, tags []byte
	mvcc             int64
}

// nextNoneCell parses the NONE-layout cell at b[off:] into rc and returns the
// offset of the next cell. NONE layout: int32 keyLen, int32 valueLen, key,
// value, [uint16 tagsLen, tags], [VLong mvcc].
func nextNoneCell(b []byte, off int, l cellLayout, rc *rawCell) (int, error) {
	if len(b)-off < 8 {
		return 0, formatError("cell at block offset %d truncated", off)
	}
	kl := int(binary.BigEndian.Uint32(b[off:]))
	vl := int(binary.BigEndian.Uint32(b[off+4:]))
	off += 8
	if kl < keyInfrastructure || kl > len(b)-off || vl < 0 || vl > len(b)-off-kl {
		return 0, formatError("cell at block offset %d: key length %d, value length %d in %d bytes", off-8, kl, vl, len(b)-off)
	}
	rc.key = b[off : off+kl : off+kl]
	off += kl
	rc.value = b[off : off+vl : off+vl]
	off += vl
	rc.tags = nil
	if l.tags {
		if len(b)-off < 2 {
			return 0, formatError("cell tags length at block offset %d truncated", off)
		}
		tl := int(binary.BigEndian.Uint16(b[off:]))
		off += 2
		if tl > len(b)-off {
			return 0, formatError("cell tags at block offset %d: %d bytes in %d", off, tl, len(b)-off)
		}
		if tl > 0 {
			rc.tags = b[off : off+tl : off+tl]
		}
		off += tl
	}
	rc.mvcc = 0
	if l.mvcc {
		v, n := readVLong(b[off:])
		if n <= 0 {
			return 0, formatError("cell mvcc at block offset %d truncated", off)
		}
		rc.mvcc = v
		off += n
	}
	return off, nil
}

// appendNoneCell appends c in NONE layout.
func appendNoneCell(dst []byte, c *Cell, l cellLayout) []byte {
	dst = appendU32(dst, uint32(c.keyLen()))
	dst = appendU32(dst, uint32(len(c.Value)))
	dst = appendKey(dst, c)
	dst = append(dst, c.Value...)
	if l.tags {
		dst = appendU16(dst, uint16(len(c.Tags)))
		dst = append(dst, c.Tags...)
	}
	if l.mvcc {
		dst = appendVLong(dst, int64(c.SeqID))
	}
	return dst
}

// decodeBlock turns an ENCODED_DATA payload (after the 2-byte id) into NONE
// layout, appending to dst[:0]. dict is scratch space for compressed tags;
// it may be nil when l.compressedTags is false.
func decodeBlock(e Encoding, src []byte, l cellLayout, dst []byte, dict *tagDict) ([]byte, error) {
	dst = dst[:0]
	switch e {
	case EncodingNone:
		return append(dst, src...), nil
	case EncodingRowIndexV1:
		return decodeRowIndex(src, dst)
	case EncodingPrefix, EncodingDiff, EncodingFastDiff:
		if len(src) < 4 {
			return dst, formatError("%s block of %d bytes", e, len(src))
		}
		unencoded := int(int32(binary.BigEndian.Uint32(src)))
		if unencoded < 0 || unencoded > maxBlockSize {
			return dst, formatError("%s block claims %d unencoded bytes", e, unencoded)
		}
		// Pre-size from the claim, but no more than a sane multiple of the
		// input; append grows further if the claim was honest.
		dst = grow(dst, min(unencoded, 16*len(src)+4096))
		d := deltaDecoder{src: readBuf{b: src, off: 4}, l: l, dst: dst, limit: unencoded, dict: dict}
		if l.tags && l.compressedTags {
			if dict == nil {
				d.dict = new(tagDict)
			}
			d.dict.reset()
		}
		switch e {
		case EncodingPrefix:
			return d.run(d.prefixCell)
		case EncodingDiff:
			return d.run(d.diffCell)
		default:
			return d.run(d.fastDiffCell)
		}
	}
	return dst, unsupportedError("data block encoding %s", e)
}

// deltaDecoder holds the state shared by the PREFIX, DIFF and FAST_DIFF
// decoders. Previous-cell positions are offsets into dst, which may move.
type deltaDecoder struct {
	src   readBuf
	l     cellLayout
	dst   []byte
	first bool
	// previous cell in dst: key at [pk, pk+pkl), value at [pv, pv+pvl)
	pk, pkl, pv, pvl int
	prevType         byte
	prevTS           int64
	family           []byte // DIFF: family with its length byte, once per block
	limit            int    // the unencoded size the block claims
	dict             *tagDict
}

func (d *deltaDecoder) run(cell func() error) ([]byte, error) {
	d.first = true
	for d.src.remaining() > 0 {
		if err := cell(); err != nil {
			return d.dst, err
		}
		if d.src.err != nil {
			return d.dst, formatError("encoded cell truncated")
		}
		d.afterCell()
		if d.src.err != nil {
			return d.dst, formatError("encoded cell tags or mvcc truncated")
		}
		if len(d.dst) > d.limit {
			return d.dst, formatError("encoded block decodes past its unencoded size %d", d.limit)
		}
		d.first = false
	}
	return d.dst, nil
}

// afterCell copies the tags (compressed-int length) and mvcc (VLong) that
// follow every encoded cell, in NONE layout.
func (d *deltaDecoder) afterCell() {
	if d.l.tags {
		n := d.src.uvarint32()
		if n > maxTagsLen {
			d.src.fail()
			return
		}
		d.dst = appendU16(d.dst, uint16(n))
		if d.l.compressedTags && n > 0 {
			var ok bool
			if d.dst, ok = uncompressTags(&d.src, n, d.dict, d.dst); !ok {
				d.src.fail()
				return
			}
		} else {
			d.dst = append(d.dst, d.src.bytes(n)...)
		}
	}
	if d.l.mvcc {
		start := d.src.off
		d.src.vlong()
		if d.src.err == nil {
			d.dst = append(d.dst, d.src.b[start:d.src.off]...)
		}
	}
}

// beginCell writes the lengths of a new NONE cell and returns the offset of
// its key.
func (d *deltaDecoder) beginCell(kl, vl int) int {
	d.dst = appendU32(d.dst, uint32(kl))
	d.dst = appendU32(d.dst, uint32(vl))
	return len(d.dst)
}

// endKey validates a rebuilt key and records it as the previous one.
func (d *deltaDecoder) endKey(k, kl int) error {
	if len(d.dst)-k != kl {
		return formatError("encoded key rebuilt to %d bytes, want %d", len(d.dst)-k, kl)
	}
	var c Cell
	if err := parseKey(d.dst[k:], &c); err != nil {
		return err
	}
	d.pk, d.pkl = k, kl
	d.prevTS = c.Timestamp
	d.prevType = byte(c.Type)
	return nil
}

// endCell ends a cell whose key was rebuilt at k: it checks the key,
// records it as the previous one and copies the value from the input.
func (d *deltaDecoder) endCell(k, kl, vl int) error {
	if d.src.err != nil {
		return nil
	}
	if err := d.endKey(k, kl); err != nil {
		return err
	}
	d.pv, d.pvl = len(d.dst), vl
	d.dst = append(d.dst, d.src.bytes(vl)...)
	return nil
}

func (d *deltaDecoder) checkLens(kl, vl int) error {
	if kl < keyInfrastructure || vl < 0 || kl > maxBlockSize || vl > maxBlockSize {
		return formatError("encoded cell key length %d value length %d", kl, vl)
	}
	// Every key and value byte comes from the input, except prefixes
	// copied from the previous cell, so the output cannot outgrow the
	// input by more than the previous key and value per cell.
	if kl+vl > d.src.remaining()+d.pkl+d.pvl+16 {
		return formatError("encoded cell of %d bytes exceeds its input", kl+vl)
	}
	return nil
}

// prefixCell decodes one PREFIX cell: keyLen-common, valueLen, common,
// key[common:], value.
func (d *deltaDecoder) prefixCell() error {
	rest := d.src.uvarint32()
	vl := d.src.uvarint32()
	common := d.src.uvarint32()
	if d.src.err != nil {
		return nil
	}
	if common > d.pkl || (d.first && common != 0) {
		return formatError("PREFIX common prefix %d longer than previous key %d", common, d.pkl)
	}
	kl := rest + common
	if err := d.checkLens(kl, vl); err != nil {
		return err
	}
	k := d.beginCell(kl, vl)
	d.dst = append(d.dst, d.dst[d.pk:d.pk+common]...)
	d.dst = append(d.dst, d.src.bytes(rest)...)
	return d.endCell(k, kl, vl)
}

// Flag bits.
const (
	diffSameKeyLen   = 0x01
	diffSameValueLen = 0x02
	diffSameType     = 0x04
	diffTSIsDiff     = 0x08
	diffTSLenMask    = 0x70
	diffTSSign       = 0x80

	fastTSPrefixMask  = 0x07
	fastSameKeyLen    = 0x08
	fastSameValueLen  = 0x10
	fastSameType      = 0x20
	fastSameValue     = 0x40
	tsTypeSize        = 9
	rowLenSize        = 2
	familyLenSizeByte = 1
)

// prevRowLen is the row length of the previous key.
func (d *deltaDecoder) prevRowLen() int {
	return int(binary.BigEndian.Uint16(d.dst[d.pk:]))
}

// copyRowAndFamily rebuilds "rows differ" keys for DIFF and FAST_DIFF: the
// uncopied part of the row (with its length) comes from the input, the
// family from fam. It returns the row length.
func (d *deltaDecoder) copyRow(k, common int) (int, bool) {
	if common < rowLenSize {
		d.dst = append(d.dst, d.src.bytes(rowLenSize-common)...)
		if d.src.err != nil {
			return 0, false
		}
		rl := int(binary.BigEndian.Uint16(d.dst[k:]))
		d.dst = append(d.dst, d.src.bytes(rl)...)
		return rl, d.src.err == nil
	}
	rl := int(binary.BigEndian.Uint16(d.dst[k:]))
	if rl+rowLenSize < common {
		return 0, false
	}
	d.dst = append(d.dst, d.src.bytes(rl+rowLenSize-common)...)
	return rl, d.src.err == nil
}

// cellLens reads and checks the key length, value length and common prefix
// length of a DIFF or FAST_DIFF cell; a length whose "same" bit is set in
// flag is the previous cell's (the first cell has them all). When the input
// ends short, the error is left in d.src.
func (d *deltaDecoder) cellLens(flag, sameKeyLen, sameValueLen byte) (kl, vl, common int, err error) {
	kl, vl = d.pkl, d.pvl
	if d.first || flag&sameKeyLen == 0 {
		kl = d.src.uvarint32()
	}
	if d.first || flag&sameValueLen == 0 {
		vl = d.src.uvarint32()
	}
	common = d.src.uvarint32()
	if d.src.err != nil {
		return 0, 0, 0, nil
	}
	return kl, vl, common, d.checkLens(kl, vl)
}

// appendQualifier copies the qualifier of a key from the input when its
// common prefix with the previous key covers row and family: the key less
// that prefix, the timestamp and the type. enc names the encoding in errors.
func (d *deltaDecoder) appendQualifier(kl, common int, enc string) error {
	qual := kl - common - tsTypeSize
	if qual < 0 {
		return formatError("%s key length %d shorter than common prefix %d", enc, kl, common)
	}
	d.dst = append(d.dst, d.src.bytes(qual)...)
	return nil
}

// fastDiffCell decodes one FAST_DIFF cell.
func (d *deltaDecoder) fastDiffCell() error {
	flag := d.src.u8()
	kl, vl, common, err := d.cellLens(flag, fastSameKeyLen, fastSameValueLen)
	if err != nil || d.src.err != nil {
		return err // a short input's error is d.src's
	}
	if d.first {
		if common != 0 {
			return formatError("FAST_DIFF first cell with common prefix %d", common)
		}
		k := d.beginCell(kl, vl)
		d.dst = append(d.dst, d.src.bytes(kl)...)
		return d.endCell(k, kl, vl)
	}
	prevRow := d.prevRowLen()
	if common > d.pkl-tsTypeSize {
		return formatError("FAST_DIFF common prefix %d longer than previous key %d", common, d.pkl)
	}
	k := d.beginCell(kl, vl)
	d.dst = append(d.dst, d.dst[d.pk:d.pk+common]...)
	if common < prevRow+rowLenSize {
		rl, ok := d.copyRow(k, common)
		if !ok {
			return formatError("FAST_DIFF row truncated or inconsistent")
		}
		// family (with its length byte) from the previous key
		fs := d.pk + rowLenSize + prevRow
		fl := int(d.dst[fs])
		d.dst = append(d.dst, d.dst[fs:fs+1+fl]...)
		qual := kl - rowLenSize - rl - 1 - fl - tsTypeSize
		if qual < 0 {
			return formatError("FAST_DIFF key length %d too short for row %d and family %d", kl, rl, fl)
		}
		d.dst = append(d.dst, d.src.bytes(qual)...)
	} else if err := d.appendQualifier(kl, common, "FAST_DIFF"); err != nil {
		return err
	}
	// timestamp: shared leading bytes from the previous timestamp
	tp := int(flag & fastTSPrefixMask)
	var ts [8]byte
	binary.BigEndian.PutUint64(ts[:], uint64(d.prevTS))
	d.dst = append(d.dst, ts[:tp]...)
	d.dst = append(d.dst, d.src.bytes(8-tp)...)
	if flag&fastSameType != 0 {
		d.dst = append(d.dst, d.prevType)
	} else {
		d.dst = append(d.dst, d.src.u8())
	}
	if d.src.err != nil {
		return nil
	}
	if err := d.endKey(k, kl); err != nil {
		return err
	}
	pv, pvl := d.pv, d.pvl
	d.pv, d.pvl = len(d.dst), vl
	if flag&fastSameValue != 0 {
		if vl != pvl {
			return formatError("FAST_DIFF same value with different length")
		}
		d.dst = append(d.dst, d.dst[pv:pv+pvl]...)
	} else {
		d.dst = append(d.dst, d.src.bytes(vl)...)
	}
	return nil
}

// diffCell decodes one DIFF cell.
func (d *deltaDecoder) diffCell() error {
	if d.first {
		fl := int(d.src.u8())
		fam := d.src.bytes(fl)
		if d.src.err != nil {
			return nil
		}
		d.family = append(append(d.family[:0], byte(fl)), fam...)
	}
	flag := d.src.u8()
	kl, vl, common, err := d.cellLens(flag, diffSameKeyLen, diffSameValueLen)
	if err != nil || d.src.err != nil {
		return err // a short input's error is d.src's
	}
	if (d.first && common != 0) || (!d.first && common > d.pkl-tsTypeSize) {
		return formatError("DIFF common prefix %d longer than previous key %d", common, d.pkl)
	}
	prevRow := 0
	if !d.first {
		prevRow = d.prevRowLen()
	}
	k := d.beginCell(kl, vl)
	d.dst = append(d.dst, d.dst[d.pk:d.pk+common]...)
	if d.first || common < prevRow+rowLenSize {
		rl, ok := d.copyRow(k, common)
		if !ok {
			return formatError("DIFF row truncated or inconsistent")
		}
		d.dst = append(d.dst, d.family...)
		qual := kl - rowLenSize - rl - len(d.family) - tsTypeSize
		if qual < 0 {
			return formatError("DIFF key length %d too short for row %d", kl, rl)
		}
		d.dst = append(d.dst, d.src.bytes(qual)...)
	} else if err := d.appendQualifier(kl, common, "DIFF"); err != nil {
		return err
	}
	n := int((flag&diffTSLenMask)>>4) + 1
	tb := d.src.bytes(n)
	var v uint64
	for i := len(tb) - 1; i >= 0; i-- {
		v = v<<8 | uint64(tb[i])
	}
	ts := int64(v)
	if flag&diffTSSign != 0 {
		ts = -ts
	}
	if flag&diffTSIsDiff != 0 {
		ts = d.prevTS - ts
	}
	d.dst = appendU64(d.dst, uint64(ts))
	if !d.first && flag&diffSameType != 0 {
		d.dst = append(d.dst, d.prevType)
	} else {
		d.dst = append(d.dst, d.src.u8())
	}
	return d.endCell(k, kl, vl)
}

// decodeRowIndex extracts the cells of a ROW_INDEX_V1 payload: cells in NONE
// layout, int32 numRows, int32 rowOffsets[numRows], int32 cellsDataSize.
func decodeRowIndex(src, dst []byte) ([]byte, error) {
	if len(src) < 8 {
		return dst, formatError("ROW_INDEX_V1 block of %d bytes", len(src))
	}
	size := int(int32(binary.BigEndian.Uint32(src[len(src)-4:])))
	if size < 0 || size > len(src)-8 {
		return dst, formatError("ROW_INDEX_V1 cells size %d in %d bytes", size, len(src))
	}
	rows := int(int32(binary.BigEndian.Uint32(src[size:])))
	if rows < 0 || 4+4*rows+4 != len(src)-size {
		return dst, formatError("ROW_INDEX_V1 row count %d does not match %d trailing bytes", rows, len(src)-size)
	}
	return append(dst, src[:size]...), nil
}

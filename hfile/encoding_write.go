package hfile

import (
	"bytes"
	"encoding/binary"
)

// encodeBlock encodes a NONE-layout block with e and appends the payload
// that follows the 2-byte encoding id to dst. All cells must share one
// family, as in any store file.
func encodeBlock(e Encoding, none []byte, l cellLayout, dst []byte, dict *tagDict) ([]byte, error) {
	switch e {
	case EncodingNone:
		return append(dst, none...), nil
	case EncodingRowIndexV1:
		return encodeRowIndex(none, l, dst)
	case EncodingPrefix, EncodingDiff, EncodingFastDiff:
	default:
		return dst, unsupportedError("data block encoding %s", e)
	}
	sizeAt := len(dst)
	dst = appendU32(dst, uint32(len(none)))
	var cur, prev rawCell
	var cc, pc Cell
	first := true
	if l.tags && l.compressedTags {
		if dict == nil {
			dict = new(tagDict)
		}
		dict.reset()
	}
	for off := 0; off < len(none); {
		next, err := nextNoneCell(none, off, l, &cur)
		if err != nil {
			return dst, err
		}
		if err := parseKey(cur.key, &cc); err != nil {
			return dst, err
		}
		switch e {
		case EncodingPrefix:
			dst = prefixEncode(dst, &cur, &prev, first)
		case EncodingDiff:
			dst = diffEncode(dst, &cur, &cc, &prev, &pc, first)
		case EncodingFastDiff:
			dst = fastDiffEncode(dst, &cur, &cc, &prev, &pc, first)
		}
		if l.tags {
			dst = appendCompressedInt(dst, len(cur.tags))
			if l.compressedTags {
				var ok bool
				if dst, ok = compressTags(dst, cur.tags, dict); !ok {
					return dst, formatError("malformed tags in cell %s", &cc)
				}
			} else {
				dst = append(dst, cur.tags...)
			}
		}
		if l.mvcc {
			dst = appendVLong(dst, cur.mvcc)
		}
		prev, pc = cur, cc
		first = false
		off = next
	}
	binary.BigEndian.PutUint32(dst[sizeAt:], uint32(len(none)))
	return dst, nil
}

func commonPrefix(a, b []byte) int {
	n := min(len(a), len(b))
	for i := 0; i < n; i++ {
		if a[i] != b[i] {
			return i
		}
	}
	return n
}

// flatCommonPrefix is findCommonPrefixInFlatKey(cur, prev, bypassFamily=true,
// withTsType=false).
func flatCommonPrefix(cur, prev *Cell) int {
	if len(cur.Row) != len(prev.Row) {
		var a, b [2]byte
		binary.BigEndian.PutUint16(a[:], uint16(len(cur.Row)))
		binary.BigEndian.PutUint16(b[:], uint16(len(prev.Row)))
		return commonPrefix(a[:], b[:])
	}
	n := commonPrefix(cur.Row, prev.Row)
	if n != len(cur.Row) {
		return rowLenSize + n
	}
	return rowLenSize + len(cur.Row) + 1 + len(cur.Family) + commonPrefix(cur.Qualifier, prev.Qualifier)
}

func prefixEncode(dst []byte, cur, prev *rawCell, first bool) []byte {
	common := 0
	if !first {
		common = commonPrefix(cur.key, prev.key)
	}
	dst = appendCompressedInt(dst, len(cur.key)-common)
	dst = appendCompressedInt(dst, len(cur.value))
	dst = appendCompressedInt(dst, common)
	dst = append(dst, cur.key[common:]...)
	return append(dst, cur.value...)
}

// writeKeyRest writes the part of the key after the common prefix and before
// the timestamp, as DIFF and FAST_DIFF do: the rest of the row (with its
// length) and the whole qualifier when rows differ, else the rest of the
// qualifier.
func writeKeyRest(dst []byte, cur *Cell, common int) []byte {
	rl := len(cur.Row)
	if common < rl+rowLenSize {
		var rowWithLen [2]byte
		binary.BigEndian.PutUint16(rowWithLen[:], uint16(rl))
		if common < rowLenSize {
			dst = append(dst, rowWithLen[common:]...)
			dst = append(dst, cur.Row...)
		} else {
			dst = append(dst, cur.Row[common-rowLenSize:]...)
		}
		return append(dst, cur.Qualifier...)
	}
	q := common - rl - rowLenSize - 1 - len(cur.Family)
	return append(dst, cur.Qualifier[q:]...)
}

// longFitsIn is ByteBufferUtils.longFitsIn: bytes needed for v, 8 if negative.
func longFitsIn(v int64) int {
	if v < 0 {
		return 8
	}
	n := 1
	for v >>= 8; v != 0; v >>= 8 {
		n++
	}
	return n
}

func appendLittle(dst []byte, v int64, n int) []byte {
	for i := 0; i < n; i++ {
		dst = append(dst, byte(v))
		v >>= 8
	}
	return dst
}

// sameBits returns the bits of a DIFF or FAST_DIFF flag (given as keyLen,
// valueLen and typ) that say cur has the key length, value length or type of
// the cell before it.
func sameBits(cur, prev *rawCell, cc, pc *Cell, keyLen, valueLen, typ byte) byte {
	var flag byte
	if len(cur.key) == len(prev.key) {
		flag |= keyLen
	}
	if len(cur.value) == len(prev.value) {
		flag |= valueLen
	}
	if cc.Type == pc.Type {
		flag |= typ
	}
	return flag
}

// appendCellLens appends the key length, value length and common prefix
// length of a DIFF or FAST_DIFF cell, leaving out a length whose "same" bit
// is set in flag. It is what deltaDecoder.cellLens reads.
func appendCellLens(dst []byte, cur *rawCell, common int, flag, sameKeyLen, sameValueLen byte) []byte {
	if flag&sameKeyLen == 0 {
		dst = appendCompressedInt(dst, len(cur.key))
	}
	if flag&sameValueLen == 0 {
		dst = appendCompressedInt(dst, len(cur.value))
	}
	return appendCompressedInt(dst, common)
}

func diffEncode(dst []byte, cur *rawCell, cc *Cell, prev *rawCell, pc *Cell, first bool) []byte {
	var flag byte
	ts := cc.Timestamp
	var diff int64
	var tsLen, diffLen int
	common := 0
	if first {
		if ts < 0 {
			flag |= diffTSSign
			ts = -ts
		}
		tsLen = longFitsIn(ts)
		flag |= byte(tsLen-1) << 4
		dst = append(dst, byte(len(cc.Family)))
		dst = append(dst, cc.Family...)
	} else {
		common = flatCommonPrefix(cc, pc)
		flag |= sameBits(cur, prev, cc, pc, diffSameKeyLen, diffSameValueLen, diffSameType)
		diff = pc.Timestamp - ts
		neg := ts < 0
		if neg {
			ts = -ts
		}
		tsLen = longFitsIn(ts)
		negDiff := diff < 0
		if negDiff {
			diff = -diff
		}
		diffLen = longFitsIn(diff)
		if diffLen < tsLen {
			flag |= byte(diffLen-1)<<4 | diffTSIsDiff
			if negDiff {
				flag |= diffTSSign
			}
		} else {
			flag |= byte(tsLen-1) << 4
			if neg {
				flag |= diffTSSign
			}
		}
	}
	dst = append(dst, flag)
	dst = appendCellLens(dst, cur, common, flag, diffSameKeyLen, diffSameValueLen)
	dst = writeKeyRest(dst, cc, common)
	if flag&diffTSIsDiff == 0 {
		dst = appendLittle(dst, ts, tsLen)
	} else {
		dst = appendLittle(dst, diff, diffLen)
	}
	if flag&diffSameType == 0 {
		dst = append(dst, byte(cc.Type))
	}
	return append(dst, cur.value...)
}

func fastDiffEncode(dst []byte, cur *rawCell, cc *Cell, prev *rawCell, pc *Cell, first bool) []byte {
	if first {
		dst = append(dst, 0)
		dst = appendCompressedInt(dst, len(cur.key))
		dst = appendCompressedInt(dst, len(cur.value))
		dst = appendCompressedInt(dst, 0)
		dst = append(dst, cur.key...)
		return append(dst, cur.value...)
	}
	var flag byte
	common := flatCommonPrefix(cc, pc)
	flag |= sameBits(cur, prev, cc, pc, fastSameKeyLen, fastSameValueLen, fastSameType)
	var ts, pts [8]byte
	binary.BigEndian.PutUint64(ts[:], uint64(cc.Timestamp))
	binary.BigEndian.PutUint64(pts[:], uint64(pc.Timestamp))
	tp := min(commonPrefix(ts[:], pts[:]), 7)
	flag |= byte(tp)
	if len(cur.value) == len(prev.value) && bytes.Equal(cur.value, prev.value) {
		flag |= fastSameValue
	}
	dst = append(dst, flag)
	dst = appendCellLens(dst, cur, common, flag, fastSameKeyLen, fastSameValueLen)
	dst = writeKeyRest(dst, cc, common)
	dst = append(dst, ts[tp:]...)
	if flag&fastSameType == 0 {
		dst = append(dst, byte(cc.Type))
	}
	if flag&fastSameValue == 0 {
		dst = append(dst, cur.value...)
	}
	return dst
}

// encodeRowIndex writes ROW_INDEX_V1: the NONE-layout cells, then the row
// count, the offset of each row's first cell and the cells' byte length.
func encodeRowIndex(none []byte, l cellLayout, dst []byte) ([]byte, error) {
	dst = append(dst, none...)
	var offsets []byte
	var rc rawCell
	var c Cell
	var prevRow []byte
	rows := 0
	for off := 0; off < len(none); {
		next, err := nextNoneCell(none, off, l, &rc)
		if err != nil {
			return dst, err
		}
		if err := parseKey(rc.key, &c); err != nil {
			return dst, err
		}
		if rows == 0 || !bytes.Equal(c.Row, prevRow) {
			offsets = appendU32(offsets, uint32(off))
			rows++
			prevRow = c.Row
		}
		off = next
	}
	dst = appendU32(dst, uint32(rows))
	dst = append(dst, offsets...)
	return appendU32(dst, uint32(len(none))), nil
}

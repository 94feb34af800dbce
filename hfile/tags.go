package hfile

// Tag compression (TagCompressionContext with an LRUDictionary of 127
// entries, cleared at every block). It applies to the PREFIX, DIFF and
// FAST_DIFF encodings when the file info has hfile.TAGS_COMPRESSED = true.
// Each tag (its type and value, without the 2-byte length) is written either
// as 0xFF, a varint length and the bytes (and then added to the
// dictionary), or as a 2-byte big-endian dictionary index.

const (
	tagDictCapacity  = 127 // Byte.MAX_VALUE
	tagNotInDict     = 0xff
	tagLenFieldBytes = 2
)

// tagDict mirrors HBase's LRUDictionary: indexes are handed out in order
// until the dictionary is full, then the least recently used entry's index
// is reused. Looking an entry up by index or by content makes it the most
// recently used.
type tagDict struct {
	entries    [tagDictCapacity][]byte
	prev, next [tagDictCapacity]int8
	head, tail int8
	size       int
}

func (d *tagDict) reset() {
	d.size = 0
	d.head, d.tail = -1, -1
}

func (d *tagDict) unlink(i int8) {
	p, n := d.prev[i], d.next[i]
	if p >= 0 {
		d.next[p] = n
	} else {
		d.head = n
	}
	if n >= 0 {
		d.prev[n] = p
	} else {
		d.tail = p
	}
}

func (d *tagDict) pushHead(i int8) {
	d.prev[i] = -1
	d.next[i] = d.head
	if d.head >= 0 {
		d.prev[d.head] = i
	}
	d.head = i
	if d.tail < 0 {
		d.tail = i
	}
}

// add stores b (which must stay valid until reset) and returns its index.
// Empty entries are not stored, as in LRUDictionary.
func (d *tagDict) add(b []byte) int {
	if len(b) == 0 {
		return -1
	}
	var i int8
	if d.size < tagDictCapacity {
		i = int8(d.size)
		d.size++
	} else {
		i = d.tail
		d.unlink(i)
	}
	d.entries[i] = b
	d.pushHead(i)
	return int(i)
}

// get returns entry i and marks it most recently used.
func (d *tagDict) get(i int) ([]byte, bool) {
	if i < 0 || i >= d.size {
		return nil, false
	}
	d.unlink(int8(i))
	d.pushHead(int8(i))
	return d.entries[i], true
}

// find returns the index of an entry equal to b and marks it most recently
// used, or -1.
func (d *tagDict) find(b []byte) int {
	for i := 0; i < d.size; i++ {
		if string(d.entries[i]) == string(b) {
			d.get(i)
			return i
		}
	}
	return -1
}

// uncompressTags reads n bytes worth of tags (in [uint16 len][type+value]
// form) from r and appends them to dst.
func uncompressTags(r *readBuf, n int, d *tagDict, dst []byte) ([]byte, bool) {
	end := len(dst) + n
	for len(dst) < end {
		status := r.u8()
		if r.err != nil {
			return dst, false
		}
		var tag []byte
		if status == tagNotInDict {
			l := r.uvarint32()
			tag = r.bytes(l)
			if r.err != nil || l > 0xffff {
				return dst, false
			}
			d.add(tag)
		} else {
			idx := int(status)<<8 | int(r.u8())
			var ok bool
			tag, ok = d.get(idx)
			if r.err != nil || !ok {
				return dst, false
			}
		}
		dst = appendU16(dst, uint16(len(tag)))
		dst = append(dst, tag...)
	}
	return dst, len(dst) == end
}

// compressTags appends the compressed form of a tags blob.
func compressTags(dst, tags []byte, d *tagDict) ([]byte, bool) {
	for len(tags) > 0 {
		if len(tags) < tagLenFieldBytes {
			return dst, false
		}
		l := int(tags[0])<<8 | int(tags[1])
		if l > len(tags)-tagLenFieldBytes {
			return dst, false
		}
		tag := tags[tagLenFieldBytes : tagLenFieldBytes+l]
		tags = tags[tagLenFieldBytes+l:]
		if i := d.find(tag); i >= 0 {
			dst = append(dst, byte(i>>8), byte(i))
			continue
		}
		d.add(tag)
		dst = append(dst, tagNotInDict)
		dst = appendCompressedInt(dst, l)
		dst = append(dst, tag...)
	}
	return dst, true
}

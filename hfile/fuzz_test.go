package hfile

import (
	"bytes"
	"testing"
)

// seedFiles are small files our writer produces, used as fuzz seeds.
func seedFiles(f *testing.F) [][]byte { return seedFilesT(f) }

func seedFilesT(f testing.TB) [][]byte {
	var out [][]byte
	for i, enc := range allEncodings {
		for j, comp := range allCompressions {
			if (i+j)%2 == 1 {
				continue
			}
			tags, mvcc := i%2 == 0, j%2 == 0
			opts := WriterOptions{BlockSize: 200, Encoding: enc, Compression: comp, IncludeTags: tags, IncludeMVCC: mvcc, CompressTags: j == 0,
				IndexBlockSize: 80, IndexMinEntries: 2, BytesPerChecksum: 64, CreateTime: 1}
			if i == 1 {
				opts.Bloom = BloomRow
			}
			if j >= 2 {
				opts.BytesPerChecksum = -1 // let mutations reach the decoders
			}
			out = append(out, writeFile(f, opts, genCells(30, uint64(i*10+j), tags, mvcc)))
		}
	}
	out = append(out, writeFile(f, WriterOptions{CreateTime: 1}, nil))
	return out
}

// eachBlock calls fn for every block of file b.
func eachBlock(b []byte, fn func(h blockHeader, blk []byte)) {
	for off := 0; off < len(b)-trailerSizeV3; {
		h, err := parseBlockHeader(b[off:], int64(off), int64(len(b)-off))
		if err != nil {
			return
		}
		fn(h, b[off:off+h.onDiskSize()])
		off += h.onDiskSize()
	}
}

func FuzzOpenScan(f *testing.F) {
	for _, b := range seedFiles(f) {
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		cells, err := scanAll(b)
		if err != nil {
			if !wrapsSentinel(err) {
				t.Fatalf("error wraps none of ErrFormat, ErrChecksum, ErrUnsupported: %v", err)
			}
			return
		}
		r := openBytes(t, b)
		// A whole scan holds the cells the trailer counts, and scanning
		// again reads the same cells.
		if uint64(len(cells)) != r.EntryCount() {
			t.Fatalf("scan read %d cells, the trailer counts %d", len(cells), r.EntryCount())
		}
		if again := readAll(t, r, ScanOptions{}); !sameCellList(again, cells) {
			t.Fatalf("a second scan read %d cells, different from the %d of the first", len(again), len(cells))
		}
		// Written again with the file's layout and encoding, the cells read
		// back the same. The writer may refuse what it cannot store (cells
		// out of order, of two families): damage no checksum covered.
		var buf bytes.Buffer
		w := NewWriter(&buf, WriterOptions{Encoding: r.Info().Encoding, IncludeTags: r.layout.tags, IncludeMVCC: r.layout.mvcc,
			CompressTags: r.layout.compressedTags, BlockSize: 200, CreateTime: 1})
		for _, c := range cells {
			if w.Append(c) != nil {
				return
			}
		}
		if err := w.Close(); err != nil {
			t.Fatalf("writing the %d cells read again: %v", len(cells), err)
		}
		assertCells(t, readAll(t, openBytes(t, buf.Bytes()), ScanOptions{}), cells)
	})
}

func FuzzTrailer(f *testing.F) {
	for _, b := range seedFiles(f) {
		f.Add(b[len(b)-trailerSizeV3:])
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		tr, err := parseTrailer(b)
		if err != nil {
			return
		}
		if tr.MajorVersion == 3 {
			if out, err := tr.marshal(); err == nil {
				if _, err := parseTrailer(out); err != nil {
					t.Fatalf("re-marshalled trailer does not parse: %v", err)
				}
			}
		}
	})
}

func FuzzBlockHeader(f *testing.F) {
	for _, b := range seedFiles(f) {
		eachBlock(b, func(h blockHeader, blk []byte) { f.Add(blk) })
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		h, err := parseBlockHeader(b, 0, int64(len(b)))
		if err != nil {
			return
		}
		if h.onDiskSize() > len(b) {
			t.Fatalf("header accepted size %d beyond %d bytes", h.onDiskSize(), len(b))
		}
		verifyChecksums(&h, b[:h.onDiskSize()])
	})
}

func FuzzIndex(f *testing.F) {
	for _, b := range seedFiles(f) {
		r, err := Open(bytes.NewReader(b), int64(len(b)), "seed")
		if err != nil {
			f.Fatal(err)
		}
		f.Add(appendRootIndex(nil, r.root), uint16(len(r.root)))
		var br blockReader
		eachBlock(b, func(h blockHeader, blk []byte) {
			if h.typ == BlockLeafIndex || h.typ == BlockIntermediateIndex {
				_, p, err := r.readBlock(&br, h.offset, 0)
				if err == nil {
					f.Add(append([]byte(nil), p...), uint16(0))
				}
			}
		})
	}
	key := FirstOnRow([]byte("row-000010"))
	f.Fuzz(func(t *testing.T, b []byte, n uint16) {
		if entries, _, err := parseRootIndex(b, int(n)); err == nil {
			searchEntries(entries, key)
		}
		if x, err := parseNonRootIndex(b); err == nil {
			for i := 0; i < x.n; i++ {
				x.entry(i)
			}
			x.search(key)
		}
	})
}

func FuzzDecodeBlock(f *testing.F) {
	for _, b := range seedFiles(f) {
		r, err := Open(bytes.NewReader(b), int64(len(b)), "seed")
		if err != nil {
			f.Fatal(err)
		}
		var br blockReader
		eachBlock(b, func(h blockHeader, blk []byte) {
			if h.typ != BlockEncodedData && h.typ != BlockData {
				return
			}
			_, p, err := r.readBlock(&br, h.offset, 0)
			if err != nil {
				return
			}
			flags := byte(0)
			if r.layout.tags {
				flags |= 1
			}
			if r.layout.mvcc {
				flags |= 2
			}
			if r.layout.compressedTags {
				flags |= 4
			}
			if h.typ == BlockData {
				f.Add(append([]byte{0, 0}, p...), flags)
			} else {
				f.Add(append([]byte(nil), p...), flags)
			}
		})
	}
	f.Fuzz(func(t *testing.T, b []byte, flags byte) {
		if len(b) < 2 {
			return
		}
		l := cellLayout{tags: flags&1 != 0, mvcc: flags&2 != 0, compressedTags: flags&4 != 0}
		enc := Encoding(uint16(b[0])<<8 | uint16(b[1]))
		out, err := decodeBlock(enc, b[2:], l, nil, nil)
		if err != nil {
			return
		}
		// Whatever decodes must parse as cells or fail cleanly, and
		// re-encoding valid cells must round trip.
		var rc rawCell
		var c Cell
		valid, oneFamily := true, true
		var fam []byte
		for off := 0; off < len(out); {
			next, err := nextNoneCell(out, off, l, &rc)
			if err != nil || parseKey(rc.key, &c) != nil || rc.mvcc < 0 {
				valid = false
				break
			}
			if off > 0 && !bytes.Equal(fam, c.Family) {
				oneFamily = false
			}
			fam = c.Family
			off = next
		}
		if !valid || !enc.supported() {
			return
		}
		for _, e := range allEncodings {
			if !oneFamily && (e == EncodingDiff || e == EncodingFastDiff) {
				continue // store files have one family; these encoders rely on it
			}
			re, err := encodeBlock(e, out, l, nil, nil)
			if err != nil {
				continue
			}
			back, err := decodeBlock(e, re, l, nil, nil)
			if err != nil {
				t.Fatalf("%s: re-encoded block does not decode: %v", e, err)
			}
			if !sameCells(back, out, l) {
				t.Fatalf("%s: round trip changed the cells", e)
			}
		}
	})
}

func FuzzDecompress(f *testing.F) {
	var cs codecs
	data := bytes.Repeat([]byte("fuzz hfile data "), 50)
	for _, alg := range allCompressions {
		for _, zf := range []ZstdFraming{ZstdHadoopBlock, ZstdPlainFrame} {
			c, _ := cs.compress(alg, zf, nil, data)
			f.Add(byte(alg), c, uint16(len(data)))
		}
	}
	f.Fuzz(func(t *testing.T, alg byte, b []byte, want uint16) {
		var cs codecs
		out, err := cs.decompress(Compression(alg%uint8(compressionUnknown)), nil, b, int(want))
		if err == nil && len(out) != int(want) {
			t.Fatalf("decompressed %d bytes, want %d", len(out), want)
		}
	})
}

func FuzzFileInfoAndReference(f *testing.F) {
	for _, b := range seedFiles(f) {
		r, err := Open(bytes.NewReader(b), int64(len(b)), "seed")
		if err != nil {
			f.Fatal(err)
		}
		f.Add(marshalFileInfo(r.Info().Raw))
	}
	f.Add(NewSplitReference([]byte("row"), RangeTop).Marshal())
	f.Add([]byte("PBUF\x08\x01\x10\x7f"))
	f.Fuzz(func(t *testing.T, b []byte) {
		parseFileInfo(b)
		parseTimeRange(b)
		if ref, err := ParseReference(b); err == nil {
			if _, err := ParseReference(ref.Marshal()); err != nil {
				t.Fatalf("re-marshalled reference does not parse: %v", err)
			}
		}
		if m, err := parseBloomMeta(b); err == nil {
			_ = m
		}
	})
}

// sameCells reports whether two NONE-layout blocks hold the same cells
// (VLongs may be encoded differently).
func sameCells(a, b []byte, l cellLayout) bool {
	var ra, rb rawCell
	oa, ob := 0, 0
	for oa < len(a) && ob < len(b) {
		na, err1 := nextNoneCell(a, oa, l, &ra)
		nb, err2 := nextNoneCell(b, ob, l, &rb)
		if err1 != nil || err2 != nil || !bytes.Equal(ra.key, rb.key) || !bytes.Equal(ra.value, rb.value) ||
			!bytes.Equal(ra.tags, rb.tags) || ra.mvcc != rb.mvcc {
			return false
		}
		oa, ob = na, nb
	}
	return oa == len(a) && ob == len(b)
}

package hfile

import (
	"fmt"
	"testing"
)

func TestMurmur3Vectors(t *testing.T) {
	// Published MurmurHash3_x86_32 values.
	for _, tt := range []struct {
		in   string
		seed int32
		want uint32
	}{
		{"", 0, 0},
		{"", 1, 0x514e28b7},
		{"hello", 0, 0x248bfa47},
		{"The quick brown fox jumps over the lazy dog", 0, 0x2e4ff723},
	} {
		if got := uint32(murmur3([]byte(tt.in), tt.seed)); got != tt.want {
			t.Errorf("murmur3(%q, %d) = %#x, want %#x", tt.in, tt.seed, got, tt.want)
		}
	}
}

func TestMurmur2SignExtension(t *testing.T) {
	// The Java code sign-extends tail bytes; for bytes < 0x80 this is the
	// plain MurmurHash2, for bytes >= 0x80 it differs.
	a := murmur2([]byte{0x01}, 0)
	b := murmur2([]byte{0x81}, 0)
	if a == b {
		t.Fatal("tail bytes ignored")
	}
	// h ^= int32(int8(0x81)) flips the high bits too: recompute by hand.
	const m = 0x5bd1e995
	h := uint32(0) ^ 1
	h ^= 0xffffff81
	h *= m
	h ^= h >> 13
	h *= m
	h ^= h >> 15
	if uint32(b) != h {
		t.Fatalf("murmur2([0x81]) = %#x, want %#x", uint32(b), h)
	}
}

func TestBloomFilters(t *testing.T) {
	for _, bt := range []BloomType{BloomRow, BloomRowCol} {
		var cells []*Cell
		for i := 0; i < 5000; i++ {
			cells = append(cells, &Cell{Row: []byte(fmt.Sprintf("row%06d", i)), Family: []byte("f"), Qualifier: []byte(fmt.Sprintf("q%d", i%3)), Timestamp: 1, Type: TypePut, Value: []byte("v")})
		}
		b := writeFile(t, WriterOptions{BlockSize: 1024, Bloom: bt, BloomBlockSize: 512}, cells)
		r := openBytes(t, b)
		m, err := r.BloomMeta()
		if err != nil || m == nil {
			t.Fatalf("%s: bloom meta %v %v", bt, m, err)
		}
		if m.Chunks < 2 || m.KeyCount != 5000 || m.HashType != hashMurmur || m.Type != bt {
			t.Fatalf("%s: meta %+v", bt, m)
		}
		for _, c := range cells {
			ok, err := r.MayContain(c.Row, c.Qualifier)
			if err != nil || !ok {
				t.Fatalf("%s: %s not found (%v)", bt, c, err)
			}
		}
		fp := 0
		for i := 0; i < 2000; i++ {
			ok, err := r.MayContain([]byte(fmt.Sprintf("row%06d", i)), []byte("absent"))
			if bt == BloomRow {
				ok, err = r.MayContain([]byte(fmt.Sprintf("row%06dx", i)), nil)
			}
			if err != nil {
				t.Fatal(err)
			}
			if ok {
				fp++
			}
		}
		if fp > 100 {
			t.Errorf("%s: %d false positives in 2000", bt, fp)
		}
		info := r.Info()
		if info.BloomType != bt || len(info.Raw[FileInfoLastBloomKey]) == 0 {
			t.Errorf("%s: file info bloom type %s", bt, info.BloomType)
		}
		// The data is unaffected by the inline bloom blocks.
		assertCells(t, readAll(t, r, ScanOptions{}), cells)
	}
}

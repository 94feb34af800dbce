package hfile

import (
	"bytes"
	"math"
	"testing"
)

func TestCompare(t *testing.T) {
	k := func(row, fam, qual string, ts int64, typ CellType) *Cell {
		return &Cell{Row: []byte(row), Family: []byte(fam), Qualifier: []byte(qual), Timestamp: ts, Type: typ}
	}
	tests := []struct {
		name string
		a, b *Cell
		want int
	}{
		{"equal", k("r", "f", "q", 1, TypePut), k("r", "f", "q", 1, TypePut), 0},
		{"row", k("a", "f", "q", 1, TypePut), k("b", "f", "q", 1, TypePut), -1},
		{"row prefix", k("a", "f", "q", 1, TypePut), k("a\x00", "f", "q", 1, TypePut), -1},
		{"row unsigned", k("\x7f", "f", "q", 1, TypePut), k("\x80", "f", "q", 1, TypePut), -1},
		{"row 0xff", k("\xff", "f", "q", 1, TypePut), k("\x00", "f", "q", 1, TypePut), 1},
		{"family", k("r", "a", "q", 1, TypePut), k("r", "b", "q", 1, TypePut), -1},
		{"qualifier", k("r", "f", "a", 1, TypePut), k("r", "f", "b", 1, TypePut), -1},
		{"empty qualifier first", k("r", "f", "", 1, TypePut), k("r", "f", "a", 1, TypePut), -1},
		{"timestamp descending", k("r", "f", "q", 2, TypePut), k("r", "f", "q", 1, TypePut), -1},
		{"negative timestamp", k("r", "f", "q", -1, TypePut), k("r", "f", "q", 0, TypePut), 1},
		{"type descending", k("r", "f", "q", 1, TypeDeleteFamily), k("r", "f", "q", 1, TypePut), -1},
		{"delete column before delete", k("r", "f", "q", 1, TypeDeleteColumn), k("r", "f", "q", 1, TypeDelete), -1},
		{"delete before put", k("r", "f", "q", 1, TypeDelete), k("r", "f", "q", 1, TypePut), -1},
		{"dfv before delete", k("r", "f", "q", 1, TypeDeleteFamilyVersion), k("r", "f", "q", 1, TypeDelete), -1},
		{"first on row first", FirstOnRow([]byte("r")), k("r", "", "", math.MaxInt64, TypeDeleteFamily), -1},
		{"first on row before family", FirstOnRow([]byte("r")), k("r", "a", "", 5, TypePut), -1},
		{"last on row last", k("r", "", "", 0, TypeMinimum), k("r", "z", "z", 0, TypePut), 1},
		{"last on row before next row", k("r", "", "", 0, TypeMinimum), k("s", "", "", 0, TypePut), -1},
		{"both last on row", k("r", "", "", 0, TypeMinimum), k("r", "", "", 5, TypeMinimum), 0},
	}
	for _, tt := range tests {
		if got := CompareKeys(tt.a, tt.b); got != tt.want {
			t.Errorf("%s: CompareKeys = %d, want %d", tt.name, got, tt.want)
		}
		if got := CompareKeys(tt.b, tt.a); got != -tt.want {
			t.Errorf("%s: reversed CompareKeys = %d, want %d", tt.name, got, -tt.want)
		}
		if got := compareKeyBytes(KeyBytes(tt.a), KeyBytes(tt.b)); got != tt.want {
			t.Errorf("%s: compareKeyBytes = %d, want %d", tt.name, got, tt.want)
		}
	}
	a, b := k("r", "f", "q", 1, TypePut), k("r", "f", "q", 1, TypePut)
	a.SeqID, b.SeqID = 5, 3
	if Compare(a, b) != -1 || Compare(b, a) != 1 || CompareKeys(a, b) != 0 {
		t.Error("sequence id must sort descending in Compare and be ignored by CompareKeys")
	}
}

func TestKeyBytes(t *testing.T) {
	c := &Cell{Row: []byte("row"), Family: []byte("cf"), Qualifier: []byte("q1"), Timestamp: 0x0102030405060708, Type: TypeDelete}
	want := []byte("\x00\x03row\x02cfq1\x01\x02\x03\x04\x05\x06\x07\x08\x08")
	got := KeyBytes(c)
	if !bytes.Equal(got, want) {
		t.Fatalf("KeyBytes = %x, want %x", got, want)
	}
	back, err := ParseKey(got)
	if err != nil || CompareKeys(back, c) != 0 || !bytes.Equal(back.Qualifier, c.Qualifier) {
		t.Fatalf("ParseKey = %v, %v", back, err)
	}
	// Split keys from HBase: first on row, family length 0.
	fk := KeyBytes(FirstOnRow([]byte("m")))
	if !bytes.Equal(fk, []byte("\x00\x01m\x00\x7f\xff\xff\xff\xff\xff\xff\xff\xff")) {
		t.Fatalf("FirstOnRow key = %x", fk)
	}
	for _, bad := range [][]byte{nil, make([]byte, 11), []byte("\x00\x10abc\x00\x00\x00\x00\x00\x00\x00\x00\x04"), []byte("\x00\x01a\x09\x00\x00\x00\x00\x00\x00\x00\x00\x04")} {
		if _, err := ParseKey(bad); err == nil {
			t.Errorf("ParseKey(%x) accepted", bad)
		}
	}
	if TypeDeleteFamilyVersion.String() != "DeleteFamilyVersion" || CellType(3).String() != "CellType(3)" {
		t.Error("CellType.String")
	}
}

func TestVLong(t *testing.T) {
	tests := []struct {
		v    int64
		want []byte
	}{
		{0, []byte{0x00}},
		{127, []byte{0x7f}},
		{-112, []byte{0x90}},
		{128, []byte{0x8f, 0x80}},
		{255, []byte{0x8f, 0xff}},
		{256, []byte{0x8e, 0x01, 0x00}},
		{-113, []byte{0x87, 0x70}},
		{math.MaxInt64, []byte{0x88, 0x7f, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff}},
		{math.MinInt64, []byte{0x80, 0x7f, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff}},
	}
	for _, tt := range tests {
		got := appendVLong(nil, tt.v)
		if !bytes.Equal(got, tt.want) {
			t.Errorf("appendVLong(%d) = %x, want %x", tt.v, got, tt.want)
		}
		if vlongSize(tt.v) != len(tt.want) {
			t.Errorf("vlongSize(%d) = %d", tt.v, vlongSize(tt.v))
		}
		v, n := readVLong(tt.want)
		if v != tt.v || n != len(tt.want) {
			t.Errorf("readVLong(%x) = %d, %d", tt.want, v, n)
		}
		if _, n := readVLong(tt.want[:len(tt.want)-1]); len(tt.want) > 1 && n > 0 {
			t.Errorf("readVLong of truncated %x succeeded", tt.want)
		}
	}
}

func TestCompressedInt(t *testing.T) {
	tests := []struct {
		v    int
		want []byte
	}{
		{0, []byte{0}}, {127, []byte{0x7f}}, {128, []byte{0x80, 0x01}}, {300, []byte{0xac, 0x02}},
		{math.MaxInt32, []byte{0xff, 0xff, 0xff, 0xff, 0x07}},
	}
	for _, tt := range tests {
		if got := appendCompressedInt(nil, tt.v); !bytes.Equal(got, tt.want) {
			t.Errorf("appendCompressedInt(%d) = %x", tt.v, got)
		}
		if v, n := readCompressedInt(tt.want); v != tt.v || n != len(tt.want) {
			t.Errorf("readCompressedInt(%x) = %d, %d", tt.want, v, n)
		}
	}
	for _, bad := range [][]byte{nil, {0x80}, {0xff, 0xff, 0xff, 0xff, 0x7f}, {0x80, 0x80, 0x80, 0x80, 0x80, 0x01}} {
		if _, n := readCompressedInt(bad); n > 0 {
			t.Errorf("readCompressedInt(%x) accepted", bad)
		}
	}
}

// TestTagDict checks the LRU index reuse of the tag dictionary: once full,
// the least recently used index is handed out again.
func TestTagDict(t *testing.T) {
	var d tagDict
	d.reset()
	for i := 0; i < tagDictCapacity; i++ {
		if got := d.add([]byte{byte(i)}); got != i {
			t.Fatalf("add %d = %d", i, got)
		}
	}
	d.get(0) // 0 becomes most recently used; 1 is now the oldest
	if got := d.add([]byte("new")); got != 1 {
		t.Fatalf("first eviction reused %d, want 1", got)
	}
	if got := d.find([]byte{2}); got != 2 {
		t.Fatalf("find = %d", got)
	}
	if got := d.add([]byte("newer")); got != 3 {
		t.Fatalf("second eviction reused %d, want 3", got)
	}
	if b, ok := d.get(1); !ok || string(b) != "new" {
		t.Fatalf("get(1) = %q %v", b, ok)
	}
	if _, ok := d.get(200); ok {
		t.Fatal("get out of range")
	}
	if d.add(nil) != -1 {
		t.Fatal("empty entry stored")
	}
	// Compress then uncompress a blob with repeats and evictions.
	var blob []byte
	for i := 0; i < 400; i++ {
		v := []byte{byte(i % 150), 'v', byte(i % 7)}
		blob = append(blob, 0, byte(len(v)))
		blob = append(blob, v...)
	}
	var enc, dec tagDict
	enc.reset()
	dec.reset()
	c, ok := compressTags(nil, blob, &enc)
	if !ok {
		t.Fatal("compress failed")
	}
	r := readBuf{b: c}
	out, ok := uncompressTags(&r, len(blob), &dec, nil)
	if !ok || !bytes.Equal(out, blob) || r.remaining() != 0 {
		t.Fatalf("tags round trip failed: ok=%v equal=%v rest=%d", ok, bytes.Equal(out, blob), r.remaining())
	}
}

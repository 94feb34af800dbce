package hfile

import (
	"bytes"
	"testing"
)

func TestReferenceRoundTrip(t *testing.T) {
	for _, rg := range []Range{RangeTop, RangeBottom} {
		ref := NewSplitReference([]byte("row\x00split"), rg)
		got, err := ParseReference(ref.Marshal())
		if err != nil {
			t.Fatal(err)
		}
		if got.Range != rg || !bytes.Equal(got.SplitKey, ref.SplitKey) {
			t.Fatalf("got %+v, want %+v", got, ref)
		}
	}
	// Bottom (range=1) as HBase writes it, byte for byte: PBUF, field 1
	// (bytes), field 2 (varint).
	key := KeyBytes(FirstOnRow([]byte("m")))
	raw := append([]byte("PBUF\x0a"), byte(len(key)))
	raw = append(append(raw, key...), 0x10, 0x01)
	ref, err := ParseReference(raw)
	if err != nil || ref.Range != RangeBottom || !bytes.Equal(ref.SplitKey, key) {
		t.Fatalf("HBase bytes: %+v %v", ref, err)
	}
	// Legacy Writable form: boolean top, VInt length, key.
	legacy := append([]byte{1, byte(len(key))}, key...)
	ref, err = ParseReference(legacy)
	if err != nil || ref.Range != RangeTop {
		t.Fatalf("legacy: %+v %v", ref, err)
	}
	for _, bad := range [][]byte{nil, []byte("PBUF"), []byte("PBUF\x0a\x05ab"), []byte("PBUF\x10\x01"), {1, 50, 1}} {
		if _, err := ParseReference(bad); err == nil {
			t.Errorf("ParseReference(%q) accepted", bad)
		}
	}
}

func TestReferenceAndLinkNames(t *testing.T) {
	tests := []struct {
		name       string
		file, par  string
		ok         bool
		link       bool
		linkParsed Link
	}{
		{name: "0123abcd.f00dbeef", file: "0123abcd", par: "f00dbeef", ok: true},
		{name: "0123abcd_SeqId_12_.f00d", file: "0123abcd_SeqId_12_", par: "f00d", ok: true},
		{name: "t1=0a1b-cafe", link: true, linkParsed: Link{Namespace: "default", Table: "t1", Region: "0a1b", HFile: "cafe"}},
		{name: "ns=my.table-x=0a1b-cafe_SeqId_3_", link: true, linkParsed: Link{Namespace: "ns", Table: "my.table-x", Region: "0a1b", HFile: "cafe_SeqId_3_"}},
		{name: "t1=0a1b-cafe.beef", file: "t1=0a1b-cafe", par: "beef", ok: true},
		{name: "NOTHEX.abc"},
		{name: "abc"},
	}
	for _, tt := range tests {
		f, p, ok := ParseReferenceName(tt.name)
		if ok != tt.ok || f != tt.file || p != tt.par {
			t.Errorf("ParseReferenceName(%q) = %q, %q, %v", tt.name, f, p, ok)
		}
		l, ok := ParseLinkName(tt.name)
		if ok != tt.link || l != tt.linkParsed {
			t.Errorf("ParseLinkName(%q) = %+v, %v", tt.name, l, ok)
		}
		if ok && l.Name() != tt.name && !(l.Namespace == "default") {
			t.Errorf("Link.Name() = %q, want %q", l.Name(), tt.name)
		}
	}
	l, _ := ParseLinkName("ns=t=0a-cafe")
	paths := l.Paths("/hbase", "cf")
	want := []string{"/hbase/data/ns/t/0a/cf/cafe", "/hbase/.tmp/data/ns/t/0a/cf/cafe", "/hbase/mobdir/data/ns/t/0a/cf/cafe", "/hbase/archive/data/ns/t/0a/cf/cafe"}
	for i := range want {
		if paths[i] != want[i] {
			t.Errorf("path %d = %q, want %q", i, paths[i], want[i])
		}
	}
}

func TestHalfReader(t *testing.T) {
	cells := genCells(2000, 11, false, true)
	b := writeFile(t, WriterOptions{BlockSize: 400, Encoding: EncodingFastDiff, IndexBlockSize: 150, IndexMinEntries: 2, IncludeMVCC: true}, cells)
	r := openBytes(t, b)
	for _, split := range [][]byte{cells[0].Row, cells[777].Row, cells[1999].Row, []byte("\x00"), []byte("\xff\xff\xff"), []byte("row-000100")} {
		for _, rg := range []Range{RangeTop, RangeBottom} {
			h, err := NewHalfReader(r, NewSplitReference(split, rg))
			if err != nil {
				t.Fatal(err)
			}
			var want []*Cell
			for _, c := range cells {
				if (bytes.Compare(c.Row, split) >= 0) == (rg == RangeTop) {
					want = append(want, c)
				}
			}
			s := h.Scanner(ScanOptions{})
			var got []*Cell
			for s.Next() {
				got = append(got, s.Cell().Clone())
			}
			if s.Err() != nil {
				t.Fatal(s.Err())
			}
			assertCells(t, got, want)
			first, err := h.FirstKey()
			if err != nil {
				t.Fatal(err)
			}
			last, err := h.LastKey()
			if err != nil {
				t.Fatal(err)
			}
			if len(want) == 0 {
				if first != nil || last != nil {
					t.Fatalf("split %q %s: keys %v %v in an empty half", split, rg, first, last)
				}
				continue
			}
			if first == nil || CompareKeys(first, want[0]) != 0 {
				t.Fatalf("split %q %s: first %v, want %s", split, rg, first, want[0])
			}
			if last == nil || CompareKeys(last, want[len(want)-1]) != 0 {
				t.Fatalf("split %q %s: last %v, want %s", split, rg, last, want[len(want)-1])
			}
		}
	}
}

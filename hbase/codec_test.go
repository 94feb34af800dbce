package hbase

import (
	"bytes"
	"encoding/binary"
	"errors"
	"testing"
)

func sampleCells() []Cell {
	return []Cell{
		{Row: []byte("row1"), Family: []byte("f"), Qualifier: []byte("q1"), Timestamp: 1000, Type: CellTypePut, Value: []byte("value")},
		{Row: []byte("row1"), Family: []byte("f"), Qualifier: []byte{}, Timestamp: 999, Type: CellTypePut, Value: []byte{}},
		{Row: []byte("row2"), Family: []byte("fam"), Qualifier: []byte("q"), Timestamp: LatestTimestamp, Type: CellTypeDelete, Value: []byte{}},
		{Row: []byte("row3"), Family: []byte("fam"), Qualifier: []byte{}, Timestamp: 5, Type: CellTypeDeleteFamily, Value: []byte{}},
		{Row: []byte("row3"), Family: []byte("fam"), Qualifier: []byte("c"), Timestamp: 5, Type: CellTypeDeleteColumn, Value: []byte{}},
		{Row: []byte("row3"), Family: []byte("fam"), Qualifier: []byte{}, Timestamp: 6, Type: CellTypeDeleteFamilyVersion, Value: []byte{}},
	}
}

func TestCellBlockRoundTrip(t *testing.T) {
	cells := sampleCells()
	b, err := encodeCellBlock(cells)
	if err != nil {
		t.Fatal(err)
	}
	got, rest, err := decodeCellBlock(b, len(cells))
	if err != nil || len(rest) != 0 {
		t.Fatalf("decode: %v, %d bytes left", err, len(rest))
	}
	for i := range cells {
		if !got[i].Equal(cells[i]) {
			t.Errorf("cell %d = %s, want %s", i, got[i], cells[i])
		}
	}
	all, _, err := decodeCellBlock(b, -1)
	if err != nil || len(all) != len(cells) {
		t.Fatalf("decode all: %d cells, %v", len(all), err)
	}
}

// TestCellLayout pins the KeyValue byte layout against a hand-built cell.
func TestCellLayout(t *testing.T) {
	c := Cell{Row: []byte("r"), Family: []byte("f"), Qualifier: []byte("q"), Timestamp: 0x0102030405060708, Type: CellTypePut, Value: []byte("v")}
	b, err := appendCell(nil, &c)
	if err != nil {
		t.Fatal(err)
	}
	var want []byte
	keyLen := 2 + 1 + 1 + 1 + 1 + 8 + 1
	want = binary.BigEndian.AppendUint32(want, uint32(8+keyLen+1))
	want = binary.BigEndian.AppendUint32(want, uint32(keyLen))
	want = binary.BigEndian.AppendUint32(want, 1)
	want = append(want, 0, 1, 'r', 1, 'f', 'q', 1, 2, 3, 4, 5, 6, 7, 8, 4, 'v')
	if !bytes.Equal(b, want) {
		t.Fatalf("cell bytes\n got %x\nwant %x", b, want)
	}
}

func TestCellEncodeRejects(t *testing.T) {
	bad := []Cell{
		{Row: make([]byte, 40000), Family: []byte("f"), Type: CellTypePut},
		{Row: []byte("r"), Family: make([]byte, 200), Type: CellTypePut},
		{Row: []byte("r"), Family: []byte("f"), Type: 99},
	}
	for i, c := range bad {
		if _, err := appendCell(nil, &c); err == nil {
			t.Errorf("cell %d accepted", i)
		}
	}
}

func TestCellBlockDecodeErrors(t *testing.T) {
	good, _ := encodeCellBlock(sampleCells()[:1])
	corrupt := func(f func(b []byte)) []byte {
		b := bytes.Clone(good)
		f(b)
		return b
	}
	tests := map[string][]byte{
		"truncated":       good[:len(good)-1],
		"short":           good[:6],
		"length mismatch": corrupt(func(b []byte) { binary.BigEndian.PutUint32(b[4:], 3) }),
		"row too long":    corrupt(func(b []byte) { binary.BigEndian.PutUint16(b[12:], 500) }),
		"family too long": corrupt(func(b []byte) { b[12+2+4] = 200 }),
	}
	for name, b := range tests {
		if _, _, err := decodeCellBlock(b, 1); !errors.Is(err, ErrProtocol) {
			t.Errorf("%s: err = %v, want ErrProtocol", name, err)
		}
	}
	if _, _, err := decodeCellBlock(good, 1<<30); !errors.Is(err, ErrProtocol) {
		t.Errorf("huge count: err = %v, want ErrProtocol", err)
	}
}

func TestCellCodecAllocs(t *testing.T) {
	if raceEnabled {
		t.Skip("allocation counts mean nothing under the race detector")
	}
	cells := sampleCells()
	block, _ := encodeCellBlock(cells)
	buf := make([]byte, 0, len(block))
	if n := testing.AllocsPerRun(100, func() {
		b := block
		for len(b) > 0 {
			_, rest, err := decodeCell(b)
			if err != nil {
				t.Fatal(err)
			}
			b = rest
		}
	}); n != 0 {
		t.Errorf("decodeCell: %v allocations per block, want 0", n)
	}
	if n := testing.AllocsPerRun(100, func() {
		b := buf[:0]
		for i := range cells {
			b, _ = appendCell(b, &cells[i])
		}
	}); n != 0 {
		t.Errorf("appendCell: %v allocations per block, want 0", n)
	}
}

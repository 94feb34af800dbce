package hfile

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"testing"
)

// genCells returns n cells in order, covering binary rows with 0x00/0xFF,
// several qualifiers and versions, every storable type, tags and seq ids.
func genCells(n int, seed uint64, tags, mvcc bool) []*Cell {
	rng := rand.New(rand.NewPCG(seed, 7))
	types := []CellType{TypeDeleteFamily, TypeDeleteColumn, TypeDeleteFamilyVersion, TypeDelete, TypePut}
	var out []*Cell
	for r := 0; len(out) < n; r++ {
		row := []byte(fmt.Sprintf("row-%06d", r))
		switch r % 5 {
		case 1:
			row = append(row, 0x00, 0xff)
		case 2:
			row = append([]byte{}, row...)
			row[0] = 0xff
		}
		for q := 0; q < 1+rng.IntN(4) && len(out) < n; q++ {
			qual := []byte(fmt.Sprintf("q%d", q))
			if q == 3 {
				qual = []byte{}
			}
			for v := 0; v < 1+rng.IntN(3) && len(out) < n; v++ {
				c := &Cell{
					Row:       row,
					Family:    []byte("cf"),
					Qualifier: qual,
					Timestamp: int64(1700000000000 - v*1000 - rng.IntN(10)),
					Type:      types[rng.IntN(len(types))],
					Value:     bytes.Repeat([]byte{byte(rng.IntN(256))}, rng.IntN(40)),
				}
				if rng.IntN(3) == 0 {
					c.Value = []byte(fmt.Sprintf("value-%d", rng.IntN(3)))
				}
				if tags && rng.IntN(2) == 0 {
					c.Tags = []byte{0, 3, 100, 'a', 'b'}
				}
				if mvcc {
					c.SeqID = uint64(rng.IntN(1 << 20))
					if rng.IntN(4) == 0 {
						c.SeqID = 0
					}
				}
				out = append(out, c)
			}
		}
	}
	sortCells(out)
	return out
}

// sortCells sorts by CompareKeys and drops equal keys.
func sortCells(cs []*Cell) []*Cell {
	for i := 1; i < len(cs); i++ {
		for j := i; j > 0 && CompareKeys(cs[j], cs[j-1]) < 0; j-- {
			cs[j], cs[j-1] = cs[j-1], cs[j]
		}
	}
	return cs
}

// writeFile writes cells with opts and returns the file bytes.
func writeFile(t testing.TB, opts WriterOptions, cells []*Cell) []byte {
	t.Helper()
	var buf bytes.Buffer
	w := NewWriter(&buf, opts)
	for _, c := range cells {
		if err := w.Append(c); err != nil {
			t.Fatalf("append %s: %v", c, err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatalf("close: %v", err)
	}
	return buf.Bytes()
}

func openBytes(t testing.TB, b []byte) *Reader {
	t.Helper()
	r, err := Open(bytes.NewReader(b), int64(len(b)), "test.hfile")
	if err != nil {
		t.Fatalf("open: %v", err)
	}
	return r
}

// readAll scans r with opts and returns clones of all cells.
func readAll(t testing.TB, r *Reader, opts ScanOptions) []*Cell {
	t.Helper()
	s := r.Scanner(opts)
	var out []*Cell
	for s.Next() {
		out = append(out, s.Cell().Clone())
	}
	if err := s.Err(); err != nil {
		t.Fatalf("scan: %v", err)
	}
	return out
}

func cellsEqual(a, b *Cell) bool {
	return bytes.Equal(a.Row, b.Row) && bytes.Equal(a.Family, b.Family) &&
		bytes.Equal(a.Qualifier, b.Qualifier) && a.Timestamp == b.Timestamp &&
		a.Type == b.Type && bytes.Equal(a.Value, b.Value) && bytes.Equal(a.Tags, b.Tags) &&
		a.SeqID == b.SeqID
}

func assertCells(t testing.TB, got, want []*Cell) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("got %d cells, want %d", len(got), len(want))
	}
	for i := range got {
		if !cellsEqual(got[i], want[i]) {
			t.Fatalf("cell %d: got %s value %q tags %x seq %d, want %s value %q tags %x seq %d",
				i, got[i], got[i].Value, got[i].Tags, got[i].SeqID, want[i], want[i].Value, want[i].Tags, want[i].SeqID)
		}
	}
}

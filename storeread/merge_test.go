package storeread

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"rangecopy/hfile"
)

func cell(r, q string, ts int64, t hfile.CellType, v string) hfile.Cell {
	return hfile.Cell{Row: []byte(r), Family: []byte("f"), Qualifier: []byte(q), Timestamp: ts, Type: t, Value: []byte(v)}
}

func put(r, q string, ts int64, v string) hfile.Cell { return cell(r, q, ts, hfile.TypePut, v) }

func seq(c hfile.Cell, s uint64) hfile.Cell { c.SeqID = s; return c }

// sorted returns cells in HBase's key order.
func sorted(cs ...hfile.Cell) []hfile.Cell {
	cs = slices.Clone(cs)
	slices.SortStableFunc(cs, func(a, b hfile.Cell) int { return hfile.Compare(&a, &b) })
	return cs
}

// sliceIter is a CellIter over cells in memory.
type sliceIter struct {
	cells []hfile.Cell
	pos   int
}

func (s *sliceIter) Next() bool {
	s.pos++
	return s.pos <= len(s.cells)
}
func (s *sliceIter) Cell() *hfile.Cell { return &s.cells[s.pos-1] }
func (s *sliceIter) Err() error        { return nil }

// collect reads it to the end, writing each cell as row/fam:q/ts/type=value.
func collect(it CellIter) (string, error) {
	var out []string
	for it.Next() {
		c := it.Cell()
		out = append(out, fmt.Sprintf("%s/%s:%s/%d/%s=%s", c.Row, c.Family, c.Qualifier, c.Timestamp, c.Type, c.Value))
	}
	return strings.Join(out, " "), it.Err()
}

func TestMerged(t *testing.T) {
	tests := []struct {
		name   string
		inputs []*Input
		want   string
	}{
		{"key order across files",
			[]*Input{
				{Cells: &sliceIter{cells: sorted(put("a", "q", 1, "1"), put("c", "q", 1, "3"))}, Rank: 0},
				{Cells: &sliceIter{cells: sorted(put("b", "q", 1, "2"), put("d", "q", 1, "4"))}, Rank: 1},
			},
			"a/f:q/1/Put=1 b/f:q/1/Put=2 c/f:q/1/Put=3 d/f:q/1/Put=4"},
		{"identical keys: the larger sequence id wins",
			[]*Input{
				{Cells: &sliceIter{cells: []hfile.Cell{seq(put("a", "q", 1, "old"), 3)}}, Rank: 0},
				{Cells: &sliceIter{cells: []hfile.Cell{seq(put("a", "q", 1, "new"), 7)}}, Rank: 1},
			},
			"a/f:q/1/Put=new"},
		{"identical keys and sequence ids: the newer file wins",
			[]*Input{
				{Cells: &sliceIter{cells: []hfile.Cell{put("a", "q", 1, "older")}}, Rank: 1},
				{Cells: &sliceIter{cells: []hfile.Cell{put("a", "q", 1, "newer")}}, Rank: 0},
			},
			"a/f:q/1/Put=newer"},
		{"a bulk-loaded file's stamp is its cells' sequence id",
			[]*Input{
				{Cells: &sliceIter{cells: []hfile.Cell{seq(put("a", "q", 1, "flushed"), 5)}}, Rank: 0},
				{Cells: &sliceIter{cells: []hfile.Cell{put("a", "q", 1, "loaded")}}, Rank: 1, Stamped: true, Stamp: 8},
			},
			"a/f:q/1/Put=loaded"},
		{"same timestamp, other types are other keys",
			[]*Input{
				{Cells: &sliceIter{cells: []hfile.Cell{put("a", "q", 1, "v")}}},
				{Cells: &sliceIter{cells: []hfile.Cell{cell("a", "q", 1, hfile.TypeDelete, "")}}, Rank: 1},
			},
			"a/f:q/1/Delete= a/f:q/1/Put=v"},
		{"a duplicate within one file is kept once",
			[]*Input{{Cells: &sliceIter{cells: []hfile.Cell{seq(put("a", "q", 1, "x"), 2), seq(put("a", "q", 1, "y"), 1)}}}},
			"a/f:q/1/Put=x"},
		{"an empty input",
			[]*Input{{Cells: &sliceIter{}}, {Cells: &sliceIter{cells: []hfile.Cell{put("a", "q", 1, "x")}}, Rank: 1}},
			"a/f:q/1/Put=x"},
		{"no inputs", nil, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := collect(NewMerged(tc.inputs))
			if err != nil {
				t.Fatal(err)
			}
			if got != tc.want {
				t.Errorf("merged\n got %q\nwant %q", got, tc.want)
			}
		})
	}
}

type failingIter struct{ sliceIter }

var errBadBlock = errors.New("bad block")

func (f *failingIter) Err() error { return errBadBlock }

func TestMergedError(t *testing.T) {
	for _, tc := range []struct{ name, want string }{{"f2", "read f2: bad block"}, {"", "bad block"}} {
		m := NewMerged([]*Input{
			{Cells: &sliceIter{cells: sorted(put("a", "q", 1, "1"), put("z", "q", 1, "2"))}},
			{Cells: &failingIter{sliceIter{cells: sorted(put("b", "q", 1, "x"))}}, Rank: 1, Name: tc.name},
		})
		if _, err := collect(m); !errors.Is(err, errBadBlock) || err.Error() != tc.want {
			t.Fatalf("input named %q: error %v, want %q", tc.name, err, tc.want)
		}
	}
}

func TestMergedAllocs(t *testing.T) {
	var a, b []hfile.Cell
	for i := range 1000 {
		c := put(fmt.Sprintf("r%04d", i), "q", 1, "v")
		if i%3 == 0 {
			a = append(a, c)
		} else {
			b = append(b, c)
		}
	}
	ia, ib := &sliceIter{cells: a}, &sliceIter{cells: b}
	inputs := []*Input{{Cells: ia}, {Cells: ib, Rank: 1}}
	m := NewMerged(inputs)
	allocs := testing.AllocsPerRun(1, func() {
		ia.pos, ib.pos = 0, 0
		*m = Merged{pending: inputs, heap: m.heap[:0], lastBuf: m.lastBuf}
		for m.Next() {
		}
	})
	if allocs > 5 {
		t.Errorf("%.0f allocations merging 1,000 cells, want none per cell", allocs)
	}
}

package verify

import (
	"fmt"
	"slices"
	"strings"

	"rangecopy/hfile"
)

// cell makes a cell of row r, family f, qualifier q at ts of type t.
func cell(r, f, q string, ts int64, t hfile.CellType, v string) hfile.Cell {
	return hfile.Cell{Row: []byte(r), Family: []byte(f), Qualifier: []byte(q), Timestamp: ts, Type: t, Value: []byte(v)}
}

func put(r, q string, ts int64, v string) hfile.Cell { return cell(r, "f", q, ts, hfile.TypePut, v) }

func mark(r, q string, ts int64, t hfile.CellType) hfile.Cell { return cell(r, "f", q, ts, t, "") }

// sorted returns cells in HBase's key order.
func sorted(cs ...hfile.Cell) []hfile.Cell {
	cs = slices.Clone(cs)
	slices.SortStableFunc(cs, func(a, b hfile.Cell) int { return hfile.Compare(&a, &b) })
	return cs
}

// collect reads it to the end, writing each cell as row/fam:q/ts/type=value.
func collect(it CellIter) ([]string, error) {
	var out []string
	for it.Next() {
		c := it.Cell()
		out = append(out, fmt.Sprintf("%s/%s:%s/%d/%s=%s", c.Row, c.Family, c.Qualifier, c.Timestamp, c.Type, c.Value))
	}
	return out, it.Err()
}

func join(s []string) string { return strings.Join(s, " ") }

// sliceIter is a CellIter over cells in memory, for tests.
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

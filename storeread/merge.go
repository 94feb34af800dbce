package storeread

import (
	"fmt"

	"rangecopy/hfile"
)

// CellIter is a stream of cells in key order; hfile.Scanner is one. The cell
// Cell returns is valid until the next call to Next.
type CellIter interface {
	Next() bool
	Cell() *hfile.Cell
	Err() error
}

// Input is one store file's cells as the merge sees them.
type Input struct {
	// Cells is the file's scan.
	Cells CellIter
	// Rank orders files newest first (CompareAge): among identical keys of
	// equal sequence id the input of the lowest rank wins.
	Rank int
	// Stamped says every cell carries the sequence id Stamp, as HBase
	// gives the cells of a bulk-loaded file its file's sequence id.
	Stamped bool
	Stamp   uint64
	// Name names the input in its read errors; empty leaves them as Cells
	// gives them (errors that name the input already).
	Name string

	cell *hfile.Cell // Cells.Cell() while the input is in the heap
}

func (in *Input) seqID() uint64 {
	if in.Stamped {
		return in.Stamp
	}
	return in.cell.SeqID
}

// next moves the input to its next cell.
func (in *Input) next() (bool, error) {
	if in.Cells.Next() {
		in.cell = in.Cells.Cell()
		return true, nil
	}
	in.cell = nil
	if err := in.Cells.Err(); err != nil {
		if in.Name != "" {
			return false, fmt.Errorf("read %s: %w", in.Name, err)
		}
		return false, err
	}
	return false, nil
}

// Merged is the k-way merge of inputs in key order keeping one cell per
// key: the larger sequence id, then the input of lower rank (the newer
// file), as HBase's KeyValueHeap puts them first. It is a CellIter, and
// allocates nothing per cell.
type Merged struct {
	heap    []*Input
	pending []*Input // inputs not started yet
	cur     *Input
	last    hfile.Cell
	lastBuf []byte
	have    bool
	err     error
}

// NewMerged merges inputs; it reads nothing until the first Next.
func NewMerged(inputs []*Input) *Merged {
	return &Merged{pending: inputs, heap: make([]*Input, 0, len(inputs))}
}

func less(a, b *Input) bool {
	if c := hfile.CompareKeys(a.cell, b.cell); c != 0 {
		return c < 0
	}
	if sa, sb := a.seqID(), b.seqID(); sa != sb {
		return sa > sb
	}
	return a.Rank < b.Rank
}

func (m *Merged) up(i int) {
	for i > 0 {
		p := (i - 1) / 2
		if !less(m.heap[i], m.heap[p]) {
			return
		}
		m.heap[i], m.heap[p] = m.heap[p], m.heap[i]
		i = p
	}
}

func (m *Merged) down(i int) {
	h := m.heap
	for {
		l := 2*i + 1
		if l >= len(h) {
			return
		}
		j := l
		if r := l + 1; r < len(h) && less(h[r], h[l]) {
			j = r
		}
		if !less(h[j], h[i]) {
			return
		}
		h[i], h[j] = h[j], h[i]
		i = j
	}
}

// advanceTop moves the input on top of the heap to its next cell, dropping
// it from the heap at its end.
func (m *Merged) advanceTop() bool {
	ok, err := m.heap[0].next()
	if err != nil {
		m.err = err
		return false
	}
	if !ok {
		n := len(m.heap) - 1
		m.heap[0] = m.heap[n]
		m.heap = m.heap[:n]
	}
	m.down(0)
	return true
}

// Next moves to the next distinct key.
func (m *Merged) Next() bool {
	if m.err != nil {
		return false
	}
	for _, in := range m.pending {
		ok, err := in.next()
		if err != nil {
			m.err = err
			return false
		}
		if ok {
			m.heap = append(m.heap, in)
			m.up(len(m.heap) - 1)
		}
	}
	m.pending = nil
	if m.cur != nil {
		// The key is kept in a buffer of its own: the cell's may be
		// reused once its input moves on.
		c := m.cur.cell
		m.lastBuf = append(append(append(m.lastBuf[:0], c.Row...), c.Family...), c.Qualifier...)
		r, f := len(c.Row), len(c.Row)+len(c.Family)
		m.last = hfile.Cell{Row: m.lastBuf[:r], Family: m.lastBuf[r:f], Qualifier: m.lastBuf[f:], Timestamp: c.Timestamp, Type: c.Type}
		m.have = true
		m.cur = nil
		if !m.advanceTop() {
			return false
		}
	}
	for len(m.heap) > 0 {
		if m.have && hfile.CompareKeys(m.heap[0].cell, &m.last) == 0 {
			if !m.advanceTop() {
				return false
			}
			continue
		}
		m.cur = m.heap[0]
		return true
	}
	return false
}

// Cell is the current cell.
func (m *Merged) Cell() *hfile.Cell { return m.cur.cell }

// Err is the first read error of an input.
func (m *Merged) Err() error { return m.err }

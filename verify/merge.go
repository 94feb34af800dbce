package verify

import (
	"cmp"
	"fmt"

	"rangecopy/hfile"
	"rangecopy/job"
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
	// Rank orders files newest first: among identical keys of equal
	// sequence id the input of the lowest rank wins.
	Rank int
	// Stamped says every cell carries the sequence id Stamp, as HBase
	// gives the cells of a bulk-loaded file its file's sequence id.
	Stamped bool
	Stamp   uint64
	// Name names the input in errors.
	Name string
}

func (in *Input) seqID() uint64 {
	if in.Stamped {
		return in.Stamp
	}
	return in.Cells.Cell().SeqID
}

// Merged is the k-way merge of inputs in key order keeping one cell per
// key: the larger sequence id, then the input of lower rank (the newer
// file), as HBase's KeyValueHeap puts them first. It is a CellIter.
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

func lessInput(a, b *Input) bool {
	if c := hfile.CompareKeys(a.Cells.Cell(), b.Cells.Cell()); c != 0 {
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
		if !lessInput(m.heap[i], m.heap[p]) {
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
		if r := l + 1; r < len(h) && lessInput(h[r], h[l]) {
			j = r
		}
		if !lessInput(h[j], h[i]) {
			return
		}
		h[i], h[j] = h[j], h[i]
		i = j
	}
}

// advanceTop moves the input on top of the heap to its next cell.
func (m *Merged) advanceTop() bool {
	in := m.heap[0]
	if in.Cells.Next() {
		m.down(0)
		return true
	}
	if err := in.Cells.Err(); err != nil {
		m.err = fmt.Errorf("read %s: %w", in.Name, err)
		return false
	}
	n := len(m.heap) - 1
	m.heap[0] = m.heap[n]
	m.heap = m.heap[:n]
	m.down(0)
	return true
}

// Next moves to the next distinct key.
func (m *Merged) Next() bool {
	if m.err != nil {
		return false
	}
	for _, in := range m.pending {
		if in.Cells.Next() {
			m.heap = append(m.heap, in)
			m.up(len(m.heap) - 1)
		} else if err := in.Cells.Err(); err != nil {
			m.err = fmt.Errorf("read %s: %w", in.Name, err)
			return false
		}
	}
	m.pending = nil
	if m.cur != nil {
		c := m.cur.Cells.Cell()
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
		if m.have && hfile.CompareKeys(m.heap[0].Cells.Cell(), &m.last) == 0 {
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
func (m *Merged) Cell() *hfile.Cell { return m.cur.Cells.Cell() }

// Err is the first read error of an input.
func (m *Merged) Err() error { return m.err }

// InTime passes on the cells of in whose timestamp lies in tr: the time
// range selects cells and delete markers alike, before any delete applies,
// as a copy of that range selects them.
type InTime struct {
	In   CellIter
	Time job.TimeRange
}

// Next moves to the next cell in the range.
func (t *InTime) Next() bool {
	for t.In.Next() {
		if t.Time.Contains(t.In.Cell().Timestamp) {
			return true
		}
	}
	return false
}

// Cell is the current cell.
func (t *InTime) Cell() *hfile.Cell { return t.In.Cell() }

// Err is the input's error.
func (t *InTime) Err() error { return t.In.Err() }

// FileRank is what orders store files from older to newer, as HBase's
// StoreFileComparators.SEQ_ID does.
type FileRank struct {
	SeqID    int64
	Size     int64
	BulkTime int64
	Path     string
}

// CompareAge orders a before b when a is the older file: sequence id
// ascending, then size descending, then bulk load time ascending, then path.
func CompareAge(a, b FileRank) int {
	if c := cmp.Compare(a.SeqID, b.SeqID); c != 0 {
		return c
	}
	if c := cmp.Compare(b.Size, a.Size); c != 0 {
		return c
	}
	if c := cmp.Compare(a.BulkTime, b.BulkTime); c != 0 {
		return c
	}
	return cmp.Compare(a.Path, b.Path)
}

// sliceIter is a CellIter over cells in memory, for tests and re-reads.
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

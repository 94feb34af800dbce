package worker

import (
	"context"
	"fmt"

	"rangecopy/hfile"
	"rangecopy/job"
	"rangecopy/memory"
)

// batch is a run of cells cloned out of a scanner; the cells' slices point
// into buf. Batches are recycled between an input and the merge.
type batch struct {
	cells []hfile.Cell
	buf   []byte
	// size is the payload size planned (memory.Plan.Batch); a batch that
	// took a cell larger than that holds over bytes of mem beyond it.
	size int
	mem  *taskMemory
	over int64
}

// cellBytes is the size of a cell's fields as a batch holds them.
func cellBytes(c *hfile.Cell) int {
	return len(c.Row) + len(c.Family) + len(c.Qualifier) + len(c.Value) + len(c.Tags)
}

// add clones c into the batch and reports false when it does not fit (the
// batch is then unchanged). An empty batch takes any cell: one larger than
// the batch gets a buffer of its own, taken from the memory budget (an
// error then).
func (b *batch) add(c *hfile.Cell) (bool, error) {
	n := cellBytes(c)
	if len(b.cells) > 0 && len(b.buf)+n > cap(b.buf) {
		return false, nil
	}
	if cap(b.buf)-len(b.buf) < n { // only for a first cell larger than a batch
		if b.mem != nil {
			if err := b.mem.grow(int64(n - b.size)); err != nil {
				return false, fmt.Errorf("cell of %s in row %s: %w", memory.Bytes(int64(n)), job.FormatKey(c.Row), err)
			}
			b.over += int64(n - b.size)
		}
		b.buf = make([]byte, 0, n)
	}
	take := func(p []byte) []byte {
		s := len(b.buf)
		b.buf = append(b.buf, p...)
		return b.buf[s:len(b.buf):len(b.buf)]
	}
	b.cells = append(b.cells, hfile.Cell{
		Row: take(c.Row), Family: take(c.Family), Qualifier: take(c.Qualifier),
		Timestamp: c.Timestamp, Type: c.Type, Value: take(c.Value), Tags: take(c.Tags), SeqID: c.SeqID,
	})
	return true, nil
}

func (b *batch) reset() {
	b.cells = b.cells[:0]
	if b.size <= 0 {
		b.size = memory.MaxBatch
	}
	if cap(b.buf) > b.size { // drop the buffer of an outsized cell
		b.buf = make([]byte, 0, b.size)
		if b.over > 0 {
			b.mem.shrink(b.over)
			b.over = 0
		}
	}
	b.buf = b.buf[:0]
}

// source is one input's stream of batches into the merge.
type source struct {
	rank int // position in newest-first order: 0 is the newest file
	// stamped says every cell of the input has the sequence id stamp, as
	// HBase gives the cells of a bulk-loaded file the file's.
	stamped bool
	stamp   uint64
	name    string
	out     chan *batch // filled batches; closed at the end
	free    chan *batch // empty batches back to the input goroutine
	// err is the input goroutine's result, set before out is closed.
	err   error
	cur   *batch
	pos   int
	cells *hfile.Cell
}

// scanner is what the input goroutine reads: an hfile or half-file scanner.
type cellScanner interface {
	Next() bool
	Cell() *hfile.Cell
	Err() error
}

// runInput scans sc into batches until the end or ctx ends; cells outside the
// time range are dropped here, cells are counted.
func runInput(ctx context.Context, sc cellScanner, times job.TimeRange, s *source, ctr *Counters) {
	s.err = scanInput(ctx, sc, times, s, ctr)
	close(s.out)
}

func scanInput(ctx context.Context, sc cellScanner, times job.TimeRange, s *source, ctr *Counters) error {
	var b *batch
	get := func() (*batch, error) {
		select {
		case b := <-s.free:
			b.reset()
			return b, nil
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	send := func() error {
		select {
		case s.out <- b:
			b = nil
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	var err error
	if b, err = get(); err != nil {
		return err
	}
	var n int64
	for sc.Next() {
		c := sc.Cell()
		n++
		if n&1023 == 0 {
			ctr.CellsRead.Add(1024)
		}
		if !times.Contains(c.Timestamp) {
			continue
		}
		ok, err := b.add(c)
		if err != nil {
			return fmt.Errorf("scan %s: %w", s.name, err)
		}
		if ok {
			continue
		}
		if err := send(); err != nil {
			return err
		}
		if b, err = get(); err != nil {
			return err
		}
		if _, err := b.add(c); err != nil {
			return fmt.Errorf("scan %s: %w", s.name, err)
		}
	}
	ctr.CellsRead.Add(n & 1023)
	if err := sc.Err(); err != nil {
		return fmt.Errorf("scan %s: %w", s.name, err)
	}
	if len(b.cells) > 0 {
		return send()
	}
	return nil
}

// advance moves s to its next cell, fetching the next batch as needed. It
// reports false at the end of the input.
func (s *source) advance(ctx context.Context) (bool, error) {
	s.pos++
	for s.cur == nil || s.pos >= len(s.cur.cells) {
		if s.cur != nil {
			s.free <- s.cur // never blocks: free holds every batch
			s.cur = nil
		}
		select {
		case b, ok := <-s.out:
			if !ok {
				// A closed channel is the end of the input only if the
				// input says so: a failed input must not look complete.
				return false, s.err
			}
			s.cur, s.pos = b, 0
		case <-ctx.Done():
			return false, ctx.Err()
		}
	}
	s.cells = &s.cur.cells[s.pos]
	return true, nil
}

// merger is a k-way merge of sources in key order; among identical keys the
// cell of larger sequence id comes first, then the source of lower rank (the
// newer file), as HBase's KeyValueHeap orders its store file scanners.
type merger struct {
	heap []*source
}

func less(a, b *source) bool {
	if c := hfile.CompareKeys(a.cells, b.cells); c != 0 {
		return c < 0
	}
	if sa, sb := a.seqID(), b.seqID(); sa != sb {
		return sa > sb
	}
	return a.rank < b.rank
}

// seqID is the current cell's sequence id as HBase sees it.
func (s *source) seqID() uint64 {
	if s.stamped {
		return s.stamp
	}
	return s.cells.SeqID
}

func (m *merger) push(s *source) {
	m.heap = append(m.heap, s)
	i := len(m.heap) - 1
	for i > 0 {
		p := (i - 1) / 2
		if !less(m.heap[i], m.heap[p]) {
			break
		}
		m.heap[i], m.heap[p] = m.heap[p], m.heap[i]
		i = p
	}
}

func (m *merger) down(i int) {
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

// mergeCells calls fn with every distinct key's winning cell in key order:
// the first cell of a key from the newest source. The cell is valid only
// during the call.
func mergeCells(ctx context.Context, srcs []*source, fn func(c *hfile.Cell) error) error {
	m := &merger{heap: make([]*source, 0, len(srcs))}
	for _, s := range srcs {
		s.pos = -1
		ok, err := s.advance(ctx)
		if err != nil {
			return err
		}
		if ok {
			m.push(s)
		}
	}
	// last is the key of the previous cell written, kept in its own buffer
	// because the batch it came from may be recycled.
	var last hfile.Cell
	var lastBuf []byte
	have := false
	for len(m.heap) > 0 {
		s := m.heap[0]
		c := s.cells
		if !have || hfile.CompareKeys(c, &last) != 0 {
			if err := fn(c); err != nil {
				return err
			}
			lastBuf = append(lastBuf[:0], c.Row...)
			lastBuf = append(lastBuf, c.Family...)
			lastBuf = append(lastBuf, c.Qualifier...)
			r, f := len(c.Row), len(c.Row)+len(c.Family)
			last = hfile.Cell{Row: lastBuf[:r], Family: lastBuf[r:f], Qualifier: lastBuf[f:], Timestamp: c.Timestamp, Type: c.Type}
			have = true
		}
		ok, err := s.advance(ctx)
		if err != nil {
			return err
		}
		if ok {
			m.down(0)
		} else {
			n := len(m.heap) - 1
			m.heap[0] = m.heap[n]
			m.heap = m.heap[:n]
			m.down(0)
		}
	}
	return nil
}

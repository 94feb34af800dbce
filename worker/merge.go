package worker

import (
	"context"
	"fmt"

	"rangecopy/hfile"
	"rangecopy/job"
	"rangecopy/memory"
	"rangecopy/storeread"
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

// source is one input's stream of batches into the merge. It is the
// storeread.CellIter of the input in the merge.
type source struct {
	ctx  context.Context // the family's: Next stops when it ends
	name string
	out  chan *batch // filled batches; closed at the end
	free chan *batch // empty batches back to the input goroutine
	// err is the input goroutine's result, set before out is closed.
	err error
	cur *batch
	pos int
	// nextErr is why Next last returned false, if not the end.
	nextErr error
}

// runInput scans sc into batches until the end or ctx ends; cells outside the
// time range are dropped here, cells are counted.
func runInput(ctx context.Context, sc storeread.CellIter, times job.TimeRange, s *source, ctr *Counters) {
	s.err = scanInput(ctx, sc, times, s, ctr)
	close(s.out)
}

func scanInput(ctx context.Context, sc storeread.CellIter, times job.TimeRange, s *source, ctr *Counters) error {
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

// Next moves s to its next cell, fetching the next batch as needed. It
// reports false at the end of the input, when the input failed or when ctx
// ends (Err says which).
func (s *source) Next() bool {
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
				s.nextErr = s.err
				return false
			}
			s.cur, s.pos = b, 0
		case <-s.ctx.Done():
			s.nextErr = s.ctx.Err()
			return false
		}
	}
	return true
}

// Cell is the current cell, valid until the next call to Next.
func (s *source) Cell() *hfile.Cell { return &s.cur.cells[s.pos] }

// Err is why Next returned false, nil at the end of the input.
func (s *source) Err() error { return s.nextErr }

// Package memory is a worker's memory budget: one limit shared by every
// running task's open inputs and outputs. Plan, the pure decision, sizes one
// task's buffers (read-ahead and batches per input, the output writer) to
// fit its share of the budget, shrinking read-ahead as the inputs multiply
// and refusing only a task whose inputs cannot fit even at the minimum;
// Budget is the accounting the tasks reserve from and release to, with a
// high-water mark.
package memory

import (
	"errors"
	"fmt"
	"sync"
)

// Default is the default budget of one worker process, in bytes.
const Default int64 = 512 << 20

// Sizes of the buffers a task holds, as the worker's pipeline has them.
const (
	// MaxReadAhead and MinReadAhead bound the read-ahead chunk of an input;
	// a read-ahead holds two chunks.
	MaxReadAhead = 8 << 20
	MinReadAhead = 256 << 10
	// MaxBatch and MinBatch bound the batches of cells an input hands to the
	// merge; an input has three.
	MaxBatch = 1 << 20
	MinBatch = 64 << 10
	// Batches is the number of batches of one input.
	Batches = 3
	// ReadAheadChunks is the number of chunks one read-ahead holds.
	ReadAheadChunks = 2
	// BlockBuffers is the number of block-sized buffers of one input's
	// scanner: the block as read, decompressed and decoded.
	BlockBuffers = 3
	// WriterBytes is what the output side holds besides its blocks: the
	// asynchronous writer's three 4 MiB chunks, the block index and bloom
	// chunk of an output file, and a fast-path copy's 1 MiB buffer.
	WriterBytes = 3*(4<<20) + (1 << 20) + (1 << 20)
	// WriterBlocks is the number of block-sized buffers of the writer (the
	// block being filled, its compressed form, the encoder's).
	WriterBlocks = 4
	// DefaultBlock is the block size assumed when none is known.
	DefaultBlock = 64 << 10
)

// ErrTooSmall reports a task that cannot fit its share of the budget even
// with the smallest buffers; no later attempt can do better.
var ErrTooSmall = errors.New("memory budget too small")

// ErrExhausted reports a reservation the budget cannot hold now (other tasks
// hold the rest); a later attempt may succeed.
var ErrExhausted = errors.New("memory budget exhausted")

// Plan is how one task (one family's inputs and its output) uses memory.
type Plan struct {
	// ReadAhead is each input's read-ahead chunk; Batch each input's batch
	// payload size.
	ReadAhead, Batch int
	// PerInput is what one input holds; Output what the output side holds;
	// Total the sum for every input and the output, what the task reserves.
	PerInput, Output, Total int64
}

// Slack is the part of a task's share that Plan leaves unplanned, for block
// buffers and batches that grow past the plan (cells larger than a block).
const Slack = 8 // one eighth

// PlanTask sizes the buffers of a task with inputs input files whose data
// blocks are about block bytes (0: DefaultBlock), writing blocks of
// outBlock bytes (0: DefaultBlock), in share bytes. Read-ahead gets what
// the minimum leaves, up to MaxReadAhead per chunk, then the batches, up to
// MaxBatch; one eighth of the share stays unplanned (Slack). A task whose
// minimum exceeds the share is refused with ErrTooSmall. It is pure.
func PlanTask(share int64, inputs, block, outBlock int) (Plan, error) {
	if block <= 0 {
		block = DefaultBlock
	}
	if outBlock <= 0 {
		outBlock = DefaultBlock
	}
	inputs = max(inputs, 0)
	out := int64(WriterBytes + WriterBlocks*outBlock)
	fixed := int64(BlockBuffers * block)
	minIn := fixed + ReadAheadChunks*MinReadAhead + Batches*MinBatch
	need := out + int64(inputs)*minIn
	if need > share {
		return Plan{}, fmt.Errorf("%w: %d input files need at least %s (%s each and %s for the output), the task's share is %s",
			ErrTooSmall, inputs, Bytes(need), Bytes(minIn), Bytes(out), Bytes(share))
	}
	p := Plan{ReadAhead: MinReadAhead, Batch: MinBatch, Output: out}
	if inputs > 0 {
		spare := (share - share/Slack - need) / int64(inputs)
		if spare > 0 {
			ra := min(int64(MaxReadAhead-MinReadAhead), spare/ReadAheadChunks)
			p.ReadAhead += int(ra)
			spare -= ra * ReadAheadChunks
			p.Batch += int(min(int64(MaxBatch-MinBatch), spare/Batches))
		}
	}
	p.PerInput = fixed + int64(ReadAheadChunks*p.ReadAhead+Batches*p.Batch)
	p.Total = out + int64(inputs)*p.PerInput
	return p, nil
}

// Bytes formats n bytes in binary units for messages.
func Bytes(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}

// Budget is the accounting of one memory budget: reservations never take
// it past its limit. Safe for concurrent use.
type Budget struct {
	mu    sync.Mutex
	limit int64
	used  int64
	high  int64
}

// New returns a budget of limit bytes (0 or less: Default).
func New(limit int64) *Budget {
	if limit <= 0 {
		limit = Default
	}
	return &Budget{limit: limit}
}

// Limit is the budget's size in bytes.
func (b *Budget) Limit() int64 { return b.limit }

// Reserve takes n bytes of the budget. It fails with ErrTooSmall when n
// exceeds the whole budget, and with ErrExhausted when the reservations
// held leave less than n.
func (b *Budget) Reserve(n int64) error {
	if n <= 0 {
		return nil
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if n > b.limit {
		return fmt.Errorf("%w: %s wanted, the budget is %s", ErrTooSmall, Bytes(n), Bytes(b.limit))
	}
	if b.used+n > b.limit {
		return fmt.Errorf("%w: %s wanted, %s of %s held", ErrExhausted, Bytes(n), Bytes(b.used), Bytes(b.limit))
	}
	b.used += n
	b.high = max(b.high, b.used)
	return nil
}

// Release gives back n bytes reserved before.
func (b *Budget) Release(n int64) {
	if n <= 0 {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	b.used = max(b.used-n, 0)
}

// Used is the bytes reserved now.
func (b *Budget) Used() int64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.used
}

// HighWater is the most bytes ever reserved at once.
func (b *Budget) HighWater() int64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.high
}

// Share is one of slots equal parts of the budget: what a task plans in
// when slots tasks run at once.
func (b *Budget) Share(slots int) int64 {
	return b.limit / int64(max(slots, 1))
}

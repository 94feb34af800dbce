package fsys

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
	"sync/atomic"
)

// DefaultReadAhead is the size of one read-ahead chunk.
const DefaultReadAhead = 8 << 20

// Limiter limits read bandwidth. One Limiter is shared by every reader it
// limits (every task of a worker, say).
type Limiter interface {
	// WaitN blocks until n bytes may be read, or ctx ends.
	WaitN(ctx context.Context, n int) error
}

// ReadAheadOptions configure a ReadAhead.
type ReadAheadOptions struct {
	// Chunk is the size of one read; 0 means DefaultReadAhead.
	Chunk int
	// Limiter, if set, is passed every byte read from the file.
	Limiter Limiter
	// Counter, if set, counts the bytes read from the file.
	Counter *atomic.Int64
	// Name names the file in errors.
	Name string
}

// ReadAhead is an io.ReaderAt over a file that serves sequential reads (an
// HFile scanner's block headers and blocks) from large chunks: each miss
// reads a whole chunk, and the chunk after it is fetched in the background
// while the current one is decoded, so a scan costs one large read per chunk
// instead of a round trip per block. Every byte read from the file passes
// the limiter and is counted. Reads of a chunk's size or more go straight to
// the file. It holds at most two chunks. Safe for concurrent use (reads are
// serialised). Call Stop when done with it.
//
// A window (SetWindow) confines read-ahead to the part of the file a reader
// needs: chunks never reach past its end, and reads outside it go straight
// to the file for exactly the bytes asked, so no byte beyond what is asked
// or lies in the window is read.
type ReadAhead struct {
	ctx   context.Context
	r     io.ReaderAt
	size  int64
	chunk int
	lim   Limiter
	ctr   *atomic.Int64
	name  string

	mu       sync.Mutex
	from, to int64  // the window: chunks lie in [from, to)
	cur      []byte // data of [curOff, curOff+len(cur))
	curOff   int64
	next     *fetch // in flight or done; nil when none
	spare    []byte
	closing  bool
}

// fetch is one background chunk read.
type fetch struct {
	off  int64
	buf  []byte
	err  error
	done chan struct{}
}

// NewReadAhead returns a ReadAhead over the size bytes of r. Its reads use
// ctx: once ctx ends, reads that reach r fail.
func NewReadAhead(ctx context.Context, r io.ReaderAt, size int64, o ReadAheadOptions) *ReadAhead {
	if o.Chunk <= 0 {
		o.Chunk = DefaultReadAhead
	}
	return &ReadAhead{ctx: ctx, r: r, size: size, chunk: o.Chunk, lim: o.Limiter, ctr: o.Counter, name: o.Name, curOff: -1, to: size}
}

// SetWindow confines read-ahead to the bytes [from, to) of the file (clamped
// to the file); an empty window turns read-ahead off, so that every read
// reads exactly what it asks. The default window is the whole file. Chunks
// already read stay usable.
func (a *ReadAhead) SetWindow(from, to int64) {
	a.mu.Lock()
	defer a.mu.Unlock()
	from, to = max(from, 0), min(to, a.size)
	a.from, a.to = from, max(from, to)
}

// Size is the size of the file read.
func (a *ReadAhead) Size() int64 { return a.size }

// read reads len(p) bytes at off from the source, through the limiter.
func (a *ReadAhead) read(p []byte, off int64) (int, error) {
	if a.lim != nil {
		if err := a.lim.WaitN(a.ctx, len(p)); err != nil {
			return 0, err
		}
	}
	n, err := a.r.ReadAt(p, off)
	if a.ctr != nil {
		a.ctr.Add(int64(n))
	}
	if err == io.EOF && n == len(p) {
		err = nil
	}
	if err != nil {
		return n, fmt.Errorf("read %s at offset %d: %w", a.name, off, err)
	}
	return n, nil
}

// chunkLen is the length of the chunk at off, which lies in the window.
func (a *ReadAhead) chunkLen(off int64) int {
	return int(min(int64(a.chunk), a.to-off))
}

// start begins fetching the chunk at off in the background, if off lies in
// the file and no fetch is in flight.
func (a *ReadAhead) start(off int64) {
	if off >= a.to || a.next != nil || a.closing {
		return
	}
	buf := a.spare
	a.spare = nil
	n := a.chunkLen(off)
	if cap(buf) < n {
		buf = make([]byte, a.chunk)
	}
	f := &fetch{off: off, buf: buf[:n], done: make(chan struct{})}
	a.next = f
	go func() {
		defer close(f.done)
		_, f.err = a.read(f.buf, f.off)
	}()
}

// ReadAt implements io.ReaderAt.
func (a *ReadAhead) ReadAt(p []byte, off int64) (int, error) {
	if off < 0 {
		return 0, fmt.Errorf("read %s at offset %d: negative offset", a.name, off)
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if off >= a.size {
		return 0, io.EOF
	}
	want := p
	var eof error
	if int64(len(want)) > a.size-off {
		want = want[:a.size-off]
		eof = io.EOF
	}
	end := off + int64(len(want))
	inCur := a.curOff >= 0 && off >= a.curOff && end <= a.curOff+int64(len(a.cur))
	if len(want) >= a.chunk || (!inCur && (off < a.from || end > a.to)) {
		n, err := a.read(want, off)
		if err == nil {
			err = eof
		}
		return n, err
	}
	done := 0
	for done < len(want) {
		pos := off + int64(done)
		if a.curOff >= 0 && pos >= a.curOff && pos < a.curOff+int64(len(a.cur)) {
			done += copy(want[done:], a.cur[pos-a.curOff:])
			continue
		}
		if err := a.load(pos); err != nil {
			return done, err
		}
	}
	return done, eof
}

// load makes the chunk holding pos current and starts fetching the one after.
func (a *ReadAhead) load(pos int64) error {
	if f := a.next; f != nil {
		<-f.done
		a.next = nil
		if f.err == nil && pos >= f.off && pos < f.off+int64(len(f.buf)) {
			a.spare, a.cur, a.curOff = a.cur, f.buf, f.off
			a.start(a.curOff + int64(len(a.cur)))
			return nil
		}
		if f.err != nil && errors.Is(f.err, context.Canceled) {
			return f.err
		}
		a.spare = f.buf // a failed or useless fetch: read again synchronously
	}
	// A miss: read the chunk at pos now.
	n := a.chunkLen(pos)
	buf := a.cur
	if cap(buf) < n {
		buf = make([]byte, a.chunk)
	}
	a.cur, a.curOff = nil, -1
	if _, err := a.read(buf[:n], pos); err != nil {
		return err
	}
	a.cur, a.curOff = buf[:n], pos
	a.start(pos + int64(n))
	return nil
}

// Stop stops read-ahead: it waits for a fetch in flight and drops the
// buffers. Later reads still work, one chunk at a time. The underlying file
// is not closed.
func (a *ReadAhead) Stop() {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.closing = true
	if a.next != nil {
		<-a.next.done
		a.next = nil
	}
	a.cur, a.curOff, a.spare = nil, -1, nil
}

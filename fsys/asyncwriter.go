package fsys

import (
	"io"
	"sync"
)

// writeChunk is the size of the chunks handed to the writer goroutine.
const writeChunk = 4 << 20

// AsyncWriter decouples producing bytes (encoding an HFile) from writing
// them: Write copies into chunks that a goroutine writes to the underlying
// writer, with at most three chunks in memory. The first error is sticky.
type AsyncWriter struct {
	w    io.Writer
	ch   chan []byte
	free chan []byte
	buf  []byte
	n    int64
	done chan struct{}

	mu  sync.Mutex
	err error
}

// NewAsyncWriter starts an AsyncWriter onto w.
func NewAsyncWriter(w io.Writer) *AsyncWriter {
	a := &AsyncWriter{w: w, ch: make(chan []byte, 1), free: make(chan []byte, 2), done: make(chan struct{})}
	a.free <- make([]byte, 0, writeChunk)
	a.buf = make([]byte, 0, writeChunk)
	go a.run()
	return a
}

func (a *AsyncWriter) run() {
	defer close(a.done)
	for b := range a.ch {
		if a.failed() == nil {
			if _, err := a.w.Write(b); err != nil {
				a.mu.Lock()
				a.err = err
				a.mu.Unlock()
			}
		}
		a.free <- b[:0]
	}
}

func (a *AsyncWriter) failed() error {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.err
}

// Write implements io.Writer.
func (a *AsyncWriter) Write(p []byte) (int, error) {
	if err := a.failed(); err != nil {
		return 0, err
	}
	n := len(p)
	for len(p) > 0 {
		k := copy(a.buf[len(a.buf):cap(a.buf)], p)
		a.buf = a.buf[:len(a.buf)+k]
		p = p[k:]
		if len(a.buf) == cap(a.buf) {
			a.ch <- a.buf
			a.buf = <-a.free
		}
	}
	a.n += int64(n)
	return n, nil
}

// Written is the number of bytes written so far.
func (a *AsyncWriter) Written() int64 { return a.n }

// Close writes what is buffered and waits for the goroutine. It does not
// close the underlying writer.
func (a *AsyncWriter) Close() error {
	if len(a.buf) > 0 {
		a.ch <- a.buf
		a.buf = nil
	}
	close(a.ch)
	<-a.done
	return a.failed()
}

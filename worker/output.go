package worker

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"path"
	"sync"
)

// writeChunk is the size of the chunks handed to the writer goroutine.
const writeChunk = 4 << 20

// asyncWriter decouples encoding from writing: Write copies into chunks that a
// goroutine writes to the underlying writer, with at most three chunks in
// memory. The first error is sticky.
type asyncWriter struct {
	w    io.Writer
	ch   chan []byte
	free chan []byte
	buf  []byte
	n    int64
	done chan struct{}

	mu  sync.Mutex
	err error
}

func newAsyncWriter(w io.Writer) *asyncWriter {
	a := &asyncWriter{w: w, ch: make(chan []byte, 1), free: make(chan []byte, 2), done: make(chan struct{})}
	a.free <- make([]byte, 0, writeChunk)
	a.buf = make([]byte, 0, writeChunk)
	go a.run()
	return a
}

func (a *asyncWriter) run() {
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

func (a *asyncWriter) failed() error {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.err
}

// Write implements io.Writer.
func (a *asyncWriter) Write(p []byte) (int, error) {
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

// Close writes what is buffered and waits for the goroutine. It does not
// close the underlying writer.
func (a *asyncWriter) Close() error {
	if len(a.buf) > 0 {
		a.ch <- a.buf
		a.buf = nil
	}
	close(a.ch)
	<-a.done
	return a.failed()
}

// newFileName returns a unique store file name: 32 hex digits, as HBase's
// StoreFileInfo.HFILE_NAME_REGEX accepts.
func newFileName() (string, error) {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", fmt.Errorf("worker: random file name: %w", err)
	}
	return hex.EncodeToString(b[:]), nil
}

// tempName is where a file is written before it is complete: a name starting
// with "_", which BulkLoadHFilesTool and HBase's store file listing skip.
func tempName(final string) string {
	return path.Join(path.Dir(final), "_"+path.Base(final)+".tmp")
}

// copyVerified copies size bytes of src to a new file at final on the
// target, byte for byte, through a temporary name, and renames it to final
// only once the copy is proven equal to its source. When source and target
// both checksum files where they are stored (Checksummer, BlockSizeCreator),
// the copy is made
// with the source's block size and the two file checksums are compared;
// otherwise, or when they differ, a CRC-32C computed while streaming is
// compared with the one of the target file read back. Source reads pass the
// limiter.
func copyVerified(ctx context.Context, src io.ReaderAt, size int64, srcName string, source Opener, target Creator, final string, readAhead int, lim Limiter, ctr *Counters) error {
	tmp := tempName(final)
	srcSums, _ := source.(Checksummer)
	dstSums, _ := target.(BlockSizeCreator)
	var srcSum FileChecksum
	var w io.WriteCloser
	var err error
	if srcSums != nil && dstSums != nil {
		if srcSum, err = srcSums.FileChecksum(ctx, srcName); err != nil {
			srcSums = nil // fall back to reading the copy back
		}
	}
	if srcSums != nil && dstSums != nil && srcSum.BlockSize > 0 {
		w, err = dstSums.CreateBlockSize(ctx, tmp, srcSum.BlockSize)
	} else {
		srcSums = nil
		w, err = target.Create(ctx, tmp)
	}
	if err != nil {
		return fmt.Errorf("create %s: %w", tmp, err)
	}
	ok := false
	defer func() {
		if !ok {
			_ = target.Remove(context.WithoutCancel(ctx), tmp)
		}
	}()
	ra := newReadAhead(ctx, src, size, readAhead, lim, ctr, srcName)
	defer ra.wait()
	aw := newAsyncWriter(w)
	sum := crc32.New(castagnoli)
	buf := make([]byte, 1<<20)
	for off := int64(0); off < size; {
		n := int(min(int64(len(buf)), size-off))
		if _, err := ra.ReadAt(buf[:n], off); err != nil {
			aw.Close()
			w.Close()
			return err
		}
		sum.Write(buf[:n])
		if _, err := aw.Write(buf[:n]); err != nil {
			aw.Close()
			w.Close()
			return fmt.Errorf("write %s at offset %d: %w", tmp, off, err)
		}
		off += int64(n)
	}
	if err := aw.Close(); err != nil {
		w.Close()
		return fmt.Errorf("write %s: %w", tmp, err)
	}
	if err := w.Close(); err != nil {
		return fmt.Errorf("close %s: %w", tmp, err)
	}
	verified := false
	if srcSums != nil {
		dstSum, err := dstSums.FileChecksum(ctx, tmp)
		verified = err == nil && dstSum.BlockSize == srcSum.BlockSize && len(srcSum.Sum) > 0 && bytes.Equal(dstSum.Sum, srcSum.Sum)
	}
	if !verified {
		if err := verifyCopy(ctx, target, tmp, size, sum.Sum32(), buf); err != nil {
			return fmt.Errorf("copy of %s: %w", srcName, err)
		}
	}
	if err := target.Rename(ctx, tmp, final); err != nil {
		return fmt.Errorf("rename %s to %s: %w", tmp, final, err)
	}
	ok = true
	return nil
}

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// verifyCopy reads the file at p back and checks its size and CRC-32C.
func verifyCopy(ctx context.Context, fs Opener, p string, size int64, want uint32, buf []byte) error {
	f, n, err := fs.Open(ctx, p)
	if err != nil {
		return fmt.Errorf("read back %s: %w", p, err)
	}
	defer f.Close()
	if n != size {
		return fmt.Errorf("read back %s: size %d, want %d", p, n, size)
	}
	sum := crc32.New(castagnoli)
	if _, err := io.CopyBuffer(sum, io.NewSectionReader(f, 0, size), buf); err != nil {
		return fmt.Errorf("read back %s: %w", p, err)
	}
	if got := sum.Sum32(); got != want {
		return fmt.Errorf("read back %s: CRC-32C %08x, want %08x: %w", p, got, want, ErrCopyMismatch)
	}
	return nil
}

// ErrCopyMismatch reports a fast-path copy whose bytes on the target differ
// from the source's.
var ErrCopyMismatch = errors.New("worker: copied file differs from its source")

// rollReason says why the output file is closed before a row.
type rollReason int

const (
	rollNone rollReason = iota
	// rollRegion: the row belongs to the next target region.
	rollRegion
	// rollSize: the file has reached the size cap.
	rollSize
	// rollFastFile: a fast-path copy comes before the row.
	rollFastFile
)

// String names the reason.
func (r rollReason) String() string {
	switch r {
	case rollNone:
		return "none"
	case rollRegion:
		return "region boundary"
	case rollSize:
		return "size cap"
	case rollFastFile:
		return "fast-path file"
	}
	return "rollReason(?)"
}

// rollBefore decides whether the open output file ends before a cell of row.
// last is the row of the file's last cell, regionEnd the end of its target
// region (empty: the end of the table), written its size so far, fastFirst
// the first row of the next fast-path file (nil if none). Files end only
// between rows.
func rollBefore(row, last, regionEnd []byte, written, maxBytes int64, fastFirst []byte) rollReason {
	if bytes.Equal(row, last) {
		return rollNone
	}
	switch {
	case len(regionEnd) > 0 && bytes.Compare(row, regionEnd) >= 0:
		return rollRegion
	case fastFirst != nil && bytes.Compare(row, fastFirst) >= 0:
		return rollFastFile
	case written >= maxBytes:
		return rollSize
	}
	return rollNone
}

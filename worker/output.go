package worker

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"hash/crc32"
	"io"

	"rangecopy/bulkload"
	"rangecopy/fsys"
)

// copyVerified copies size bytes of src to a new file at final on the
// target, byte for byte, through a temporary name, and renames it to final
// only once the copy is proven equal to its source. When source and target
// both checksum files where they are stored (fsys.Checksummer), the copy is
// made with the source's block size and the two file checksums are compared;
// otherwise, or when they differ, a CRC-32C computed while streaming is
// compared with the one of the target file read back. Source reads pass the
// limiter.
func copyVerified(ctx context.Context, src io.ReaderAt, size int64, srcName string, source fsys.Reader, target fsys.FS, final string, readAhead int, lim fsys.Limiter, ctr *Counters) error {
	tmp := bulkload.TempName(final)
	srcSums, _ := source.(fsys.Checksummer)
	dstSums, _ := target.(fsys.Checksummer)
	var srcSum fsys.Checksum
	var w io.WriteCloser
	var err error
	if srcSums != nil && dstSums != nil {
		if srcSum, err = srcSums.FileChecksum(ctx, srcName); err != nil {
			srcSums = nil // fall back to reading the copy back
		}
	}
	if srcSums != nil && dstSums != nil && srcSum.BlockSize > 0 {
		w, err = target.Create(ctx, tmp, fsys.CreateOptions{BlockSize: srcSum.BlockSize})
	} else {
		srcSums = nil
		w, err = target.Create(ctx, tmp, fsys.CreateOptions{})
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
	ra := fsys.NewReadAhead(ctx, src, size, fsys.ReadAheadOptions{Chunk: readAhead, Limiter: lim, Counter: &ctr.BytesRead, Name: srcName})
	defer ra.Stop()
	aw := fsys.NewAsyncWriter(w)
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
func verifyCopy(ctx context.Context, fs fsys.Reader, p string, size int64, want uint32, buf []byte) error {
	f, err := fs.Open(ctx, p)
	if err != nil {
		return fmt.Errorf("read back %s: %w", p, err)
	}
	defer f.Close()
	if n := f.Size(); n != size {
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

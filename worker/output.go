package worker

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"path"
	"slices"

	"rangecopy/bulkload"
	"rangecopy/fsys"
	"rangecopy/hfile"
	"rangecopy/job"
	"rangecopy/memory"
	"rangecopy/storeread"
)

// outputs writes the merged cells of a family into rolled output files and
// places the fast-path copies among them.
type outputs struct {
	fr    *familyRun
	dir   string
	fast  []*opened
	wopts hfile.WriterOptions

	cur *outFile
	// maxCell is the largest cell the writer's reservation covers.
	maxCell int
}

// outFile is an output file being written.
type outFile struct {
	w      *bulkload.HFileWriter
	region int
	first  []byte
	last   []byte
	cells  int64
}

// write writes the merged cells, with the fast-path files copied among
// them in key order, and ends the family.
func (o *outputs) write(ctx context.Context, cells storeread.CellIter) error {
	for cells.Next() {
		if err := o.add(ctx, cells.Cell()); err != nil {
			return err
		}
	}
	if err := cells.Err(); err != nil {
		return err
	}
	return o.finish(ctx)
}

// add writes one cell, rolling the output before it as needed.
func (o *outputs) add(ctx context.Context, c *hfile.Cell) error {
	var fastFirst []byte
	if len(o.fast) > 0 {
		fastFirst = o.fast[0].facts.FirstRow
	}
	if o.cur != nil {
		end := o.fr.t.Regions[o.cur.region].Rows.End
		if rollBefore(c.Row, o.cur.last, end, o.cur.w.Written(), o.fr.o.MaxFileBytes, fastFirst) != rollNone {
			if err := o.close(ctx); err != nil {
				return err
			}
		}
	}
	for len(o.fast) > 0 && bytes.Compare(c.Row, o.fast[0].facts.FirstRow) >= 0 {
		if o.cur != nil {
			if err := o.close(ctx); err != nil {
				return err
			}
		}
		if err := o.copyFast(ctx); err != nil {
			return err
		}
	}
	if o.cur == nil {
		if err := o.open(ctx, c.Row); err != nil {
			return err
		}
	}
	if err := o.cur.w.Append(c); err != nil {
		return err
	}
	if !bytes.Equal(c.Row, o.cur.last) {
		o.cur.last = append(o.cur.last[:0], c.Row...)
	}
	o.cur.cells++
	if n := cellBytes(c); n > o.maxCell {
		// The writer's block buffers grow to hold a cell larger than
		// planned for: take the growth from the budget.
		planned := max(o.maxCell, o.fr.settings.BlockSize, memory.DefaultBlock)
		if n > planned {
			if err := o.fr.mem.grow(int64(memory.WriterBlocks * (n - planned))); err != nil {
				return fmt.Errorf("cell of %s in row %s: %w", memory.Bytes(int64(n)), job.FormatKey(c.Row), err)
			}
		}
		o.maxCell = max(n, planned)
	}
	if o.cur.cells&1023 == 0 {
		o.fr.o.Counters.CellsWritten.Add(1024)
	}
	return nil
}

func (o *outputs) open(ctx context.Context, row []byte) error {
	r := regionFor(o.fr.t.Regions, row)
	if r < 0 {
		return fmt.Errorf("row %s lies in no target region", job.FormatKey(row))
	}
	w, err := bulkload.CreateHFile(ctx, o.fr.o.Target, o.dir, o.wopts, fsys.CreateOptions{})
	if err != nil {
		return err
	}
	o.cur = &outFile{w: w, region: r, first: slices.Clone(row)}
	return nil
}

// close finishes the open output file and emits it.
func (o *outputs) close(ctx context.Context) error {
	f := o.cur
	o.cur = nil
	if err := f.w.Close(ctx); err != nil {
		return err
	}
	o.fr.o.Counters.CellsWritten.Add(f.cells & 1023)
	return o.emitFile(ctx, OutputFile{
		Family: o.fr.family, Path: f.w.Path(), FirstRow: f.first, LastRow: slices.Clone(f.last),
		TargetRegion: o.fr.t.Regions[f.region].EncodedName, Cells: f.cells, Bytes: f.w.Written(),
		NextRow: rowAfter(f.last),
	})
}

func (o *outputs) emitFile(ctx context.Context, f OutputFile) error {
	if err := o.fr.emit(ctx, f); err != nil {
		return fmt.Errorf("emit %s: %w", f.Path, err)
	}
	o.fr.o.Counters.FilesWritten.Add(1)
	o.fr.o.Counters.BytesWritten.Add(f.Bytes)
	if f.FastPath {
		o.fr.o.Counters.FastFiles.Add(1)
	}
	o.fr.o.Logger.Info("output file", "family", f.Family, "path", f.Path, "first", job.FormatKey(f.FirstRow),
		"last", job.FormatKey(f.LastRow), "region", f.TargetRegion, "cells", f.Cells, "bytes", f.Bytes, "fast", f.FastPath)
	return nil
}

// copyFast copies the next fast-path file and emits it.
func (o *outputs) copyFast(ctx context.Context) error {
	op := o.fast[0]
	o.fast = o.fast[1:]
	name, err := bulkload.NewFileName()
	if err != nil {
		return err
	}
	final := path.Join(o.dir, name)
	if err := copyVerified(ctx, op.file, op.r.Size(), op.in.Path, o.fr.o.Source, o.fr.o.Target, final, o.fr.plan.ReadAhead, o.fr.o.Limiter, o.fr.o.Counters); err != nil {
		return err
	}
	r := regionFor(o.fr.t.Regions, op.facts.FirstRow)
	// Every cell below the next row is loaded once this file is: no decoded
	// cell lies among fast files' rows, and a fast file that overlaps this
	// one (time ranges apart) starts at or after its first row, so the
	// mark stops at the next fast file's first row if that comes sooner.
	next := rowAfter(op.facts.LastRow)
	if len(o.fast) > 0 && bytes.Compare(o.fast[0].facts.FirstRow, next) < 0 {
		next = bytes.Clone(o.fast[0].facts.FirstRow)
	}
	return o.emitFile(ctx, OutputFile{
		Family: o.fr.family, Path: final, FirstRow: op.facts.FirstRow, LastRow: op.facts.LastRow,
		TargetRegion: o.fr.t.Regions[r].EncodedName, Cells: int64(op.r.EntryCount()), Bytes: op.r.Size(),
		NextRow: next, FastPath: true,
	})
}

// finish closes the last file, copies the remaining fast-path files and
// emits the end of the family.
func (o *outputs) finish(ctx context.Context) error {
	if o.cur != nil {
		if err := o.close(ctx); err != nil {
			return err
		}
	}
	for len(o.fast) > 0 {
		if err := o.copyFast(ctx); err != nil {
			return err
		}
	}
	return o.fr.emit(ctx, OutputFile{Family: o.fr.family, Last: true})
}

// abort removes a file left open by an error.
func (o *outputs) abort(ctx context.Context) {
	if f := o.cur; f != nil {
		o.cur = nil
		f.w.Abort(ctx)
	}
}

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

package bulkload

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io"
	"path"

	"rangecopy/fsys"
	"rangecopy/hfile"
)

// NewFileName returns a unique store file name: 32 random hex digits, the
// form HBase gives store files (StoreFileInfo.HFILE_NAME_REGEX accepts it).
func NewFileName() (string, error) {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", fmt.Errorf("bulkload: random file name: %w", err)
	}
	return hex.EncodeToString(b[:]), nil
}

// TempName is where a file is written before it is complete: a name
// starting with "_", which BulkLoadHFilesTool and HBase's store file listing
// skip.
func TempName(final string) string {
	return path.Join(path.Dir(final), "_"+path.Base(final)+".tmp")
}

// HFileWriter writes one new HFile into a folder of a file system: the one
// way rangecopy writes decoded cells, for a task's output files and for the
// parts of a re-split file alike. The file is written under TempName of a
// fresh store file name, through a writer goroutine, and renamed to that
// name by Close once complete; until then no bulk load or listing sees it.
type HFileWriter struct {
	fs         fsys.FS
	final, tmp string
	w          io.WriteCloser
	aw         *fsys.AsyncWriter
	hw         *hfile.Writer
	done       bool
}

// CreateHFile starts a new HFile in dir with the writer settings opts,
// created with co (its mode; its block size).
func CreateHFile(ctx context.Context, fs fsys.FS, dir string, opts hfile.WriterOptions, co fsys.CreateOptions) (*HFileWriter, error) {
	name, err := NewFileName()
	if err != nil {
		return nil, err
	}
	final := path.Join(dir, name)
	tmp := TempName(final)
	w, err := fs.Create(ctx, tmp, co)
	if err != nil {
		return nil, fmt.Errorf("create %s: %w", tmp, err)
	}
	aw := fsys.NewAsyncWriter(w)
	return &HFileWriter{fs: fs, final: final, tmp: tmp, w: w, aw: aw, hw: hfile.NewWriter(aw, opts)}, nil
}

// Path is where the file will be once Close returns nil.
func (w *HFileWriter) Path() string { return w.final }

// Written is the number of bytes written so far; after Close, the file's
// size.
func (w *HFileWriter) Written() int64 { return w.aw.Written() }

// Append writes one cell; cells must come in key order.
func (w *HFileWriter) Append(c *hfile.Cell) error {
	if err := w.hw.Append(c); err != nil {
		return fmt.Errorf("write %s: cell %s: %w", w.tmp, c, err)
	}
	return nil
}

// Close finishes the file (its indexes and trailer), closes it (waiting for
// its replicas, see fsys.HDFS) and renames it to Path. On an error nothing
// is left behind.
func (w *HFileWriter) Close(ctx context.Context) error {
	if w.done {
		return fmt.Errorf("close %s: already closed", w.tmp)
	}
	w.done = true
	err := w.hw.Close()
	if e := w.aw.Close(); err == nil && e != nil {
		err = fmt.Errorf("write %s: %w", w.tmp, e)
	}
	if e := w.w.Close(); err == nil && e != nil {
		err = fmt.Errorf("close %s: %w", w.tmp, e)
	}
	if err == nil {
		if err = w.fs.Rename(ctx, w.tmp, w.final); err != nil {
			err = fmt.Errorf("rename %s to %s: %w", w.tmp, w.final, err)
		}
	}
	if err != nil {
		_ = w.fs.Remove(context.WithoutCancel(ctx), w.tmp)
		return err
	}
	return nil
}

// Abort stops writing and removes the unfinished file. After Close it does
// nothing.
func (w *HFileWriter) Abort(ctx context.Context) {
	if w.done {
		return
	}
	w.done = true
	w.aw.Close()
	w.w.Close()
	_ = w.fs.Remove(context.WithoutCancel(ctx), w.tmp)
}

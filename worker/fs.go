package worker

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"sync"

	"github.com/colinmarc/hdfs/v2"

	"rangecopy/bulkload"
)

// LocalFS is an Opener and Creator on the local file system; paths are used
// as they are.
type LocalFS struct{}

// Open implements Opener.
func (LocalFS) Open(_ context.Context, p string) (File, int64, error) {
	f, err := os.Open(p)
	if err != nil {
		return nil, 0, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, 0, err
	}
	return f, st.Size(), nil
}

// MkdirAll implements Creator.
func (LocalFS) MkdirAll(_ context.Context, dir string) error { return os.MkdirAll(dir, 0o755) }

// Create implements Creator.
func (LocalFS) Create(_ context.Context, p string) (io.WriteCloser, error) {
	return os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
}

// Rename implements Creator.
func (LocalFS) Rename(_ context.Context, from, to string) error { return os.Rename(from, to) }

// Remove implements Creator.
func (LocalFS) Remove(_ context.Context, p string) error {
	if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return nil
}

// HDFS is an Opener and Creator on an HDFS cluster through colinmarc/hdfs.
// Paths are absolute paths in the cluster.
type HDFS struct {
	Client *hdfs.Client
	// CloseRetries bounds the retries of a Close that reports the last
	// block still replicating; 0 means 12 (about 12.5 s of waits: 20 ms doubling to 2 s).
	CloseRetries int
}

// hdfsFile serialises ReadAt: a FileReader's ReadAt is Seek + Read on a
// shared offset.
type hdfsFile struct {
	mu sync.Mutex
	f  *hdfs.FileReader
}

func (h *hdfsFile) ReadAt(p []byte, off int64) (int, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.f.ReadAt(p, off)
}

func (h *hdfsFile) Close() error { return h.f.Close() }

// Open implements Opener.
func (h HDFS) Open(_ context.Context, p string) (File, int64, error) {
	f, err := h.Client.Open(p)
	if err != nil {
		return nil, 0, err
	}
	return &hdfsFile{f: f}, f.Stat().Size(), nil
}

// MkdirAll implements Creator.
func (h HDFS) MkdirAll(_ context.Context, dir string) error { return h.Client.MkdirAll(dir, 0o755) }

// Create implements Creator.
func (h HDFS) Create(ctx context.Context, p string) (io.WriteCloser, error) {
	w, err := h.Client.Create(p)
	if err != nil {
		return nil, err
	}
	return &hdfsWriter{ctx: ctx, w: w, name: p, retries: h.CloseRetries}, nil
}

// hdfsWriter retries Close while the NameNode waits for the last block's
// replicas, as the Java client does.
type hdfsWriter struct {
	ctx     context.Context
	w       *hdfs.FileWriter
	name    string
	retries int
}

func (w *hdfsWriter) Write(p []byte) (int, error) { return w.w.Write(p) }

func (w *hdfsWriter) Close() error {
	retries := w.retries
	if retries <= 0 {
		retries = 12
	}
	return bulkload.CloseFileAttempts(w.ctx, w.w, w.name, retries+1)
}

// CreateBlockSize implements Checksummer: Create with the given block size
// and the cluster's default replication.
func (h HDFS) CreateBlockSize(ctx context.Context, p string, blockSize int64) (io.WriteCloser, error) {
	defaults, err := h.Client.ServerDefaults()
	if err != nil {
		return nil, err
	}
	w, err := h.Client.CreateFile(p, defaults.Replication, blockSize, 0o644)
	if err != nil {
		return nil, err
	}
	return &hdfsWriter{ctx: ctx, w: w, name: p, retries: h.CloseRetries}, nil
}

// FileChecksum implements Checksummer with HDFS's MD5-of-MD5-of-CRC32C file
// checksum, which the DataNodes compute from the CRCs stored beside each
// block: no data is read.
func (h HDFS) FileChecksum(_ context.Context, p string) (FileChecksum, error) {
	f, err := h.Client.Open(p)
	if err != nil {
		return FileChecksum{}, err
	}
	defer f.Close()
	st, ok := f.Stat().Sys().(*hdfs.FileStatus)
	if !ok {
		return FileChecksum{}, fmt.Errorf("checksum %s: no HDFS file status", p)
	}
	sum, err := f.Checksum()
	if err != nil {
		return FileChecksum{}, fmt.Errorf("checksum %s: %w", p, err)
	}
	return FileChecksum{BlockSize: int64(st.GetBlocksize()), Sum: sum}, nil
}

// Rename implements Creator. HDFS's rename replaces an existing target; the
// pipeline's names are unique.
func (h HDFS) Rename(_ context.Context, from, to string) error { return h.Client.Rename(from, to) }

// Remove implements Creator.
func (h HDFS) Remove(_ context.Context, p string) error {
	if err := h.Client.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return nil
}

package fsys

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"strings"
	"sync"
	"time"

	"github.com/colinmarc/hdfs/v2"

	"rangecopy/retry"
)

// DefaultCloseRetries is how many times HDFS retries, by default, a Close
// that the NameNode refuses while the last block's replicas are being
// written: 19 retries, about 26 s of waits (20 ms doubling to 2 s).
const DefaultCloseRetries = 19

// HDFS is an FS and a Checksummer on an HDFS cluster, through a
// colinmarc/hdfs client. Make one with OpenHDFS or NewHDFS.
type HDFS struct {
	client *hdfs.Client
	// closeRetries bounds the retries of a Close that reports the last
	// block still replicating.
	closeRetries int
	defaults     hdfs.ServerDefaults
}

// HDFSOptions configure an HDFS.
type HDFSOptions struct {
	// CloseRetries bounds the retries of a Close that reports the last
	// block still replicating; 0 means DefaultCloseRetries.
	CloseRetries int
}

// OpenHDFS connects to the NameNodes at addresses (one, or the members of an
// HA name service) as user.
func OpenHDFS(addresses []string, user string, o HDFSOptions) (*HDFS, error) {
	c, err := hdfs.NewClient(hdfs.ClientOptions{Addresses: addresses, User: user})
	if err != nil {
		return nil, fmt.Errorf("hdfs %s: %w", strings.Join(addresses, ","), err)
	}
	h, err := NewHDFS(c, o)
	if err != nil {
		c.Close()
		return nil, err
	}
	return h, nil
}

// NewHDFS wraps a client; closing the HDFS closes it. It fetches the
// server defaults at once: the client caches them at its first Create
// without a lock, so fetching them here, before the client is shared, keeps
// concurrent Creates from racing on that cache.
func NewHDFS(c *hdfs.Client, o HDFSOptions) (*HDFS, error) {
	d, err := c.ServerDefaults()
	if err != nil {
		return nil, fmt.Errorf("hdfs: server defaults: %w", err)
	}
	if o.CloseRetries <= 0 {
		o.CloseRetries = DefaultCloseRetries
	}
	return &HDFS{client: c, closeRetries: o.CloseRetries, defaults: d}, nil
}

// Client is the underlying HDFS client, for what FS does not cover.
func (h *HDFS) Client() *hdfs.Client { return h.client }

// User is the user the client acts as.
func (h *HDFS) User() string { return h.client.User() }

// Close closes the client.
func (h *HDFS) Close() error { return h.client.Close() }

// hdfsFile serialises ReadAt: a FileReader's ReadAt is Seek + Read on a
// shared offset.
type hdfsFile struct {
	mu   sync.Mutex
	f    *hdfs.FileReader
	size int64
}

func (f *hdfsFile) ReadAt(p []byte, off int64) (int, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.f.ReadAt(p, off)
}

func (f *hdfsFile) Size() int64 { return f.size }

func (f *hdfsFile) Close() error { return f.f.Close() }

// Open implements Reader.
func (h *HDFS) Open(ctx context.Context, name string) (File, error) {
	if err := ctx.Err(); err != nil {
		return nil, &fs.PathError{Op: "open", Path: name, Err: err}
	}
	f, err := h.client.Open(name)
	if err != nil {
		return nil, err
	}
	return &hdfsFile{f: f, size: f.Stat().Size()}, nil
}

// Stat implements Reader. The FileInfo's Sys is the NameNode's
// *hdfs.FileStatus, and Owner reads its owner and group.
func (h *HDFS) Stat(ctx context.Context, name string) (fs.FileInfo, error) {
	if err := ctx.Err(); err != nil {
		return nil, &fs.PathError{Op: "stat", Path: name, Err: err}
	}
	return h.client.Stat(name)
}

// Create implements FS with the cluster's default replication; the block
// size is the cluster's default unless o gives one.
func (h *HDFS) Create(ctx context.Context, name string, o CreateOptions) (io.WriteCloser, error) {
	if err := ctx.Err(); err != nil {
		return nil, &fs.PathError{Op: "create", Path: name, Err: err}
	}
	if o.Perm == 0 {
		o.Perm = DefaultFilePerm
	}
	if o.BlockSize <= 0 {
		o.BlockSize = h.defaults.BlockSize
	}
	w, err := h.client.CreateFile(name, h.defaults.Replication, o.BlockSize, o.Perm)
	if err != nil {
		return nil, err
	}
	return &hdfsWriter{ctx: ctx, w: w, name: name, attempts: h.closeRetries + 1}, nil
}

// hdfsWriter retries Close while the NameNode waits for the last block's
// replicas, as the Java client does.
type hdfsWriter struct {
	ctx      context.Context
	w        *hdfs.FileWriter
	name     string
	attempts int
}

func (w *hdfsWriter) Write(p []byte) (int, error) { return w.w.Write(p) }

// Close completes the file. While the NameNode waits for the last block's
// replicas it refuses to; Close then tries again with backoff (20 ms
// doubling to 2 s), at most attempts times, until the context of Create
// ends.
func (w *hdfsWriter) Close() error {
	backoff := retry.Backoff{Initial: 20 * time.Millisecond, Max: 2 * time.Second}
	for attempt := 1; ; attempt++ {
		err := w.w.Close()
		if err == nil {
			return nil
		}
		if !hdfs.IsErrReplicating(err) || attempt >= w.attempts {
			return fmt.Errorf("close %s (attempt %d): %w", w.name, attempt, err)
		}
		if err := retry.Sleep(w.ctx, backoff.Delay(attempt-1)); err != nil {
			return fmt.Errorf("close %s: waiting for replicas: %w", w.name, err)
		}
	}
}

// MkdirAll implements FS.
func (h *HDFS) MkdirAll(ctx context.Context, dir string, perm fs.FileMode) error {
	if err := ctx.Err(); err != nil {
		return &fs.PathError{Op: "mkdir", Path: dir, Err: err}
	}
	return h.client.MkdirAll(dir, perm)
}

// Chmod implements FS.
func (h *HDFS) Chmod(ctx context.Context, name string, perm fs.FileMode) error {
	if err := ctx.Err(); err != nil {
		return &fs.PathError{Op: "chmod", Path: name, Err: err}
	}
	return h.client.Chmod(name, perm)
}

// Rename implements FS. HDFS's rename replaces an existing target; the
// pipeline's names are unique.
func (h *HDFS) Rename(ctx context.Context, from, to string) error {
	if err := ctx.Err(); err != nil {
		return &fs.PathError{Op: "rename", Path: from, Err: err}
	}
	return h.client.Rename(from, to)
}

// Remove implements FS.
func (h *HDFS) Remove(ctx context.Context, name string) error {
	if err := ctx.Err(); err != nil {
		return &fs.PathError{Op: "remove", Path: name, Err: err}
	}
	if err := h.client.Remove(name); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return nil
}

// RemoveAll implements FS.
func (h *HDFS) RemoveAll(ctx context.Context, name string) error {
	if err := ctx.Err(); err != nil {
		return &fs.PathError{Op: "remove", Path: name, Err: err}
	}
	if err := h.client.RemoveAll(name); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return nil
}

// FileChecksum implements Checksummer with HDFS's MD5-of-MD5-of-CRC32C file
// checksum, which the DataNodes compute from the CRCs stored beside each
// block: no data is read.
func (h *HDFS) FileChecksum(ctx context.Context, name string) (Checksum, error) {
	if err := ctx.Err(); err != nil {
		return Checksum{}, fmt.Errorf("checksum %s: %w", name, err)
	}
	f, err := h.client.Open(name)
	if err != nil {
		return Checksum{}, err
	}
	defer f.Close()
	st, ok := f.Stat().Sys().(*hdfs.FileStatus)
	if !ok {
		return Checksum{}, fmt.Errorf("checksum %s: no HDFS file status", name)
	}
	sum, err := f.Checksum()
	if err != nil {
		return Checksum{}, fmt.Errorf("checksum %s: %w", name, err)
	}
	return Checksum{BlockSize: int64(st.GetBlocksize()), Sum: sum}, nil
}

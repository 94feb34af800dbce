// Package fsys is rangecopy's one file-system seam: the few operations the
// snapshot reader, the worker's data path and the bulk loader perform on a
// cluster's files, with an HDFS implementation (HDFS, over colinmarc/hdfs)
// and a local-disk one (Local) for unit tests. A read-ahead reader that also
// applies a bandwidth limit (ReadAhead) wraps any File.
//
// Paths are absolute, slash-separated paths inside the file system. A
// missing file is reported with an error matching fs.ErrNotExist.
package fsys

import (
	"context"
	"io"
	"io/fs"
)

// Reader is the read side of a file system: what the snapshot reader and a
// task's source need.
type Reader interface {
	// Open opens the file at name for random reads.
	Open(ctx context.Context, name string) (File, error)
	// Stat describes the file or folder at name.
	Stat(ctx context.Context, name string) (fs.FileInfo, error)
}

// FS is a file system that files are written to: a task's target and the
// bulk loader's work folders.
type FS interface {
	Reader
	// Create creates a new file at name; it fails if name exists. The file
	// is complete only when Close returns nil.
	Create(ctx context.Context, name string, o CreateOptions) (io.WriteCloser, error)
	// MkdirAll creates a folder and its parents with mode perm (which the
	// file system may mask; see Chmod).
	MkdirAll(ctx context.Context, dir string, perm fs.FileMode) error
	// Chmod sets the mode of name exactly.
	Chmod(ctx context.Context, name string, perm fs.FileMode) error
	// Rename moves a file to a new name.
	Rename(ctx context.Context, from, to string) error
	// Remove deletes a file or an empty folder; a missing one is not an
	// error.
	Remove(ctx context.Context, name string) error
	// RemoveAll deletes name and everything under it; a missing one is not
	// an error.
	RemoveAll(ctx context.Context, name string) error
}

// File is an open file: random reads of a file of a known size.
type File interface {
	io.ReaderAt
	io.Closer
	// Size is the file's length in bytes.
	Size() int64
}

// DefaultFilePerm is the mode of a created file when CreateOptions give
// none.
const DefaultFilePerm fs.FileMode = 0o644

// CreateOptions say how FS.Create makes a file.
type CreateOptions struct {
	// Perm is the file's mode; 0 means DefaultFilePerm.
	Perm fs.FileMode
	// BlockSize is the file's block size, for file systems that have one;
	// 0 means the file system's default.
	BlockSize int64
}

// Checksummer is implemented by file systems that can checksum a file where
// it is stored, without sending its bytes: HDFS's MD5 of the MD5s of each
// block's CRC-32Cs, as the DataNodes compute it from the checksums they keep.
// Two such checksums agree only for the same bytes cut into the same blocks,
// so a copy meant to compare is created with its source's block size
// (CreateOptions.BlockSize).
type Checksummer interface {
	// FileChecksum returns the file's checksum and block size.
	FileChecksum(ctx context.Context, name string) (Checksum, error)
}

// Checksum is a file's checksum as a Checksummer computes it.
type Checksum struct {
	// BlockSize is the file's block size, which the checksum depends on.
	BlockSize int64
	// Sum is the checksum; files are equal when their sums and block sizes
	// are (and, for HDFS, their bytes per CRC, which a mismatch reveals).
	Sum []byte
}

// Owner returns the owner and group of the file fi describes, when its file
// system records them (HDFS does; Local does not).
func Owner(fi fs.FileInfo) (owner, group string, ok bool) {
	o, ok := fi.(interface {
		Owner() string
		OwnerGroup() string
	})
	if !ok {
		return "", "", false
	}
	return o.Owner(), o.OwnerGroup(), true
}

package snapshot

import (
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"

	"github.com/colinmarc/hdfs/v2"
)

// FS is the part of a file system the package reads: the source cluster's
// HDFS in production (see HDFS), a local folder in unit tests (see Dir).
// Paths are absolute, slash-separated HDFS paths. A missing file must be
// reported with an error matching fs.ErrNotExist.
type FS interface {
	Stat(name string) (fs.FileInfo, error)
	Open(name string) (File, error)
}

// File is an open file: random access for the HFile reader.
type File interface {
	io.ReaderAt
	io.Closer
}

// HDFS returns an FS reading through an HDFS client.
func HDFS(c *hdfs.Client) FS { return hdfsFS{c} }

type hdfsFS struct{ c *hdfs.Client }

func (h hdfsFS) Stat(name string) (fs.FileInfo, error) { return h.c.Stat(name) }

func (h hdfsFS) Open(name string) (File, error) {
	f, err := h.c.Open(name)
	if err != nil {
		return nil, err
	}
	return f, nil
}

// Dir returns an FS that maps the absolute path /a/b to dir/a/b on the local
// file system, for tests and for snapshots copied to local disk.
func Dir(dir string) FS { return localFS{dir} }

type localFS struct{ dir string }

func (l localFS) local(name string) string {
	return filepath.Join(l.dir, filepath.FromSlash(path.Clean("/"+name)))
}

func (l localFS) Stat(name string) (fs.FileInfo, error) { return os.Stat(l.local(name)) }

func (l localFS) Open(name string) (File, error) {
	f, err := os.Open(l.local(name))
	if err != nil {
		return nil, err
	}
	return f, nil
}

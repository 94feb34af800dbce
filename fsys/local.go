package fsys

import (
	"context"
	"errors"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
)

// Local is an FS on the local disk that maps the absolute path /a/b to
// Root/a/b; with Root "" or "/" paths are used as they are. For unit tests,
// and for files copied to local disk. It has no checksums of its own and no
// block sizes.
type Local struct {
	// Root is the local folder that holds the file system's "/".
	Root string
}

func (l Local) local(name string) string {
	root := l.Root
	if root == "" {
		root = "/"
	}
	return filepath.Join(root, filepath.FromSlash(path.Clean("/"+name)))
}

type localFile struct {
	*os.File
	size int64
}

func (f localFile) Size() int64 { return f.size }

// Open implements Reader.
func (l Local) Open(ctx context.Context, name string) (File, error) {
	if err := ctx.Err(); err != nil {
		return nil, &fs.PathError{Op: "open", Path: name, Err: err}
	}
	f, err := os.Open(l.local(name))
	if err != nil {
		return nil, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if st.IsDir() {
		f.Close()
		return nil, &fs.PathError{Op: "open", Path: name, Err: errors.New("is a folder")}
	}
	return localFile{File: f, size: st.Size()}, nil
}

// Stat implements Reader.
func (l Local) Stat(ctx context.Context, name string) (fs.FileInfo, error) {
	if err := ctx.Err(); err != nil {
		return nil, &fs.PathError{Op: "stat", Path: name, Err: err}
	}
	return os.Stat(l.local(name))
}

// Create implements FS; the block size is ignored.
func (l Local) Create(ctx context.Context, name string, o CreateOptions) (io.WriteCloser, error) {
	if err := ctx.Err(); err != nil {
		return nil, &fs.PathError{Op: "create", Path: name, Err: err}
	}
	if o.Perm == 0 {
		o.Perm = DefaultFilePerm
	}
	return os.OpenFile(l.local(name), os.O_WRONLY|os.O_CREATE|os.O_EXCL, o.Perm)
}

// MkdirAll implements FS.
func (l Local) MkdirAll(ctx context.Context, dir string, perm fs.FileMode) error {
	if err := ctx.Err(); err != nil {
		return &fs.PathError{Op: "mkdir", Path: dir, Err: err}
	}
	return os.MkdirAll(l.local(dir), perm)
}

// Chmod implements FS.
func (l Local) Chmod(ctx context.Context, name string, perm fs.FileMode) error {
	if err := ctx.Err(); err != nil {
		return &fs.PathError{Op: "chmod", Path: name, Err: err}
	}
	return os.Chmod(l.local(name), perm)
}

// Rename implements FS.
func (l Local) Rename(ctx context.Context, from, to string) error {
	if err := ctx.Err(); err != nil {
		return &fs.PathError{Op: "rename", Path: from, Err: err}
	}
	return os.Rename(l.local(from), l.local(to))
}

// Remove implements FS.
func (l Local) Remove(ctx context.Context, name string) error {
	if err := ctx.Err(); err != nil {
		return &fs.PathError{Op: "remove", Path: name, Err: err}
	}
	if err := os.Remove(l.local(name)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return nil
}

// RemoveAll implements FS.
func (l Local) RemoveAll(ctx context.Context, name string) error {
	if err := ctx.Err(); err != nil {
		return &fs.PathError{Op: "remove", Path: name, Err: err}
	}
	return os.RemoveAll(l.local(name))
}

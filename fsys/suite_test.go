package fsys_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"io/fs"
	"path"
	"testing"

	"rangecopy/fsys"
	"rangecopy/testenv"
)

// testFS is the one conformance suite every FS passes: the local one in unit
// tests, HDFS against the real target cluster. base is a folder of its own
// for the test, not yet created.
func testFS(t *testing.T, fsy fsys.FS, base string) {
	ctx := t.Context()
	dir := path.Join(base, "a", "b")
	if err := fsy.MkdirAll(ctx, dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := fsy.Chmod(ctx, dir, 0o777); err != nil {
		t.Fatal(err)
	}
	if fi, err := fsy.Stat(ctx, dir); err != nil || !fi.IsDir() || fi.Mode().Perm() != 0o777 {
		t.Fatalf("stat %s after chmod: %v, %v", dir, fi, err)
	}

	// Create, write, close, read back at random offsets.
	name := path.Join(dir, "f")
	data := bytes.Repeat([]byte("0123456789abcdef"), 4096)
	w, err := fsy.Create(ctx, name, fsys.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Write(data); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := fsy.Create(ctx, name, fsys.CreateOptions{}); err == nil {
		t.Errorf("create over an existing file succeeded")
	}
	f, err := fsy.Open(ctx, name)
	if err != nil {
		t.Fatal(err)
	}
	if f.Size() != int64(len(data)) {
		t.Errorf("size %d, want %d", f.Size(), len(data))
	}
	for _, off := range []int64{0, 17, 40000, int64(len(data)) - 10} {
		p := make([]byte, 10)
		if n, err := f.ReadAt(p, off); n != 10 || (err != nil && err != io.EOF) || !bytes.Equal(p, data[off:off+10]) {
			t.Errorf("ReadAt(10 at %d) = %d, %v: %q", off, n, err, p[:n])
		}
	}
	if n, err := f.ReadAt(make([]byte, 20), int64(len(data))-10); n != 10 || err != io.EOF {
		t.Errorf("read past the end: %d, %v; want 10, EOF", n, err)
	}
	f.Close()
	if fi, err := fsy.Stat(ctx, name); err != nil || fi.IsDir() || fi.Size() != int64(len(data)) || fi.Mode().Perm() != fsys.DefaultFilePerm {
		t.Errorf("stat %s: %v, %v", name, fi, err)
	}

	// Rename, then missing files match fs.ErrNotExist.
	moved := path.Join(base, "a", "g")
	if err := fsy.Rename(ctx, name, moved); err != nil {
		t.Fatal(err)
	}
	if _, err := fsy.Open(ctx, name); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("open a renamed file's old name: %v, want not-exist", err)
	}
	if _, err := fsy.Stat(ctx, name); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("stat a renamed file's old name: %v, want not-exist", err)
	}
	if fi, err := fsy.Stat(ctx, moved); err != nil || fi.Size() != int64(len(data)) {
		t.Errorf("stat %s: %v, %v", moved, fi, err)
	}

	// Remove and RemoveAll; a missing one is not an error.
	if err := fsy.Remove(ctx, moved); err != nil {
		t.Fatal(err)
	}
	if err := fsy.Remove(ctx, moved); err != nil {
		t.Errorf("remove a missing file: %v", err)
	}
	if err := fsy.RemoveAll(ctx, base); err != nil {
		t.Fatal(err)
	}
	if _, err := fsy.Stat(ctx, base); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("stat %s after RemoveAll: %v", base, err)
	}
	if err := fsy.RemoveAll(ctx, base); err != nil {
		t.Errorf("RemoveAll of a missing folder: %v", err)
	}

	// A cancelled context stops every operation.
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := fsy.Open(cctx, moved); !errors.Is(err, context.Canceled) {
		t.Errorf("open with a cancelled context: %v", err)
	}
	if err := fsy.MkdirAll(cctx, dir, 0o755); !errors.Is(err, context.Canceled) {
		t.Errorf("mkdir with a cancelled context: %v", err)
	}
}

func TestLocal(t *testing.T) {
	testFS(t, fsys.Local{Root: t.TempDir()}, "/x")
}

func TestHDFS(t *testing.T) {
	env := testenv.Get(t)
	c := env.Target
	h, err := fsys.OpenHDFS([]string{c.NameNode}, c.User, fsys.HDFSOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	base := "/" + testenv.UniqueName(t, "fsys")
	t.Cleanup(func() { h.RemoveAll(context.Background(), base) })
	testFS(t, h, base)

	// HDFS also checksums files where they are, and records owners.
	ctx := t.Context()
	name := path.Join(base, "sum")
	if err := h.MkdirAll(ctx, base, 0o755); err != nil {
		t.Fatal(err)
	}
	var sums []fsys.Checksum
	for i, bs := range []int64{1 << 20, 1 << 20, 2 << 20} {
		p := name + string(rune('0'+i))
		w, err := h.Create(ctx, p, fsys.CreateOptions{BlockSize: bs})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.Write(bytes.Repeat([]byte("x"), 3<<20)); err != nil {
			t.Fatal(err)
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		sum, err := h.FileChecksum(ctx, p)
		if err != nil || sum.BlockSize != bs || len(sum.Sum) == 0 {
			t.Fatalf("checksum %s: %+v, %v; want block size %d", p, sum, err, bs)
		}
		sums = append(sums, sum)
		fi, err := h.Stat(ctx, p)
		if err != nil {
			t.Fatal(err)
		}
		if owner, _, ok := fsys.Owner(fi); !ok || owner != c.User {
			t.Errorf("owner of %s: %q, %v; want %s", p, owner, ok, c.User)
		}
	}
	if !bytes.Equal(sums[0].Sum, sums[1].Sum) || bytes.Equal(sums[0].Sum, sums[2].Sum) {
		t.Errorf("checksums of equal bytes in equal blocks differ, or in other blocks agree: %x", sums)
	}
	if _, err := h.FileChecksum(ctx, name+"-missing"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("checksum of a missing file: %v", err)
	}
	if _, _, ok := fsys.Owner(mustStat(t, fsys.Local{Root: t.TempDir()}, "/")); ok {
		t.Error("a local file reports an owner")
	}
}

func mustStat(t *testing.T, fsy fsys.Reader, name string) fs.FileInfo {
	t.Helper()
	fi, err := fsy.Stat(t.Context(), name)
	if err != nil {
		t.Fatal(err)
	}
	return fi
}

package storeread

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"rangecopy/fsys"
)

func TestMovedPaths(t *testing.T) {
	tests := []struct {
		root, p string
		want    string
	}{
		{"/hbase", "/hbase/data/default/t/r/f/abc", "/hbase/archive/data/default/t/r/f/abc /hbase/.tmp/data/default/t/r/f/abc"},
		{"/user/root/test-data/x/", "/user/root/test-data/x/data/ns/t/r/f/abc", "/user/root/test-data/x/archive/data/ns/t/r/f/abc /user/root/test-data/x/.tmp/data/ns/t/r/f/abc"},
		{"/hbase", "/hbase/archive/data/default/t/r/f/abc", ""},
		{"/hbase", "/hbase/database/t", ""},
		{"/hbase", "/other/data/default/t/r/f/abc", ""},
		{"/hbase", "/hbase/data/", ""},
		{"/hbase", "/hbase/data/default/t/r/f", ""},
	}
	for _, tt := range tests {
		if got := strings.Join(MovedPaths(tt.root, tt.p), " "); got != tt.want {
			t.Errorf("MovedPaths(%q, %q) = %q, want %q", tt.root, tt.p, got, tt.want)
		}
	}
}

func TestArchiveFallback(t *testing.T) {
	root := t.TempDir()
	live := filepath.Join(root, "data", "default", "t", "r", "f", "a")
	archived := filepath.Join(root, "archive", "data", "default", "t", "r", "f", "a")
	if err := os.MkdirAll(filepath.Dir(archived), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(archived, []byte("hfile bytes"), 0o644); err != nil {
		t.Fatal(err)
	}
	a := ArchiveFallback{Reader: fsys.Local{}, RootDir: root}
	f, err := a.Open(context.Background(), live)
	if err != nil || f.Size() != int64(len("hfile bytes")) {
		t.Fatalf("open an archived file by its live path: %v", err)
	}
	f.Close()
	_, err = a.Open(context.Background(), filepath.Join(root, "data", "default", "t", "r", "f", "gone"))
	if !errors.Is(err, fs.ErrNotExist) || !strings.Contains(err.Error(), "archive") || !strings.Contains(err.Error(), ".tmp") {
		t.Fatalf("a file found nowhere: %v, want not-exist naming the places tried", err)
	}
}

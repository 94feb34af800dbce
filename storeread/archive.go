package storeread

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"strings"

	"rangecopy/fsys"
	"rangecopy/snapshot"
)

// ArchiveFallback opens store files where the plan found them and, when
// HBase has moved one since (a compaction or a split's cleanup archives the
// files it replaces; the job's snapshot keeps them from the cleaner), where
// it went: the same place under archive/, then under .tmp/ — the resolution
// order of planning (snapshot.Locations; docs/design.md, "The life of a job",
// step 3), applied again at open time.
type ArchiveFallback struct {
	fsys.Reader
	// RootDir is the source's hbase.rootdir path.
	RootDir string
}

// Open implements fsys.Reader.
func (a ArchiveFallback) Open(ctx context.Context, p string) (fsys.File, error) {
	f, err := a.Reader.Open(ctx, p)
	if err == nil || !errors.Is(err, fs.ErrNotExist) {
		return f, err
	}
	moved := MovedPaths(a.RootDir, p)
	for _, alt := range moved {
		f, err2 := a.Reader.Open(ctx, alt)
		if err2 == nil {
			return f, nil
		}
		if !errors.Is(err2, fs.ErrNotExist) {
			return nil, fmt.Errorf("open %s (moved from %s): %w", alt, p, err2)
		}
	}
	if len(moved) > 0 {
		return nil, fmt.Errorf("open %s, nor at %s: %w", p, strings.Join(moved, " or "), err)
	}
	return nil, err
}

// MovedPaths returns where HBase may have moved the store file at p, a path
// data/<namespace>/<table>/<region>/<family>/<file> under rootDir: the other
// places snapshot.Locations lists, in its order. A path anywhere else has no
// other places. Pure.
func MovedPaths(rootDir, p string) []string {
	root := path.Clean("/" + rootDir)
	rest, ok := strings.CutPrefix(path.Clean(p), path.Join(root, "data")+"/")
	parts := strings.Split(rest, "/")
	if !ok || len(parts) != 5 {
		return nil
	}
	return snapshot.Locations(root, parts[0], parts[1], parts[2], parts[3], parts[4])[1:]
}

// FileChecksum implements fsys.Checksummer when the wrapped Reader does, for
// the file where Open would find it; otherwise it fails, and a caller
// verifies some other way.
func (a ArchiveFallback) FileChecksum(ctx context.Context, p string) (fsys.Checksum, error) {
	c, ok := a.Reader.(fsys.Checksummer)
	if !ok {
		return fsys.Checksum{}, fmt.Errorf("checksum %s: %T cannot checksum files", p, a.Reader)
	}
	sum, err := c.FileChecksum(ctx, p)
	if err == nil || !errors.Is(err, fs.ErrNotExist) {
		return sum, err
	}
	for _, alt := range MovedPaths(a.RootDir, p) {
		sum, err2 := c.FileChecksum(ctx, alt)
		if err2 == nil || !errors.Is(err2, fs.ErrNotExist) {
			return sum, err2
		}
	}
	return fsys.Checksum{}, err
}

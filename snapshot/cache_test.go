package snapshot

import (
	"context"
	"io/fs"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"

	"rangecopy/fsys"
	"rangecopy/job"
)

// openCounter counts the files opened and stat'ed through it.
type openCounter struct {
	fsys.Local
	n atomic.Int64
}

func (c *openCounter) Open(ctx context.Context, name string) (fsys.File, error) {
	c.n.Add(1)
	return c.Local.Open(ctx, name)
}

func (c *openCounter) Stat(ctx context.Context, name string) (fs.FileInfo, error) {
	c.n.Add(1)
	return c.Local.Stat(ctx, name)
}

// TestFactsCacheRead: a second read of the same snapshot with the cache opens no store
// file and gives the same pin; another cluster's scope shares nothing.
func TestFactsCacheRead(t *testing.T) {
	dir := t.TempDir()
	manyFiles(t, dir, 4, 3)
	src := &openCounter{Local: fsys.Local{Root: dir}}
	cache := NewFactsCache(0)
	first, err := Read(t.Context(), src, testRoot, "big", Options{Facts: cache, FactsScope: "nn1"})
	if err != nil {
		t.Fatal(err)
	}
	if cache.Len() != 12 || cache.Hits() != 0 {
		t.Fatalf("after the first read the cache holds %d files with %d hits; want 12 and none", cache.Len(), cache.Hits())
	}
	opened := src.n.Load()
	again, err := Read(t.Context(), src, testRoot, "big", Options{Facts: cache, FactsScope: "nn1"})
	if err != nil {
		t.Fatal(err)
	}
	// The manifest is read again (a few files), no store file is.
	if n := src.n.Load() - opened; n > 4 || cache.Hits() != 12 {
		t.Errorf("the second read made %d opens and stats, with %d hits; want the manifest's only and 12", n, cache.Hits())
	}
	if !reflect.DeepEqual(first.Files, again.Files) || !reflect.DeepEqual(first.Inputs, again.Inputs) {
		t.Error("the cached read differs from the first")
	}
	if _, err := Read(t.Context(), src, testRoot, "big", Options{Facts: cache, FactsScope: "nn2"}); err != nil || cache.Hits() != 12 || cache.Len() != 24 {
		t.Errorf("another cluster's read: %v; %d hits, %d files; want no new hits and 24 files", err, cache.Hits(), cache.Len())
	}
}

func TestFactsCacheBound(t *testing.T) {
	c := NewFactsCache(3000)
	entry := func(name string) cached {
		return cached{facts: job.StoreFile{Name: name, FirstRow: []byte(strings.Repeat("r", 500)), LastRow: []byte("z")}}
	}
	for _, n := range []string{"a", "b", "c", "d"} {
		c.put(n, entry(n))
	}
	if _, ok := c.get("a"); ok {
		t.Error("the oldest entry is still held past the bound")
	}
	if _, ok := c.get("d"); !ok {
		t.Error("the newest entry was dropped")
	}
	if c.Len() >= 4 || c.size > c.max {
		t.Errorf("%d entries of %d bytes, bound %d", c.Len(), c.size, c.max)
	}
	// Putting a key again replaces it without counting it twice.
	before := c.size
	c.put("d", entry("d"))
	if c.size != before || len(c.order) != c.Len() {
		t.Errorf("re-put: size %d (was %d), %d keys in order for %d entries", c.size, before, len(c.order), c.Len())
	}
	var nilCache *FactsCache
	nilCache.put("x", entry("x"))
	if _, ok := nilCache.get("x"); ok {
		t.Error("a nil cache holds something")
	}
}

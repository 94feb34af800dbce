package snapshot

import (
	"strings"
	"sync"

	"rangecopy/job"
)

// FactsCache keeps store files' facts and places across pins, so that a warm
// process (rangecopy server) pinning the same table again, as a relocation's
// windows do every few minutes, reads only the files that are new. A store
// file never changes once written and its name is never given to another
// (HFile names are random, a bulk-loaded file's carries its sequence id, a
// reference names its parent region), so an entry stays true while the file
// lives; a file compacted away since is read from the archive, as a
// snapshot's would be (storeread.ArchiveFallback). It is bounded by an estimate
// of its memory, dropping the oldest entries first, and safe for concurrent
// use. The zero value is not usable: make one with NewFactsCache.
type FactsCache struct {
	mu    sync.Mutex
	max   int64
	size  int64
	items map[string]cached
	order []string // keys, oldest first
	hits  int64
}

type cached struct {
	facts job.StoreFile
	in    Input
	empty bool
	size  int64
}

// DefaultFactsCacheBytes bounds a FactsCache by default: some 100,000 files'
// facts with full index samples of short rows.
const DefaultFactsCacheBytes = 64 << 20

// NewFactsCache returns a cache of at most maxBytes (an estimate);
// maxBytes <= 0 means DefaultFactsCacheBytes.
func NewFactsCache(maxBytes int64) *FactsCache {
	if maxBytes <= 0 {
		maxBytes = DefaultFactsCacheBytes
	}
	return &FactsCache{max: maxBytes, items: map[string]cached{}}
}

// Hits is how many lookups found their file.
func (c *FactsCache) Hits() int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.hits
}

// Len is how many files the cache holds.
func (c *FactsCache) Len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.items)
}

// factsKey names a store file of table under rootDir of the cluster scope.
func factsKey(scope, rootDir, table string, f ManifestFile) string {
	return strings.Join([]string{scope, rootDir, table, f.Region, f.Family, f.Name}, "\x00")
}

func (c *FactsCache) get(key string) (cached, bool) {
	if c == nil {
		return cached{}, false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.items[key]
	if ok {
		c.hits++
	}
	return e, ok
}

func (c *FactsCache) put(key string, e cached) {
	if c == nil {
		return
	}
	e.size = int64(len(key)) + 256 + int64(len(e.facts.FirstRow)+len(e.facts.LastRow)+len(e.in.Path))
	for _, x := range e.facts.Index {
		e.size += int64(len(x.Row)) + 32
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if old, ok := c.items[key]; ok {
		c.size -= old.size
	} else {
		c.order = append(c.order, key)
	}
	c.items[key] = e
	c.size += e.size
	for c.size > c.max && len(c.order) > 0 {
		k := c.order[0]
		c.order = c.order[1:]
		if x, ok := c.items[k]; ok {
			c.size -= x.size
			delete(c.items, k)
		}
	}
}

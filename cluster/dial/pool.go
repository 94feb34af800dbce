package dial

import (
	"context"
	"log/slog"
	"strings"
	"sync"
	"time"

	"rangecopy/cluster"
	"rangecopy/fsys"
	"rangecopy/hbase"
)

// DefaultIdle is how long a Pool keeps a connection no one holds.
const DefaultIdle = 10 * time.Minute

// Pool keeps the connections of one process to the clusters its jobs name, so that a
// server's small jobs (a relocation's catch-up windows) pay no dial: a submission, the
// leader's planning and each worker's job take the same HBase client and HDFS client of a
// cluster. A connection is checked (one cheap call) each time it is taken, dialled again
// when the check fails, and closed once no one has held it for the idle time. Safe for
// concurrent use. The clients it hands out must not be closed by their users: call the
// release function instead.
type Pool struct {
	idle time.Duration
	log  *slog.Logger
	now  func() time.Time

	mu      sync.Mutex
	closed  bool
	entries map[string]*pooled
}

// pooled is one cached connection.
type pooled struct {
	client   *hbase.Client // one of the two
	fs       *fsys.HDFS
	holders  int
	lastUsed time.Time
}

// NewPool makes a pool that closes a connection idle for idle (0: DefaultIdle).
func NewPool(idle time.Duration, log *slog.Logger) *Pool {
	if idle <= 0 {
		idle = DefaultIdle
	}
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Pool{idle: idle, log: log, now: time.Now, entries: map[string]*pooled{}}
}

// poolKey names a connection: the kind, the cluster's addresses and the user.
func poolKey(kind string, c cluster.Config, user string) string {
	return kind + "\x00" + strings.Join(c.ZKQuorum, ",") + c.ZNodeParent + "\x00" +
		strings.Join(c.NameNodes, ",") + c.RootDir + "\x00" + user
}

// take returns the cached entry of key after check passes, or nil; it reaps idle entries.
func (p *Pool) take(key string) *pooled {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.reapLocked()
	e := p.entries[key]
	if e != nil {
		e.holders++
	}
	return e
}

// drop forgets an entry whose check failed, closing it once no one else holds it.
func (p *Pool) drop(key string, e *pooled) {
	p.mu.Lock()
	if p.entries[key] == e {
		delete(p.entries, key)
	}
	e.holders--
	last := e.holders == 0
	p.mu.Unlock()
	if last {
		closeEntry(e)
	}
}

// put caches a newly dialled entry held once, unless another got there first (then that
// one is held and the new one closed).
func (p *Pool) put(key string, e *pooled) *pooled {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		e.holders = 1
		return e // a closed pool hands out what it dialled; its release closes it
	}
	if old := p.entries[key]; old != nil {
		old.holders++
		p.mu.Unlock()
		closeEntry(e)
		return old
	}
	e.holders = 1
	p.entries[key] = e
	p.mu.Unlock()
	return e
}

// release gives an entry back.
func (p *Pool) release(key string, e *pooled) func() {
	var once sync.Once
	return func() {
		once.Do(func() {
			p.mu.Lock()
			e.holders--
			e.lastUsed = p.now()
			orphan := p.entries[key] != e && e.holders == 0
			p.mu.Unlock()
			if orphan {
				closeEntry(e)
			}
		})
	}
}

// reapLocked closes the entries no one has held for the idle time.
func (p *Pool) reapLocked() {
	now := p.now()
	for k, e := range p.entries {
		if e.holders == 0 && now.Sub(e.lastUsed) >= p.idle {
			delete(p.entries, k)
			go closeEntry(e)
		}
	}
}

func closeEntry(e *pooled) {
	if e.client != nil {
		e.client.Close()
	}
	if e.fs != nil {
		e.fs.Close()
	}
}

// HBase returns a client of cluster c as user, dialled as HBase dials it or taken from the
// pool, and the function that gives it back.
func (p *Pool) HBase(ctx context.Context, c cluster.Config, user string, timeout time.Duration, log *slog.Logger) (*hbase.Client, func(), error) {
	key := poolKey("hbase", c, user)
	if e := p.take(key); e != nil {
		cctx, cancel := context.WithTimeout(ctx, timeout)
		_, err := e.client.ListNamespaces(cctx)
		cancel()
		if err == nil {
			return e.client, p.release(key, e), nil
		}
		p.log.Info("a pooled HBase connection failed its check; dialling again", "cluster", c.String(), "err", err)
		p.drop(key, e)
	}
	cl, err := HBase(ctx, c, user, timeout, log)
	if err != nil {
		return nil, nil, err
	}
	e := p.put(key, &pooled{client: cl})
	return e.client, p.release(key, e), nil
}

// HDFS returns an HDFS client of cluster c as user, opened as HDFS opens it or taken from
// the pool, and the function that gives it back.
func (p *Pool) HDFS(ctx context.Context, c cluster.Config, user string) (*fsys.HDFS, func(), error) {
	key := poolKey("hdfs", c, user)
	if e := p.take(key); e != nil {
		if _, err := e.fs.Stat(ctx, c.RootDir); err == nil {
			return e.fs, p.release(key, e), nil
		} else {
			p.log.Info("a pooled HDFS connection failed its check; opening again", "cluster", c.String(), "err", err)
		}
		p.drop(key, e)
	}
	fs, err := HDFS(ctx, c, user)
	if err != nil {
		return nil, nil, err
	}
	e := p.put(key, &pooled{fs: fs})
	return e.fs, p.release(key, e), nil
}

// Close closes every connection no one holds and makes the pool keep nothing more; the
// held ones close when they are given back.
func (p *Pool) Close() {
	p.mu.Lock()
	p.closed = true
	var idle []*pooled
	for k, e := range p.entries {
		delete(p.entries, k)
		if e.holders == 0 {
			idle = append(idle, e)
		}
	}
	p.mu.Unlock()
	for _, e := range idle {
		closeEntry(e)
	}
}

package hbase

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"sort"
	"sync"

	"google.golang.org/protobuf/proto"

	"rangecopy/hbase/pb"
)

// locateError reports a region that could not be located right now: a hole in
// hbase:meta, a region in transition without a server. Classify says ActionRelocate.
type locateError struct {
	table string
	row   []byte
	msg   string
}

func (e *locateError) Error() string {
	return fmt.Sprintf("hbase: locate row %q of table %s: %s", e.row, e.table, e.msg)
}

// retryableError marks an error worth a plain retry (Classify says ActionRetry),
// for example a scanner that must be reopened.
type retryableError struct{ err error }

func (e *retryableError) Error() string { return e.err.Error() }
func (e *retryableError) Unwrap() error { return e.err }

// regionCache maps tables to their known regions, sorted by start key.
type regionCache struct {
	mu     sync.Mutex
	tables map[string][]*Region
}

// lookup returns the cached region of table containing row, or nil.
func (rc *regionCache) lookup(table string, row []byte) *Region {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	regs := rc.tables[table]
	i := sort.Search(len(regs), func(i int) bool { return bytes.Compare(regs[i].StartKey, row) > 0 }) - 1
	if i >= 0 && regs[i].Contains(row) {
		return regs[i]
	}
	return nil
}

// add caches r, dropping cached regions that overlap it.
func (rc *regionCache) add(r *Region) {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	if rc.tables == nil {
		rc.tables = make(map[string][]*Region)
	}
	regs := rc.tables[r.Table]
	kept := regs[:0:0]
	for _, o := range regs {
		if !overlaps(o, r) {
			kept = append(kept, o)
		}
	}
	i := sort.Search(len(kept), func(i int) bool { return bytes.Compare(kept[i].StartKey, r.StartKey) > 0 })
	kept = append(kept, nil)
	copy(kept[i+1:], kept[i:])
	kept[i] = r
	rc.tables[r.Table] = kept
}

// remove drops r (matched by name) from the cache.
func (rc *regionCache) remove(r *Region) {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	regs := rc.tables[r.Table]
	for i, o := range regs {
		if bytes.Equal(o.Name, r.Name) {
			rc.tables[r.Table] = append(regs[:i:i], regs[i+1:]...)
			return
		}
	}
}

// removeServer drops every region cached on server.
func (rc *regionCache) removeServer(server ServerName) {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	for t, regs := range rc.tables {
		kept := regs[:0:0]
		for _, o := range regs {
			if o.Server.Addr() != server.Addr() {
				kept = append(kept, o)
			}
		}
		rc.tables[t] = kept
	}
}

// removeTable forgets every region of table.
func (rc *regionCache) removeTable(table string) {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	delete(rc.tables, table)
}

func overlaps(a, b *Region) bool {
	aEndsBeforeB := len(a.EndKey) > 0 && bytes.Compare(a.EndKey, b.StartKey) <= 0
	bEndsBeforeA := len(b.EndKey) > 0 && bytes.Compare(b.EndKey, a.StartKey) <= 0
	return !aEndsBeforeB && !bEndsBeforeA
}

// invalidate reacts to a failed call on region r: it forgets r, and every
// region of its server when the server itself failed.
func (c *Client) invalidate(r *Region, err error) {
	if r == nil {
		return
	}
	c.cache.remove(r)
	var ce *ConnError
	if asConnError(err, &ce) {
		c.cache.removeServer(r.Server)
	}
	c.log.Debug("hbase: invalidated region location", "region", r.String(), "server", r.Server.Addr(), "err", err)
}

// locate returns the region of table that contains row, from the cache or
// from hbase:meta.
func (c *Client) locate(ctx context.Context, table string, row []byte) (*Region, error) {
	if r := c.cache.lookup(table, row); r != nil {
		return r, nil
	}
	var r *Region
	var err error
	if table == metaTable {
		r, err = c.metaRegion(ctx)
	} else {
		r, err = c.metaLookup(ctx, table, row)
	}
	if err != nil {
		return nil, err
	}
	c.cache.add(r)
	return r, nil
}

// metaRegion returns the hbase:meta region, located through ZooKeeper.
func (c *Client) metaRegion(ctx context.Context) (*Region, error) {
	sn, err := c.zk.metaServer(ctx)
	if err != nil {
		return nil, &locateError{table: metaTable, msg: err.Error()}
	}
	return &Region{Table: metaTable, ID: 1, Name: metaRegionName, EncodedName: "1588230740", Server: sn}, nil
}

// metaLookup finds the region of table containing row with a one-row reversed
// scan of hbase:meta starting at "table,row,99999999999999".
func (c *Client) metaLookup(ctx context.Context, table string, row []byte) (*Region, error) {
	// A lookup only reads hbase:meta: a fence on the caller's request
	// (WithSendBy) is not for it.
	ctx = unfenced{ctx}
	meta, err := c.locate(ctx, metaTable, nil)
	if err != nil {
		return nil, err
	}
	key := make([]byte, 0, len(table)+len(row)+16)
	key = append(append(append(key, table...), ','), row...)
	key = append(key, ",99999999999999"...)
	req := &pb.ScanRequest{
		Region: meta.specifier(),
		Scan: &pb.Scan{
			StartRow: key,
			StopRow:  []byte(table + ",,"),
			Reversed: proto.Bool(true),
			Column:   []*pb.Column{{Family: famInfo}},
			Caching:  proto.Uint32(1),
		},
		NumberOfRows: proto.Uint32(1),
		CloseScanner: proto.Bool(true),
	}
	var resp pb.ScanResponse
	cb, err := c.rpc(ctx, meta.Server, ClientService, "Scan", req, nil, &resp)
	if err != nil {
		c.invalidate(meta, err)
		return nil, fmt.Errorf("look up row %q of %s in hbase:meta on %s: %w", row, table, meta.Server.Addr(), err)
	}
	results, err := scanResults(&resp, cb)
	if err != nil {
		return nil, fmt.Errorf("look up row %q of %s in hbase:meta on %s: %w", row, table, meta.Server.Addr(), err)
	}
	if len(results) == 0 {
		return nil, &NotFoundError{Kind: KindTableNotFound, What: "table", Name: table}
	}
	r, err := parseMetaRow(results[0].Cells)
	if err != nil {
		return nil, err
	}
	if r.Table != table {
		return nil, &NotFoundError{Kind: KindTableNotFound, What: "table", Name: table}
	}
	if !r.Contains(row) {
		return nil, &locateError{table: table, row: row, msg: fmt.Sprintf("hole in hbase:meta after region %s", r)}
	}
	if r.Offline {
		return nil, &locateError{table: table, row: row, msg: fmt.Sprintf("region %s is offline", r)}
	}
	if r.Server.IsZero() {
		return nil, &locateError{table: table, row: row, msg: fmt.Sprintf("region %s has no server", r)}
	}
	return r, nil
}

// Regions lists every region of table in key order, read from hbase:meta
// (not from the cache), and refreshes the cache with them. Offline split
// parents are left out. Regions in transition are listed with a zero Server.
func (c *Client) Regions(ctx context.Context, table string) ([]*Region, error) {
	var regions []*Region
	err := c.retryLoop(ctx, "list regions of "+table, func(int) error {
		regions = regions[:0]
		meta, err := c.locate(ctx, metaTable, nil)
		if err != nil {
			return err
		}
		rs := &regionScan{c: c, region: meta, scan: &pb.Scan{
			StartRow: []byte(table + ",,"),
			StopRow:  []byte(table + "."),
			Column:   []*pb.Column{{Family: famInfo}},
			Caching:  proto.Uint32(100),
		}, rows: 100}
		defer rs.close(ctx)
		for {
			results, done, err := rs.next(ctx)
			if err != nil {
				c.invalidate(meta, err)
				return err
			}
			for _, res := range results {
				r, err := parseMetaRow(res.Cells)
				if err != nil {
					return err
				}
				if r.Table != table || r.ReplicaID != 0 || (r.Offline && r.Split) {
					continue
				}
				regions = append(regions, r)
			}
			if done {
				break
			}
		}
		return nil
	}, nil)
	if err != nil {
		return nil, err
	}
	if len(regions) == 0 {
		return nil, &NotFoundError{Kind: KindTableNotFound, What: "table", Name: table}
	}
	sort.Slice(regions, func(i, j int) bool { return bytes.Compare(regions[i].StartKey, regions[j].StartKey) < 0 })
	c.cache.removeTable(table)
	for _, r := range regions {
		if !r.Server.IsZero() && !r.Offline {
			c.cache.add(r)
		}
	}
	return regions, nil
}

// Locate returns the region of table that holds row (from the cache, or
// hbase:meta), retrying while the region is in transition.
func (c *Client) Locate(ctx context.Context, table string, row []byte) (*Region, error) {
	var r *Region
	err := c.retryLoop(ctx, fmt.Sprintf("locate row %q of %s", row, table), func(int) error {
		var err error
		r, err = c.locate(ctx, table, row)
		return err
	}, nil)
	return r, err
}

// regionCall runs one call against the region of table holding row, with
// retries: it locates the region, calls fn, and on an ActionRelocate error forgets
// the location and tries again.
func (c *Client) regionCall(ctx context.Context, what, table string, row []byte, fn func(r *Region) error) error {
	var cur *Region
	return c.retryLoop(ctx, what, func(int) error {
		cur = nil
		r, err := c.locate(ctx, table, row)
		if err != nil {
			return err
		}
		cur = r
		if err := fn(r); err != nil {
			var re *RemoteError
			if errors.As(err, &re) && re.Region == "" {
				re.Region = r.String()
			}
			return err
		}
		return nil
	}, func(err error) { c.invalidate(cur, err) })
}

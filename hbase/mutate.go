package hbase

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"sort"
	"strings"
	"sync"

	"google.golang.org/protobuf/proto"

	"rangecopy/hbase/pb"
	"rangecopy/retry"
)

// MutationType says whether a Mutation writes or deletes.
type MutationType int

// Mutation types.
const (
	MutationPut MutationType = iota
	MutationDelete
)

// String returns the type's name.
func (t MutationType) String() string {
	switch t {
	case MutationPut:
		return "Put"
	case MutationDelete:
		return "Delete"
	}
	return fmt.Sprintf("MutationType(%d)", int(t))
}

// Mutation is a Put or a Delete of one row. Build it with NewPut or
// NewDelete and the methods below; the cells are sent in a cell block.
type Mutation struct {
	Row   []byte
	Type  MutationType
	Cells []Cell
	// Timestamp of a whole-row delete (a Delete without cells): every cell
	// up to it is deleted. Default LatestTimestamp.
	Timestamp uint64
}

// NewPut starts a Put of row.
func NewPut(row []byte) *Mutation {
	return &Mutation{Row: row, Type: MutationPut, Timestamp: LatestTimestamp}
}

// NewDelete starts a Delete of row. Without further calls it deletes the
// whole row.
func NewDelete(row []byte) *Mutation {
	return &Mutation{Row: row, Type: MutationDelete, Timestamp: LatestTimestamp}
}

// Add adds a cell to a Put. ts LatestTimestamp lets the server pick the time.
func (m *Mutation) Add(family, qualifier []byte, ts uint64, value []byte) *Mutation {
	m.Cells = append(m.Cells, Cell{Row: m.Row, Family: family, Qualifier: qualifier, Timestamp: ts, Type: CellTypePut, Value: value})
	return m
}

func (m *Mutation) addDelete(family, qualifier []byte, ts uint64, t CellType) *Mutation {
	m.Cells = append(m.Cells, Cell{Row: m.Row, Family: family, Qualifier: qualifier, Timestamp: ts, Type: t})
	return m
}

// DeleteVersion deletes the version of a column with timestamp ts
// (LatestTimestamp: the newest version).
func (m *Mutation) DeleteVersion(family, qualifier []byte, ts uint64) *Mutation {
	return m.addDelete(family, qualifier, ts, CellTypeDelete)
}

// DeleteColumn deletes all versions of a column with timestamp <= ts.
func (m *Mutation) DeleteColumn(family, qualifier []byte, ts uint64) *Mutation {
	return m.addDelete(family, qualifier, ts, CellTypeDeleteColumn)
}

// DeleteFamily deletes all columns of a family with timestamp <= ts.
func (m *Mutation) DeleteFamily(family []byte, ts uint64) *Mutation {
	return m.addDelete(family, nil, ts, CellTypeDeleteFamily)
}

// DeleteFamilyVersion deletes all columns of a family with timestamp == ts.
func (m *Mutation) DeleteFamilyVersion(family []byte, ts uint64) *Mutation {
	return m.addDelete(family, nil, ts, CellTypeDeleteFamilyVersion)
}

// validate checks the mutation before it is sent.
func (m *Mutation) validate() error {
	if len(m.Row) == 0 {
		return errors.New("mutation with an empty row")
	}
	if m.Type == MutationPut && len(m.Cells) == 0 {
		return fmt.Errorf("put of row %q without cells", m.Row)
	}
	for _, c := range m.Cells {
		if string(c.Row) != string(m.Row) {
			return fmt.Errorf("mutation of row %q holds a cell of row %q", m.Row, c.Row)
		}
		if len(c.Family) == 0 {
			return fmt.Errorf("mutation of row %q holds a cell without family", m.Row)
		}
		if (m.Type == MutationPut) != (c.Type == CellTypePut) {
			return fmt.Errorf("%s of row %q holds a %s cell", m.Type, m.Row, c.Type)
		}
	}
	return nil
}

// proto returns the MutationProto (cells travel in the cell block) and
// appends the cells to cb.
func (m *Mutation) proto(cb []byte) (*pb.MutationProto, []byte, error) {
	mp := &pb.MutationProto{Row: m.Row, AssociatedCellCount: proto.Int32(int32(len(m.Cells)))}
	if m.Type == MutationPut {
		mp.MutateType = pb.MutationProto_PUT.Enum()
	} else {
		mp.MutateType = pb.MutationProto_DELETE.Enum()
		ts := m.Timestamp
		if ts == 0 {
			ts = LatestTimestamp
		}
		mp.Timestamp = proto.Uint64(ts)
	}
	var err error
	for i := range m.Cells {
		if cb, err = appendCell(cb, &m.Cells[i]); err != nil {
			return nil, nil, err
		}
	}
	return mp, cb, nil
}

// Mutate applies one mutation to table.
func (c *Client) Mutate(ctx context.Context, table string, m *Mutation) error {
	if err := m.validate(); err != nil {
		return fmt.Errorf("%s %q on %s: %w", m.Type, m.Row, table, err)
	}
	return c.regionCall(ctx, fmt.Sprintf("%s %q on %s", m.Type, m.Row, table), table, m.Row, func(r *Region) error {
		mp, cb, err := m.proto(nil)
		if err != nil {
			return err
		}
		req := &pb.MutateRequest{Region: r.specifier(), Mutation: mp}
		if _, err := c.rpc(ctx, r.Server, ClientService, "Mutate", req, cb, nil); err != nil {
			return fmt.Errorf("%s %q in region %s on %s: %w", m.Type, m.Row, r, r.Server.Addr(), err)
		}
		return nil
	})
}

// Put writes one row.
func (c *Client) Put(ctx context.Context, table string, m *Mutation) error {
	return c.Mutate(ctx, table, m)
}

// Delete deletes from one row.
func (c *Client) Delete(ctx context.Context, table string, m *Mutation) error {
	return c.Mutate(ctx, table, m)
}

// BatchError reports the mutations of a batch that failed, by index.
type BatchError struct {
	Table  string
	Errors map[int]error
}

// Error counts the failed mutations and shows the first few.
func (e *BatchError) Error() string {
	idx := make([]int, 0, len(e.Errors))
	for i := range e.Errors {
		idx = append(idx, i)
	}
	sort.Ints(idx)
	var b strings.Builder
	fmt.Fprintf(&b, "batch on %s: %d mutations failed", e.Table, len(idx))
	for n, i := range idx {
		if n == 3 {
			fmt.Fprintf(&b, "; ...")
			break
		}
		fmt.Fprintf(&b, "; #%d: %v", i, e.Errors[i])
	}
	return b.String()
}

// Unwrap returns the individual errors.
func (e *BatchError) Unwrap() []error {
	out := make([]error, 0, len(e.Errors))
	for _, err := range e.Errors {
		out = append(out, err)
	}
	return out
}

// Apply applies mutations to table in batches: one Multi call per region
// server, run concurrently, grouped by region. Mutations that fail with a
// retriable error are retried (relocated when their region moved); the ones
// that still fail are reported in a *BatchError. Order between mutations of
// different rows is not guaranteed.
func (c *Client) Apply(ctx context.Context, table string, muts []*Mutation) error {
	for i, m := range muts {
		if err := m.validate(); err != nil {
			return fmt.Errorf("batch on %s: mutation #%d: %w", table, i, err)
		}
	}
	failed := c.retryBatch(ctx, len(muts), func(todo []int) map[int]error {
		return c.applyOnce(ctx, table, muts, todo)
	})
	if len(failed) > 0 {
		return &BatchError{Table: table, Errors: failed}
	}
	return nil
}

// applyOnce sends the mutations todo once and returns the errors by index.
func (c *Client) applyOnce(ctx context.Context, table string, muts []*Mutation, todo []int) map[int]error {
	return c.multiPerServer(ctx, table, todo, func(i int) []byte { return muts[i].Row }, func(server ServerName, gs []*regionGroup) map[int]error {
		return c.multiApply(ctx, server, gs, muts)
	})
}

// multiApply sends the mutations of the groups gs to server in one Multi
// call and returns their errors by index.
func (c *Client) multiApply(ctx context.Context, server ServerName, gs []*regionGroup, muts []*Mutation) map[int]error {
	errs := map[int]error{}
	req := &pb.MultiRequest{}
	var cb []byte
	for _, g := range gs {
		ra := &pb.RegionAction{Region: g.region.specifier()}
		for _, i := range g.idx {
			mp, ncb, err := muts[i].proto(cb)
			if err != nil {
				return failGroups(errs, gs, err)
			}
			cb = ncb
			ra.Action = append(ra.Action, &pb.Action{Index: proto.Uint32(uint32(i)), Mutation: mp})
		}
		req.RegionAction = append(req.RegionAction, ra)
	}
	var resp pb.MultiResponse
	if _, err := c.rpc(ctx, server, ClientService, "Multi", req, cb, &resp); err != nil {
		for _, g := range gs {
			c.invalidate(g.region, err)
		}
		return failGroups(errs, gs, fmt.Errorf("multi on %s: %w", server.Addr(), err))
	}
	rars := resp.GetRegionActionResult()
	for n, g := range gs {
		rar := c.regionResult(errs, rars, n, g, server, "multi")
		if rar == nil {
			continue
		}
		for _, roe := range rar.GetResultOrException() {
			if ex := roe.GetException(); ex != nil {
				errs[int(roe.GetIndex())] = c.multiError(ex, server, g.region)
			}
		}
	}
	return errs
}

// multiPerServer groups the indexes todo by region and the regions by server
// (row gives the row of an index) and calls multi for each server, all at
// once. It returns the errors by index: those of locating the rows and those
// multi returns.
func (c *Client) multiPerServer(ctx context.Context, table string, todo []int, row func(int) []byte, multi func(server ServerName, gs []*regionGroup) map[int]error) map[int]error {
	errs := map[int]error{}
	byServer, servers := c.groupByServer(ctx, table, todo, row, errs)
	var mu sync.Mutex
	var wg sync.WaitGroup
	for addr, gs := range byServer {
		wg.Go(func() {
			e := multi(servers[addr], gs)
			mu.Lock()
			defer mu.Unlock()
			maps.Copy(errs, e)
		})
	}
	wg.Wait()
	return errs
}

// failGroups sets err as the error of every index of gs and returns errs.
func failGroups(errs map[int]error, gs []*regionGroup, err error) map[int]error {
	for _, g := range gs {
		for _, i := range g.idx {
			errs[i] = err
		}
	}
	return errs
}

// retryBatch runs once over the indexes 0..n-1 and again over the ones that
// failed with a retriable error, after a backoff, until none is left or the
// attempts run out. It returns the last error of each index that never
// succeeded.
func (c *Client) retryBatch(ctx context.Context, n int, once func(todo []int) map[int]error) map[int]error {
	todo := make([]int, n)
	for i := range todo {
		todo[i] = i
	}
	failed := map[int]error{}
	for attempt := 0; len(todo) > 0; attempt++ {
		if attempt > 0 {
			if err := retry.Sleep(ctx, c.cfg.Backoff.Delay(attempt-1)); err != nil {
				for _, i := range todo {
					failed[i] = err
				}
				break
			}
		}
		errs := once(todo)
		var again []int
		for _, i := range todo {
			err, ok := errs[i]
			if !ok {
				delete(failed, i)
				continue
			}
			failed[i] = err
			if Classify(err) != ActionGiveUp && attempt+1 < c.cfg.MaxAttempts {
				again = append(again, i)
			}
		}
		todo = again
	}
	return failed
}

// regionResult returns the result of the n-th region of a Multi call (op
// names the call in errors), or nil when there is none or the region failed
// as a whole: then every index of g has its error in errs.
func (c *Client) regionResult(errs map[int]error, rars []*pb.RegionActionResult, n int, g *regionGroup, server ServerName, op string) *pb.RegionActionResult {
	var err error
	switch {
	case n >= len(rars):
		err = fmt.Errorf("%s on %s: %w: no result for region %s", op, server.Addr(), ErrProtocol, g.region)
	case rars[n].GetException() != nil:
		err = c.multiError(rars[n].GetException(), server, g.region)
	default:
		return rars[n]
	}
	for _, i := range g.idx {
		errs[i] = err
	}
	return nil
}

// multiError is the exception a Multi call reports for a region or one of
// its actions, as a *RemoteError that names server and region. A region
// that moved is dropped from the location cache.
func (c *Client) multiError(ex *pb.NameBytesPair, server ServerName, region *Region) *RemoteError {
	re := newRemoteErrorFromPair(ex)
	re.Server, re.Region, re.Method = server, region.String(), "Multi"
	if Classify(re) == ActionRelocate {
		c.invalidate(region, re)
	}
	return re
}

// regionGroup is the actions of one batch bound for one region, by index.
type regionGroup struct {
	region *Region
	idx    []int
}

// groupByServer locates the row of each index in todo, groups the indexes by
// region and the regions by server address (for one Multi per server), and
// returns the groups with the server of each address. An index whose row
// cannot be located gets its error in errs.
func (c *Client) groupByServer(ctx context.Context, table string, todo []int, row func(int) []byte, errs map[int]error) (map[string][]*regionGroup, map[string]ServerName) {
	byServer := map[string][]*regionGroup{}
	servers := map[string]ServerName{}
	groups := map[string]*regionGroup{}
	for _, i := range todo {
		r, err := c.locate(ctx, table, row(i))
		if err != nil {
			errs[i] = err
			continue
		}
		g := groups[string(r.Name)]
		if g == nil {
			g = &regionGroup{region: r}
			groups[string(r.Name)] = g
			addr := r.Server.Addr()
			byServer[addr] = append(byServer[addr], g)
			servers[addr] = r.Server
		}
		g.idx = append(g.idx, i)
	}
	return byServer, servers
}

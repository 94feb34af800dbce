package hbase

import (
	"context"
	"fmt"

	"google.golang.org/protobuf/proto"

	"rangecopy/hbase/pb"
)

// GetMany reads many rows of table with one Multi call per region server,
// run concurrently. results[i] answers gets[i]; a row that does not exist
// gives a Result without cells. Gets that fail with a retriable error are
// retried; the ones that still fail are reported in a *BatchError (and their
// results are empty).
func (c *Client) GetMany(ctx context.Context, table string, gets []Get) ([]Result, error) {
	results := make([]Result, len(gets))
	failed := c.retryBatch(ctx, len(gets), func(todo []int) map[int]error {
		return c.getManyOnce(ctx, table, gets, todo, results)
	})
	if len(failed) > 0 {
		return results, &BatchError{Table: table, Errors: failed}
	}
	return results, nil
}

// getManyOnce sends the gets todo once, fills results and returns the errors
// by index.
func (c *Client) getManyOnce(ctx context.Context, table string, gets []Get, todo []int, results []Result) map[int]error {
	return c.multiPerServer(ctx, table, todo, func(i int) []byte { return gets[i].Row }, func(server ServerName, gs []*regionGroup) map[int]error {
		return c.multiGet(ctx, server, gs, gets, results)
	})
}

// multiGet sends the gets of the groups gs to server in one Multi call,
// fills their results and returns their errors by index.
func (c *Client) multiGet(ctx context.Context, server ServerName, gs []*regionGroup, gets []Get, results []Result) map[int]error {
	errs := map[int]error{}
	req := &pb.MultiRequest{}
	for _, g := range gs {
		ra := &pb.RegionAction{Region: g.region.specifier()}
		for _, i := range g.idx {
			ra.Action = append(ra.Action, &pb.Action{Index: proto.Uint32(uint32(i)), Get: gets[i].pb()})
		}
		req.RegionAction = append(req.RegionAction, ra)
	}
	var resp pb.MultiResponse
	cb, err := c.rpc(ctx, server, ClientService, "Multi", req, nil, &resp)
	if err != nil {
		for _, g := range gs {
			c.invalidate(g.region, err)
		}
		return failGroups(errs, gs, fmt.Errorf("multi get on %s: %w", server.Addr(), err))
	}
	want := map[int]bool{}
	for _, g := range gs {
		for _, i := range g.idx {
			want[i] = true
		}
	}
	rars := resp.GetRegionActionResult()
	for n, g := range gs {
		rar := c.regionResult(errs, rars, n, g, server, "multi get")
		if rar == nil {
			continue
		}
		answered := map[int]bool{}
		for _, roe := range rar.GetResultOrException() {
			i := int(roe.GetIndex())
			if !want[i] {
				return failGroups(errs, gs, fmt.Errorf("multi get on %s: %w: result for unknown action %d", server.Addr(), ErrProtocol, i))
			}
			answered[i] = true
			if ex := roe.GetException(); ex != nil {
				errs[i] = c.multiError(ex, server, g.region)
				continue
			}
			// Cells of all results follow each other in the cell
			// block, in response order.
			res, rest, err := resultFromPB(roe.GetResult(), cb)
			if err != nil {
				// The rest of the cell block cannot be trusted.
				return failGroups(errs, gs, fmt.Errorf("multi get on %s: %w", server.Addr(), err))
			}
			cb = rest
			results[i] = res
		}
		for _, i := range g.idx {
			if !answered[i] {
				if _, ok := errs[i]; !ok {
					errs[i] = fmt.Errorf("multi get on %s: %w: no result for get %d", server.Addr(), ErrProtocol, i)
				}
			}
		}
	}
	return errs
}

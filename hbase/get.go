package hbase

import (
	"context"
	"fmt"

	"google.golang.org/protobuf/proto"

	"rangecopy/hbase/pb"
)

// Get describes a read of one row.
type Get struct {
	Row []byte
	// Columns limits the read to families or columns; nil reads all.
	Columns   []Column
	TimeRange TimeRange
	// MaxVersions per column; 0 means 1.
	MaxVersions int
}

func (g *Get) pb() *pb.Get {
	p := &pb.Get{Row: g.Row, Column: columnsPB(g.Columns), TimeRange: g.TimeRange.pb()}
	if g.MaxVersions > 1 {
		p.MaxVersions = proto.Uint32(uint32(g.MaxVersions))
	}
	return p
}

// Get reads one row of table. A row that does not exist gives a Result
// without cells.
func (c *Client) Get(ctx context.Context, table string, g Get) (Result, error) {
	var res Result
	err := c.regionCall(ctx, fmt.Sprintf("get %q from %s", g.Row, table), table, g.Row, func(r *Region) error {
		req := &pb.GetRequest{Region: r.specifier(), Get: g.pb()}
		var resp pb.GetResponse
		cb, err := c.rpc(ctx, r.Server, ClientService, "Get", req, nil, &resp)
		if err != nil {
			return fmt.Errorf("get %q from region %s on %s: %w", g.Row, r, r.Server.Addr(), err)
		}
		res, _, err = resultFromPB(resp.GetResult(), cb)
		if err != nil {
			return fmt.Errorf("get %q from region %s on %s: %w", g.Row, r, r.Server.Addr(), err)
		}
		return nil
	})
	return res, err
}

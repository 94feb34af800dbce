package hbase

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sort"
	"time"

	"google.golang.org/protobuf/proto"

	"rangecopy/hbase/pb"
	"rangecopy/retry"
)

// SnapshotInfo describes a completed snapshot.
type SnapshotInfo struct {
	Name         string
	Table        string
	CreationTime time.Time
	Type         string // FLUSH, SKIPFLUSH, DISABLED
	Owner        string
	Version      int
}

// CreateSnapshot takes a flush snapshot of table and waits until it is done.
//
// It asks for the snapshot as a master procedure (the request carries a
// nonce). A master that runs snapshots as procedures (HBase 2.5 and later,
// unless hbase.snapshot.procedure.enabled is false) snapshots each region on
// whichever server holds it, so a region server that dies meanwhile only
// delays the snapshot until its regions are open again. An older master
// coordinates the snapshot through ZooKeeper with the servers that held the
// regions when it began, and one of them dying leaves the snapshot waiting
// until the master's snapshot timeout (5 minutes by default) fails it; here
// CreateSnapshot looks for such a server every few seconds and, once one is
// gone, returns an error that matches ErrSnapshotFailed at once.
//
// An error from the master's snapshot itself matches ErrSnapshotFailed:
// taking the snapshot again, under a new name, may succeed.
func (c *Client) CreateSnapshot(ctx context.Context, table, name string) error {
	what := fmt.Sprintf("snapshot %s of table %s", name, table)
	desc := &pb.SnapshotDescription{Name: proto.String(name), Table: proto.String(table), Type: pb.SnapshotDescription_FLUSH.Enum()}
	// The servers holding the table's regions as the snapshot begins: the
	// ones a ZooKeeper-coordinated snapshot waits on.
	regions, err := c.Regions(ctx, table)
	if err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	req := &pb.SnapshotRequest{Snapshot: desc, NonceGroup: proto.Uint64(nonce()), Nonce: proto.Uint64(nonce())}
	var resp pb.SnapshotResponse
	if err := c.masterCall(ctx, what, "Snapshot", req, &resp); err != nil {
		return err
	}
	if id := resp.GetProcId(); id > 0 {
		if err := c.waitProcedure(ctx, what, uint64(id)); err != nil {
			var re *RemoteError
			if errors.As(err, &re) && re.Kind == KindOther {
				// A failed procedure may name any exception: the snapshot
				// failed all the same.
				re.Kind = KindSnapshotFailed
			}
			return err
		}
		return nil
	}
	holders := map[ServerName]bool{}
	for _, r := range regions {
		if !r.Server.IsZero() {
			holders[r.Server] = true
		}
	}
	lastCheck := time.Now()
	for attempt := 0; ; attempt++ {
		var done pb.IsSnapshotDoneResponse
		if err := c.masterCall(ctx, what, "IsSnapshotDone", &pb.IsSnapshotDoneRequest{Snapshot: desc}, &done); err != nil {
			return err
		}
		if done.GetDone() {
			return nil
		}
		if time.Since(lastCheck) >= snapshotServerCheck {
			lastCheck = time.Now()
			if gone, err := c.goneServer(ctx, holders); err == nil && !gone.IsZero() {
				return fmt.Errorf("%s: region server %s, which held a region of the table when the snapshot began, is gone; "+
					"the master would wait for it until its snapshot timeout: %w", what, gone, ErrSnapshotFailed)
			}
		}
		if err := retry.Sleep(ctx, c.procedurePoll(attempt)); err != nil {
			return fmt.Errorf("%s: waiting: %w", what, err)
		}
	}
}

// snapshotServerCheck is how often CreateSnapshot looks whether a server a
// ZooKeeper-coordinated snapshot waits on is gone.
const snapshotServerCheck = 3 * time.Second

// goneServer returns one of servers that is no longer live, or the zero
// ServerName when all are.
func (c *Client) goneServer(ctx context.Context, servers map[ServerName]bool) (ServerName, error) {
	live, err := c.RegionServers(ctx)
	if err != nil {
		return ServerName{}, err
	}
	up := make(map[ServerName]bool, len(live))
	for _, sn := range live {
		up[sn] = true
	}
	var gone []ServerName
	for sn := range servers {
		if !up[sn] {
			gone = append(gone, sn)
		}
	}
	if len(gone) == 0 {
		return ServerName{}, nil
	}
	sort.Slice(gone, func(i, j int) bool { return gone[i].String() < gone[j].String() })
	return gone[0], nil
}

// nonce returns a random non-zero nonce (HBase reads 0 as none).
func nonce() uint64 {
	for {
		if n := rand.Uint64(); n != 0 {
			return n
		}
	}
}

// ListSnapshots returns the completed snapshots, sorted by name.
func (c *Client) ListSnapshots(ctx context.Context) ([]SnapshotInfo, error) {
	var resp pb.GetCompletedSnapshotsResponse
	if err := c.masterCall(ctx, "list snapshots", "GetCompletedSnapshots", &pb.GetCompletedSnapshotsRequest{}, &resp); err != nil {
		return nil, err
	}
	var out []SnapshotInfo
	for _, s := range resp.GetSnapshots() {
		out = append(out, SnapshotInfo{Name: s.GetName(), Table: s.GetTable(), CreationTime: time.UnixMilli(s.GetCreationTime()),
			Type: s.GetType().String(), Owner: s.GetOwner(), Version: int(s.GetVersion())})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

// DeleteSnapshot deletes a snapshot.
func (c *Client) DeleteSnapshot(ctx context.Context, name string) error {
	req := &pb.DeleteSnapshotRequest{Snapshot: &pb.SnapshotDescription{Name: proto.String(name)}}
	return c.masterCall(ctx, "delete snapshot "+name, "DeleteSnapshot", req, &pb.DeleteSnapshotResponse{})
}

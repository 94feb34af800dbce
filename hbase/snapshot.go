package hbase

import (
	"context"
	"fmt"
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
func (c *Client) CreateSnapshot(ctx context.Context, table, name string) error {
	what := fmt.Sprintf("snapshot %s of table %s", name, table)
	desc := &pb.SnapshotDescription{Name: proto.String(name), Table: proto.String(table), Type: pb.SnapshotDescription_FLUSH.Enum()}
	var resp pb.SnapshotResponse
	if err := c.masterCall(ctx, what, "Snapshot", &pb.SnapshotRequest{Snapshot: desc}, &resp); err != nil {
		return err
	}
	for attempt := 0; ; attempt++ {
		var done pb.IsSnapshotDoneResponse
		if err := c.masterCall(ctx, what, "IsSnapshotDone", &pb.IsSnapshotDoneRequest{Snapshot: desc}, &done); err != nil {
			return err
		}
		if done.GetDone() {
			return nil
		}
		if err := retry.Sleep(ctx, c.cfg.Backoff.Delay(min(attempt, 4))); err != nil {
			return fmt.Errorf("%s: waiting: %w", what, err)
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

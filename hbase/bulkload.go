package hbase

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"google.golang.org/protobuf/proto"

	"rangecopy/hbase/pb"
)

// BulkLoadFile is one HFile to load into one family of a region. FirstRow
// and LastRow are the file's first and last row keys (from its trailer and
// file info); they are checked against the region before the server is
// asked, because the server reports most failures only as loaded=false.
type BulkLoadFile struct {
	Family   string
	Path     string // fully qualified or absolute path in the target HDFS
	FirstRow []byte
	LastRow  []byte
}

// BulkLoadOptions tune BulkLoad.
type BulkLoadOptions struct {
	// CopyFile makes the region server copy the files instead of moving
	// them into the region.
	CopyFile bool
	// NoAssignSeqNum leaves the loaded files without a sequence id (HBase's
	// default is to assign one so the files sort after existing data).
	NoAssignSeqNum bool
}

// ErrRegionChanged reports that a region no longer exists as it was (it split
// or merged); the caller must look up the new regions and split its files
// again.
var ErrRegionChanged = errors.New("hbase: region changed (split or merged)")

// BulkLoadError reports a bulk load that did not happen, naming the region,
// the files and the reason.
type BulkLoadError struct {
	Region *Region
	Files  []BulkLoadFile
	Reason string
	Err    error // the cause, if any
}

// Error names the files, the region, its server and the reason.
func (e *BulkLoadError) Error() string {
	var paths []string
	for _, f := range e.Files {
		paths = append(paths, f.Family+":"+f.Path)
	}
	s := fmt.Sprintf("bulk load of %s into region %s on %s: %s", strings.Join(paths, ", "), e.Region, e.Region.Server.Addr(), e.Reason)
	if e.Err != nil {
		s += ": " + e.Err.Error()
	}
	return s
}

// Unwrap returns the cause.
func (e *BulkLoadError) Unwrap() error { return e.Err }

// CheckBulkLoadFiles checks, without I/O, that every file has a family, a
// path and a row range that lies inside region r.
func CheckBulkLoadFiles(r *Region, files []BulkLoadFile) error {
	if len(files) == 0 {
		return &BulkLoadError{Region: r, Reason: "no files"}
	}
	for _, f := range files {
		one := []BulkLoadFile{f}
		switch {
		case f.Family == "":
			return &BulkLoadError{Region: r, Files: one, Reason: "file without family"}
		case f.Path == "":
			return &BulkLoadError{Region: r, Files: one, Reason: "file without path"}
		case f.FirstRow == nil || f.LastRow == nil:
			return &BulkLoadError{Region: r, Files: one, Reason: "first and last row unknown (empty file?)"}
		case bytes.Compare(f.FirstRow, f.LastRow) > 0:
			return &BulkLoadError{Region: r, Files: one, Reason: fmt.Sprintf("first row %q sorts after last row %q", f.FirstRow, f.LastRow)}
		case !r.Contains(f.FirstRow):
			return &BulkLoadError{Region: r, Files: one, Reason: fmt.Sprintf("first row %q is outside the region [%q, %q)", f.FirstRow, r.StartKey, r.EndKey)}
		case !r.Contains(f.LastRow):
			return &BulkLoadError{Region: r, Files: one, Reason: fmt.Sprintf("last row %q is outside the region [%q, %q)", f.LastRow, r.StartKey, r.EndKey)}
		}
	}
	return nil
}

// currentRegion re-locates r and fails with ErrRegionChanged if it split or
// merged meanwhile.
func (c *Client) currentRegion(ctx context.Context, r *Region) (*Region, error) {
	loc, err := c.locate(ctx, r.Table, r.StartKey)
	if err != nil {
		return nil, err
	}
	if !bytes.Equal(loc.Name, r.Name) {
		return nil, fmt.Errorf("region %s is now %s: %w", r, loc, ErrRegionChanged)
	}
	return loc, nil
}

// regionRPC calls a ClientService method on the server of r, following r if
// it moves to another server and failing with ErrRegionChanged if it is gone.
func (c *Client) regionRPC(ctx context.Context, what string, r *Region, method string, req func(*Region) proto.Message, resp proto.Message) (*Region, error) {
	cur := r
	err := c.retryLoop(ctx, what, func(attempt int) error {
		if attempt > 0 {
			loc, err := c.currentRegion(ctx, r)
			if err != nil {
				return err
			}
			cur = loc
		}
		if _, err := c.rpc(ctx, cur.Server, ClientService, method, req(cur), nil, resp); err != nil {
			return fmt.Errorf("%s: region %s on %s: %w", what, cur, cur.Server.Addr(), err)
		}
		return nil
	}, func(err error) { c.invalidate(cur, err) })
	return cur, err
}

// PrepareBulkLoad asks the region server for a bulk load token (a staging
// folder in HDFS).
func (c *Client) PrepareBulkLoad(ctx context.Context, r *Region) (string, error) {
	var resp pb.PrepareBulkLoadResponse
	_, err := c.regionRPC(ctx, "prepare bulk load", r, "PrepareBulkLoad", func(cur *Region) proto.Message {
		return &pb.PrepareBulkLoadRequest{TableName: tableNamePB(cur.Table), Region: cur.specifier()}
	}, &resp)
	if err != nil {
		return "", err
	}
	if resp.GetBulkToken() == "" {
		return "", fmt.Errorf("prepare bulk load: region %s: %w: empty bulk token", r, ErrProtocol)
	}
	return resp.GetBulkToken(), nil
}

// CleanupBulkLoad releases a bulk load token (deletes its staging folder).
func (c *Client) CleanupBulkLoad(ctx context.Context, r *Region, token string) error {
	_, err := c.regionRPC(ctx, "clean up bulk load", r, "CleanupBulkLoad", func(cur *Region) proto.Message {
		return &pb.CleanupBulkLoadRequest{BulkToken: proto.String(token), Region: cur.specifier()}
	}, &pb.CleanupBulkLoadResponse{})
	return err
}

// BulkLoadHFiles loads files atomically into region r with a token from
// PrepareBulkLoad. loaded=false from the server is returned as a
// *BulkLoadError.
func (c *Client) BulkLoadHFiles(ctx context.Context, r *Region, token string, files []BulkLoadFile, opts BulkLoadOptions) error {
	if err := CheckBulkLoadFiles(r, files); err != nil {
		return err
	}
	var resp pb.BulkLoadHFileResponse
	cur, err := c.regionRPC(ctx, "bulk load", r, "BulkLoadHFile", func(cur *Region) proto.Message {
		req := &pb.BulkLoadHFileRequest{
			Region:       cur.specifier(),
			AssignSeqNum: proto.Bool(!opts.NoAssignSeqNum),
			BulkToken:    proto.String(token),
			CopyFile:     proto.Bool(opts.CopyFile),
		}
		for _, f := range files {
			req.FamilyPath = append(req.FamilyPath, &pb.BulkLoadHFileRequest_FamilyPath{Family: []byte(f.Family), Path: proto.String(f.Path)})
		}
		return req
	}, &resp)
	if err != nil {
		return &BulkLoadError{Region: cur, Files: files, Reason: "call failed", Err: err}
	}
	if !resp.GetLoaded() {
		return &BulkLoadError{Region: cur, Files: files, Reason: "region server answered loaded=false " +
			"(it hides the cause: unknown family, unreadable or corrupt file, file outside the region after a split, " +
			"permissions; see the region server log)"}
	}
	return nil
}

// BulkLoad runs the whole sequence for one region: PrepareBulkLoad,
// BulkLoadHFile with all files (atomic across families) and CleanupBulkLoad.
func (c *Client) BulkLoad(ctx context.Context, r *Region, files []BulkLoadFile, opts BulkLoadOptions) error {
	if err := CheckBulkLoadFiles(r, files); err != nil {
		return err
	}
	token, err := c.PrepareBulkLoad(ctx, r)
	if err != nil {
		return &BulkLoadError{Region: r, Files: files, Reason: "prepare failed", Err: err}
	}
	loadErr := c.BulkLoadHFiles(ctx, r, token, files, opts)
	cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Minute)
	defer cancel()
	if err := c.CleanupBulkLoad(cctx, r, token); err != nil {
		c.log.Warn("hbase: bulk load cleanup failed", "region", r.String(), "token", token, "err", err)
	}
	return loadErr
}

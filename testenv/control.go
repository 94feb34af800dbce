package testenv

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"time"
)

// control is a client of the harness's control channel (HTTP on loopback).
type control struct {
	addr string
	http *http.Client
}

// opTimeout bounds an operation whose context has no deadline: the
// harness's own waits (a region open, a server gone) end after 3 minutes, so
// an operation that takes far longer is stuck, and the test says so.
const opTimeout = 10 * time.Minute

// do posts req (with the cluster name added) to /op/<op> and decodes the
// answer into resp, which may be nil.
func (c *control) do(ctx context.Context, op, cluster string, req map[string]any, resp any) error {
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, opTimeout)
		defer cancel()
	}
	if req == nil {
		req = map[string]any{}
	}
	req["cluster"] = cluster
	if err := c.post(ctx, "/op/"+op, req, resp); err != nil {
		return fmt.Errorf("control %s on %s: %w", op, cluster, err)
	}
	return nil
}

// post posts req as JSON to path on the control channel and decodes the
// answer into resp, which may be nil.
func (c *control) post(ctx context.Context, path string, req map[string]any, resp any) error {
	body, err := json.Marshal(req)
	if err != nil {
		return fmt.Errorf("encode request: %w", err)
	}
	hr, err := http.NewRequestWithContext(ctx, http.MethodPost, "http://"+c.addr+path, bytes.NewReader(body))
	if err != nil {
		return err
	}
	hr.Header.Set("Content-Type", "application/json")
	res, err := c.http.Do(hr)
	if err != nil {
		return err
	}
	defer res.Body.Close()
	out, err := io.ReadAll(res.Body)
	if err != nil {
		return fmt.Errorf("read answer: %w", err)
	}
	if res.StatusCode != http.StatusOK {
		var e struct {
			Error string `json:"error"`
		}
		if json.Unmarshal(out, &e) == nil && e.Error != "" {
			return fmt.Errorf("%s (HTTP %d)", e.Error, res.StatusCode)
		}
		return fmt.Errorf("HTTP %d: %s", res.StatusCode, out)
	}
	if resp == nil {
		return nil
	}
	if err := json.Unmarshal(out, resp); err != nil {
		return fmt.Errorf("decode answer: %w", err)
	}
	return nil
}

// ping checks that the control channel answers for cluster.
func (c *control) ping(cluster string) error {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	return c.do(ctx, "status", cluster, nil, nil)
}

// Status is what a cluster reports about its servers.
type Status struct {
	// Master is the active master's server name.
	Master string `json:"master"`
	// LiveRegionServers and DeadRegionServers are as the master sees them.
	LiveRegionServers []string `json:"liveRegionServers"`
	DeadRegionServers []string `json:"deadRegionServers"`
	// LiveDataNodes and DeadDataNodes are as the NameNode reports them
	// (transfer addresses).
	LiveDataNodes []string `json:"liveDataNodes"`
	DeadDataNodes []string `json:"deadDataNodes"`
}

// Status asks the master and the NameNode which servers are alive.
func (c *Cluster) Status(ctx context.Context) (Status, error) {
	var s Status
	err := c.ctl.do(ctx, "status", c.Name, nil, &s)
	return s, err
}

// StopRegionServer stops the live region server of that name (host,port,startcode
// or host:port) and waits until the master has reassigned its regions.
func (c *Cluster) StopRegionServer(ctx context.Context, server string) error {
	return c.ctl.do(ctx, "regionserver/stop", c.Name, map[string]any{"server": server}, nil)
}

// StopRegionServerNoWait stops the region server and returns at once, leaving
// its regions in transition: for failure tests that act while the master
// recovers.
func (c *Cluster) StopRegionServerNoWait(ctx context.Context, server string) error {
	return c.ctl.do(ctx, "regionserver/stop", c.Name, map[string]any{"server": server, "wait": false}, nil)
}

// Unassign closes a region and leaves it offline (no server opens it) until
// Assign, as a region stuck in transition would be.
func (c *Cluster) Unassign(ctx context.Context, encodedRegion string) error {
	return c.ctl.do(ctx, "region/unassign", c.Name, map[string]any{"region": encodedRegion}, nil)
}

// Assign opens a region that Unassign closed, on a server the master picks.
func (c *Cluster) Assign(ctx context.Context, encodedRegion string) error {
	return c.ctl.do(ctx, "region/assign", c.Name, map[string]any{"region": encodedRegion}, nil)
}

// AbortRegionServer crashes a region server: it stops at once without
// closing or flushing its regions, and the master recovers them from its WAL
// on the other servers. It returns once the server has stopped, before its
// regions are open again. Regions of tables no test moved to it on purpose
// are moved off first (see StartRegionServer).
func (c *Cluster) AbortRegionServer(ctx context.Context, server string) error {
	return c.ctl.do(ctx, "regionserver/stop", c.Name, map[string]any{"server": server, "wait": false, "abort": true}, nil)
}

// StartRegionServer starts a new region server and returns its server name
// once the master sees it. HBase may give it regions of other tests' new
// tables while it runs; StopRegionServer and AbortRegionServer move those
// off first, so that stopping it stops only the regions a test moved to it
// on purpose (Move) and disturbs no other test's table.
func (c *Cluster) StartRegionServer(ctx context.Context) (string, error) {
	return c.serverOp(ctx, "regionserver/start", nil)
}

// StopDataNode stops the DataNode with that transfer address and marks it dead
// in the NameNode at once.
func (c *Cluster) StopDataNode(ctx context.Context, addr string) error {
	return c.ctl.do(ctx, "datanode/stop", c.Name, map[string]any{"address": addr}, nil)
}

// StartDataNode starts again, on the same port, a DataNode stopped by
// StopDataNode, and waits until the NameNode sees it live.
func (c *Cluster) StartDataNode(ctx context.Context, addr string) error {
	return c.ctl.do(ctx, "datanode/start", c.Name, map[string]any{"address": addr}, nil)
}

// Family describes a column family for CreateTable. Zero values take HBase's
// defaults, except MaxVersions which defaults to 1.
type Family struct {
	Name             string `json:"name"`
	MaxVersions      int    `json:"maxVersions,omitempty"`
	Compression      string `json:"compression,omitempty"` // NONE, GZ, SNAPPY, LZ4, ZSTD
	Encoding         string `json:"encoding,omitempty"`    // NONE, PREFIX, DIFF, FAST_DIFF, ROW_INDEX_V1
	Bloom            string `json:"bloom,omitempty"`       // NONE, ROW, ROWCOL
	BlockSize        int    `json:"blockSize,omitempty"`
	TTL              int    `json:"ttl,omitempty"` // seconds
	KeepDeletedCells bool   `json:"keepDeletedCells,omitempty"`
	InMemory         bool   `json:"inMemory,omitempty"`
	Scope            int    `json:"scope,omitempty"`
}

// TableOptions are a test table's settings beyond its families.
type TableOptions struct {
	// Compaction lets HBase compact the table, on its own and when a test
	// asks (Compact). It is off by default: HBase compacts a store on its
	// own once it holds a few flushes, and a compaction that takes every
	// file drops delete markers and the cells they mask, so a raw scan
	// (every version and marker) of a table that may compact changes under
	// a test that compares it. A test that compacts on purpose turns it on
	// and compares only what stays visible.
	Compaction bool
	// SlowFlushable gives the table an observer that holds each of its
	// flushes for the delay SetFlushDelay sets (none until then), so that a
	// test can stop a region server while a snapshot's flush runs.
	SlowFlushable bool
}

// CreateTable creates a table (and its namespace if needed) with HBase's own
// admin client, pre-split at splits, with compaction off (see TableOptions),
// and waits until all regions are online.
func (c *Cluster) CreateTable(ctx context.Context, table string, families []Family, splits [][]byte) error {
	return c.CreateTableWith(ctx, table, families, splits, TableOptions{})
}

// CreateTableWith is CreateTable with the table options opts.
func (c *Cluster) CreateTableWith(ctx context.Context, table string, families []Family, splits [][]byte, opts TableOptions) error {
	if splits == nil {
		splits = [][]byte{}
	}
	return c.ctl.do(ctx, "table/create", c.Name, map[string]any{"table": table, "families": families, "splits": splits,
		"compaction": opts.Compaction, "slowFlushable": opts.SlowFlushable}, nil)
}

// SetFlushDelay holds every later flush of a table created SlowFlushable
// for d before it runs (0 ends the delay). Only this cluster's table is held,
// not a copy of it on the other.
func (c *Cluster) SetFlushDelay(ctx context.Context, table string, d time.Duration) error {
	return c.ctl.do(ctx, "table/slowflush", c.Name, map[string]any{"table": table, "ms": d.Milliseconds()}, nil)
}

// DeleteTable disables and deletes a table; a missing table is not an error.
func (c *Cluster) DeleteTable(ctx context.Context, table string) error {
	return c.ctl.do(ctx, "table/delete", c.Name, map[string]any{"table": table}, nil)
}

// Region is a region of a table as hbase:meta lists it.
type Region struct {
	Name        string `json:"name"`
	EncodedName string `json:"encodedName"`
	RegionID    int64  `json:"regionId"`
	StartKey    []byte `json:"startKey"`
	EndKey      []byte `json:"endKey"`
	Server      string `json:"server"`
}

// Regions lists a table's regions in key order, read afresh from hbase:meta.
func (c *Cluster) Regions(ctx context.Context, table string) ([]Region, error) {
	var r struct {
		Regions []Region `json:"regions"`
	}
	err := c.ctl.do(ctx, "table/regions", c.Name, map[string]any{"table": table}, &r)
	return r.Regions, err
}

// Split splits the region of table that holds key at key and waits until the
// daughter starting at key is online.
func (c *Cluster) Split(ctx context.Context, table string, key []byte) error {
	return c.ctl.do(ctx, "table/split", c.Name, map[string]any{"table": table, "key": key}, nil)
}

// Move moves a region (by encoded name) to a server (host,port,startcode or
// host:port; empty picks another live server) and waits until it is open
// there. It returns the server it moved to.
func (c *Cluster) Move(ctx context.Context, encodedRegion, server string) (string, error) {
	req := map[string]any{"region": encodedRegion}
	if server != "" {
		req["server"] = server
	}
	return c.serverOp(ctx, "region/move", req)
}

// serverOp runs an operation that answers with a region server's name.
func (c *Cluster) serverOp(ctx context.Context, op string, req map[string]any) (string, error) {
	var r struct {
		Server string `json:"server"`
	}
	err := c.ctl.do(ctx, op, c.Name, req, &r)
	return r.Server, err
}

// Flush flushes every region of a table.
func (c *Cluster) Flush(ctx context.Context, table string) error {
	return c.ctl.do(ctx, "table/flush", c.Name, map[string]any{"table": table}, nil)
}

// Compact compacts every region of a table (major or minor) and returns when
// the compactions are done. The table must have been created with
// compaction on (TableOptions.Compaction); for one with it off Compact fails.
func (c *Cluster) Compact(ctx context.Context, table string, major bool) error {
	return c.ctl.do(ctx, "table/compact", c.Name, map[string]any{"table": table, "major": major}, nil)
}

// CreateSnapshot takes a snapshot of a table.
func (c *Cluster) CreateSnapshot(ctx context.Context, table, snapshot string) error {
	return c.ctl.do(ctx, "snapshot/create", c.Name, map[string]any{"table": table, "snapshot": snapshot}, nil)
}

// CloneSnapshot creates table from a snapshot in this cluster (one exported
// into it, for one) and waits until its regions are online.
func (c *Cluster) CloneSnapshot(ctx context.Context, snapshot, table string) error {
	return c.ctl.do(ctx, "snapshot/clone", c.Name, map[string]any{"snapshot": snapshot, "table": table}, nil)
}

// DeleteSnapshot deletes a snapshot.
func (c *Cluster) DeleteSnapshot(ctx context.Context, snapshot string) error {
	return c.ctl.do(ctx, "snapshot/delete", c.Name, map[string]any{"snapshot": snapshot}, nil)
}

// Cell is one cell as HBase's own Java client writes or reads it. Type is
// Put, Delete, DeleteColumn, DeleteFamily or DeleteFamilyVersion.
type Cell struct {
	Row       []byte `json:"row"`
	Family    []byte `json:"family"`
	Qualifier []byte `json:"qualifier"`
	Timestamp int64  `json:"timestamp"`
	Type      string `json:"type"`
	Value     []byte `json:"value,omitempty"`
}

// Mutate applies puts and deletes through HBase's normal write path (the Java
// client, memstores, WAL), in one batch.
func (c *Cluster) Mutate(ctx context.Context, table string, cells []Cell) error {
	return c.ctl.do(ctx, "table/mutate", c.Name, map[string]any{"table": table, "cells": cells}, nil)
}

// ScanSpec selects the cells Scan returns. Nil rows mean the table's ends;
// zero times mean no time range.
type ScanSpec struct {
	StartRow, StopRow  []byte
	StartTime, EndTime int64
	// Raw returns delete markers and deleted cells too.
	Raw bool
	// MaxVersions of 0 returns all versions.
	MaxVersions int
}

// Scan reads cells with HBase's own Java client, in key order.
func (c *Cluster) Scan(ctx context.Context, table string, s ScanSpec) ([]Cell, error) {
	req := map[string]any{"table": table, "raw": s.Raw}
	if s.StartRow != nil {
		req["startRow"] = s.StartRow
	}
	if s.StopRow != nil {
		req["stopRow"] = s.StopRow
	}
	if s.StartTime != 0 || s.EndTime != 0 {
		req["startTime"] = s.StartTime
		req["endTime"] = s.EndTime
	}
	if s.MaxVersions > 0 {
		req["maxVersions"] = s.MaxVersions
	}
	var r struct {
		Cells []Cell `json:"cells"`
	}
	err := c.ctl.do(ctx, "table/scan", c.Name, req, &r)
	return r.Cells, err
}

// ToolResult is the exit code and the captured output (standard output,
// standard error and INFO log lines) of a tool run in the harness.
type ToolResult struct {
	ExitCode int    `json:"exitCode"`
	Output   string `json:"output"`
}

// RunTool runs a Java class inside the harness JVM against this cluster's
// configuration: a Hadoop Tool through ToolRunner (generic options such as
// "-D", "key=value" come first), or a class with a static main. classpath
// names extra directories or jars to load the class from (fixture writers
// compiled after the harness started); it may be nil. A tool that ran and
// failed is a result with a non-zero exit code, not an error.
func (c *Cluster) RunTool(ctx context.Context, class string, args []string, classpath []string) (ToolResult, error) {
	if args == nil {
		args = []string{}
	}
	if classpath == nil {
		classpath = []string{}
	}
	var r ToolResult
	err := c.ctl.do(ctx, "tool", c.Name, map[string]any{"class": class, "args": args, "classpath": classpath}, &r)
	return r, err
}

// CPUTimes is CPU time spent so far in the cluster's harness JVM, as CPU
// reports it.
type CPUTimes struct {
	// RegionServerCPUNanos is the CPU time of the live threads that carry
	// one of this cluster's region servers' RPC ports in their names (RPC
	// handlers, the server thread and its executors, chores); Netty event
	// loops, memstore flushers and HDFS threads are not attributable and
	// not counted.
	RegionServerCPUNanos int64 `json:"regionServerCpuNanos"`
	// RegionServerThreads is how many threads RegionServerCPUNanos sums.
	RegionServerThreads int `json:"regionServerThreads"`
	// ProcessCPUNanos is the CPU time of the whole harness JVM that runs
	// this cluster (with any tool running in it, and the other cluster too
	// when both share one JVM: see Env.OneJVM); -1 when the JVM cannot say.
	ProcessCPUNanos int64 `json:"processCpuNanos"`
}

// CPU reports the CPU time spent so far by this cluster's region servers and
// by the whole harness JVM that runs it. Differences of two calls measure an interval.
func (c *Cluster) CPU(ctx context.Context) (CPUTimes, error) {
	var r CPUTimes
	err := c.ctl.do(ctx, "cpu", c.Name, nil, &r)
	return r, err
}

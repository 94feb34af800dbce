package hbase

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"google.golang.org/protobuf/proto"

	"rangecopy/hbase/pb"
	"rangecopy/retry"
)

// masterCache holds the last known active master.
type masterCache struct {
	mu     sync.Mutex
	server ServerName
}

// master returns the active master, from ZooKeeper unless cached.
func (c *Client) master(ctx context.Context) (ServerName, error) {
	c.masterCache.mu.Lock()
	sn := c.masterCache.server
	c.masterCache.mu.Unlock()
	if !sn.IsZero() {
		return sn, nil
	}
	sn, err := c.zk.master(ctx)
	if err != nil {
		return ServerName{}, &locateError{table: "master", msg: err.Error()}
	}
	c.masterCache.mu.Lock()
	c.masterCache.server = sn
	c.masterCache.mu.Unlock()
	return sn, nil
}

func (c *Client) forgetMaster(sn ServerName) {
	c.masterCache.mu.Lock()
	if c.masterCache.server == sn {
		c.masterCache.server = ServerName{}
	}
	c.masterCache.mu.Unlock()
}

// masterCall runs one MasterService call with retries. On a connection
// failure or a stopped master the znode is read again, so a failover to a
// backup master is followed.
func (c *Client) masterCall(ctx context.Context, what, method string, req, resp proto.Message) error {
	var cur ServerName
	return c.retryLoop(ctx, what, func(int) error {
		sn, err := c.master(ctx)
		if err != nil {
			return err
		}
		cur = sn
		if _, err := c.rpc(ctx, sn, MasterService, method, req, nil, resp); err != nil {
			return fmt.Errorf("%s: master %s: %w", what, sn.Addr(), err)
		}
		return nil
	}, func(error) { c.forgetMaster(cur) })
}

// ListNamespaces returns the names of all namespaces, sorted.
func (c *Client) ListNamespaces(ctx context.Context) ([]string, error) {
	var resp pb.ListNamespaceDescriptorsResponse
	if err := c.masterCall(ctx, "list namespaces", "ListNamespaceDescriptors", &pb.ListNamespaceDescriptorsRequest{}, &resp); err != nil {
		return nil, err
	}
	var out []string
	for _, ns := range resp.GetNamespaceDescriptor() {
		out = append(out, string(ns.GetName()))
	}
	sort.Strings(out)
	return out, nil
}

// CreateNamespace creates a namespace and waits until the master's procedure
// is done. It reports whether it made it: a namespace that exists already
// (made meanwhile by someone else, say) is not an error.
func (c *Client) CreateNamespace(ctx context.Context, name string) (bool, error) {
	what := "create namespace " + name
	req := &pb.CreateNamespaceRequest{NamespaceDescriptor: &pb.NamespaceDescriptor{Name: []byte(name)},
		NonceGroup: proto.Uint64(nonce()), Nonce: proto.Uint64(nonce())}
	var resp pb.CreateNamespaceResponse
	err := c.masterCall(ctx, what, "CreateNamespace", req, &resp)
	if err == nil && resp.GetProcId() > 0 {
		err = c.waitProcedure(ctx, what, resp.GetProcId())
	}
	var re *RemoteError
	if errors.As(err, &re) && re.Class == "org.apache.hadoop.hbase.NamespaceExistException" {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	return true, nil
}

// ListTables returns the tables of a namespace ("" for all user tables),
// sorted, as "namespace:table" outside the default namespace.
func (c *Client) ListTables(ctx context.Context, namespace string) ([]string, error) {
	req := &pb.GetTableNamesRequest{IncludeSysTables: proto.Bool(namespace == "hbase")}
	if namespace != "" {
		req.Namespace = proto.String(namespace)
	}
	var resp pb.GetTableNamesResponse
	if err := c.masterCall(ctx, "list tables of namespace "+namespace, "GetTableNames", req, &resp); err != nil {
		return nil, err
	}
	var out []string
	for _, tn := range resp.GetTableNames() {
		out = append(out, tableNameString(tn))
	}
	sort.Strings(out)
	return out, nil
}

// FamilyDescriptor is a column family's schema. Zero values mean HBase's
// defaults when creating a table; TableDescriptor fills in the defaults.
type FamilyDescriptor struct {
	Name              string
	MaxVersions       int    // VERSIONS, default 1
	MinVersions       int    // MIN_VERSIONS, default 0
	TTL               int    // seconds; 0 (or 2147483647, FOREVER) means no expiry
	Compression       string // NONE, GZ, SNAPPY, LZ4, ZSTD, ...
	DataBlockEncoding string // NONE, PREFIX, DIFF, FAST_DIFF, ROW_INDEX_V1
	BloomFilter       string // NONE, ROW, ROWCOL, ROWPREFIX_FIXED_LENGTH
	BlockSize         int    // bytes, default 65536
	KeepDeletedCells  string // FALSE, TRUE, TTL
	InMemory          bool
	ReplicationScope  int
	// Attributes holds every attribute as the master sent it, including
	// the ones above when they were set explicitly.
	Attributes map[string]string
	// Configuration holds the family's configuration overrides.
	Configuration map[string]string
}

// TableDescriptor is a table's schema.
type TableDescriptor struct {
	Name       string
	Families   []FamilyDescriptor
	Attributes map[string]string
}

// Family returns the family of that name, or nil.
func (d *TableDescriptor) Family(name string) *FamilyDescriptor {
	for i := range d.Families {
		if d.Families[i].Name == name {
			return &d.Families[i]
		}
	}
	return nil
}

const forever = 2147483647 // HConstants.FOREVER

func familyFromPB(cf *pb.ColumnFamilySchema) (FamilyDescriptor, error) {
	f := FamilyDescriptor{
		Name: string(cf.GetName()), MaxVersions: 1, Compression: "NONE", DataBlockEncoding: "NONE",
		BloomFilter: "ROW", BlockSize: 65536, KeepDeletedCells: "FALSE",
		Attributes: map[string]string{}, Configuration: map[string]string{},
	}
	for _, a := range cf.GetAttributes() {
		f.Attributes[string(a.GetFirst())] = string(a.GetSecond())
	}
	for _, a := range cf.GetConfiguration() {
		f.Configuration[a.GetName()] = a.GetValue()
	}
	atoi := func(key string, dst *int) error {
		v, ok := f.Attributes[key]
		if !ok {
			return nil
		}
		n, err := strconv.Atoi(strings.TrimSpace(v))
		if err != nil {
			return fmt.Errorf("family %s: attribute %s=%q: %w", f.Name, key, v, err)
		}
		*dst = n
		return nil
	}
	for key, dst := range map[string]*int{"VERSIONS": &f.MaxVersions, "MIN_VERSIONS": &f.MinVersions, "TTL": &f.TTL,
		"BLOCKSIZE": &f.BlockSize, "REPLICATION_SCOPE": &f.ReplicationScope} {
		if err := atoi(key, dst); err != nil {
			return f, err
		}
	}
	if f.TTL == forever {
		f.TTL = 0
	}
	for key, dst := range map[string]*string{"COMPRESSION": &f.Compression, "DATA_BLOCK_ENCODING": &f.DataBlockEncoding,
		"BLOOMFILTER": &f.BloomFilter, "KEEP_DELETED_CELLS": &f.KeepDeletedCells} {
		if v, ok := f.Attributes[key]; ok {
			*dst = strings.ToUpper(v)
		}
	}
	f.InMemory = strings.EqualFold(f.Attributes["IN_MEMORY"], "true")
	return f, nil
}

func familyToPB(f FamilyDescriptor) *pb.ColumnFamilySchema {
	attrs := map[string]string{}
	for k, v := range f.Attributes {
		attrs[k] = v
	}
	set := func(k, v string, isDefault bool) {
		if !isDefault {
			attrs[k] = v
		}
	}
	set("VERSIONS", strconv.Itoa(f.MaxVersions), f.MaxVersions == 0)
	set("MIN_VERSIONS", strconv.Itoa(f.MinVersions), f.MinVersions == 0)
	set("TTL", strconv.Itoa(f.TTL), f.TTL == 0)
	set("COMPRESSION", f.Compression, f.Compression == "")
	set("DATA_BLOCK_ENCODING", f.DataBlockEncoding, f.DataBlockEncoding == "")
	set("BLOOMFILTER", f.BloomFilter, f.BloomFilter == "")
	set("BLOCKSIZE", strconv.Itoa(f.BlockSize), f.BlockSize == 0)
	set("KEEP_DELETED_CELLS", f.KeepDeletedCells, f.KeepDeletedCells == "")
	set("IN_MEMORY", "true", !f.InMemory)
	set("REPLICATION_SCOPE", strconv.Itoa(f.ReplicationScope), f.ReplicationScope == 0)
	cf := &pb.ColumnFamilySchema{Name: []byte(f.Name)}
	keys := make([]string, 0, len(attrs))
	for k := range attrs {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		cf.Attributes = append(cf.Attributes, &pb.BytesBytesPair{First: []byte(k), Second: []byte(attrs[k])})
	}
	for k, v := range f.Configuration {
		cf.Configuration = append(cf.Configuration, &pb.NameStringPair{Name: proto.String(k), Value: proto.String(v)})
	}
	return cf
}

// TableDescriptor returns the schema of table.
func (c *Client) TableDescriptor(ctx context.Context, table string) (*TableDescriptor, error) {
	req := &pb.GetTableDescriptorsRequest{TableNames: []*pb.TableName{tableNamePB(table)}, IncludeSysTables: proto.Bool(true)}
	var resp pb.GetTableDescriptorsResponse
	if err := c.masterCall(ctx, "describe table "+table, "GetTableDescriptors", req, &resp); err != nil {
		return nil, err
	}
	for _, ts := range resp.GetTableSchema() {
		if tableNameString(ts.GetTableName()) != table {
			continue
		}
		d := &TableDescriptor{Name: table, Attributes: map[string]string{}}
		for _, a := range ts.GetAttributes() {
			d.Attributes[string(a.GetFirst())] = string(a.GetSecond())
		}
		for _, cf := range ts.GetColumnFamilies() {
			f, err := familyFromPB(cf)
			if err != nil {
				return nil, fmt.Errorf("describe table %s: %w", table, err)
			}
			d.Families = append(d.Families, f)
		}
		return d, nil
	}
	return nil, &NotFoundError{Kind: KindTableNotFound, What: "table", Name: table}
}

// waitProcedure polls GetProcedureResult until the master's procedure ends.
func (c *Client) waitProcedure(ctx context.Context, what string, procID uint64) error {
	for attempt := 0; ; attempt++ {
		// The RPC is spelt in lower camel case in HBase's MasterService.
		var resp pb.GetProcedureResultResponse
		req := &pb.GetProcedureResultRequest{ProcId: proto.Uint64(procID)}
		if err := c.masterCall(ctx, fmt.Sprintf("%s: result of procedure %d", what, procID), "getProcedureResult", req, &resp); err != nil {
			return err
		}
		switch resp.GetState() {
		case pb.GetProcedureResultResponse_FINISHED:
			if ex := resp.GetException(); ex != nil {
				ge := ex.GetGenericException()
				re := &RemoteError{Class: ge.GetClassName(), Message: ge.GetMessage(), Kind: KindOf(ge.GetClassName()), Method: "GetProcedureResult", DoNotRetry: true}
				if re.Message == "" {
					re.Message = ex.GetSource()
				}
				return fmt.Errorf("%s: procedure %d failed: %w", what, procID, re)
			}
			return nil
		case pb.GetProcedureResultResponse_NOT_FOUND:
			return fmt.Errorf("%s: procedure %d not found on the master", what, procID)
		}
		if err := retry.Sleep(ctx, c.procedurePoll(attempt)); err != nil {
			return fmt.Errorf("%s: waiting for procedure %d: %w", what, procID, err)
		}
	}
}

// maxProcedurePoll bounds the wait between two looks at a master procedure (or a snapshot):
// most take a second or two (a flush snapshot, a table's creation), and a look is a cheap
// call, so the caller hears of the end within a quarter of a second rather than up to the
// client's longest backoff after it.
const maxProcedurePoll = 250 * time.Millisecond

// procedurePoll is the wait before the look after attempt at a master procedure.
func (c *Client) procedurePoll(attempt int) time.Duration {
	return min(c.cfg.Backoff.Delay(min(attempt, 4)), maxProcedurePoll)
}

// CreateTable creates a table pre-split at splits and waits until the
// master's procedure is done.
func (c *Client) CreateTable(ctx context.Context, d TableDescriptor, splits [][]byte) error {
	if len(d.Families) == 0 {
		return fmt.Errorf("create table %s: no column families", d.Name)
	}
	schema := &pb.TableSchema{TableName: tableNamePB(d.Name)}
	for k, v := range d.Attributes {
		schema.Attributes = append(schema.Attributes, &pb.BytesBytesPair{First: []byte(k), Second: []byte(v)})
	}
	for _, f := range d.Families {
		schema.ColumnFamilies = append(schema.ColumnFamilies, familyToPB(f))
	}
	req := &pb.CreateTableRequest{TableSchema: schema, SplitKeys: splits}
	var resp pb.CreateTableResponse
	if err := c.masterCall(ctx, "create table "+d.Name, "CreateTable", req, &resp); err != nil {
		return err
	}
	return c.waitProcedure(ctx, "create table "+d.Name, resp.GetProcId())
}

// DisableTable disables a table and waits until it is disabled.
func (c *Client) DisableTable(ctx context.Context, table string) error {
	var resp pb.DisableTableResponse
	if err := c.masterCall(ctx, "disable table "+table, "DisableTable", &pb.DisableTableRequest{TableName: tableNamePB(table)}, &resp); err != nil {
		return err
	}
	c.cache.removeTable(table)
	return c.waitProcedure(ctx, "disable table "+table, resp.GetProcId())
}

// EnableTable enables a table and waits until it is enabled.
func (c *Client) EnableTable(ctx context.Context, table string) error {
	var resp pb.EnableTableResponse
	if err := c.masterCall(ctx, "enable table "+table, "EnableTable", &pb.EnableTableRequest{TableName: tableNamePB(table)}, &resp); err != nil {
		return err
	}
	return c.waitProcedure(ctx, "enable table "+table, resp.GetProcId())
}

// DeleteTable deletes a disabled table and waits until it is gone.
func (c *Client) DeleteTable(ctx context.Context, table string) error {
	var resp pb.DeleteTableResponse
	if err := c.masterCall(ctx, "delete table "+table, "DeleteTable", &pb.DeleteTableRequest{TableName: tableNamePB(table)}, &resp); err != nil {
		return err
	}
	c.cache.removeTable(table)
	return c.waitProcedure(ctx, "delete table "+table, resp.GetProcId())
}

// RegionServers lists the live region servers, from ZooKeeper's rs znode.
func (c *Client) RegionServers(ctx context.Context) ([]ServerName, error) {
	names, err := c.zk.children(ctx, "rs")
	if err != nil {
		return nil, fmt.Errorf("list region servers: %w", err)
	}
	var out []ServerName
	for _, n := range names {
		sn, err := ParseServerName(n)
		if err != nil {
			return nil, fmt.Errorf("list region servers: %w", err)
		}
		out = append(out, sn)
	}
	return out, nil
}

// FlushRegion flushes one region's memstores to HFiles on its region server
// (AdminService FlushRegion). It reports whether anything was flushed.
func (c *Client) FlushRegion(ctx context.Context, r *Region) (bool, error) {
	res, err := c.flushRegion(ctx, r, false)
	return res.Flushed, err
}

// FlushResult is a region server's answer to a flush that asked it to say
// when there was nothing to flush (Client.Flush).
type FlushResult struct {
	// Flushed: the region's memstores were written to new store files.
	Flushed bool
	// Empty: there was nothing to flush; the server wrote a flush marker to
	// its WAL to say so.
	Empty bool
	// LastFlush is when the region's least recently flushed store was
	// flushed last.
	LastFlush time.Time
}

// Settled reports whether every edit the region held when the flush was
// asked for is now in its store files: the flush ran, or there was nothing
// to flush. Neither means the server was flushing the region already (a
// flush that may have begun before those edits) or refuses to write to it
// (closing, read-only): asking again later may settle it.
func (r FlushResult) Settled() bool { return r.Flushed || r.Empty }

// Flush flushes one region's memstores and says whether that settled them
// (FlushResult.Settled). It asks the server to write a flush marker to its
// WAL when there is nothing to flush, as HBase's region replicas do: that is
// the one answer that tells an empty memstore from a flush already under way,
// which FlushRegion's answer does not.
func (c *Client) Flush(ctx context.Context, r *Region) (FlushResult, error) {
	return c.flushRegion(ctx, r, true)
}

func (c *Client) flushRegion(ctx context.Context, r *Region, marker bool) (FlushResult, error) {
	var res FlushResult
	err := c.retryLoop(ctx, "flush region "+r.String(), func(attempt int) error {
		target, err := c.relocated(ctx, r, attempt, "flush")
		if err != nil {
			return err
		}
		var resp pb.FlushRegionResponse
		req := &pb.FlushRegionRequest{Region: target.specifier()}
		if marker {
			req.WriteFlushWalMarker = proto.Bool(true)
		}
		if _, err := c.rpc(ctx, target.Server, AdminService, "FlushRegion", req, nil, &resp); err != nil {
			c.invalidate(target, err)
			return fmt.Errorf("flush region %s on %s: %w", target, target.Server.Addr(), err)
		}
		res = FlushResult{Flushed: resp.GetFlushed(), Empty: !resp.GetFlushed() && resp.GetWroteFlushWalMarker(),
			LastFlush: time.UnixMilli(int64(resp.GetLastFlushTime()))}
		return nil
	}, nil)
	return res, err
}

// StoreFiles lists the store files a region's server has open for it, every
// family's (AdminService GetStoreFile), as the paths the server gives: full
// URIs of plain HFiles, references and HFileLinks in the region's family
// folders. It is the server's own list, so it is right under any store file
// tracker, where listing the folders is not.
func (c *Client) StoreFiles(ctx context.Context, r *Region) ([]string, error) {
	var files []string
	err := c.retryLoop(ctx, "store files of region "+r.String(), func(attempt int) error {
		target, err := c.relocated(ctx, r, attempt, "list the store files of")
		if err != nil {
			return err
		}
		var resp pb.GetStoreFileResponse
		req := &pb.GetStoreFileRequest{Region: target.specifier()}
		if _, err := c.rpc(ctx, target.Server, AdminService, "GetStoreFile", req, nil, &resp); err != nil {
			c.invalidate(target, err)
			return fmt.Errorf("store files of region %s on %s: %w", target, target.Server.Addr(), err)
		}
		files = resp.GetStoreFile()
		return nil
	}, nil)
	return files, err
}

// relocated is r on its first attempt and, on a later one, where r is now:
// the region may have moved. A region of another name holding r's start key
// means r split or merged: that is errRegionGone, which ends the retries.
func (c *Client) relocated(ctx context.Context, r *Region, attempt int, what string) (*Region, error) {
	if attempt == 0 {
		return r, nil
	}
	loc, err := c.locate(ctx, r.Table, r.StartKey)
	if err != nil {
		return nil, err
	}
	if string(loc.Name) != string(r.Name) {
		return nil, fmt.Errorf("%s region %s: %w", what, r, errRegionGone)
	}
	return loc, nil
}

// errRegionGone reports a region that no longer exists (split or merged).
var errRegionGone = errors.New("region no longer exists (split or merged)")

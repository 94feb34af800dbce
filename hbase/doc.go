// Package hbase is rangecopy's own HBase RPC client.
//
// It speaks HBase's protobuf RPC protocol (connection preamble, varint
// delimited request and response headers, KeyValueCodec cell blocks) over one
// multiplexed TCP connection per server and service, finds hbase:meta and the
// active master through ZooKeeper, locates regions with hbase:meta lookups and
// caches them, and offers data operations (Get, Put, Delete, batches, Scan),
// admin operations (tables, namespaces, snapshots, flush) and the bulk load
// RPCs.
//
// A Client is created with Dial and is safe for concurrent use. Every call
// that does I/O takes a context.Context first; its deadline bounds the call
// and is sent to the server as the call timeout.
package hbase

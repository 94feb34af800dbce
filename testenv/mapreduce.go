package testenv

import "context"

// HashTable runs HBase's own HashTable (org.apache.hadoop.hbase.mapreduce.HashTable)
// against this cluster in the harness JVM, with the local MapReduce runner:
// args are its command line, options first, then the table and the output
// folder (a file:// path is on this machine's disk). A tool that ran and
// failed is a non-zero exit code, not an error.
func (c *Cluster) HashTable(ctx context.Context, args []string) (int, error) {
	if args == nil {
		args = []string{}
	}
	var r struct {
		ExitCode int `json:"exitCode"`
	}
	err := c.ctl.do(ctx, "mapreduce/hashtable", c.Name, map[string]any{"args": args}, &r)
	return r.ExitCode, err
}

// SyncTableResult is what HBase's SyncTable reports: its exit code and its
// job's counters by name (BATCHES, HASHES_MATCHED, HASHES_NOT_MATCHED,
// SOURCEMISSINGCELLS, TARGETMISSINGCELLS, DIFFERENTCELLVALUES, ...); a
// counter never incremented is absent, which reads as 0.
type SyncTableResult struct {
	ExitCode int              `json:"exitCode"`
	Counters map[string]int64 `json:"counters"`
}

// SyncTable runs HBase's own SyncTable (org.apache.hadoop.hbase.mapreduce.SyncTable)
// with this cluster as the target, in the harness JVM with the local
// MapReduce runner. args are its command line without --sourcezkcluster,
// which is source's cluster key (the source may run in another JVM; the job
// reaches it over loopback): options (say "--dryrun"), then the hash
// folder, the source table and the target table.
func (c *Cluster) SyncTable(ctx context.Context, source *Cluster, args []string) (SyncTableResult, error) {
	if args == nil {
		args = []string{}
	}
	var r SyncTableResult
	err := c.ctl.do(ctx, "mapreduce/synctable", c.Name, map[string]any{"args": args,
		"sourceCluster": source.Name, "sourceClusterKey": source.ClusterKey}, &r)
	return r, err
}

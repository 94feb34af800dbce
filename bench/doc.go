// Package bench measures rangecopy against the other ways of moving an HBase
// table between clusters, side by side on the same data and the same machine
// in one run: the raw HDFS byte-copy limit, ExportSnapshot followed by a
// clone, CopyTable, a scan+put copy through our hbase client, and rangecopy
// itself (whole table, a key range, an incremental time range, and a
// bandwidth-limited copy).
//
// The pure parts (latency histograms, ratios, the aims, the markdown table,
// the JSON record and the PNG chart) are plain functions of a Run. The I/O
// lives in thin executors (Dataset, Workload, the Method runners) driven by
// bench/cmd/bench, which `make bench` runs.
package bench

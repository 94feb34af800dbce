// Package verify compares a range of a table on two clusters by reading
// HFiles, not region servers: both tables are pinned by snapshots, both
// sides' store files are read straight from their HDFS with our HFile
// reader, each side is merged the way HBase's store scanners merge it, and
// the two are compared (docs/design.md, "Verification").
//
// The pure parts are apart from the I/O:
//
//   - merge.go: the k-way merge of one region's files in key order, keeping
//     one cell per key as HBase serves it (larger sequence id, then the
//     newer file);
//   - visible.go: HBase's read semantics on a merged stream (delete markers
//     of every kind, VERSIONS, MIN_VERSIONS and TTL), for Visible mode;
//   - batch.go: row-aligned batches, their length-framed SHA-256 hashes and
//     the comparison of two batch lists;
//   - diff.go: the cell-by-cell difference of two streams;
//   - report.go: the report and its text and JSON renderings.
//
// verify.go is the executor: pin, plan batches, hash both sides in
// parallel, re-read only the batches whose hashes differ to list the
// differing cells.
package verify

// Package hashtable reads and writes the output of HBase's HashTable tool
// (org.apache.hadoop.hbase.mapreduce.HashTable), so that rangecopy's own
// reads can be checked with HBase's SyncTable and HBase's HashTable output
// can be checked against our reads (docs/design.md, "Verification").
//
// A HashTable output folder holds:
//
//   - manifest: a java.util.Properties file (properties.go) naming the table,
//     the scan (rows, times, versions, families, raw) and numHashFiles;
//   - partitions: a SequenceFile of ImmutableBytesWritable keys and
//     NullWritable values (seqfile.go), the sorted row keys that part the
//     hashes into numHashFiles files;
//   - hashes/part-r-NNNNN: MapFiles (mapfile.go: a SequenceFile "data" and
//     its "index" of key to LongWritable offset) from a batch's first row to
//     the 16-byte MD5 of its cells (hash.go), one per partition interval.
//
// Every reader takes untrusted bytes: a malformed file is an error wrapping
// ErrFormat (or ErrUnsupported) that names the file and the offset, never a
// panic, and no length read from a file is allocated before it is checked
// against the bytes that remain.
package hashtable

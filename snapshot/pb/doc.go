// Package pb holds the generated Go code for the parts of HBase's snapshot
// protobufs (SnapshotDescription, SnapshotDataManifest and what they embed)
// that rangecopy reads. Regenerate with generate.sh.
package pb

// Package job holds the pure decisions of a copy job: what an operator asked
// for (Spec) and whether it makes sense, row and time ranges and how they
// intersect, and planning a pinned table (its regions and their store files)
// into tasks. Nothing here does I/O; callers bring the facts (regions from
// hbase:meta or a snapshot manifest, file sizes, time ranges and index keys
// from HFiles) and get values back.
package job

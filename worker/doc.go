// Package worker runs the copy pipeline of one task (docs/design.md, "The data
// path of one task", steps 2 to 5, and "The fast-path rule"): it reads the
// task's source HFiles, merges and filters them per column family, and writes
// new HFiles laid out for the target's regions into the target file system,
// handing each finished file to a callback that bulk loads it and advances the
// checkpoint. Serve and RunAgent add the claim, the fenced load and the
// checkpoint around it (steps 1 and 6 to 8).
//
// # Pipeline
//
// Per family, in the order of the family names:
//
//	input goroutine per file:  read-ahead ReaderAt -> hfile.Scanner -> batches of cloned cells
//	                              (bounded channel, recycled batches)
//	family goroutine:          k-way merge -> dedupe -> key/time filter -> roll -> hfile.Writer
//	                              (bounded channel of byte chunks)
//	writer goroutine:          output file on the target
//
// Files that qualify for the fast path (see FastPathRule) are copied byte for
// byte between the decoded output files, in key order.
//
// Around the pipeline, a served task goes from its claim to its loaded,
// checkpointed files in the named steps listed in task.go: serveClaim,
// readClaimed, planOutputs, Run, written, load, checkpoint.
//
// # Identical keys
//
// The merge keeps exactly one cell per key, the one HBase serves: the larger
// sequence id, then the newer store file (storeread.Merged over the decoded
// inputs ordered newest first by storeread.CompareAge; the package comment
// of storeread has the rules). Every version and every delete marker is
// kept.
//
// # Sequence ids and tags in output files
//
// A bulk-loaded file gets a sequence id from the region server, which stamps
// it on every cell of the file (hfile reference §8.3), so output files carry
// no per-cell MVCC. Tags are carried as they are when any input of the family
// has them.
//
// # Memory
//
// For a family with k inputs the pipeline holds
// k × (2 × read-ahead + 3 × batch + 3 blocks) + 3 × writeChunk + one
// hfile.Writer (its current block, block index and bloom chunk), independent
// of the size of the table. memory.PlanTask sizes read-ahead (256 KiB to
// 8 MiB) and batches (64 KiB to 1 MiB) so that this fits the task's share of
// the worker's memory.Budget (Options.Memory over Options.MemorySlots), and
// the task reserves it before opening its inputs. A block, batch or writer
// block that grows past the plan for a large cell reserves its growth from
// the budget (hfile.ScanOptions.Reserve for the scanner). A fast-path copy
// uses the read-ahead and output allowance of the plan. Each input's
// read-ahead is confined to the blocks the task's rows need
// (hfile.Reader.Extent, fsys.ReadAhead.SetWindow).
package worker

package worker

import (
	"context"
	"sync/atomic"

	"rangecopy/bulkload"
	"rangecopy/hfile"
	"rangecopy/job"
)

// Input is one input file of a task and how to open it.
type Input struct {
	// File is the store file as the plan names it (family, first and last
	// rows, time range).
	File job.StoreFile
	// Path is the resolved path of the HFile on the source (for a reference,
	// the parent file's path).
	Path string
	// Reference, if set, selects the half of the parent file at Path that
	// the task's region owns.
	Reference *hfile.Reference
}

// FamilySettings are the target family's storage settings, written into every
// output file of the family; bulkload.SettingsFor derives them from the
// family's descriptor, for copied files and re-split parts alike.
type FamilySettings = bulkload.FamilySettings

// OutputFile is a finished output file of a family, or the end of a family.
type OutputFile struct {
	Family string
	// Path is the file's path on the target. It is empty in the one
	// OutputFile with Last set that ends every family.
	Path string
	// FirstRow and LastRow are the rows of the first and last cells.
	FirstRow, LastRow []byte
	// TargetRegion is the encoded name of the target region that holds
	// every row of the file.
	TargetRegion string
	// Cells and Bytes count the file's cells and its size in bytes.
	Cells, Bytes int64
	// NextRow is the checkpoint mark once this file (and every earlier one of
	// the family) is loaded: the smallest row after LastRow.
	NextRow []byte
	// FastPath says the file is a verified byte-for-byte copy of an input.
	FastPath bool
	// Last marks the end of the family: no file follows, the family's range
	// is complete once every earlier file is loaded.
	Last bool
}

// EmitFunc receives each finished output file, in key order per family. The
// pipeline waits for it to return; an error stops the task. A file handed to
// EmitFunc belongs to the caller (to load, or to remove): the pipeline does not
// touch it again.
type EmitFunc func(ctx context.Context, f OutputFile) error

// Counters are the task's progress, safe to read while the task runs.
type Counters struct {
	// BytesRead counts bytes read from source files (decode and fast path).
	BytesRead atomic.Int64
	// CellsRead counts cells decoded from inputs; CellsWritten cells written
	// to output files (after dedupe and filtering).
	CellsRead, CellsWritten atomic.Int64
	// FilesWritten and BytesWritten count emitted output files and their
	// bytes; FastFiles the files among them copied by the fast path.
	FilesWritten, BytesWritten, FastFiles atomic.Int64
}

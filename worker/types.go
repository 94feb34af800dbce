package worker

import (
	"context"
	"io"
	"sync/atomic"

	"rangecopy/bulkload"
	"rangecopy/hfile"
	"rangecopy/job"
)

// File is an open file: random reads and Close.
type File interface {
	io.ReaderAt
	io.Closer
}

// Opener opens files for reading: the source HDFS in production, local files
// in tests.
type Opener interface {
	// Open opens the file at path and returns it with its size.
	Open(ctx context.Context, path string) (File, int64, error)
}

// Creator creates output files on the target and reads them back.
type Creator interface {
	Opener
	// MkdirAll creates a folder and its parents.
	MkdirAll(ctx context.Context, dir string) error
	// Create creates a new file at path; it fails if the file exists. The
	// file is complete only when Close returns nil.
	Create(ctx context.Context, path string) (io.WriteCloser, error)
	// Rename moves a file to a new name.
	Rename(ctx context.Context, from, to string) error
	// Remove deletes a file; a missing file is not an error.
	Remove(ctx context.Context, path string) error
}

// Checksummer is implemented by file systems that can checksum a file where
// it is stored, without sending its bytes: HDFS's MD5 of the MD5s of each
// block's CRC-32Cs, as the DataNodes compute it from the checksums they keep.
// Two such checksums agree only for the same bytes cut into the same blocks,
// so a copy is created with its source's block size.
type Checksummer interface {
	// FileChecksum returns the file's checksum and block size.
	FileChecksum(ctx context.Context, path string) (FileChecksum, error)
}

// BlockSizeCreator is a Creator that can create a file with a given block
// size, so that its Checksummer checksum compares with its source's.
type BlockSizeCreator interface {
	Checksummer
	// CreateBlockSize is Create with the given block size.
	CreateBlockSize(ctx context.Context, path string, blockSize int64) (io.WriteCloser, error)
}

// FileChecksum is a file's checksum as a Checksummer computes it.
type FileChecksum struct {
	// BlockSize is the file's block size, which the checksum depends on.
	BlockSize int64
	// Sum is the checksum; files are equal when their sums and block sizes
	// are (and, for HDFS, their bytes per CRC, which a mismatch reveals).
	Sum []byte
}

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

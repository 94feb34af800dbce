package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"path"
	"sync/atomic"

	"golang.org/x/sync/errgroup"

	"rangecopy/fsys"
	"rangecopy/hbase"
)

// The copiers below run in a child process of the benchmark (bench/cmd/bench
// "child" mode), so that their peak RSS is their own and the Get workload in
// the parent does not share their heap or CPU accounting. A child reads its
// spec as JSON on stdin and writes a ChildResult as JSON on stdout.

// RawFile is one file for the raw copier.
type RawFile struct {
	Path string `json:"path"`
	Size int64  `json:"size"`
}

// RawCopySpec asks for a byte copy of Files from one HDFS to another: the
// raw limit of moving a snapshot's bytes.
type RawCopySpec struct {
	SourceNameNode string    `json:"sourceNameNode"`
	TargetNameNode string    `json:"targetNameNode"`
	User           string    `json:"user"`
	Files          []RawFile `json:"files"`
	// TargetDir receives the files, named by their index.
	TargetDir string `json:"targetDir"`
	Parallel  int    `json:"parallel"`
}

// ScanPutSpec asks for a cell-by-cell copy of a table through our hbase
// client: scan the source range by range, put the cells (same timestamps)
// into the target in batches.
type ScanPutSpec struct {
	SourceZK    []string `json:"sourceZk"`
	SourceZNode string   `json:"sourceZnode"`
	TargetZK    []string `json:"targetZk"`
	TargetZNode string   `json:"targetZnode"`
	Table       string   `json:"table"`
	TargetTable string   `json:"targetTable"`
	// Ranges are scanned in parallel, Parallel at once (the source
	// regions' boundaries).
	Ranges   []KeyRange `json:"ranges"`
	Parallel int        `json:"parallel"`
	// BatchBytes is how many value bytes one Apply carries.
	BatchBytes int `json:"batchBytes"`
}

// KeyRange is [Start, Stop); nil ends are the table's ends.
type KeyRange struct {
	Start []byte `json:"start"`
	Stop  []byte `json:"stop"`
}

// ChildResult is what a child copier reports.
type ChildResult struct {
	Bytes int64 `json:"bytes"`
	Cells int64 `json:"cells"`
	Files int   `json:"files"`
}

// RunChild runs the child copier named kind ("raw-copy" or "scan-put") with
// the spec read from in, and writes its ChildResult to out.
func RunChild(ctx context.Context, kind string, in io.Reader, out io.Writer) error {
	var res ChildResult
	var err error
	switch kind {
	case "raw-copy":
		var s RawCopySpec
		if err := json.NewDecoder(in).Decode(&s); err != nil {
			return fmt.Errorf("child %s: decode spec: %w", kind, err)
		}
		res, err = RawCopy(ctx, s)
	case "scan-put":
		var s ScanPutSpec
		if err := json.NewDecoder(in).Decode(&s); err != nil {
			return fmt.Errorf("child %s: decode spec: %w", kind, err)
		}
		res, err = ScanPutCopy(ctx, s)
	default:
		return fmt.Errorf("child: unknown copier %q (known: raw-copy, scan-put)", kind)
	}
	if err != nil {
		return err
	}
	if err := json.NewEncoder(out).Encode(res); err != nil {
		return fmt.Errorf("child %s: write result: %w", kind, err)
	}
	return nil
}

// RawCopy copies the spec's files byte for byte, Parallel at once, each
// through one 4 MiB buffer: what any HDFS-to-HDFS copier (distcp,
// ExportSnapshot's mappers) must at least spend.
func RawCopy(ctx context.Context, s RawCopySpec) (ChildResult, error) {
	// fsys.OpenHDFS fetches the server defaults before the copies share
	// the clients (the client caches them lazily and without a lock).
	src, err := fsys.OpenHDFS([]string{s.SourceNameNode}, s.User, fsys.HDFSOptions{})
	if err != nil {
		return ChildResult{}, fmt.Errorf("raw copy: source: %w", err)
	}
	defer src.Close()
	dst, err := fsys.OpenHDFS([]string{s.TargetNameNode}, s.User, fsys.HDFSOptions{})
	if err != nil {
		return ChildResult{}, fmt.Errorf("raw copy: target: %w", err)
	}
	defer dst.Close()
	if err := dst.MkdirAll(ctx, s.TargetDir, 0o755); err != nil {
		return ChildResult{}, fmt.Errorf("raw copy: create %s: %w", s.TargetDir, err)
	}
	var copied atomic.Int64
	g, ctx := errgroup.WithContext(ctx)
	g.SetLimit(max(s.Parallel, 1))
	for i, f := range s.Files {
		g.Go(func() error {
			r, err := src.Open(ctx, f.Path)
			if err != nil {
				return fmt.Errorf("raw copy: open %s: %w", f.Path, err)
			}
			defer r.Close()
			name := path.Join(s.TargetDir, fmt.Sprintf("%06d", i))
			w, err := dst.Create(ctx, name, fsys.CreateOptions{})
			if err != nil {
				return fmt.Errorf("raw copy: create %s: %w", name, err)
			}
			n, err := io.CopyBuffer(w, io.NewSectionReader(r, 0, r.Size()), make([]byte, 4<<20))
			if err != nil {
				w.Close()
				return fmt.Errorf("raw copy: %s to %s: %w", f.Path, name, err)
			}
			if n != f.Size {
				w.Close()
				return fmt.Errorf("raw copy: %s: copied %d bytes, the snapshot says %d", f.Path, n, f.Size)
			}
			if err := w.Close(); err != nil {
				return fmt.Errorf("raw copy: %w", err)
			}
			copied.Add(n)
			return nil
		})
	}
	err = g.Wait()
	return ChildResult{Bytes: copied.Load(), Files: len(s.Files)}, err
}

// ScanPutCopy copies a table cell by cell through our hbase client.
func ScanPutCopy(ctx context.Context, s ScanPutSpec) (ChildResult, error) {
	src, err := hbase.Dial(ctx, hbase.Config{ZKQuorum: s.SourceZK, ZNodeParent: s.SourceZNode})
	if err != nil {
		return ChildResult{}, fmt.Errorf("scan+put: connect to source: %w", err)
	}
	defer src.Close()
	dst, err := hbase.Dial(ctx, hbase.Config{ZKQuorum: s.TargetZK, ZNodeParent: s.TargetZNode})
	if err != nil {
		return ChildResult{}, fmt.Errorf("scan+put: connect to target: %w", err)
	}
	defer dst.Close()
	batch := s.BatchBytes
	if batch <= 0 {
		batch = 4 << 20
	}
	var bytes, cells atomic.Int64
	g, ctx := errgroup.WithContext(ctx)
	g.SetLimit(max(s.Parallel, 1))
	for _, kr := range s.Ranges {
		g.Go(func() error {
			sc := src.Scan(s.Table, hbase.Scan{StartRow: kr.Start, StopRow: kr.Stop, Caching: 500, NoCacheBlocks: true})
			var muts []*hbase.Mutation
			size := 0
			flush := func() error {
				if len(muts) == 0 {
					return nil
				}
				if err := dst.Apply(ctx, s.TargetTable, muts); err != nil {
					return fmt.Errorf("scan+put: put %d rows into %s: %w", len(muts), s.TargetTable, err)
				}
				muts, size = muts[:0], 0
				return nil
			}
			for sc.Next(ctx) {
				res := sc.Result()
				m := hbase.NewPut(append([]byte(nil), res.Row...))
				for _, c := range res.Cells {
					m.Add(append([]byte(nil), c.Family...), append([]byte(nil), c.Qualifier...), c.Timestamp, append([]byte(nil), c.Value...))
					n := len(c.Row) + len(c.Family) + len(c.Qualifier) + len(c.Value) + 9
					size += n
					bytes.Add(int64(n))
					cells.Add(1)
				}
				muts = append(muts, m)
				if size >= batch {
					if err := flush(); err != nil {
						sc.Close(ctx)
						return err
					}
				}
			}
			if err := sc.Err(); err != nil {
				sc.Close(ctx)
				return fmt.Errorf("scan+put: scan %s [%q, %q): %w", s.Table, kr.Start, kr.Stop, err)
			}
			if err := sc.Close(ctx); err != nil {
				return fmt.Errorf("scan+put: close scanner of %s: %w", s.Table, err)
			}
			return flush()
		})
	}
	err = g.Wait()
	return ChildResult{Bytes: bytes.Load(), Cells: cells.Load()}, err
}

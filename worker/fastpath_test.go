package worker

import (
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"rangecopy/checkpoint"
	"rangecopy/fsys"
	"rangecopy/hfile"
	"rangecopy/job"
	"rangecopy/storeread"
)

func TestFastPathDecision(t *testing.T) {
	regions := []job.Region{
		{EncodedName: "r0", Rows: job.KeyRange{End: []byte("m")}},
		{EncodedName: "r1", Rows: job.KeyRange{Start: []byte("m")}},
	}
	file := func(first, last string) fileFacts {
		return fileFacts{FirstRow: []byte(first), LastRow: []byte(last), HasTime: true, MinTime: 10, MaxTime: 19}
	}
	older := func(first, last string) fileFacts {
		return fileFacts{FirstRow: []byte(first), LastRow: []byte(last), HasTime: true, MinTime: 10, MaxTime: 12}
	}
	newer := func(first, last string) fileFacts { // times apart from older's
		return fileFacts{FirstRow: []byte(first), LastRow: []byte(last), HasTime: true, MinTime: 15, MaxTime: 19}
	}
	seqIDs := func(first, last string) fileFacts { // a flush file's cells carry MVCC values
		f := file(first, last)
		f.NeedsSeqID = true
		return f
	}
	task := job.KeyRange{Start: []byte("b"), End: []byte("y")}
	times := job.TimeRange{Min: 10, Max: 20}
	tests := []struct {
		name   string
		facts  []fileFacts
		task   job.KeyRange
		resume string
		times  job.TimeRange
		want   FastPathRule
	}{
		{"alone and inside", []fileFacts{file("c", "d")}, task, "", times, FastPathOK},
		{"reference", []fileFacts{{Reference: true, FirstRow: []byte("c"), LastRow: []byte("d"), HasTime: true, MinTime: 10, MaxTime: 19}}, task, "", times, FastPathReference},
		{"empty", []fileFacts{{HasTime: true}}, task, "", times, FastPathEmpty},
		{"starts before task", []fileFacts{file("a", "d")}, task, "", times, FastPathOutsideTask},
		{"ends at task end (exclusive)", []fileFacts{file("c", "y")}, task, "", times, FastPathOutsideTask},
		{"ends just below task end", []fileFacts{file("c", "x\xff")}, job.KeyRange{Start: []byte("b"), End: []byte("y")}, "", times, FastPathRegions},
		{"below resume row", []fileFacts{file("c", "d")}, task, "c\x00", times, FastPathResumed},
		{"at resume row", []fileFacts{file("c", "d")}, task, "c", times, FastPathOK},
		{"no time range", []fileFacts{{FirstRow: []byte("c"), LastRow: []byte("d")}}, task, "", times, FastPathTime},
		{"time max at range end (exclusive)", []fileFacts{{FirstRow: []byte("c"), LastRow: []byte("d"), HasTime: true, MinTime: 10, MaxTime: 20}}, task, "", times, FastPathTime},
		{"time min below", []fileFacts{{FirstRow: []byte("c"), LastRow: []byte("d"), HasTime: true, MinTime: 9, MaxTime: 19}}, task, "", times, FastPathTime},
		{"all time", []fileFacts{{FirstRow: []byte("c"), LastRow: []byte("d"), HasTime: true, MinTime: 0, MaxTime: hfile.LatestTimestamp - 1}}, task, "", job.AllTime(), FastPathOK},
		{"crosses region boundary", []fileFacts{file("c", "m")}, task, "", times, FastPathRegions},
		{"last row just below boundary", []fileFacts{file("c", "l\xff")}, task, "", times, FastPathOK},
		{"overlaps another", []fileFacts{file("c", "f"), file("e", "g")}, task, "", times, FastPathOverlap},
		{"shares its last row", []fileFacts{file("c", "f"), file("f", "g")}, task, "", times, FastPathOverlap},
		{"shares its first row", []fileFacts{file("c", "f"), file("a", "c")}, task, "", times, FastPathOverlap},
		{"overlapping half file", []fileFacts{file("c", "f"), {Reference: true, FirstRow: []byte("d"), LastRow: []byte("d")}}, task, "", times, FastPathOverlap},
		{"disjoint other", []fileFacts{file("c", "f"), file("f\x00", "g")}, task, "", times, FastPathOK},
		{"overlaps one of other times", []fileFacts{older("c", "f"), newer("e", "g")}, task, "", times, FastPathOK},
		{"overlaps one of other times, both ways", []fileFacts{newer("e", "g"), older("c", "f")}, task, "", times, FastPathOK},
		{"overlaps one of other times that is decoded", []fileFacts{older("c", "f"), newer("e", "n")}, task, "", times, FastPathOverlap},
		{"times touch", []fileFacts{older("c", "f"), {FirstRow: []byte("e"), LastRow: []byte("g"), HasTime: true, MinTime: 12, MaxTime: 19}}, task, "", times, FastPathOverlap},
		{"apart from one, but that one overlaps a decoded file", []fileFacts{older("c", "f"), newer("e", "g"), newer("g", "h")}, task, "", times, FastPathOverlap},
		{"empty other", []fileFacts{file("c", "f"), {}}, task, "", times, FastPathOK},
		{"needs a sequence id, region beyond the task", []fileFacts{seqIDs("c", "f")}, task, "", times, FastPathSharedRegion},
		{"needs a sequence id, region inside the task", []fileFacts{seqIDs("c", "f")}, job.KeyRange{End: []byte("m")}, "", times, FastPathOK},
		{"needs a sequence id, last region inside the task", []fileFacts{seqIDs("n", "p")}, job.KeyRange{Start: []byte("m")}, "", times, FastPathOK},
		{"needs a sequence id, last region, task ends", []fileFacts{seqIDs("n", "p")}, job.KeyRange{Start: []byte("m"), End: []byte("z")}, "", times, FastPathSharedRegion},
		{"needs a sequence id, whole table", []fileFacts{seqIDs("c", "f")}, job.KeyRange{}, "", times, FastPathOK},
	}
	for _, tt := range tests {
		if got := fastPathDecision(tt.facts, 0, tt.task, []byte(tt.resume), tt.times, regions); got != tt.want {
			t.Errorf("%s: %v, want %v", tt.name, got, tt.want)
		}
	}
}

// TestNeedsSeqID tells apart the files whose cells hide if a region server
// loads them without a sequence id.
func TestNeedsSeqID(t *testing.T) {
	bulk := map[string][]byte{hfile.FileInfoBulkLoadTimestamp: make([]byte, 8)}
	tests := []struct {
		name string
		info hfile.FileInfo
		want bool
	}{
		{"flush file: MVCC values stored", hfile.FileInfo{IncludesMVCC: true, MaxMemstoreTS: 10, HasMaxSeqID: true, MaxSeqID: 11}, true},
		{"compacted file: MVCC values zeroed", hfile.FileInfo{IncludesMVCC: true, MaxMemstoreTS: 0, HasMaxSeqID: true, MaxSeqID: 11}, false},
		{"no MVCC values", hfile.FileInfo{HasMaxSeqID: true, MaxSeqID: 11}, false},
		{"bulk-load file with a sequence id of its own", hfile.FileInfo{Raw: bulk, HasMaxSeqID: true, MaxSeqID: 7}, true},
		{"bulk-load file, MAX_SEQ_ID_KEY 0 (as the worker writes)", hfile.FileInfo{Raw: bulk, HasMaxSeqID: true}, false},
		{"bulk-load file without MAX_SEQ_ID_KEY", hfile.FileInfo{Raw: bulk, IncludesMVCC: true, MaxMemstoreTS: 5}, false},
	}
	for _, tt := range tests {
		if got := needsSeqID(tt.info); got != tt.want {
			t.Errorf("%s: %v, want %v", tt.name, got, tt.want)
		}
	}
}

func TestRegionFor(t *testing.T) {
	regions := []job.Region{
		{Rows: job.KeyRange{End: []byte("b")}},
		{Rows: job.KeyRange{Start: []byte("b"), End: []byte("d")}},
		{Rows: job.KeyRange{Start: []byte("d")}},
	}
	for row, want := range map[string]int{"": 0, "a": 0, "a\xff": 0, "b": 1, "c": 1, "d": 2, "zz": 2} {
		if got := regionFor(regions, []byte(row)); got != want {
			t.Errorf("regionFor(%q) = %d, want %d", row, got, want)
		}
	}
	if got := regionFor(regions[1:2], []byte("a")); got != -1 {
		t.Errorf("row before every region: %d", got)
	}
	if got := regionFor(regions[1:2], []byte("e")); got != -1 {
		t.Errorf("row after every region: %d", got)
	}
}

// TestFastPathCopy copies a qualifying file byte for byte, between the
// decoded files of the family, in key order.
func TestFastPathCopy(t *testing.T) {
	dir := t.TempDir()
	before := writeHFile(t, dir, "before", hfile.WriterOptions{}, manyRows(10)[:30]) // rows r000..r004
	var mid []*hfile.Cell
	for _, c := range manyRows(20)[60:] { // rows r010..r019
		mid = append(mid, c)
	}
	fast := writeHFile(t, dir, "fast", hfile.WriterOptions{Encoding: hfile.EncodingFastDiff, Compression: hfile.CompressionGZ}, mid)
	after := writeHFile(t, dir, "after", hfile.WriterOptions{}, []*hfile.Cell{cell("s", "q", 1, hfile.TypePut, "s"), cell("t", "q", 1, hfile.TypePut, "t")})
	after2 := writeHFile(t, dir, "after2", hfile.WriterOptions{MaxSeqID: 9}, []*hfile.Cell{cell("s", "q", 1, hfile.TypePut, "s-new")})
	// before is partly outside the task, after and after2 overlap: only
	// fast qualifies.
	task := baseTask(t, input(after), input(fast), input(before), input(after2))
	task.Task.Rows.Start = []byte("r001")
	var ctr Counters
	c := run(t, task, Options{Counters: &ctr})
	files := c.dataFiles()
	if len(files) != 3 || files[0].FastPath || !files[1].FastPath || files[2].FastPath {
		t.Fatalf("emitted %+v, want decoded, fast, decoded", files)
	}
	src, _ := os.ReadFile(fast)
	dst, _ := os.ReadFile(files[1].Path)
	if !bytes.Equal(src, dst) || files[1].Bytes != int64(len(src)) || files[1].Cells != int64(len(mid)) {
		t.Fatalf("fast copy differs: %d bytes of %d, %d cells", len(dst), len(src), files[1].Cells)
	}
	if string(files[1].FirstRow) != "r010" || string(files[1].LastRow) != "r019" || string(files[1].NextRow) != "r019\x00" {
		t.Fatalf("fast file rows %q..%q next %q", files[1].FirstRow, files[1].LastRow, files[1].NextRow)
	}
	if ctr.FastFiles.Load() != 1 || ctr.FilesWritten.Load() != 3 {
		t.Errorf("counters: fast %d files %d", ctr.FastFiles.Load(), ctr.FilesWritten.Load())
	}
	if ctr.CellsWritten.Load() != 26 || ctr.CellsRead.Load() != 27 {
		t.Errorf("counters: cells read %d written %d, want 27 and 26 decoded", ctr.CellsRead.Load(), ctr.CellsWritten.Load())
	}
	all := append(append(readCells(t, files[0].Path), readCells(t, files[1].Path)...), readCells(t, files[2].Path)...)
	want := append(manyRows(10)[6:30:30], mid...)
	want = append(want, cell("s", "q", 1, hfile.TypePut, "s-new"), cell("t", "q", 1, hfile.TypePut, "t"))
	equalCells(t, "fast and decoded", all, want)
}

// corruptingFS flips a byte of every file it creates.
type corruptingFS struct{ fsys.Local }

func (c corruptingFS) Create(ctx context.Context, p string, o fsys.CreateOptions) (io.WriteCloser, error) {
	w, err := c.Local.Create(ctx, p, o)
	if err != nil {
		return nil, err
	}
	return &flipper{WriteCloser: w}, nil
}

type flipper struct {
	io.WriteCloser
	n int
}

func (f *flipper) Write(p []byte) (int, error) {
	if f.n <= 100 && f.n+len(p) > 100 {
		q := bytes.Clone(p)
		q[100-f.n] ^= 0x20
		p = q
	}
	f.n += len(p)
	return f.WriteCloser.Write(p)
}

// TestFastPathCorruptCopy checks that a copy that differs from its source on
// the target is detected, not emitted, and removed.
func TestFastPathCorruptCopy(t *testing.T) {
	dir := t.TempDir()
	p := writeHFile(t, dir, "in", hfile.WriterOptions{}, manyRows(5))
	task := baseTask(t, input(p))
	c := &collector{}
	err := Run(t.Context(), task, Options{Source: fsys.Local{}, Target: corruptingFS{}}, c.emit)
	if !errors.Is(err, ErrCopyMismatch) || !bytes.Contains([]byte(err.Error()), []byte(p)) {
		t.Fatalf("Run = %v, want a copy mismatch naming %s", err, p)
	}
	if len(c.files) != 0 {
		t.Fatalf("emitted %+v", c.files)
	}
	left, _ := filepath.Glob(filepath.Join(task.OutputDir, "f", "*"))
	if len(left) != 0 {
		t.Fatalf("files left: %v", left)
	}
	// A clean target takes the same file through the fast path.
	c2 := run(t, task, Options{})
	if f := c2.dataFiles(); len(f) != 1 || !f[0].FastPath {
		t.Fatalf("clean run: %+v", f)
	}
}

// sumFS is an fsys.Local that checksums files where they are (a SHA-256 of the
// contents, with a block size), as HDFS does, and counts read-backs of
// temporary copies. With corrupt, it flips a byte of every file it creates.
type sumFS struct {
	fsys.Local
	blockSize int64
	corrupt   bool
	created   map[string]int64 // path -> block size asked for
	readBacks *int
}

func newSumFS(blockSize int64, corrupt bool) *sumFS {
	return &sumFS{blockSize: blockSize, corrupt: corrupt, created: map[string]int64{}, readBacks: new(int)}
}

func (s *sumFS) FileChecksum(_ context.Context, p string) (fsys.Checksum, error) {
	b, err := os.ReadFile(p)
	if err != nil {
		return fsys.Checksum{}, err
	}
	bs := s.blockSize
	if v, ok := s.created[p]; ok {
		bs = v
	}
	h := sha256.Sum256(b)
	return fsys.Checksum{BlockSize: bs, Sum: h[:]}, nil
}

func (s *sumFS) Create(ctx context.Context, p string, o fsys.CreateOptions) (io.WriteCloser, error) {
	if o.BlockSize > 0 {
		s.created[p] = o.BlockSize
	}
	w, err := s.Local.Create(ctx, p, o)
	if err != nil || !s.corrupt {
		return w, err
	}
	return &flipper{WriteCloser: w}, nil
}

func (s *sumFS) Open(ctx context.Context, p string) (fsys.File, error) {
	if strings.HasSuffix(p, ".tmp") {
		*s.readBacks++
	}
	return s.Local.Open(ctx, p)
}

// TestFastPathChecksumVerify: when source and target checksum files where
// they are, a fast-path copy takes its source's block size and is verified
// by comparing checksums, without reading it back; a copy whose checksum
// differs is read back, and a corrupt one is still refused.
func TestFastPathChecksumVerify(t *testing.T) {
	dir := t.TempDir()
	p := writeHFile(t, dir, "in", hfile.WriterOptions{}, manyRows(5))
	task := baseTask(t, input(p))

	src, dst := newSumFS(64<<20, false), newSumFS(128<<20, false)
	c := &collector{}
	// The source as production wraps it: ArchiveFallback passes checksums on.
	source := storeread.ArchiveFallback{Reader: src, RootDir: "/hbase"}
	if err := Run(t.Context(), task, Options{Source: source, Target: dst}, c.emit); err != nil {
		t.Fatal(err)
	}
	files := c.dataFiles()
	if len(files) != 1 || !files[0].FastPath {
		t.Fatalf("emitted %+v, want one fast-path file", files)
	}
	if *dst.readBacks != 0 {
		t.Errorf("copy read back %d times though the checksums agree", *dst.readBacks)
	}
	for name, bs := range dst.created {
		if bs != 64<<20 {
			t.Errorf("%s created with block size %d, want the source's %d", name, bs, 64<<20)
		}
	}
	a, _ := os.ReadFile(p)
	b, _ := os.ReadFile(files[0].Path)
	if !bytes.Equal(a, b) {
		t.Fatal("fast copy differs from its source")
	}

	// A corrupt copy: the checksums differ, the read-back confirms it.
	task2 := baseTask(t, input(p))
	bad := newSumFS(64<<20, true)
	err := Run(t.Context(), task2, Options{Source: src, Target: bad}, (&collector{}).emit)
	if !errors.Is(err, ErrCopyMismatch) {
		t.Fatalf("corrupt copy: Run = %v, want ErrCopyMismatch", err)
	}
	if *bad.readBacks != 1 {
		t.Errorf("corrupt copy read back %d times, want 1", *bad.readBacks)
	}
	// A source without checksums (here behind ArchiveFallback): the copy
	// is read back, as before.
	task3 := baseTask(t, input(p))
	dst3 := newSumFS(64<<20, false)
	c3 := &collector{}
	if err := Run(t.Context(), task3, Options{Source: storeread.ArchiveFallback{Reader: fsys.Local{}}, Target: dst3}, c3.emit); err != nil {
		t.Fatal(err)
	}
	if f := c3.dataFiles(); len(f) != 1 || !f[0].FastPath || *dst3.readBacks != 1 {
		t.Fatalf("without source checksums: %+v, %d read-backs, want one fast file read back once", f, *dst3.readBacks)
	}
}

// TestFastPathTimeApart copies two files whose rows overlap but whose time
// ranges do not (a compacted file and a later flush) byte for byte, with
// checkpoint marks that never claim a row of the second before it is
// loaded; a resume between them decodes from the mark.
func TestFastPathTimeApart(t *testing.T) {
	dir := t.TempDir()
	var old, fresh, later []*hfile.Cell
	for i := 10; i < 20; i++ {
		old = append(old, cell(fmt.Sprintf("r%03d", i), "q", 1, hfile.TypePut, "old"))
	}
	for i := 12; i < 16; i++ {
		fresh = append(fresh, cell(fmt.Sprintf("r%03d", i), "q", 5, hfile.TypePut, "new"))
	}
	later = append(later, cell("s", "q", 5, hfile.TypePut, "s"))
	later2 := []*hfile.Cell{cell("s", "q", 5, hfile.TypePut, "s2")} // the same key, written later
	pOld := writeHFile(t, dir, "old", hfile.WriterOptions{}, old)
	pFresh := writeHFile(t, dir, "fresh", hfile.WriterOptions{}, fresh)
	// Two files holding the same key: decoded, the later write wins.
	pLater := writeHFile(t, dir, "later", hfile.WriterOptions{}, later)
	pLater2 := writeHFile(t, dir, "later2", hfile.WriterOptions{MaxSeqID: 9}, later2)
	task := baseTask(t, input(pFresh), input(pLater), input(pOld), input(pLater2))
	c := run(t, task, Options{})
	files := c.dataFiles()
	if len(files) != 3 || !files[0].FastPath || !files[1].FastPath || files[2].FastPath {
		t.Fatalf("emitted %+v, want fast, fast, decoded", files)
	}
	for i, want := range []string{pOld, pFresh} {
		src, _ := os.ReadFile(want)
		dst, _ := os.ReadFile(files[i].Path)
		if !bytes.Equal(src, dst) {
			t.Fatalf("file %d is not a copy of %s", i, want)
		}
	}
	// The old file spans r010..r019, but the fresh one starts at r012: the
	// mark after the old one stops there.
	if got := string(files[0].NextRow); got != "r012" {
		t.Errorf("mark after the old file %q, want r012", got)
	}
	if got := string(files[1].NextRow); got != "r015\x00" {
		t.Errorf("mark after the fresh file %q, want r015\\x00", got)
	}
	cp := checkpoint.New("t1")
	var err error
	for _, f := range files {
		if cp, err = cp.Advance(nil, checkpoint.Loaded{Family: "f", Mark: f.NextRow, Files: 1}); err != nil {
			t.Fatalf("checkpoint after %s: %v", f.Path, err)
		}
	}
	all := append(append(readCells(t, files[0].Path), readCells(t, files[1].Path)...), readCells(t, files[2].Path)...)
	if len(all) != len(old)+len(fresh)+1 {
		t.Fatalf("%d cells out, want %d", len(all), len(old)+len(fresh)+1)
	}

	// Resumed after the old file only: the old file starts below the mark,
	// so it and the fresh one it overlaps are decoded from r012.
	cp = checkpoint.New("t1")
	if cp, err = cp.Advance(nil, checkpoint.Loaded{Family: "f", Mark: files[0].NextRow, Files: 1}); err != nil {
		t.Fatal(err)
	}
	task.Checkpoint = cp
	second := run(t, task, Options{})
	for _, f := range second.dataFiles() {
		if f.FastPath {
			t.Errorf("resumed run copied %s byte for byte", f.Path)
		}
	}
	var want []*hfile.Cell
	for i := 12; i < 20; i++ {
		row := fmt.Sprintf("r%03d", i)
		if i < 16 {
			want = append(want, cell(row, "q", 5, hfile.TypePut, "new"))
		}
		want = append(want, cell(row, "q", 1, hfile.TypePut, "old"))
	}
	want = append(want, cell("s", "q", 5, hfile.TypePut, "s2"))
	equalCells(t, "resumed", outputCells(t, second), want)
}

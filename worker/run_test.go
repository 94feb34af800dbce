package worker

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"rangecopy/checkpoint"
	"rangecopy/fsys"
	"rangecopy/hfile"
	"rangecopy/job"
	"rangecopy/memory"
	"rangecopy/storeread"
)

// TestMergeNewestWins merges two overlapping files that share keys: the cells
// of the file with the larger max sequence id win; every other version and
// every delete kind of both is kept.
func TestMergeNewestWins(t *testing.T) {
	dir := t.TempDir()
	older := []*hfile.Cell{
		cell("a", "q", 10, hfile.TypePut, "old-a10"),
		cell("a", "q", 9, hfile.TypePut, "old-a9"),
		cell("b", "q", 10, hfile.TypePut, "old-b10"),
		cell("b", "", 20, hfile.TypeDeleteFamily, ""),
		cell("c", "q", 5, hfile.TypeDeleteColumn, ""),
		cell("d", "q", 7, hfile.TypePut, "old-d7"),
	}
	newer := []*hfile.Cell{
		cell("a", "q", 10, hfile.TypePut, "new-a10"), // same key: wins
		cell("a", "q", 8, hfile.TypePut, "new-a8"),
		cell("b", "q", 10, hfile.TypeDelete, ""), // same row/col/ts, other type: both kept
		cell("b", "q", 11, hfile.TypeDeleteFamilyVersion, ""),
		cell("c", "q", 5, hfile.TypeDeleteColumn, ""), // identical delete: one kept
		cell("e", "q", 1, hfile.TypePut, "new-e1"),
	}
	// The older file is written second and is larger, so neither the
	// order of inputs nor size decide: the sequence id does.
	pNew := writeHFile(t, dir, "new", hfile.WriterOptions{MaxSeqID: 200}, newer)
	pOld := writeHFile(t, dir, "old", hfile.WriterOptions{MaxSeqID: 100}, older)
	for _, order := range [][]string{{pOld, pNew}, {pNew, pOld}} {
		task := baseTask(t, input(order[0]), input(order[1]))
		c := run(t, task, Options{NoFastPath: true})
		want := []*hfile.Cell{
			cell("a", "q", 10, hfile.TypePut, "new-a10"),
			cell("a", "q", 9, hfile.TypePut, "old-a9"),
			cell("a", "q", 8, hfile.TypePut, "new-a8"),
			cell("b", "", 20, hfile.TypeDeleteFamily, ""),
			cell("b", "q", 11, hfile.TypeDeleteFamilyVersion, ""),
			cell("b", "q", 10, hfile.TypeDelete, ""),
			cell("b", "q", 10, hfile.TypePut, "old-b10"),
			cell("c", "q", 5, hfile.TypeDeleteColumn, ""),
			cell("d", "q", 7, hfile.TypePut, "old-d7"),
			cell("e", "q", 1, hfile.TypePut, "new-e1"),
		}
		equalCells(t, "merged", outputCells(t, c), want)
		if n := len(c.files); n != 2 || !c.files[1].Last || c.files[1].Path != "" {
			t.Fatalf("emitted %+v, want one file and the end marker", c.files)
		}
	}
}

// TestMergeBulkLoadedName ranks a bulk-loaded file by the sequence id in its
// name, over the MAX_SEQ_ID_KEY of its file info.
func TestMergeBulkLoadedName(t *testing.T) {
	dir := t.TempDir()
	a := writeHFile(t, dir, "0123abcd_SeqId_300_", hfile.WriterOptions{MaxSeqID: 1}, []*hfile.Cell{cell("a", "q", 1, hfile.TypePut, "bulk")})
	b := writeHFile(t, dir, "fedc", hfile.WriterOptions{MaxSeqID: 299}, []*hfile.Cell{cell("a", "q", 1, hfile.TypePut, "flushed")})
	c := run(t, baseTask(t, input(a), input(b)), Options{NoFastPath: true})
	equalCells(t, "merged", outputCells(t, c), []*hfile.Cell{cell("a", "q", 1, hfile.TypePut, "bulk")})
}

// TestFilterKeyAndTimeRange checks that both ranges are half-open.
func TestFilterKeyAndTimeRange(t *testing.T) {
	dir := t.TempDir()
	var cells []*hfile.Cell
	for _, row := range []string{"a", "b", "b\x00", "c", "d", "d\x00"} {
		for _, ts := range []int64{9, 10, 19, 20} {
			cells = append(cells, cell(row, "q", ts, hfile.TypePut, row))
		}
		cells = append(cells, cell(row, "", 0, hfile.TypeDeleteFamily, ""))
	}
	p := writeHFile(t, dir, "in", hfile.WriterOptions{}, cells)
	task := baseTask(t, input(p))
	task.Task.Rows = job.KeyRange{Start: []byte("b"), End: []byte("d")}
	task.Time = job.TimeRange{Min: 10, Max: 20}
	c := run(t, task, Options{})
	var want []*hfile.Cell
	for _, row := range []string{"b", "b\x00", "c"} {
		want = append(want, cell(row, "q", 19, hfile.TypePut, row), cell(row, "q", 10, hfile.TypePut, row))
	}
	equalCells(t, "filtered", outputCells(t, c), want)
	if f := c.dataFiles(); len(f) != 1 || f[0].FastPath {
		t.Fatalf("emitted %+v, want one decoded file", f)
	}
	// The zero time range is every timestamp.
	task.Time = job.TimeRange{}
	task.OutputDir = t.TempDir()
	if got := outputCells(t, run(t, task, Options{})); len(got) != 3*5 {
		t.Fatalf("zero time range: %d cells, want 15", len(got))
	}
}

// manyRows writes rows r000..r(n-1), each with versions of two qualifiers.
func manyRows(n int) []*hfile.Cell {
	var cells []*hfile.Cell
	for i := range n {
		row := fmt.Sprintf("r%03d", i)
		for _, q := range []string{"a", "b"} {
			for ts := int64(3); ts > 0; ts-- {
				cells = append(cells, cell(row, q, ts, hfile.TypePut, strings.Repeat("v", 100)))
			}
		}
	}
	return cells
}

// TestRolling checks that files roll at every target region boundary and at
// the size cap, only between rows, and that marks and regions are right.
func TestRolling(t *testing.T) {
	dir := t.TempDir()
	cells := manyRows(300)
	p := writeHFile(t, dir, "in", hfile.WriterOptions{}, cells)
	task := baseTask(t, input(p))
	// The cap counts bytes the writer has written, so it is accurate to
	// a block: small blocks make small files.
	task.Families["f"] = FamilySettings{BlockSize: 1024}
	task.Regions = []job.Region{
		{EncodedName: "r0", Rows: job.KeyRange{End: []byte("r100")}},
		{EncodedName: "r1", Rows: job.KeyRange{Start: []byte("r100"), End: []byte("r150\x00")}},
		{EncodedName: "r2", Rows: job.KeyRange{Start: []byte("r150\x00")}},
	}
	c := run(t, task, Options{MaxFileBytes: 8 << 10, NoFastPath: true})
	files := c.dataFiles()
	equalCells(t, "all files", outputCells(t, c), cells)
	if len(files) < 10 {
		t.Fatalf("%d files, want many with an 8 KiB cap", len(files))
	}
	seen := map[string]bool{}
	for i, f := range files {
		got := readCells(t, f.Path)
		r := task.Regions[regionFor(task.Regions, f.FirstRow)]
		if f.TargetRegion != r.EncodedName || !r.Rows.Contains(f.LastRow) {
			t.Errorf("file %d rows %q..%q in region %s, want all of it in %s %s", i, f.FirstRow, f.LastRow, f.TargetRegion, r.EncodedName, r.Rows)
		}
		if !bytes.Equal(got[0].Row, f.FirstRow) || !bytes.Equal(got[len(got)-1].Row, f.LastRow) || f.Cells != int64(len(got)) {
			t.Errorf("file %d: says rows %q..%q and %d cells, holds %q..%q and %d", i, f.FirstRow, f.LastRow, f.Cells, got[0].Row, got[len(got)-1].Row, len(got))
		}
		if seen[string(f.FirstRow)] {
			t.Errorf("row %q spans two files", f.FirstRow)
		}
		for _, c := range got {
			seen[string(c.Row)] = true
		}
		if i+1 < len(files) && !bytes.Equal(f.NextRow, append(slices.Clone(f.LastRow), 0)) {
			t.Errorf("file %d NextRow %q", i, f.NextRow)
		}
		if st, err := os.Stat(f.Path); err != nil || st.Size() != f.Bytes || strings.HasPrefix(filepath.Base(f.Path), "_") {
			t.Errorf("file %d: %s %v %v, says %d bytes", i, f.Path, st, err, f.Bytes)
		}
		if i > 0 && bytes.Compare(files[i-1].LastRow, f.FirstRow) >= 0 {
			t.Errorf("files %d and %d out of order", i-1, i)
		}
	}
	// No temporary file is left behind.
	left, _ := filepath.Glob(filepath.Join(task.OutputDir, "f", "_*"))
	if len(left) != 0 {
		t.Errorf("temporary files left: %v", left)
	}
}

func TestRollBefore(t *testing.T) {
	tests := []struct {
		name                 string
		row, last, end, fast string
		written, max         int64
		want                 rollReason
	}{
		{"same row never rolls", "b", "b", "b", "a", 100, 1, rollNone},
		{"in region under cap", "b", "a", "c", "", 1, 10, rollNone},
		{"region end is exclusive", "c", "b", "c", "", 1, 10, rollRegion},
		{"last region", "z", "y", "", "", 1, 10, rollNone},
		{"size cap reached", "c", "b", "", "", 10, 10, rollSize},
		{"fast file ahead", "d", "b", "", "c", 1, 10, rollFastFile},
		{"fast file later", "c", "b", "", "d", 1, 10, rollNone},
	}
	for _, tt := range tests {
		var fast []byte
		if tt.fast != "" {
			fast = []byte(tt.fast)
		}
		if got := rollBefore([]byte(tt.row), []byte(tt.last), []byte(tt.end), tt.written, tt.max, fast); got != tt.want {
			t.Errorf("%s: rollBefore = %v, want %v", tt.name, got, tt.want)
		}
	}
}

// TestResume resumes a family from a checkpoint mark: nothing below the mark
// is written again, everything from it on is.
func TestResume(t *testing.T) {
	dir := t.TempDir()
	cells := manyRows(50)
	p := writeHFile(t, dir, "in", hfile.WriterOptions{}, cells)
	task := baseTask(t, input(p))
	task.Families["f"] = FamilySettings{BlockSize: 1024}
	first := run(t, task, Options{MaxFileBytes: 4 << 10, NoFastPath: true})
	files := first.dataFiles()
	if len(files) < 3 {
		t.Fatalf("%d files", len(files))
	}
	// Loaded the first two files, then the worker died.
	cp := checkpoint.New("t1")
	var err error
	for _, f := range files[:2] {
		if cp, err = cp.Advance(nil, checkpoint.Loaded{Family: "f", Mark: f.NextRow, Files: 1}); err != nil {
			t.Fatal(err)
		}
	}
	task.Checkpoint = cp
	second := run(t, task, Options{MaxFileBytes: 4 << 10})
	var want []*hfile.Cell
	for _, c := range cells {
		if bytes.Compare(c.Row, files[1].NextRow) >= 0 {
			want = append(want, c)
		}
	}
	equalCells(t, "resumed", outputCells(t, second), want)

	// A family marked done is not read at all.
	last := second.files[len(second.files)-1]
	if !last.Last {
		t.Fatalf("no end marker: %+v", last)
	}
	if cp, err = cp.Advance(nil, checkpoint.Loaded{Family: "f", Mark: files[1].NextRow, Last: true}); err != nil {
		t.Fatal(err)
	}
	task.Checkpoint = cp
	task.Inputs = append(task.Inputs, input(filepath.Join(dir, "missing")))
	if third := run(t, task, Options{}); len(third.files) != 0 {
		t.Fatalf("done family emitted %+v", third.files)
	}
}

// TestTagsCarried checks that cell tags reach the output.
func TestTagsCarried(t *testing.T) {
	dir := t.TempDir()
	c1 := cell("a", "q", 1, hfile.TypePut, "v")
	c1.Tags = []byte{0, 3, 8, 'x', 'y'}
	c2 := cell("b", "q", 1, hfile.TypePut, "w")
	p1 := writeHFile(t, dir, "tags", hfile.WriterOptions{IncludeTags: true}, []*hfile.Cell{c1})
	p2 := writeHFile(t, dir, "plain", hfile.WriterOptions{}, []*hfile.Cell{c2})
	c := run(t, baseTask(t, input(p1), input(p2)), Options{NoFastPath: true})
	equalCells(t, "tags", outputCells(t, c), []*hfile.Cell{c1, c2})
}

// TestTargetSettings checks the output files carry the target's settings.
func TestTargetSettings(t *testing.T) {
	dir := t.TempDir()
	p := writeHFile(t, dir, "in", hfile.WriterOptions{}, manyRows(20))
	task := baseTask(t, input(p))
	task.Families["f"] = FamilySettings{Compression: hfile.CompressionSnappy, Encoding: hfile.EncodingFastDiff, BlockSize: 4096, Bloom: hfile.BloomRow}
	c := run(t, task, Options{NoFastPath: true})
	f := c.dataFiles()[0]
	b, err := os.ReadFile(f.Path)
	if err != nil {
		t.Fatal(err)
	}
	r, err := hfile.Open(bytes.NewReader(b), int64(len(b)), f.Path)
	if err != nil {
		t.Fatal(err)
	}
	if r.Trailer().Compression != hfile.CompressionSnappy || r.Info().Encoding != hfile.EncodingFastDiff || r.Info().BloomType != hfile.BloomRow || r.Trailer().DataIndexCount < 2 {
		t.Fatalf("output: compression %v encoding %v bloom %v blocks %d", r.Trailer().Compression, r.Info().Encoding, r.Info().BloomType, r.Trailer().DataIndexCount)
	}
	equalCells(t, "snappy fast_diff", readCells(t, f.Path), manyRows(20))
}

// TestRunErrors checks refusals that name the thing.
func TestRunErrors(t *testing.T) {
	dir := t.TempDir()
	p := writeHFile(t, dir, "in", hfile.WriterOptions{}, manyRows(2))
	task := baseTask(t, input(p))
	task.Regions = []job.Region{{EncodedName: "r0", Rows: job.KeyRange{Start: []byte("b")}}}
	task.Task.Rows = job.KeyRange{Start: []byte("a")}
	if err := Run(t.Context(), task, Options{Source: fsys.Local{}, Target: fsys.Local{}}, (&collector{}).emit); err == nil || !strings.Contains(err.Error(), "do not cover") {
		t.Errorf("uncovered task: %v", err)
	}
	task = baseTask(t, input(p))
	task.Inputs[0].File.Family = "g"
	if err := Run(t.Context(), task, Options{Source: fsys.Local{}, Target: fsys.Local{}}, (&collector{}).emit); err == nil || !strings.Contains(err.Error(), `family "g"`) {
		t.Errorf("unknown family: %v", err)
	}
	bad := filepath.Join(dir, "bad")
	if err := os.WriteFile(bad, []byte("not an hfile"), 0o644); err != nil {
		t.Fatal(err)
	}
	task = baseTask(t, input(p), input(bad))
	err := Run(t.Context(), task, Options{Source: fsys.Local{}, Target: fsys.Local{}}, (&collector{}).emit)
	if err == nil || !strings.Contains(err.Error(), bad) {
		t.Errorf("corrupt input: %v", err)
	}
}

// TestCorruptInputMidway corrupts a data block in the middle of one input:
// the run fails naming the file, and every file emitted before the failure
// holds all the cells of its rows (a failed input never looks complete).
func TestCorruptInputMidway(t *testing.T) {
	dir := t.TempDir()
	// Inputs hand over cells in 1 MiB batches: b must be larger than one
	// for cells to flow before its corrupt block is reached.
	all := manyRows(6000)
	slices.SortStableFunc(all, hfile.CompareKeys)
	var a, b []*hfile.Cell
	for i, c := range all {
		if i%2 == 0 {
			a = append(a, c)
		} else {
			b = append(b, c)
		}
	}
	pa := writeHFile(t, dir, "a", writerOptionsForTest(), a)
	pb := writeHFile(t, dir, "b", writerOptionsForTest(), b)
	raw, err := os.ReadFile(pb)
	if err != nil {
		t.Fatal(err)
	}
	r, err := hfile.Open(bytes.NewReader(raw), int64(len(raw)), pb)
	if err != nil {
		t.Fatal(err)
	}
	bad := int64(r.Trailer().LoadOnOpenDataOffset * 9 / 10)
	raw[bad] ^= 0x55
	if err := os.WriteFile(pb, raw, 0o644); err != nil {
		t.Fatal(err)
	}
	task := baseTask(t, input(pa), input(pb))
	task.Families["f"] = FamilySettings{BlockSize: 1024}
	// The corrupt block is read only once a file has been emitted, so
	// files are emitted while b is known incomplete.
	gate := make(chan struct{})
	var once sync.Once
	c := &collector{}
	emit := func(ctx context.Context, f OutputFile) error {
		once.Do(func() { close(gate) })
		return c.emit(ctx, f)
	}
	src := gatedFS{path: pb, offset: bad, gate: gate}
	err = Run(t.Context(), task, Options{Source: src, Target: fsys.Local{}, MaxFileBytes: 128 << 10, ReadAhead: 64 << 10}, emit)
	if err == nil || !strings.Contains(err.Error(), pb) {
		t.Fatalf("Run = %v, want an error naming %s", err, pb)
	}
	files := c.dataFiles()
	for _, f := range c.files {
		if f.Last {
			t.Fatalf("family ended despite the error: %+v", c.files)
		}
	}
	if len(files) == 0 {
		t.Fatal("no file emitted before the corrupt block; the test needs some")
	}
	next := files[len(files)-1].NextRow
	var want []*hfile.Cell
	for _, c := range all {
		if bytes.Compare(c.Row, next) < 0 {
			want = append(want, c)
		}
	}
	equalCells(t, "emitted before the failure", outputCells(t, c), want)
	t.Logf("%d files emitted before: %v", len(files), err)
}

// gatedFS holds reads of one file that cover offset until gate is closed.
type gatedFS struct {
	fsys.Local
	path   string
	offset int64
	gate   chan struct{}
}

func (g gatedFS) Open(ctx context.Context, p string) (fsys.File, error) {
	f, err := g.Local.Open(ctx, p)
	if err != nil || p != g.path {
		return f, err
	}
	return gatedFile{File: f, g: g}, nil
}

type gatedFile struct {
	fsys.File
	g gatedFS
}

func (f gatedFile) ReadAt(p []byte, off int64) (int, error) {
	if off <= f.g.offset && f.g.offset < off+int64(len(p)) {
		select {
		case <-f.g.gate:
		case <-time.After(time.Minute): // a bound, not a timing assumption
			return 0, errors.New("gate never opened")
		}
	}
	return f.File.ReadAt(p, off)
}

// TestFamiliesAndEmitError runs two families with their own settings in name
// order, and stops at the first emit error, naming the file.
func TestFamiliesAndEmitError(t *testing.T) {
	dir := t.TempDir()
	var g []*hfile.Cell
	for _, c := range manyRows(5) {
		c = c.Clone()
		c.Family = []byte("g")
		g = append(g, c)
	}
	pf := writeHFile(t, dir, "f1", hfile.WriterOptions{}, manyRows(5))
	pg := writeHFile(t, dir, "g1", hfile.WriterOptions{}, g)
	inG := input(pg)
	inG.File.Family = "g"
	task := baseTask(t, inG, input(pf))
	task.Families["g"] = FamilySettings{Compression: hfile.CompressionGZ}
	task.Families["empty"] = FamilySettings{}
	c := run(t, task, Options{NoFastPath: true})
	var order []string
	for _, f := range c.files {
		order = append(order, fmt.Sprintf("%s:%v", f.Family, f.Last))
	}
	if got := strings.Join(order, " "); got != "empty:true f:false f:true g:false g:true" {
		t.Fatalf("emitted %s", got)
	}
	equalCells(t, "family g", readCells(t, c.files[3].Path), g)

	boom := errors.New("region server said no")
	err := Run(t.Context(), task, Options{Source: fsys.Local{}, Target: fsys.Local{}, NoFastPath: true}, func(_ context.Context, f OutputFile) error {
		if f.Family == "f" {
			return boom
		}
		return nil
	})
	if !errors.Is(err, boom) || !strings.Contains(err.Error(), "family f") || !strings.Contains(err.Error(), task.OutputDir) {
		t.Fatalf("Run = %v", err)
	}
}

// sliceScanner scans a slice of cells.
type sliceScanner struct {
	cells []*hfile.Cell
	i     int
}

func (s *sliceScanner) Next() bool        { s.i++; return s.i <= len(s.cells) }
func (s *sliceScanner) Cell() *hfile.Cell { return s.cells[s.i-1] }
func (s *sliceScanner) Err() error        { return nil }

// TestMergeCellSequenceIDFirst checks the order of identical keys: the cell
// of larger sequence id wins, even from an older file, as HBase's KeyValueHeap
// orders them; the cells of a stamped (bulk-loaded) input count with the
// file's sequence id; equal sequence ids go to the newer file.
func TestMergeCellSequenceIDFirst(t *testing.T) {
	withSeq := func(c *hfile.Cell, seq uint64) *hfile.Cell { c.SeqID = seq; return c }
	inputs := []struct {
		stamped bool
		stamp   uint64
		cells   []*hfile.Cell
	}{
		// Rank 0, the newest file: a flushed file whose MVCC was dropped.
		{false, 0, []*hfile.Cell{cell("a", "q", 1, hfile.TypePut, "newest, seq 0"), cell("b", "q", 1, hfile.TypePut, "newest, seq 0")}},
		// Rank 1: a bulk-loaded file of sequence id 95.
		{true, 95, []*hfile.Cell{withSeq(cell("c", "q", 1, hfile.TypePut, "bulk, file seq 95"), 7)}},
		// Rank 2, the oldest: a flushed file that kept its MVCC.
		{false, 0, []*hfile.Cell{
			withSeq(cell("a", "q", 1, hfile.TypePut, "oldest, seq 90"), 90),
			withSeq(cell("b", "q", 1, hfile.TypePut, "oldest, seq 0"), 0),
			withSeq(cell("c", "q", 1, hfile.TypePut, "oldest, seq 90"), 90),
		}},
	}
	ctx := t.Context()
	var srcs []*storeread.Input
	var ctr Counters
	for i, in := range inputs {
		s := &source{ctx: ctx, name: fmt.Sprint(i), out: make(chan *batch, 1), free: make(chan *batch, 3)}
		for range 3 {
			s.free <- &batch{buf: make([]byte, 0, memory.MaxBatch), size: memory.MaxBatch}
		}
		go runInput(ctx, &sliceScanner{cells: in.cells}, job.AllTime(), s, &ctr)
		srcs = append(srcs, &storeread.Input{Cells: s, Rank: i, Stamped: in.stamped, Stamp: in.stamp})
	}
	var got []*hfile.Cell
	m := storeread.NewMerged(srcs)
	for m.Next() {
		got = append(got, m.Cell().Clone())
	}
	if err := m.Err(); err != nil {
		t.Fatal(err)
	}
	for _, c := range got {
		c.SeqID = 0
	}
	equalCells(t, "merged", got, []*hfile.Cell{
		cell("a", "q", 1, hfile.TypePut, "oldest, seq 90"),
		cell("b", "q", 1, hfile.TypePut, "newest, seq 0"),
		cell("c", "q", 1, hfile.TypePut, "bulk, file seq 95"),
	})
}

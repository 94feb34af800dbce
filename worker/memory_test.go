package worker

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"rangecopy/fsys"
	"rangecopy/hfile"
	"rangecopy/job"
	"rangecopy/memory"
)

// countingFS counts the bytes read from each file and the end of the
// furthest read, through the fsys seam.
type countingFS struct {
	fsys.Local
	mu    sync.Mutex
	bytes map[string]int64
	reads map[string][][2]int64
}

func (c *countingFS) Open(ctx context.Context, name string) (fsys.File, error) {
	f, err := c.Local.Open(ctx, name)
	if err != nil {
		return nil, err
	}
	return &countingFile{File: f, fs: c, name: name}, nil
}

type countingFile struct {
	fsys.File
	fs   *countingFS
	name string
}

func (f *countingFile) ReadAt(p []byte, off int64) (int, error) {
	n, err := f.File.ReadAt(p, off)
	f.fs.mu.Lock()
	f.fs.bytes[f.name] += int64(n)
	f.fs.reads[f.name] = append(f.fs.reads[f.name], [2]int64{off, off + int64(n)})
	f.fs.mu.Unlock()
	return n, err
}

// manyFiles writes n files whose rows all overlap (row%04d for 0..rows-1,
// one cell per row and file, timestamps apart per file) and returns them.
func manyFiles(t *testing.T, n, rows, value int) []Input {
	dir := t.TempDir()
	var ins []Input
	for i := range n {
		var cells []*hfile.Cell
		for r := range rows {
			cells = append(cells, cell(fmt.Sprintf("row%04d", r), "q", int64(i+1), hfile.TypePut, strings.Repeat("v", value)))
		}
		ins = append(ins, input(writeHFile(t, dir, fmt.Sprintf("f%02d", i), writerOptionsForTest(), cells)))
	}
	return ins
}

// TestReadStopsAtLastNeededBlock runs a task whose rows end in the middle of
// 30 overlapping files and checks, through the file-system seam, that no
// byte of a data section past the last block the task needs is read, and
// that the bytes read are the blocks the task needs plus each file's
// trailer and load-on-open section.
func TestReadStopsAtLastNeededBlock(t *testing.T) {
	ins := manyFiles(t, 30, 2000, 100)
	task := baseTask(t, ins...)
	task.Task.Rows = job.KeyRange{Start: []byte("row0400"), End: []byte("row1200")}
	src := &countingFS{bytes: map[string]int64{}, reads: map[string][][2]int64{}}
	c := &collector{}
	o := Options{Source: src, Target: fsys.Local{}, NoFastPath: true, ReadAhead: 16 << 10}
	if err := Run(t.Context(), task, o, c.emit); err != nil {
		t.Fatalf("Run: %v", err)
	}
	if got := len(outputCells(t, c)); got != 800*30 {
		t.Fatalf("%d cells copied, want %d", got, 800*30)
	}
	var read, need int64
	for _, in := range ins {
		f, err := fsys.Local{}.Open(t.Context(), in.Path)
		if err != nil {
			t.Fatal(err)
		}
		r, err := hfile.Open(f, f.Size(), in.Path)
		if err != nil {
			t.Fatal(err)
		}
		ext, err := r.Extent(hfile.ScanOptions{StartRow: task.Task.Rows.Start, StopRow: task.Task.Rows.End})
		if err != nil {
			t.Fatal(err)
		}
		lo := int64(r.Trailer().LoadOnOpenDataOffset)
		size := f.Size()
		f.Close()
		if ext.From <= int64(r.Trailer().FirstDataBlockOffset) || ext.To >= lo {
			t.Fatalf("%s: extent %+v does not lie inside the data section [0, %d): the range must end mid-file", in.Path, ext, lo)
		}
		for _, rd := range src.reads[in.Path] {
			if rd[0] < lo && (rd[1] > ext.To || rd[0] < ext.From) {
				t.Errorf("%s: read [%d, %d) outside the blocks the task needs [%d, %d)", in.Path, rd[0], rd[1], ext.From, ext.To)
			}
		}
		read += src.bytes[in.Path]
		need += ext.Len() + size - lo
	}
	// Reading the trailer reads a few bytes of the section before it twice.
	if read < need || float64(read) > 1.01*float64(need) {
		t.Errorf("read %d bytes, the task needs %d", read, need)
	}
}

// TestMemoryBudgetManyFiles runs a task of 40 overlapping files in a budget
// shared by four slots and checks the accounting stayed within the budget,
// all of it was given back, and a budget too small for 40 inputs refuses
// the task at once, for good.
func TestMemoryBudgetManyFiles(t *testing.T) {
	ins := manyFiles(t, 40, 300, 50)
	b := memory.New(256 << 20)
	c := run(t, baseTask(t, ins...), Options{NoFastPath: true, Memory: b, MemorySlots: 4})
	if got := len(outputCells(t, c)); got != 300*40 {
		t.Fatalf("%d cells copied, want %d", got, 300*40)
	}
	p, err := memory.PlanTask(b.Share(4), 40, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	if b.HighWater() < p.Total || b.HighWater() > b.Limit() || b.Used() != 0 {
		t.Fatalf("high water %d (plan %d), limit %d, used after %d", b.HighWater(), p.Total, b.Limit(), b.Used())
	}
	if p.ReadAhead >= memory.MaxReadAhead {
		t.Fatalf("read-ahead %d did not shrink for 40 inputs in %d", p.ReadAhead, b.Share(4))
	}

	small := memory.New(32 << 20)
	err = Run(t.Context(), baseTask(t, ins...), Options{Source: fsys.Local{}, Target: fsys.Local{}, NoFastPath: true, Memory: small}, (&collector{}).emit)
	if !errors.Is(err, memory.ErrTooSmall) || !strings.Contains(err.Error(), "40 input files") {
		t.Fatalf("40 inputs in 32 MiB: %v, want ErrTooSmall naming the inputs", err)
	}
	if runAgain(err, 1, 3, false, false) {
		t.Fatal("a task too large for the budget runs again")
	}
	if small.HighWater() != 0 {
		t.Fatalf("a refused task reserved %d bytes", small.HighWater())
	}
}

// TestMemoryBudgetHugeCells copies cells far larger than a block and a
// batch: their buffers are taken from the budget and given back, and a cell
// larger than the whole budget is refused with ErrTooSmall.
func TestMemoryBudgetHugeCells(t *testing.T) {
	dir := t.TempDir()
	var cells []*hfile.Cell
	for r := range 6 {
		cells = append(cells, cell(fmt.Sprintf("row%d", r), "q", 1, hfile.TypePut, strings.Repeat("x", 3<<20)))
	}
	a := input(writeHFile(t, dir, "a", writerOptionsForTest(), cells))
	b := input(writeHFile(t, dir, "b", writerOptionsForTest(), cells[:2]))
	budget := memory.New(128 << 20)
	c := run(t, baseTask(t, a, b), Options{NoFastPath: true, Memory: budget})
	if got := len(outputCells(t, c)); got != 6 {
		t.Fatalf("%d cells copied, want 6", got)
	}
	p, _ := memory.PlanTask(budget.Share(1), 2, 0, 0)
	if budget.HighWater() <= p.Total || budget.HighWater() > budget.Limit() || budget.Used() != 0 {
		t.Fatalf("high water %d (plan %d), limit %d, used after %d", budget.HighWater(), p.Total, budget.Limit(), budget.Used())
	}

	big := input(writeHFile(t, t.TempDir(), "big", writerOptionsForTest(), []*hfile.Cell{cell("r", "q", 1, hfile.TypePut, strings.Repeat("y", 40<<20))}))
	err := Run(t.Context(), baseTask(t, big), Options{Source: fsys.Local{}, Target: fsys.Local{}, NoFastPath: true, Memory: memory.New(32 << 20)}, (&collector{}).emit)
	if !errors.Is(err, memory.ErrTooSmall) {
		t.Fatalf("a 40 MiB cell in a 32 MiB budget: %v, want ErrTooSmall", err)
	}
}

package worker

import (
	"context"
	"testing"

	"rangecopy/fsys"
	"rangecopy/hfile"
	"rangecopy/job"
)

// TestHalfFileInputs reads both halves of a parent file through split
// references, as the daughters of a split see it.
func TestHalfFileInputs(t *testing.T) {
	dir := t.TempDir()
	cells := manyRows(50)
	p := writeHFile(t, dir, "parent", writerOptionsForTest(), cells)
	split := []byte("r020")
	for _, half := range []struct {
		rng  hfile.Range
		rows job.KeyRange
	}{
		{hfile.RangeBottom, job.KeyRange{End: split}},
		{hfile.RangeTop, job.KeyRange{Start: split}},
	} {
		in := input(p)
		in.Reference = hfile.NewSplitReference(split, half.rng)
		task := baseTask(t, in)
		task.Task.Rows = half.rows
		c := run(t, task, Options{})
		var want []*hfile.Cell
		for _, c := range cells {
			if half.rows.Contains(c.Row) {
				want = append(want, c)
			}
		}
		equalCells(t, half.rng.String(), outputCells(t, c), want)
		if f := c.dataFiles(); len(f) != 1 || f[0].FastPath {
			t.Errorf("%s: emitted %+v, want one decoded file", half.rng, f)
		}
	}
}

// TestAllocationsPerCell checks that the per-cell path (scan, clone into
// batches, merge, write) does not allocate: a run's allocations are bounded
// by its files, blocks and batches, far below its cell count.
func TestAllocationsPerCell(t *testing.T) {
	dir := t.TempDir()
	var a, b []*hfile.Cell
	for i, c := range manyRows(4000) {
		if i%3 == 0 {
			a = append(a, c)
		} else {
			b = append(b, c)
		}
	}
	opts := hfile.WriterOptions{Encoding: hfile.EncodingFastDiff, Compression: hfile.CompressionSnappy}
	pa := writeHFile(t, dir, "a", opts, a)
	pb := writeHFile(t, dir, "b", opts, b)
	task := baseTask(t, input(pa), input(pb))
	task.Families["f"] = FamilySettings{Encoding: hfile.EncodingFastDiff, Compression: hfile.CompressionSnappy}
	cellsN := len(a) + len(b)
	var runErr error
	allocs := testing.AllocsPerRun(1, func() {
		task.OutputDir = t.TempDir()
		runErr = Run(context.Background(), task, Options{Source: fsys.Local{}, Target: fsys.Local{}}, (&collector{}).emit)
	})
	if runErr != nil {
		t.Fatal(runErr)
	}
	t.Logf("%d cells: %.0f allocations per run", cellsN, allocs)
	if allocs > float64(cellsN)/20 {
		t.Errorf("%.0f allocations for %d cells: the per-cell path allocates", allocs, cellsN)
	}
}

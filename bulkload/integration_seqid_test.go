package bulkload_test

import (
	"fmt"
	"sync"
	"testing"

	"rangecopy/bulkload"
	"rangecopy/hfile"
	"rangecopy/testenv"
	"rangecopy/testenv/copytest"
)

// TestIntegrationConcurrentLoadsGetSeqIDs loads files whose cells carry MVCC
// values far past a new region's read point (as byte-for-byte copies of a
// source's flush files do) into one region, from many goroutines at once
// through one Loader. A region server gives a load no sequence id when it
// finds another load's flush of the region running, and such a file's cells
// stay hidden from reads; the Loader sends one load into a region at a time,
// so every file gets one and every cell reads back.
func TestIntegrationConcurrentLoadsGetSeqIDs(t *testing.T) {
	env := testenv.Get(t)
	s := newSetup(t, "seqid", []testenv.Family{{Name: "f", MaxVersions: 10}, {Name: "g", MaxVersions: 10}}, nil)
	l := s.loader(t, nil)
	const perFamily = 8
	var want []*hfile.Cell
	var files []struct {
		fam   string
		cells []*hfile.Cell
	}
	for i := range perFamily {
		for _, fam := range []string{"f", "g"} {
			cells := genCells(fam, fmt.Sprintf("r%02d-", i), 0, 20)
			for k, c := range cells {
				c.SeqID = uint64(1_000_000 + k) // a busy source region's MVCC values
			}
			files = append(files, struct {
				fam   string
				cells []*hfile.Cell
			}{fam, cells})
		}
	}
	var loads []bulkload.File
	for i, f := range files {
		loads = append(loads, writeFile(t, s, fmt.Sprintf("task%d", i), f.fam, f.cells, hfile.WriterOptions{IncludeMVCC: true}))
	}
	// Every load at once.
	var wg sync.WaitGroup
	start := make(chan struct{})
	errs := make(chan error, len(loads))
	for _, bf := range loads {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			errs <- l.Load(t.Context(), bf)
		}()
	}
	close(start)
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	copytest.AssertLoadedWithSeqIDs(t, env, s.table)
	// Raw scans list rows in order, each row's families in order.
	for i := range perFamily {
		want = append(want, interleave(files[2*i].cells, files[2*i+1].cells)...)
	}
	checkTable(t, s, want)
}

// interleave merges two families' cells of the same rows into scan order:
// per row, f's cells, then g's.
func interleave(f, g []*hfile.Cell) []*hfile.Cell {
	var out []*hfile.Cell
	i, j := 0, 0
	for i < len(f) || j < len(g) {
		if j == len(g) || i < len(f) && string(f[i].Row) <= string(g[j].Row) {
			row := f[i].Row
			for i < len(f) && string(f[i].Row) == string(row) {
				out = append(out, f[i])
				i++
			}
			for j < len(g) && string(g[j].Row) == string(row) {
				out = append(out, g[j])
				j++
			}
			continue
		}
		out = append(out, g[j])
		j++
	}
	return out
}

// TestIntegrationLoadTogether loads a task's files with LoadTogether: the
// two families' files of each region in one request, and a file that spans
// two regions re-split and loaded on its own. Every file gets a sequence id
// and every cell reads back.
func TestIntegrationLoadTogether(t *testing.T) {
	env := testenv.Get(t)
	s := newSetup(t, "together", []testenv.Family{{Name: "f", MaxVersions: 10}, {Name: "g", MaxVersions: 10}}, [][]byte{[]byte("b")})
	l := s.loader(t, nil)
	var files []bulkload.File
	var want []*hfile.Cell
	write := func(task, fam, prefix string, from, to int) []*hfile.Cell {
		cells := genCells(fam, prefix, from, to)
		for k, c := range cells {
			c.SeqID = uint64(1_000_000 + k)
		}
		files = append(files, writeFile(t, s, task, fam, cells, hfile.WriterOptions{IncludeMVCC: true}))
		return cells
	}
	// Region [, b): f and g of rows a0000..a0019; region [b, ): f and g
	// of rows c0000..c0019; and an f file of rows aa.. to bb.. across both.
	fa, ga := write("t1", "f", "a", 0, 20), write("t1", "g", "a", 0, 20)
	fc, gc := write("t1", "f", "c", 0, 20), write("t1", "g", "c", 0, 20)
	var cross []*hfile.Cell
	for _, p := range []string{"ab", "ba"} {
		cross = append(cross, genCells("f", p, 0, 5)...)
	}
	files = append(files, writeFile(t, s, "t1", "f", cross, hfile.WriterOptions{}))
	if err := l.LoadTogether(t.Context(), files); err != nil {
		t.Fatal(err)
	}
	copytest.AssertLoadedWithSeqIDs(t, env, s.table)
	want = append(want, interleave(fa, ga)...)
	want = append(want, cross...)
	want = append(want, interleave(fc, gc)...)
	checkTable(t, s, want)
	if v := l.Counters().Values(); v.Resplits != 1 {
		t.Errorf("counters %+v: want the crossing file re-split once", v)
	}
}

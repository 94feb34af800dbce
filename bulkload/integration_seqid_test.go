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

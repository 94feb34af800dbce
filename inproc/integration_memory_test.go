package inproc

import (
	"context"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"path"
	"strings"
	"testing"
	"time"

	"rangecopy/job"
	"rangecopy/memory"
	"rangecopy/testenv"
)

// TestCopyManyFilesBoundedReads copies a table whose store holds 32 flushes
// per region, every one over all of its region's rows and with timestamps
// that overlap its neighbours' (so no file takes the fast path and every
// task merges 32 inputs), with tasks small enough to cut every file in two,
// four at once. Each task reads only the blocks of its own rows and each
// file's load-on-open section: the bytes read stay within 5% of the plan's
// input, and the memory budget's high-water mark stays within its limit
// while having held a 32-input task's plan.
func TestCopyManyFilesBoundedReads(t *testing.T) {
	env := testenv.Get(t)
	const (
		rounds     = 32
		rowsPerReg = 2000
		blockSize  = 4 << 10
		workers    = 4
	)
	table := testenv.UniqueName(t, "many")
	families := []testenv.Family{{Name: "cf1", Compression: "GZ", Bloom: "ROWCOL", BlockSize: blockSize}}
	if err := env.Source.CreateTable(t.Context(), table, families, sampleSplits); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { env.Source.DeleteTable(context.Background(), table) })
	writeOverlappingRounds(t, env.Source, table, rowsPerReg, rounds, time.Now().UnixMilli()-1_000_000)
	stores := storeFiles(t, env.Source, table)
	var total int64
	for store, sizes := range stores {
		if len(sizes) < rounds {
			t.Fatalf("store %s holds %d files, want %d (one per flush)", store, len(sizes), rounds)
		}
		for _, n := range sizes {
			total += n
		}
	}
	if len(stores) != 4 {
		t.Fatalf("%d stores, want 4 (one per region)", len(stores))
	}

	o := testOptions(t, env, job.Spec{Table: table})
	o.CreateTable = true
	o.Workers = workers
	// Between a half and the whole of a region's input: two tasks a region,
	// each file cut in two.
	o.TaskBytes = total / 4 * 3 / 5
	budget := memory.New(4 * (48 << 20))
	o.Budget = budget
	dropTargetLater(t, env, table)
	rep, err := Copy(t.Context(), o)
	if err != nil {
		t.Fatalf("copy: %v (report %+v)", err, rep)
	}
	assertFinished(t, env, o, rep)
	n := assertSame(t, env, table, table, nil, nil)

	amp := float64(rep.BytesRead) / float64(rep.InputBytes)
	t.Logf("copied %d cells: %d tasks, %d files loaded, store files %d bytes, input %d, read %d (%.3f×), budget high water %s of %s",
		n, rep.Tasks, rep.FilesLoaded, total, rep.InputBytes, rep.BytesRead, amp, memory.Bytes(budget.HighWater()), memory.Bytes(budget.Limit()))
	if rep.Tasks != 2*4 {
		t.Errorf("%d tasks; want each of the 4 regions cut in two (task size %d, input %d)", rep.Tasks, o.TaskBytes, rep.InputBytes)
	}
	if rep.InputBytes != total || amp > 1.05 {
		t.Errorf("read %d bytes of an input of %d (store files %d): %.3f×, want at most 1.05×", rep.BytesRead, rep.InputBytes, total, amp)
	}
	p, err := memory.PlanTask(budget.Share(workers), rounds, 0, blockSize)
	if err != nil {
		t.Fatal(err)
	}
	if hw := budget.HighWater(); hw < p.Total || hw > budget.Limit() {
		t.Errorf("budget high water %d; want between a %d-input task's plan (%d) and the limit (%d)", hw, rounds, p.Total, budget.Limit())
	}
	if budget.Used() != 0 {
		t.Errorf("budget still holds %d bytes after the copy", budget.Used())
	}
}

// writeOverlappingRounds writes rounds flushes to table (family cf1, the
// sample's four regions): each round puts one cell in each of rowsPerRegion
// rows of every region, under a qualifier of its own and at timestamps
// ts0 + 10×round + row%100, so that each flush spans its region's rows and
// shares timestamps with the rounds around it. Values are 200 pseudo-random
// bytes of six bits each (they compress, but not away).
func writeOverlappingRounds(t *testing.T, c *testenv.Cluster, table string, rowsPerRegion, rounds int, ts0 int64) {
	t.Helper()
	rng := rand.New(rand.NewPCG(1, 2))
	for round := range rounds {
		var cells []testenv.Cell
		for _, prefix := range []byte{0x00, 0x40, 0x80, 0xff} {
			for i := range rowsPerRegion {
				v := make([]byte, 200)
				for j := range v {
					v[j] = byte(rng.IntN(64))
				}
				cells = append(cells, testenv.Cell{Row: []byte{prefix, byte(i >> 8), byte(i), 0x00}, Family: []byte("cf1"),
					Qualifier: fmt.Appendf(nil, "q%02d", round), Timestamp: ts0 + int64(10*round+i%100), Type: "Put", Value: v})
			}
		}
		if err := c.Mutate(t.Context(), table, cells); err != nil {
			t.Fatalf("write round %d to %s: %v", round, table, err)
		}
		if err := c.Flush(t.Context(), table); err != nil {
			t.Fatalf("flush %s: %v", table, err)
		}
	}
}

// storeFiles lists the sizes of table's store files on c, by store
// (region/family).
func storeFiles(t *testing.T, c *testenv.Cluster, table string) map[string][]int64 {
	t.Helper()
	dir := path.Join(c.RootDirPath(), "data", "default", table)
	out := map[string][]int64{}
	err := c.HDFS(t, "").Walk(dir, func(p string, fi fs.FileInfo, err error) error {
		if err != nil {
			return err
		}
		rel := strings.Split(strings.TrimPrefix(p, dir+"/"), "/")
		// region/family/file; not .tmp, .regioninfo or recovered edits.
		if !fi.IsDir() && len(rel) == 3 && !strings.HasPrefix(rel[0], ".") && !strings.HasPrefix(rel[1], ".") && rel[1] != "recovered.edits" {
			out[rel[0]+"/"+rel[1]] = append(out[rel[0]+"/"+rel[1]], fi.Size())
		}
		return nil
	})
	if err != nil {
		t.Fatalf("list the store files of %s under %s: %v", table, dir, err)
	}
	return out
}

package hbase_test

import (
	"bytes"
	"errors"
	"fmt"
	"sync"
	"testing"

	"rangecopy/hbase"
	"rangecopy/testenv"
)

func TestIntegrationRegionsMatchMeta(t *testing.T) {
	bothClusters(t, func(t *testing.T, cl *testenv.Cluster, c *hbase.Client) {
		ctx := t.Context()
		splits := [][]byte{[]byte("g"), []byte("n"), []byte("t")}
		table := newTable(t, cl, "regions", []testenv.Family{{Name: "f"}}, splits)
		want, err := cl.Regions(ctx, table)
		if err != nil {
			t.Fatal(err)
		}
		got, err := c.Regions(ctx, table)
		if err != nil {
			t.Fatalf("Regions(%s): %v", table, err)
		}
		if len(got) != len(want) || len(got) != len(splits)+1 {
			t.Fatalf("Regions(%s) = %d regions, harness sees %d, want %d", table, len(got), len(want), len(splits)+1)
		}
		for i := range got {
			g, w := got[i], want[i]
			if !bytes.Equal(g.StartKey, w.StartKey) || !bytes.Equal(g.EndKey, w.EndKey) ||
				g.EncodedName != w.EncodedName || int64(g.ID) != w.RegionID || string(g.Name) != w.Name {
				t.Errorf("region %d: got %s [%q,%q) %s id %d, harness %s [%q,%q) %s id %d",
					i, g.Name, g.StartKey, g.EndKey, g.EncodedName, g.ID, w.Name, w.StartKey, w.EndKey, w.EncodedName, w.RegionID)
			}
			ws, err := hbase.ParseServerName(w.Server)
			if err != nil {
				t.Fatal(err)
			}
			if g.Server.Addr() != ws.Addr() {
				t.Errorf("region %d on %s, harness says %s", i, g.Server.Addr(), ws.Addr())
			}
		}
	})
}

func TestIntegrationGetScanHarnessRows(t *testing.T) {
	bothClusters(t, func(t *testing.T, cl *testenv.Cluster, c *hbase.Client) {
		ctx := t.Context()
		table := newTable(t, cl, "getscan", []testenv.Family{{Name: "f", MaxVersions: 3}}, [][]byte{[]byte("r050")})
		var cells []testenv.Cell
		for i := 0; i < 100; i++ {
			cells = append(cells, testenv.Cell{Row: fmt.Appendf(nil, "r%03d", i), Family: []byte("f"),
				Qualifier: []byte("q"), Timestamp: 1000, Type: "Put", Value: fmt.Appendf(nil, "v%d", i)})
		}
		if err := cl.Mutate(ctx, table, cells); err != nil {
			t.Fatal(err)
		}
		res, err := c.Get(ctx, table, hbase.Get{Row: []byte("r077")})
		if err != nil {
			t.Fatalf("Get: %v", err)
		}
		if len(res.Cells) != 1 || string(res.Cells[0].Value) != "v77" || res.Cells[0].Timestamp != 1000 {
			t.Fatalf("Get r077 = %v", res.Cells)
		}
		sc := c.Scan(table, hbase.Scan{StartRow: []byte("r010"), StopRow: []byte("r090"), Caching: 7})
		defer sc.Close(ctx)
		n := 0
		for sc.Next(ctx) {
			r := sc.Result()
			want := fmt.Sprintf("r%03d", 10+n)
			if string(r.Row) != want || len(r.Cells) != 1 || string(r.Cells[0].Value) != fmt.Sprintf("v%d", 10+n) {
				t.Fatalf("scan row %d = %q %v, want %s", n, r.Row, r.Cells, want)
			}
			n++
		}
		if err := sc.Err(); err != nil {
			t.Fatalf("scan: %v", err)
		}
		if n != 80 {
			t.Fatalf("scan returned %d rows, want 80", n)
		}
	})
}

func TestIntegrationGetMany(t *testing.T) {
	bothClusters(t, func(t *testing.T, cl *testenv.Cluster, c *hbase.Client) {
		ctx := t.Context()
		table := newTable(t, cl, "getmany", []testenv.Family{{Name: "f", MaxVersions: 3}}, [][]byte{[]byte("r3"), []byte("r6")})
		var cells []testenv.Cell
		for i := 0; i < 9; i++ {
			for ts := int64(1); ts <= 2; ts++ {
				cells = append(cells, testenv.Cell{Row: fmt.Appendf(nil, "r%d", i), Family: []byte("f"), Qualifier: []byte("q"),
					Timestamp: ts, Type: "Put", Value: fmt.Appendf(nil, "v%d-%d", i, ts)})
			}
		}
		if err := cl.Mutate(ctx, table, cells); err != nil {
			t.Fatal(err)
		}
		gets := []hbase.Get{{Row: []byte("r8")}, {Row: []byte("missing")}, {Row: []byte("r0"), MaxVersions: 2}, {Row: []byte("r4")}}
		res, err := c.GetMany(ctx, table, gets)
		if err != nil {
			t.Fatalf("GetMany: %v", err)
		}
		if len(res[0].Cells) != 1 || string(res[0].Cells[0].Value) != "v8-2" {
			t.Errorf("r8 = %v", res[0].Cells)
		}
		if len(res[1].Cells) != 0 {
			t.Errorf("missing row = %v", res[1].Cells)
		}
		if len(res[2].Cells) != 2 || string(res[2].Cells[1].Value) != "v0-1" {
			t.Errorf("r0 with 2 versions = %v", res[2].Cells)
		}
		if len(res[3].Cells) != 1 || string(res[3].Cells[0].Row) != "r4" {
			t.Errorf("r4 = %v", res[3].Cells)
		}
		_, err = c.GetMany(ctx, table, []hbase.Get{{Row: []byte("r1")}, {Row: []byte("r2"), Columns: []hbase.Column{{Family: []byte("nofam")}}}})
		var be *hbase.BatchError
		if !errors.As(err, &be) || be.Errors[1] == nil || be.Errors[0] != nil || !errors.Is(err, hbase.ErrNoSuchColumnFamily) {
			t.Errorf("GetMany with a missing family: %v", err)
		}
	})
}

// TestIntegrationConcurrentCalls runs many calls at once over the client's
// shared connections; every answer must belong to its own call.
func TestIntegrationConcurrentCalls(t *testing.T) {
	bothClusters(t, func(t *testing.T, cl *testenv.Cluster, c *hbase.Client) {
		ctx := t.Context()
		table := newTable(t, cl, "conc", []testenv.Family{{Name: "f"}}, [][]byte{[]byte("w4")})
		var wg sync.WaitGroup
		errs := make(chan error, 8)
		for w := 0; w < 8; w++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := 0; i < 40; i++ {
					row := fmt.Appendf(nil, "w%d-%03d", w, i)
					val := fmt.Appendf(nil, "%d/%d", w, i)
					if err := c.Put(ctx, table, hbase.NewPut(row).Add([]byte("f"), []byte("q"), hbase.LatestTimestamp, val)); err != nil {
						errs <- err
						return
					}
					res, err := c.Get(ctx, table, hbase.Get{Row: row})
					if err != nil {
						errs <- err
						return
					}
					if len(res.Cells) != 1 || !bytes.Equal(res.Cells[0].Value, val) {
						errs <- fmt.Errorf("get %s = %v, want %s", row, res.Cells, val)
						return
					}
				}
			}()
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Error(err)
		}
		if n := len(scanAll(t, c, table, hbase.Scan{})); n != 320 {
			t.Fatalf("scan found %d rows, want 320", n)
		}
	})
}

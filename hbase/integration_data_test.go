package hbase_test

import (
	"bytes"
	"fmt"
	"testing"

	"rangecopy/hbase"
	"rangecopy/testenv"
)

func TestIntegrationRegionsMatchMeta(t *testing.T) {
	bothClusters(t, func(t *testing.T, cl *testenv.Cluster, c *hbase.Client) {
		ctx := testCtx(t)
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
		ctx := testCtx(t)
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

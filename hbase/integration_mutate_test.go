package hbase_test

import (
	"bytes"
	"fmt"
	"sort"
	"testing"

	"rangecopy/hbase"
	"rangecopy/testenv"
)

// cellKey formats a cell for comparisons between our client and HBase's.
func cellKey(row, fam, qual []byte, ts int64, typ string, val []byte) string {
	return fmt.Sprintf("%s/%s:%s/%d/%s=%s", row, fam, qual, ts, typ, val)
}

func harnessKeys(cells []testenv.Cell) []string {
	var out []string
	for _, c := range cells {
		out = append(out, cellKey(c.Row, c.Family, c.Qualifier, c.Timestamp, c.Type, c.Value))
	}
	sort.Strings(out)
	return out
}

func ourKeys(results []hbase.Result) []string {
	var out []string
	for _, r := range results {
		for _, c := range r.Cells {
			out = append(out, cellKey(c.Row, c.Family, c.Qualifier, int64(c.Timestamp), c.Type.String(), c.Value))
		}
	}
	sort.Strings(out)
	return out
}

func scanAll(t *testing.T, c *hbase.Client, table string, s hbase.Scan) []hbase.Result {
	t.Helper()
	ctx := t.Context()
	sc := c.Scan(table, s)
	defer sc.Close(ctx)
	var out []hbase.Result
	for sc.Next(ctx) {
		out = append(out, sc.Result())
	}
	if err := sc.Err(); err != nil {
		t.Fatalf("scan %s: %v", table, err)
	}
	return out
}

func equalKeys(t *testing.T, what string, got, want []string) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d cells, want %d\n got %q\nwant %q", what, len(got), len(want), got, want)
	}
	for i := range got {
		if got[i] != want[i] {
			t.Fatalf("%s: cell %d = %s, want %s", what, i, got[i], want[i])
		}
	}
}

// TestIntegrationPutBatchReadByJava writes with our Put and batched Apply
// (Multi over several regions and both servers) and reads back with HBase's
// own Java client.
func TestIntegrationPutBatchReadByJava(t *testing.T) {
	bothClusters(t, func(t *testing.T, cl *testenv.Cluster, c *hbase.Client) {
		ctx := t.Context()
		table := newTable(t, cl, "put", []testenv.Family{{Name: "f", MaxVersions: 5}, {Name: "g"}},
			[][]byte{[]byte("row100"), []byte("row200"), []byte("row300")})
		if err := c.Put(ctx, table, hbase.NewPut([]byte("single")).Add([]byte("f"), []byte("q"), 7, []byte("one"))); err != nil {
			t.Fatalf("Put: %v", err)
		}
		var muts []*hbase.Mutation
		var want []string
		want = append(want, cellKey([]byte("single"), []byte("f"), []byte("q"), 7, "Put", []byte("one")))
		for i := 0; i < 400; i++ {
			row := fmt.Appendf(nil, "row%03d", i)
			val := bytes.Repeat([]byte{byte('a' + i%26)}, i%50)
			muts = append(muts, hbase.NewPut(row).Add([]byte("f"), []byte("q"), 100, val).Add([]byte("g"), []byte("x"), 200, []byte("y")))
			want = append(want, cellKey(row, []byte("f"), []byte("q"), 100, "Put", val), cellKey(row, []byte("g"), []byte("x"), 200, "Put", []byte("y")))
		}
		if err := c.Apply(ctx, table, muts); err != nil {
			t.Fatalf("Apply: %v", err)
		}
		sort.Strings(want)
		got, err := cl.Scan(ctx, table, testenv.ScanSpec{})
		if err != nil {
			t.Fatal(err)
		}
		equalKeys(t, "java scan after our puts", harnessKeys(got), want)
		equalKeys(t, "our scan", ourKeys(scanAll(t, c, table, hbase.Scan{Caching: 33})), want)
	})
}

// TestIntegrationDeleteKinds applies every delete kind with our client and
// checks the markers and the visible data with HBase's Java client.
func TestIntegrationDeleteKinds(t *testing.T) {
	bothClusters(t, func(t *testing.T, cl *testenv.Cluster, c *hbase.Client) {
		ctx := t.Context()
		table := newTable(t, cl, "del", []testenv.Family{{Name: "f", MaxVersions: 10}}, nil)
		var cells []testenv.Cell
		for _, row := range []string{"a", "b", "c", "d", "e"} {
			for _, q := range []string{"q1", "q2"} {
				for ts := int64(1); ts <= 3; ts++ {
					cells = append(cells, testenv.Cell{Row: []byte(row), Family: []byte("f"), Qualifier: []byte(q), Timestamp: ts, Type: "Put", Value: []byte(fmt.Sprint(ts))})
				}
			}
		}
		if err := cl.Mutate(ctx, table, cells); err != nil {
			t.Fatal(err)
		}
		f := []byte("f")
		dels := []*hbase.Mutation{
			hbase.NewDelete([]byte("a")).DeleteVersion(f, []byte("q1"), 2),                   // one version
			hbase.NewDelete([]byte("b")).DeleteColumn(f, []byte("q1"), 2),                    // versions <= 2 of q1
			hbase.NewDelete([]byte("c")).DeleteFamily(f, 2),                                  // all columns <= 2
			hbase.NewDelete([]byte("d")).DeleteFamilyVersion(f, 3),                           // all columns == 3
			{Row: []byte("e"), Type: hbase.MutationDelete, Timestamp: hbase.LatestTimestamp}, // whole row
		}
		if err := c.Delete(ctx, table, dels[0]); err != nil {
			t.Fatalf("Delete: %v", err)
		}
		if err := c.Apply(ctx, table, dels[1:]); err != nil {
			t.Fatalf("Apply deletes: %v", err)
		}
		got, err := cl.Scan(ctx, table, testenv.ScanSpec{MaxVersions: 0})
		if err != nil {
			t.Fatal(err)
		}
		var want []string
		put := func(row, q string, ts int64) {
			want = append(want, cellKey([]byte(row), f, []byte(q), ts, "Put", []byte(fmt.Sprint(ts))))
		}
		put("a", "q1", 3)
		put("a", "q1", 1)
		put("b", "q1", 3)
		put("c", "q1", 3)
		put("c", "q2", 3)
		put("d", "q1", 2)
		put("d", "q1", 1)
		put("d", "q2", 2)
		put("d", "q2", 1)
		for _, row := range []string{"a", "b"} {
			for ts := int64(1); ts <= 3; ts++ {
				put(row, "q2", ts)
			}
		}
		sort.Strings(want)
		equalKeys(t, "java scan after deletes", harnessKeys(got), want)
		equalKeys(t, "our scan after deletes", ourKeys(scanAll(t, c, table, hbase.Scan{MaxVersions: 10})), want)

		raw, err := cl.Scan(ctx, table, testenv.ScanSpec{Raw: true})
		if err != nil {
			t.Fatal(err)
		}
		ours := ourKeys(scanAll(t, c, table, hbase.Scan{Raw: true, MaxVersions: 100}))
		equalKeys(t, "raw scan: ours vs java", ours, harnessKeys(raw))
		types := map[string]bool{}
		for _, r := range raw {
			types[r.Type] = true
		}
		for _, typ := range []string{"Delete", "DeleteColumn", "DeleteFamily", "DeleteFamilyVersion"} {
			if !types[typ] {
				t.Errorf("raw scan has no %s marker; types %v", typ, types)
			}
		}
	})
}

// TestIntegrationScanOptions checks time range, versions, columns, batch and
// stop row handling against HBase's Java client.
func TestIntegrationScanOptions(t *testing.T) {
	bothClusters(t, func(t *testing.T, cl *testenv.Cluster, c *hbase.Client) {
		ctx := t.Context()
		table := newTable(t, cl, "scanopt", []testenv.Family{{Name: "f", MaxVersions: 5}, {Name: "g"}}, [][]byte{[]byte("m")})
		var cells []testenv.Cell
		for _, row := range []string{"a", "k", "m", "z"} {
			for ts := int64(10); ts <= 50; ts += 10 {
				for _, q := range []string{"1", "2", "3"} {
					cells = append(cells, testenv.Cell{Row: []byte(row), Family: []byte("f"), Qualifier: []byte(q), Timestamp: ts, Type: "Put", Value: []byte(row + q)})
				}
			}
			cells = append(cells, testenv.Cell{Row: []byte(row), Family: []byte("g"), Qualifier: []byte("x"), Timestamp: 5, Type: "Put", Value: []byte("gx")})
		}
		if err := cl.Mutate(ctx, table, cells); err != nil {
			t.Fatal(err)
		}
		java, err := cl.Scan(ctx, table, testenv.ScanSpec{StartRow: []byte("b"), StopRow: []byte("z"), StartTime: 20, EndTime: 40, MaxVersions: 0})
		if err != nil {
			t.Fatal(err)
		}
		ours := scanAll(t, c, table, hbase.Scan{StartRow: []byte("b"), StopRow: []byte("z"), TimeRange: hbase.TimeRange{Min: 20, Max: 40}, MaxVersions: 100})
		equalKeys(t, "time range and all versions", ourKeys(ours), harnessKeys(java))
		if len(ours) != 2 || string(ours[0].Row) != "k" || string(ours[1].Row) != "m" {
			t.Fatalf("rows %v", ours)
		}

		// Latest version only, one family.
		ours = scanAll(t, c, table, hbase.Scan{Columns: []hbase.Column{{Family: []byte("f"), Qualifier: []byte("2")}}})
		if len(ours) != 4 {
			t.Fatalf("column scan: %d rows", len(ours))
		}
		for _, r := range ours {
			if len(r.Cells) != 1 || r.Cells[0].Timestamp != 50 || string(r.Cells[0].Qualifier) != "2" {
				t.Fatalf("column scan row %q: %v", r.Row, r.Cells)
			}
		}

		// Batch limit: at most 2 cells per Result, rows split.
		ours = scanAll(t, c, table, hbase.Scan{BatchSize: 2, Caching: 1})
		total := 0
		for _, r := range ours {
			if len(r.Cells) > 2 {
				t.Fatalf("batch 2: result with %d cells", len(r.Cells))
			}
			total += len(r.Cells)
		}
		if total != 16 {
			t.Fatalf("batch scan: %d cells, want 16", total)
		}
	})
}

package hbase_test

import (
	"path"
	"slices"
	"strings"
	"testing"

	"rangecopy/hbase"
	"rangecopy/testenv"
)

// TestIntegrationFlushAndStoreFiles flushes regions with the WAL marker that
// tells an empty memstore from a flush under way, and lists each region's
// store files from its server, checked against the region's family folders
// in HDFS.
func TestIntegrationFlushAndStoreFiles(t *testing.T) {
	env := testenv.Get(t)
	cl := env.Source
	c := dialCluster(t, cl)
	ctx := t.Context()
	table := newTable(t, cl, "flushls", []testenv.Family{{Name: "a"}, {Name: "b"}}, [][]byte{[]byte("m")})
	put := func(rows ...string) {
		t.Helper()
		var muts []*hbase.Mutation
		for _, row := range rows {
			muts = append(muts, hbase.NewPut([]byte(row)).Add([]byte("a"), []byte("q"), hbase.LatestTimestamp, []byte("v"+row)).
				Add([]byte("b"), []byte("q"), hbase.LatestTimestamp, []byte("w"+row)))
		}
		if err := c.Apply(ctx, table, muts); err != nil {
			t.Fatal(err)
		}
	}
	regions, err := c.Regions(ctx, table)
	if err != nil || len(regions) != 2 {
		t.Fatalf("Regions = %d, %v; want 2", len(regions), err)
	}
	// A new region: nothing to flush, which the marker makes plain.
	for _, r := range regions {
		res, err := c.Flush(ctx, r)
		if err != nil {
			t.Fatalf("Flush %s: %v", r, err)
		}
		if res.Flushed || !res.Empty || !res.Settled() {
			t.Errorf("Flush of the empty region %s = %+v; want Empty and settled", r, res)
		}
		files, err := c.StoreFiles(ctx, r)
		if err != nil || len(files) != 0 {
			t.Errorf("StoreFiles of the empty region %s = %v, %v; want none", r, files, err)
		}
	}
	fs := cl.HDFS(t, "")
	tableDir := path.Join(cl.RootDirPath(), "data", "default", table)
	// Twice: each round flushes one new file per family and region, and the
	// listing holds the earlier ones too.
	for round := 1; round <= 2; round++ {
		put("b", "x")
		for _, r := range regions {
			res, err := c.Flush(ctx, r)
			if err != nil {
				t.Fatalf("Flush %s: %v", r, err)
			}
			if !res.Flushed || res.Empty || !res.Settled() || res.LastFlush.IsZero() {
				t.Errorf("round %d: Flush of %s holding a row = %+v; want Flushed", round, r, res)
			}
			again, err := c.Flush(ctx, r)
			if err != nil || !again.Empty || again.Flushed {
				t.Errorf("round %d: Flush of %s just flushed = %+v, %v; want Empty", round, r, again, err)
			}
			files, err := c.StoreFiles(ctx, r)
			if err != nil {
				t.Fatalf("StoreFiles %s: %v", r, err)
			}
			var got, want []string
			for _, f := range files {
				i := strings.Index(f, tableDir+"/")
				if i < 0 {
					t.Fatalf("store file %s lies outside the table's folder %s", f, tableDir)
				}
				got = append(got, f[i+len(tableDir)+1:])
			}
			for _, fam := range []string{"a", "b"} {
				dir := path.Join(tableDir, r.EncodedName, fam)
				entries, err := fs.ReadDir(dir)
				if err != nil {
					t.Fatalf("list %s: %v", dir, err)
				}
				for _, e := range entries {
					want = append(want, path.Join(r.EncodedName, fam, e.Name()))
				}
			}
			slices.Sort(got)
			slices.Sort(want)
			if len(got) != 2*round || !slices.Equal(got, want) {
				t.Errorf("round %d: StoreFiles of %s = %v; the family folders hold %v (want %d files)", round, r, got, want, 2*round)
			}
		}
	}
}

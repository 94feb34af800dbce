package hbase_test

import (
	"context"
	"errors"
	"slices"
	"testing"

	"rangecopy/hbase"
	"rangecopy/testenv"
)

// TestIntegrationTableLifecycle creates a table with our client (splits and
// every family attribute), describes, lists, writes, flushes, disables,
// enables and deletes it.
func TestIntegrationTableLifecycle(t *testing.T) {
	bothClusters(t, func(t *testing.T, cl *testenv.Cluster, c *hbase.Client) {
		ctx := t.Context()
		table := testenv.UniqueName(t, "life")
		fam := hbase.FamilyDescriptor{Name: "f", MaxVersions: 4, MinVersions: 1, TTL: 86400, Compression: "GZ",
			DataBlockEncoding: "FAST_DIFF", BloomFilter: "ROWCOL", BlockSize: 32768, KeepDeletedCells: "TRUE",
			InMemory: true, ReplicationScope: 1}
		plain := hbase.FamilyDescriptor{Name: "p"}
		splits := [][]byte{[]byte("b"), []byte("c")}
		if err := c.CreateTable(ctx, hbase.TableDescriptor{Name: table, Families: []hbase.FamilyDescriptor{fam, plain}}, splits); err != nil {
			t.Fatalf("CreateTable: %v", err)
		}
		t.Cleanup(func() { cl.DeleteTable(context.Background(), table) })
		if err := c.CreateTable(ctx, hbase.TableDescriptor{Name: table, Families: []hbase.FamilyDescriptor{plain}}, nil); !errors.Is(err, hbase.ErrTableExists) {
			t.Errorf("CreateTable twice: err = %v, want ErrTableExists", err)
		}

		// Java's view of the regions matches the splits.
		regions, err := cl.Regions(ctx, table)
		if err != nil || len(regions) != 3 {
			t.Fatalf("harness sees %d regions, %v", len(regions), err)
		}

		d, err := c.TableDescriptor(ctx, table)
		if err != nil {
			t.Fatalf("TableDescriptor: %v", err)
		}
		got := d.Family("f")
		if got == nil || d.Family("p") == nil || len(d.Families) != 2 {
			t.Fatalf("families %+v", d.Families)
		}
		if got.MaxVersions != 4 || got.MinVersions != 1 || got.TTL != 86400 || got.Compression != "GZ" ||
			got.DataBlockEncoding != "FAST_DIFF" || got.BloomFilter != "ROWCOL" || got.BlockSize != 32768 ||
			got.KeepDeletedCells != "TRUE" || !got.InMemory || got.ReplicationScope != 1 {
			t.Errorf("family f read back as %+v", *got)
		}
		p := d.Family("p")
		if p.MaxVersions != 1 || p.TTL != 0 || p.Compression != "NONE" || p.BloomFilter != "ROW" || p.BlockSize != 65536 ||
			p.KeepDeletedCells != "FALSE" || p.InMemory || p.ReplicationScope != 0 || p.DataBlockEncoding != "NONE" {
			t.Errorf("family p defaults read back as %+v", *p)
		}

		tables, err := c.ListTables(ctx, "")
		if err != nil || !slices.Contains(tables, table) {
			t.Fatalf("ListTables: %v (%d tables), missing %s", err, len(tables), table)
		}
		sys, err := c.ListTables(ctx, "hbase")
		if err != nil || !slices.Contains(sys, "hbase:meta") {
			t.Errorf("ListTables(hbase) = %v, %v", sys, err)
		}
		nss, err := c.ListNamespaces(ctx)
		if err != nil || !slices.Contains(nss, "default") || !slices.Contains(nss, "hbase") {
			t.Fatalf("ListNamespaces = %v, %v", nss, err)
		}

		var muts []*hbase.Mutation
		for _, row := range []string{"a", "b", "c"} {
			muts = append(muts, hbase.NewPut([]byte(row)).Add([]byte("f"), []byte("q"), hbase.LatestTimestamp, []byte("v"+row)))
		}
		if err := c.Apply(ctx, table, muts); err != nil {
			t.Fatal(err)
		}
		ours, err := c.Regions(ctx, table)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range ours {
			flushed, err := c.FlushRegion(ctx, r)
			if err != nil {
				t.Fatalf("FlushRegion %s: %v", r, err)
			}
			if !flushed {
				t.Errorf("FlushRegion %s: nothing flushed although the region holds a row", r)
			}
		}
		// Flushed data is still readable.
		res, err := c.Get(ctx, table, hbase.Get{Row: []byte("b")})
		if err != nil || len(res.Cells) != 1 || string(res.Cells[0].Value) != "vb" {
			t.Fatalf("Get after flush = %v, %v", res.Cells, err)
		}

		if err := c.DisableTable(ctx, table); err != nil {
			t.Fatalf("DisableTable: %v", err)
		}
		if err := c.EnableTable(ctx, table); err != nil {
			t.Fatalf("EnableTable: %v", err)
		}
		res, err = c.Get(ctx, table, hbase.Get{Row: []byte("c")})
		if err != nil || len(res.Cells) != 1 {
			t.Fatalf("Get after enable = %v, %v", res.Cells, err)
		}
		if err := c.DeleteTable(ctx, table); !errors.Is(err, hbase.ErrTableNotDisabled) {
			t.Errorf("DeleteTable of an enabled table: err = %v, want ErrTableNotDisabled", err)
		}
		if err := c.DisableTable(ctx, table); err != nil {
			t.Fatalf("DisableTable: %v", err)
		}
		if err := c.DeleteTable(ctx, table); err != nil {
			t.Fatalf("DeleteTable: %v", err)
		}
		if _, err := c.TableDescriptor(ctx, table); !errors.Is(err, hbase.ErrTableNotFound) {
			t.Fatalf("TableDescriptor of deleted table: err = %v", err)
		}
	})
}

// TestIntegrationDescribeHarnessTable reads a schema HBase's Java admin wrote.
func TestIntegrationDescribeHarnessTable(t *testing.T) {
	bothClusters(t, func(t *testing.T, cl *testenv.Cluster, c *hbase.Client) {
		ctx := t.Context()
		table := newTable(t, cl, "desc", []testenv.Family{{Name: "x", MaxVersions: 7, Compression: "GZ", Encoding: "PREFIX",
			Bloom: "NONE", BlockSize: 16384, TTL: 3600, KeepDeletedCells: true, InMemory: true, Scope: 1}}, nil)
		d, err := c.TableDescriptor(ctx, table)
		if err != nil {
			t.Fatal(err)
		}
		f := d.Family("x")
		if f == nil || f.MaxVersions != 7 || f.Compression != "GZ" || f.DataBlockEncoding != "PREFIX" || f.BloomFilter != "NONE" ||
			f.BlockSize != 16384 || f.TTL != 3600 || f.KeepDeletedCells != "TRUE" || !f.InMemory || f.ReplicationScope != 1 {
			t.Fatalf("family x = %+v", f)
		}
	})
}

func TestIntegrationSnapshots(t *testing.T) {
	bothClusters(t, func(t *testing.T, cl *testenv.Cluster, c *hbase.Client) {
		ctx := t.Context()
		table := newTable(t, cl, "snap", []testenv.Family{{Name: "f"}}, [][]byte{[]byte("m")})
		if err := c.Put(ctx, table, hbase.NewPut([]byte("a")).Add([]byte("f"), nil, hbase.LatestTimestamp, []byte("v"))); err != nil {
			t.Fatal(err)
		}
		name := testenv.UniqueName(t, "s")
		if err := c.CreateSnapshot(ctx, table, name); err != nil {
			t.Fatalf("CreateSnapshot: %v", err)
		}
		t.Cleanup(func() { cl.DeleteSnapshot(context.Background(), name) })
		snaps, err := c.ListSnapshots(ctx)
		if err != nil {
			t.Fatal(err)
		}
		i := slices.IndexFunc(snaps, func(s hbase.SnapshotInfo) bool { return s.Name == name })
		if i < 0 || snaps[i].Table != table || snaps[i].CreationTime.IsZero() {
			t.Fatalf("snapshot %s not listed properly: %+v", name, snaps)
		}
		if err := c.CreateSnapshot(ctx, table, name); err == nil {
			t.Error("second snapshot with the same name succeeded")
		}
		if err := c.DeleteSnapshot(ctx, name); err != nil {
			t.Fatalf("DeleteSnapshot: %v", err)
		}
		snaps, err = c.ListSnapshots(ctx)
		if err != nil || slices.ContainsFunc(snaps, func(s hbase.SnapshotInfo) bool { return s.Name == name }) {
			t.Fatalf("snapshot still listed after delete: %v", err)
		}
		if err := c.DeleteSnapshot(ctx, name); !errors.Is(err, hbase.ErrSnapshotNotFound) {
			t.Errorf("DeleteSnapshot of a missing snapshot: err = %v, want ErrSnapshotNotFound", err)
		}
	})
}

func TestIntegrationRegionServers(t *testing.T) {
	bothClusters(t, func(t *testing.T, cl *testenv.Cluster, c *hbase.Client) {
		ctx := t.Context()
		st, err := cl.Status(ctx)
		if err != nil {
			t.Fatal(err)
		}
		got, err := c.RegionServers(ctx)
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, s := range got {
			names = append(names, s.String())
		}
		// Other tests may start or stop servers meanwhile: compare loosely.
		for _, live := range st.LiveRegionServers {
			if !slices.Contains(names, live) {
				t.Logf("master lists %s, ZooKeeper does not (yet): %v", live, names)
			}
		}
		if len(got) == 0 {
			t.Fatal("no region servers")
		}
	})
}

// TestIntegrationManyRegions creates a table with 150 regions with our
// client; listing them pages through hbase:meta.
func TestIntegrationManyRegions(t *testing.T) {
	env := testenv.Get(t)
	cl := env.Source
	c := dialCluster(t, cl)
	ctx := t.Context()
	table := testenv.UniqueName(t, "many")
	var splits [][]byte
	for i := 1; i < 150; i++ {
		splits = append(splits, []byte{byte(i)})
	}
	if err := c.CreateTable(ctx, hbase.TableDescriptor{Name: table, Families: []hbase.FamilyDescriptor{{Name: "f"}}}, splits); err != nil {
		t.Fatalf("CreateTable: %v", err)
	}
	t.Cleanup(func() { cl.DeleteTable(context.Background(), table) })
	regions, err := c.Regions(ctx, table)
	if err != nil {
		t.Fatal(err)
	}
	if len(regions) != 150 {
		t.Fatalf("%d regions, want 150", len(regions))
	}
	for i, r := range regions {
		if i > 0 && string(r.StartKey) != string(regions[i-1].EndKey) {
			t.Fatalf("region %d starts at %q, previous ends at %q", i, r.StartKey, regions[i-1].EndKey)
		}
	}
	if len(regions[0].StartKey) != 0 || len(regions[149].EndKey) != 0 {
		t.Fatal("first or last region is not open-ended")
	}
	java, err := cl.Regions(ctx, table)
	if err != nil || len(java) != 150 {
		t.Fatalf("harness sees %d regions, %v", len(java), err)
	}
}

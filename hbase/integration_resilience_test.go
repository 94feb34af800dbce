package hbase_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"rangecopy/hbase"
	"rangecopy/internal/testsupport"
	"rangecopy/testenv"
)

func putRows(t *testing.T, c *hbase.Client, table string, rows []string, value string) {
	t.Helper()
	var muts []*hbase.Mutation
	for _, r := range rows {
		muts = append(muts, hbase.NewPut([]byte(r)).Add([]byte("f"), []byte("q"), hbase.LatestTimestamp, []byte(value+r)))
	}
	if err := c.Apply(t.Context(), table, muts); err != nil {
		t.Fatalf("Apply: %v", err)
	}
}

func getValue(t *testing.T, c *hbase.Client, table, row string) string {
	t.Helper()
	res, err := c.Get(t.Context(), table, hbase.Get{Row: []byte(row)})
	if err != nil {
		t.Fatalf("Get %s: %v", row, err)
	}
	if len(res.Cells) != 1 {
		t.Fatalf("Get %s: %d cells", row, len(res.Cells))
	}
	return string(res.Cells[0].Value)
}

// TestIntegrationCacheAfterMoveAndSplit warms the location cache, has the
// harness move and split regions behind the client's back, and checks that
// reads, writes and scans find the regions again.
func TestIntegrationCacheAfterMoveAndSplit(t *testing.T) {
	bothClusters(t, func(t *testing.T, cl *testenv.Cluster, c *hbase.Client) {
		ctx := t.Context()
		table := newTable(t, cl, "move", []testenv.Family{{Name: "f"}}, [][]byte{[]byte("m")})
		rows := []string{"a", "c", "e", "g", "n", "p", "r"}
		putRows(t, c, table, rows, "1")
		if v := getValue(t, c, table, "c"); v != "1c" {
			t.Fatalf("value %s", v)
		}
		before, err := c.Regions(ctx, table)
		if err != nil {
			t.Fatal(err)
		}
		// Move the first region to another server.
		to, err := cl.Move(ctx, before[0].EncodedName, "")
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("moved %s from %s to %s", before[0].EncodedName, before[0].Server, to)
		if v := getValue(t, c, table, "c"); v != "1c" {
			t.Fatalf("after move: value %s", v)
		}
		putRows(t, c, table, rows, "2")

		// Split the first region at "e" (the cache still holds the parent).
		if err := cl.Split(ctx, table, []byte("e")); err != nil {
			t.Fatal(err)
		}
		for _, r := range rows {
			if v := getValue(t, c, table, r); v != "2"+r {
				t.Fatalf("after split: %s = %s", r, v)
			}
		}
		putRows(t, c, table, rows, "3")
		res := scanAll(t, c, table, hbase.Scan{Caching: 2})
		if len(res) != len(rows) {
			t.Fatalf("scan after split: %d rows", len(res))
		}
		for i, r := range res {
			if string(r.Row) != rows[i] || string(r.Cells[0].Value) != "3"+rows[i] {
				t.Fatalf("scan row %d = %q %q", i, r.Row, r.Cells[0].Value)
			}
		}
		after, err := c.Regions(ctx, table)
		if err != nil {
			t.Fatal(err)
		}
		if len(after) != 3 || string(after[1].StartKey) != "e" {
			t.Fatalf("regions after split: %v", after)
		}
	})
}

// TestIntegrationRideOutRegionServerStop stops the region server holding our
// table's region (a fresh one, so other tests are undisturbed) without
// waiting, and checks that a Get retries until the region is reassigned.
func TestIntegrationRideOutRegionServerStop(t *testing.T) {
	env := testenv.Get(t)
	cl := env.Source
	// Bounded: the patient client below retries until its context ends,
	// so a region that never comes back fails the test here, with the
	// Get's error, instead of hanging it to the binary's timeout.
	ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute)
	defer cancel()
	c := dialCluster(t, cl)
	table := newTable(t, cl, "ride", []testenv.Family{{Name: "f"}}, nil)
	putRows(t, c, table, []string{"a", "b"}, "v")
	rs, err := cl.StartRegionServer(ctx)
	if err != nil {
		t.Fatal(err)
	}
	regions, err := cl.Regions(ctx, table)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := cl.Move(ctx, regions[0].EncodedName, rs); err != nil {
		t.Fatal(err)
	}
	// Warm the cache and the connection on the doomed server.
	ours, err := c.Regions(ctx, table)
	if err != nil {
		t.Fatal(err)
	}
	if ours[0].Server.String() != rs {
		t.Fatalf("region on %s, want %s", ours[0].Server, rs)
	}
	if v := getValue(t, c, table, "a"); v != "va" {
		t.Fatal(v)
	}
	// A client that retries until ctx's deadline, with the doomed
	// server cached and connected.
	patient := testsupport.DialWith(t, cl, hbase.Config{MaxAttempts: 1 << 20})
	if v := getValue(t, patient, table, "a"); v != "va" {
		t.Fatal(v)
	}
	if err := cl.StopRegionServerNoWait(ctx, rs); err != nil {
		t.Fatal(err)
	}
	res, err := patient.Get(ctx, table, hbase.Get{Row: []byte("b")})
	if err != nil {
		t.Fatalf("Get while the region server stops: %v", err)
	}
	if len(res.Cells) != 1 || string(res.Cells[0].Value) != "vb" {
		t.Fatalf("Get = %v", res.Cells)
	}
	// The region is open again: a client with the dead server in its cache
	// relocates at once.
	if v := getValue(t, c, table, "b"); v != "vb" {
		t.Fatal(v)
	}
	now, err := c.Regions(ctx, table)
	if err != nil {
		t.Fatal(err)
	}
	if now[0].Server.String() == rs {
		t.Fatalf("region still on the stopped server %s", rs)
	}
}

// TestIntegrationUnknownTableAndFamily checks that errors are typed and
// name what was unknown.
func TestIntegrationUnknownTableAndFamily(t *testing.T) {
	bothClusters(t, func(t *testing.T, cl *testenv.Cluster, c *hbase.Client) {
		ctx := t.Context()
		missing := testenv.UniqueName(t, "missing")
		_, err := c.Get(ctx, missing, hbase.Get{Row: []byte("r")})
		if !errors.Is(err, hbase.ErrTableNotFound) || !strings.Contains(err.Error(), missing) {
			t.Errorf("Get on a missing table: err = %v", err)
		}
		if _, err := c.Regions(ctx, missing); !errors.Is(err, hbase.ErrTableNotFound) || !strings.Contains(err.Error(), missing) {
			t.Errorf("Regions of a missing table: err = %v", err)
		}
		if _, err := c.TableDescriptor(ctx, missing); !errors.Is(err, hbase.ErrTableNotFound) || !strings.Contains(err.Error(), missing) {
			t.Errorf("TableDescriptor of a missing table: err = %v", err)
		}
		sc := c.Scan(missing, hbase.Scan{})
		if sc.Next(ctx) || !errors.Is(sc.Err(), hbase.ErrTableNotFound) {
			t.Errorf("Scan of a missing table: err = %v", sc.Err())
		}
		if err := c.DisableTable(ctx, missing); !errors.Is(err, hbase.ErrTableNotFound) || !strings.Contains(err.Error(), missing) {
			t.Errorf("DisableTable of a missing table: err = %v", err)
		}

		table := newTable(t, cl, "fam", []testenv.Family{{Name: "f"}}, nil)
		err = c.Put(ctx, table, hbase.NewPut([]byte("r")).Add([]byte("nofam"), []byte("q"), 1, []byte("v")))
		var re *hbase.RemoteError
		if !errors.Is(err, hbase.ErrNoSuchColumnFamily) || !errors.As(err, &re) || !strings.Contains(err.Error(), "nofam") {
			t.Errorf("Put to a missing family: err = %v", err)
		} else if re.Region == "" && !strings.Contains(err.Error(), table) {
			t.Errorf("error does not name the region: %v", err)
		}
		err = c.Apply(ctx, table, []*hbase.Mutation{
			hbase.NewPut([]byte("ok")).Add([]byte("f"), []byte("q"), 1, []byte("v")),
			hbase.NewPut([]byte("bad")).Add([]byte("nofam2"), []byte("q"), 1, []byte("v")),
		})
		var be *hbase.BatchError
		if !errors.As(err, &be) || len(be.Errors) != 1 || be.Errors[1] == nil || !errors.Is(err, hbase.ErrNoSuchColumnFamily) ||
			!strings.Contains(err.Error(), "nofam2") {
			t.Errorf("batch with a missing family: err = %v", err)
		}
		if v := getValue(t, c, table, "ok"); v != "v" {
			t.Errorf("the good mutation of the batch was not applied: %q", v)
		}
		sc = c.Scan(table, hbase.Scan{Columns: []hbase.Column{{Family: []byte("nofam3")}}})
		if sc.Next(ctx) || !errors.Is(sc.Err(), hbase.ErrNoSuchColumnFamily) || !strings.Contains(sc.Err().Error(), "nofam3") {
			t.Errorf("Scan of a missing family: err = %v", sc.Err())
		}
		_, err = c.Get(ctx, table, hbase.Get{Row: []byte("ok"), Columns: []hbase.Column{{Family: []byte("nofam4")}}})
		if !errors.Is(err, hbase.ErrNoSuchColumnFamily) || !strings.Contains(err.Error(), "nofam4") {
			t.Errorf("Get of a missing family: err = %v", err)
		}
	})
}

// TestIntegrationScannerSurvivesMove moves the region under an open scanner
// between two batches; the scan goes on after the last row it returned.
func TestIntegrationScannerSurvivesMove(t *testing.T) {
	bothClusters(t, func(t *testing.T, cl *testenv.Cluster, c *hbase.Client) {
		ctx := t.Context()
		table := newTable(t, cl, "scanmove", []testenv.Family{{Name: "f"}}, nil)
		var rows []string
		for i := 0; i < 10; i++ {
			rows = append(rows, string(rune('a'+i)))
		}
		putRows(t, c, table, rows, "v")
		sc := c.Scan(table, hbase.Scan{Caching: 3})
		defer sc.Close(ctx)
		var got []string
		for len(got) < 4 && sc.Next(ctx) {
			got = append(got, string(sc.Result().Row))
		}
		regions, err := cl.Regions(ctx, table)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := cl.Move(ctx, regions[0].EncodedName, ""); err != nil {
			t.Fatal(err)
		}
		for sc.Next(ctx) {
			got = append(got, string(sc.Result().Row))
		}
		if err := sc.Err(); err != nil {
			t.Fatalf("scan across a move: %v", err)
		}
		if strings.Join(got, "") != strings.Join(rows, "") {
			t.Fatalf("rows %v, want %v", got, rows)
		}
	})
}

// TestIntegrationBatchScannerSurvivesMove moves the region while a scan with
// a batch limit is in the middle of a wide row; no cell is lost or repeated.
func TestIntegrationBatchScannerSurvivesMove(t *testing.T) {
	bothClusters(t, func(t *testing.T, cl *testenv.Cluster, c *hbase.Client) {
		ctx := t.Context()
		table := newTable(t, cl, "batchmove", []testenv.Family{{Name: "f"}}, nil)
		var muts []*hbase.Mutation
		var want []string
		for _, row := range []string{"a", "b", "c"} {
			m := hbase.NewPut([]byte(row))
			for q := 0; q < 10; q++ {
				m.Add([]byte("f"), []byte{byte('0' + q)}, 1, []byte(row))
				want = append(want, cellKey([]byte(row), []byte("f"), []byte{byte('0' + q)}, 1, "Put", []byte(row)))
			}
			muts = append(muts, m)
		}
		if err := c.Apply(ctx, table, muts); err != nil {
			t.Fatal(err)
		}
		sc := c.Scan(table, hbase.Scan{BatchSize: 3, Caching: 1})
		defer sc.Close(ctx)
		var got []hbase.Result
		for len(got) < 2 && sc.Next(ctx) {
			got = append(got, sc.Result())
		}
		regions, err := cl.Regions(ctx, table)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := cl.Move(ctx, regions[0].EncodedName, ""); err != nil {
			t.Fatal(err)
		}
		for sc.Next(ctx) {
			got = append(got, sc.Result())
		}
		if err := sc.Err(); err != nil {
			t.Fatalf("scan across a move: %v", err)
		}
		equalKeys(t, "batched scan across a move", ourKeys(got), want)
	})
}

func TestIntegrationLocate(t *testing.T) {
	bothClusters(t, func(t *testing.T, cl *testenv.Cluster, c *hbase.Client) {
		ctx := t.Context()
		table := newTable(t, cl, "locate", []testenv.Family{{Name: "f"}}, [][]byte{[]byte("k")})
		for row, start := range map[string]string{"": "", "a": "", "k": "k", "zz": "k"} {
			r, err := c.Locate(ctx, table, []byte(row))
			if err != nil {
				t.Fatalf("Locate %q: %v", row, err)
			}
			if string(r.StartKey) != start || r.Server.IsZero() {
				t.Errorf("Locate %q = %s on %v", row, r, r.Server)
			}
		}
	})
}

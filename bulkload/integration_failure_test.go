package bulkload_test

import (
	"context"
	"testing"
	"time"

	"rangecopy/bulkload"
	"rangecopy/hfile"
)

// TestIntegrationRegionServerStopped moves the table's regions onto a fresh
// region server, stops it without waiting for the master, and loads: the
// loads fail while the regions are in transition and succeed once they are
// reassigned.
func TestIntegrationRegionServerStopped(t *testing.T) {
	t.Parallel()
	s := newSetup(t, "rsstop", fams, [][]byte{[]byte("r0100"), []byte("r0200")})
	ctx := t.Context()
	rs, err := s.cl.StartRegionServer(ctx)
	if err != nil {
		t.Fatal(err)
	}
	stopped := false
	t.Cleanup(func() {
		if !stopped {
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			if err := s.cl.StopRegionServer(ctx, rs); err != nil {
				t.Logf("stop region server %s: %v", rs, err)
			}
		}
	})
	regions, err := s.cl.Regions(ctx, s.table)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range regions {
		if _, err := s.cl.Move(ctx, r.EncodedName, rs); err != nil {
			t.Fatalf("move %s to %s: %v", r.EncodedName, rs, err)
		}
	}
	l := s.loader(t, nil) // its view: every region on rs
	var want []*hfile.Cell
	first := genCells("g", "r", 0, 10)
	want = append(want, first...)
	if err := l.Load(ctx, writeFile(t, s, "t", "g", first, hfile.WriterOptions{})); err != nil {
		t.Fatal(err) // the bulk load token comes from rs
	}
	var files []bulkload.File
	for i := 0; i < 3; i++ {
		cells := genCells("f", "r", i*100, i*100+100)
		want = append(want, cells...)
		files = append(files, writeFile(t, s, "t", "f", cells, hfile.WriterOptions{}))
	}
	if err := s.cl.StopRegionServerNoWait(ctx, rs); err != nil {
		t.Fatal(err)
	}
	stopped = true
	start := time.Now()
	for _, f := range files {
		if err := l.Load(ctx, f); err != nil {
			t.Fatalf("Load with the region server stopped: %v", err)
		}
	}
	sortCells(want)
	checkTable(t, s, want)
	// The retries may happen inside the hbase client (it follows regions
	// that move) or here (Counters().Retries); either way the data is there.
	t.Logf("loads rode out the stop in %v; counters %+v", time.Since(start).Round(time.Millisecond), l.Counters().Values())
}

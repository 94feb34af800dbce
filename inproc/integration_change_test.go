package inproc

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"rangecopy/internal/testsupport"
	"rangecopy/job"
	"rangecopy/master"
	"rangecopy/testenv"
)

// TestCopyEveryEncodingAndCompression copies a table whose families use
// every data block encoding with every compression HBase can write in the
// test environment (NONE, GZ, SNAPPY, LZ4; ZSTD needs Hadoop's native
// library), so the inputs are HBase's own files in each format.
func TestCopyEveryEncodingAndCompression(t *testing.T) {
	env := testenv.Get(t)
	var fams []testenv.Family
	for _, enc := range []string{"NONE", "PREFIX", "DIFF", "FAST_DIFF", "ROW_INDEX_V1"} {
		for _, comp := range []string{"NONE", "GZ", "SNAPPY", "LZ4"} {
			fams = append(fams, testenv.Family{Name: strings.ToLower(enc + "_" + comp), MaxVersions: 3, Encoding: enc, Compression: comp, BlockSize: 1024})
		}
	}
	table := testenv.UniqueName(t, "formats")
	if err := env.Source.CreateTable(t.Context(), table, fams, [][]byte{{0x40}, {0xa0}}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { env.Source.DeleteTable(context.Background(), table) })
	ts := time.Now().UnixMilli() - 100_000
	rows := binaryRows(60)
	for round := 0; round < 2; round++ {
		var cells []testenv.Cell
		for i, row := range rows {
			for _, f := range fams {
				cells = append(cells, testenv.Cell{Row: row, Family: []byte(f.Name), Qualifier: []byte("q"), Timestamp: ts + int64(round),
					Type: "Put", Value: []byte(fmt.Sprintf("%s-%x-%d-%s", f.Name, row, round, strings.Repeat("v", i%50)))})
				if round == 1 && i%7 == 3 {
					cells = append(cells, testenv.Cell{Row: row, Family: []byte(f.Name), Qualifier: []byte("q"), Timestamp: ts, Type: "Delete"})
				}
			}
		}
		if err := env.Source.Mutate(t.Context(), table, cells); err != nil {
			t.Fatal(err)
		}
		if err := env.Source.Flush(t.Context(), table); err != nil {
			t.Fatal(err)
		}
	}
	o := testOptions(t, env, job.Spec{Table: table})
	o.CreateTable = true
	dropTargetLater(t, env, table)
	rep, err := Copy(t.Context(), o)
	if err != nil {
		t.Fatalf("copy: %v", err)
	}
	assertFinished(t, env, o, rep)
	n := testsupport.Compare(t, env, testsupport.CompareSpec{SourceTable: table, TargetTable: table, Mode: testsupport.Raw}).Cells
	t.Logf("%d families, %d cells, %d files loaded", len(fams), n, rep.FilesLoaded)
}

// TestCopyWhileRegionsChange starts a slow copy (a bandwidth cap) and, while
// it runs, splits every target region, splits a source region and major
// compacts the source table (its pinned files move to the archive). The copy
// finishes and the target reads the same as the source did when the copy
// started: every version of every visible cell. (Not raw: HBase compacts a
// split's daughters at once, and a compaction of all of a store's files drops
// delete markers and the cells they mask, so raw scans of the target may hold
// fewer cells than the source's.)
func TestCopyWhileRegionsChange(t *testing.T) {
	env := testenv.Get(t)
	// It compacts the source on purpose: compaction on, visible cells compared.
	table := createSourceWith(t, env, "change", testenv.TableOptions{Compaction: true})
	rows := binaryRows(400)
	writeRounds(t, env.Source, table, rows, 3, time.Now().UnixMilli()-100_000, true)
	before, err := env.Source.Scan(t.Context(), table, testenv.ScanSpec{})
	if err != nil {
		t.Fatal(err)
	}
	o := testOptions(t, env, job.Spec{Table: table})
	o.CreateTable = true
	o.Workers = 1
	o.Bandwidth = 8 << 10 // bytes a second: the copy takes tens of seconds, longer than the splits and the major compaction (16 KiB/s let it finish first in CI)
	dropTargetLater(t, env, table)
	snapPrefix := master.SnapshotName(master.JobID(o.Source, o.Target, o.Spec)) + "-"

	type result struct {
		rep job.Report
		err error
	}
	done := make(chan result, 1)
	go func() {
		rep, err := Copy(t.Context(), o)
		done <- result{rep, err}
	}()

	// Once the source is pinned and the target table made (the two go on
	// at once), change both sides' regions.
	src := testsupport.Dial(t, env.Source)
	waitUntil(t, done, "the source snapshot and the target table", func() bool {
		snaps, err := src.ListSnapshots(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		pinned := false
		for _, s := range snaps {
			pinned = pinned || strings.HasPrefix(s.Name, snapPrefix)
		}
		regions, err := env.Target.Regions(t.Context(), table)
		return pinned && err == nil && len(regions) == 4
	})
	regions, err := env.Target.Regions(t.Context(), table)
	if err != nil || len(regions) != 4 {
		t.Fatalf("target regions %d (%v), want 4 made by --create-table", len(regions), err)
	}
	// Split each target region at a row of the table inside it.
	splits := 0
	for _, r := range regions {
		for _, row := range rows[len(rows)/8:] {
			if string(row) > string(r.StartKey) && (len(r.EndKey) == 0 || string(row) < string(r.EndKey)) {
				if err := env.Target.Split(t.Context(), table, row); err != nil {
					t.Fatalf("split target region %s at %x: %v", r.EncodedName, row, err)
				}
				splits++
				break
			}
		}
	}
	if err := env.Source.Split(t.Context(), table, rows[len(rows)/2]); err != nil {
		t.Fatalf("split a source region: %v", err)
	}
	if err := env.Source.Compact(t.Context(), table, true); err != nil {
		t.Fatalf("major compaction of the source: %v", err)
	}
	select {
	case r := <-done:
		t.Fatalf("the copy ended (%v) before the regions changed; slow it down further", r.err)
	default:
	}
	r := <-done
	if r.err != nil {
		t.Fatalf("copy: %v (report %+v)", r.err, r.rep)
	}
	assertFinished(t, env, o, r.rep)
	// Visible cells: the source and its target compact (see above). The
	// source still reads as it did when the copy started (its compaction
	// and split keep what readers see), and the target reads the same.
	sum := testsupport.Compare(t, env, testsupport.CompareSpec{SourceTable: table, TargetTable: table, Mode: testsupport.Visible})
	if sum.Cells != len(before) {
		t.Fatalf("source and target read %d cells, the source read %d when the copy started", sum.Cells, len(before))
	}
	now, err := env.Target.Regions(t.Context(), table)
	if err != nil || len(now) != 4+splits {
		t.Fatalf("target regions after the copy: %d (%v), want %d", len(now), err, 4+splits)
	}
	t.Logf("%d cells; %d target splits, a source split and a major compaction during the copy; %d files loaded, %d retries, %.1f s",
		sum.Cells, splits, r.rep.FilesLoaded, r.rep.LoadRetries, r.rep.Seconds())
}

// waitUntil polls cond until it holds; it fails the test if the copy ends
// first or nothing happens within two minutes.
func waitUntil[T any](t *testing.T, done chan T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(2 * time.Minute)
	for !cond() {
		select {
		case r := <-done:
			t.Fatalf("the copy ended (%+v) before %s", r, what)
		case <-time.After(100 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatalf("no %s after two minutes", what)
		}
	}
}

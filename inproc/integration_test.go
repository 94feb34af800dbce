package inproc

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"rangecopy/bulkload"
	"rangecopy/hbase"
	"rangecopy/internal/testsupport"
	"rangecopy/job"
	"rangecopy/master"
	"rangecopy/testenv"
	"rangecopy/testenv/copytest"
)

// TestCopyWholeTable copies a four-region table with binary keys (0x00 and
// 0xFF bytes), two families, three versions and every delete kind into a new
// target table, and compares them cell for cell.
func TestCopyWholeTable(t *testing.T) {
	env := testenv.Get(t)
	table := createSource(t, env, "whole")
	writeRounds(t, env.Source, table, binaryRows(120), 3, time.Now().UnixMilli()-100_000, true)
	o := testOptions(t, env, job.Spec{Table: table})
	o.CreateTable = true
	dropTargetLater(t, env, table)
	rep, err := Copy(t.Context(), o)
	if err != nil {
		t.Fatalf("copy: %v (report %+v)", err, rep)
	}
	n := testsupport.Compare(t, env, testsupport.CompareSpec{SourceTable: table, TargetTable: table, Mode: testsupport.Raw}).Cells
	assertFinished(t, env, o, rep)
	// The source's flush files are copied byte for byte, their cells' MVCC
	// values with them, and both families of a region load at once.
	copytest.AssertLoadedWithSeqIDs(t, env, table)
	t.Logf("copied %d cells: %d tasks, %d files loaded, %d bytes read in %.1f s", n, rep.Tasks, rep.FilesLoaded, rep.BytesRead, rep.Seconds())
	// At least a file per region and family; a store's flushes with no
	// timestamp in common are copied as they are, one file each.
	if rep.Tasks != 4 || rep.FilesLoaded < 8 {
		t.Errorf("tasks %d, files loaded %d; want 4 tasks and at least 8 files (4 regions, 2 families)", rep.Tasks, rep.FilesLoaded)
	}
	regions, err := env.Target.Regions(t.Context(), table)
	if err != nil || len(regions) != 4 {
		t.Errorf("target table regions: %d, %v; want pre-split into 4 like the source", len(regions), err)
	}
}

// TestCopyRanges copies ranges that cut through regions, start only, stop
// only and one row, each into a target table of its own.
func TestCopyRanges(t *testing.T) {
	env := testenv.Get(t)
	table := createSource(t, env, "ranges")
	rows := binaryRows(80)
	writeRounds(t, env.Source, table, rows, 2, time.Now().UnixMilli()-100_000, true)
	for _, tc := range []struct {
		name        string
		start, stop []byte
	}{
		{"cut", []byte{0x20}, []byte{0x90, 0x00}},
		{"start-only", []byte{0x80, 0x10}, nil},
		{"stop-only", nil, []byte{0x40, 0x05}},
		{"one-row", rows[6], append(bytes.Clone(rows[6]), 0x00)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			target := testenv.UniqueName(t, "rt")
			dropTargetLater(t, env, target)
			o := testOptions(t, env, job.Spec{Table: table, TargetTable: target, Rows: job.KeyRange{Start: tc.start, End: tc.stop}})
			o.CreateTable = true
			rep, err := Copy(t.Context(), o)
			if err != nil {
				t.Fatalf("copy: %v", err)
			}
			n := testsupport.Compare(t, env, testsupport.CompareSpec{SourceTable: table, TargetTable: target, StartRow: tc.start, StopRow: tc.stop, Mode: testsupport.Raw}).Cells
			assertFinished(t, env, o, rep)
			t.Logf("range [%x, %x): %d cells, %d tasks, %d files", tc.start, tc.stop, n, rep.Tasks, rep.FilesLoaded)
		})
	}
}

// TestCopyIncrementalTime copies [0, T1), writes more, then copies [T1, T2):
// the second run prunes the first round's files unread, and the target ends
// up with the whole table.
func TestCopyIncrementalTime(t *testing.T) {
	env := testenv.Get(t)
	table := createSource(t, env, "incr")
	rows := binaryRows(60)
	t0 := time.Now().UnixMilli() - 100_000
	writeRounds(t, env.Source, table, rows, 1, t0, false)
	t1 := t0 + 50_000
	o := testOptions(t, env, job.Spec{Table: table, Time: job.TimeRange{Min: 0, Max: t1}})
	o.CreateTable = true
	dropTargetLater(t, env, table)
	rep, err := Copy(t.Context(), o)
	if err != nil {
		t.Fatalf("first copy: %v", err)
	}
	assertFinished(t, env, o, rep)
	if rep.FilesPruned != 0 {
		t.Errorf("first copy pruned %d files, want 0", rep.FilesPruned)
	}
	writeRounds(t, env.Source, table, rows, 2, t1+1000, true)
	o2 := o
	o2.Spec.Time = job.TimeRange{Min: t1, Max: t1 + 40_000}
	rep2, err := Copy(t.Context(), o2)
	if err != nil {
		t.Fatalf("second copy: %v", err)
	}
	assertFinished(t, env, o2, rep2)
	// The first round wrote one file per region and family: 4 × 2, all
	// older than T1.
	if rep2.FilesPruned != 8 {
		t.Errorf("second copy pruned %d files unread, want the 8 files of the first round", rep2.FilesPruned)
	}
	n := testsupport.Compare(t, env, testsupport.CompareSpec{SourceTable: table, TargetTable: table, Mode: testsupport.Raw}).Cells
	copytest.AssertLoadedWithSeqIDs(t, env, table)
	t.Logf("two runs: %d cells in the end; second run read %d bytes, pruned %d files", n, rep2.BytesRead, rep2.FilesPruned)
}

// TestCopyTargetSplitDifferently copies into an existing target table split
// at other keys than the source.
func TestCopyTargetSplitDifferently(t *testing.T) {
	env := testenv.Get(t)
	table := createSource(t, env, "presplit")
	writeRounds(t, env.Source, table, binaryRows(100), 2, time.Now().UnixMilli()-100_000, true)
	target := testenv.UniqueName(t, "pt")
	if err := env.Target.CreateTable(t.Context(), target, sampleFamilies, [][]byte{{0x10}, {0x60, 0x20}, {0x81}, {0xc0}, {0xff, 0xff, 0x50}}); err != nil {
		t.Fatal(err)
	}
	dropTargetLater(t, env, target)
	o := testOptions(t, env, job.Spec{Table: table, TargetTable: target})
	rep, err := Copy(t.Context(), o)
	if err != nil {
		t.Fatalf("copy: %v", err)
	}
	testsupport.Compare(t, env, testsupport.CompareSpec{SourceTable: table, TargetTable: target, Mode: testsupport.Raw})
	assertFinished(t, env, o, rep)
	if rep.FilesLoaded <= 8 {
		t.Errorf("%d files loaded; the target's 6 regions should cut the 4 source regions' output into more than 8", rep.FilesLoaded)
	}
}

// TestCopyBadInput checks that bad requests fail with an error naming the
// thing, before anything is created or registered.
func TestCopyBadInput(t *testing.T) {
	env := testenv.Get(t)
	table := createSource(t, env, "bad")
	writeRounds(t, env.Source, table, binaryRows(8), 1, time.Now().UnixMilli()-100_000, false)
	// A target with cf1 only.
	partial := testenv.UniqueName(t, "partial")
	if err := env.Target.CreateTable(t.Context(), partial, sampleFamilies[:1], nil); err != nil {
		t.Fatal(err)
	}
	dropTargetLater(t, env, partial)
	missing := testenv.UniqueName(t, "absent")

	for _, tc := range []struct {
		name string
		mod  func(o *Options)
		want []string
		is   error
	}{
		{name: "unknown table", mod: func(o *Options) { o.Spec.Table = missing; o.Spec.TargetTable = missing + "_t" },
			want: []string{"source table", missing, "does not exist"}, is: hbase.ErrTableNotFound},
		{name: "reversed range", mod: func(o *Options) { o.Spec.Rows = job.KeyRange{Start: []byte("b"), End: []byte("a")} },
			want: []string{"empty or reversed"}},
		{name: "empty range", mod: func(o *Options) { o.Spec.Rows = job.KeyRange{Start: []byte("a"), End: []byte("a")} },
			want: []string{"empty or reversed"}},
		{name: "family missing in source", mod: func(o *Options) { o.Spec.Families = []string{"cf1", "nope"} },
			want: []string{"no column family nope"}},
		{name: "family missing in target", mod: func(o *Options) { o.Spec.TargetTable = partial; o.CreateTable = true },
			want: []string{partial, "cf2"}, is: hbase.ErrNoSuchColumnFamily},
		{name: "no target without create", mod: func(o *Options) { o.CreateTable = false },
			want: []string{"does not exist on the target cluster (zookeeper ", "; use --create-table to create it"}, is: bulkload.ErrNoTargetTable},
		{name: "unreachable source", mod: func(o *Options) {
			o.Source.ZKQuorum = []string{"127.0.0.1:1"}
			o.DialTimeout = 3 * time.Second
		}, want: []string{"source cluster", "unreachable"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			target := testenv.UniqueName(t, "bt")
			o := testOptions(t, env, job.Spec{Table: table, TargetTable: target})
			o.CreateTable = true
			tc.mod(&o)
			rep, err := Copy(t.Context(), o)
			if err == nil {
				t.Fatalf("copy succeeded: %+v", rep)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not say %q", err, w)
				}
			}
			if tc.is != nil && !errors.Is(err, tc.is) {
				t.Errorf("error %v is not %v", err, tc.is)
			}
			t.Logf("error: %v", err)
			// Nothing created, nothing registered.
			if _, err := testsupport.Dial(t, env.Target).TableDescriptor(t.Context(), o.Spec.Target()); o.Spec.Target() != partial && !errors.Is(err, hbase.ErrTableNotFound) {
				t.Errorf("target table %s exists after a failed copy (err %v)", o.Spec.Target(), err)
			}
			reg := openRegistry(t, env, o.ZKRoot)
			if jobs, err := reg.Jobs(t.Context()); err != nil || len(jobs) != 0 {
				t.Errorf("registry holds jobs %v (err %v) after a refused copy", jobs, err)
			}
		})
	}
}

// TestCopyDryRun prints the plan and changes nothing.
func TestCopyDryRun(t *testing.T) {
	env := testenv.Get(t)
	table := createSource(t, env, "dry")
	t0 := time.Now().UnixMilli() - 100_000
	writeRounds(t, env.Source, table, binaryRows(40), 2, t0, false)
	target := testenv.UniqueName(t, "dt")
	o := testOptions(t, env, job.Spec{Table: table, TargetTable: target, Rows: job.KeyRange{Start: []byte{0x40}},
		Time: job.TimeRange{Min: t0 + 500, Max: t0 + 100_000}})
	o.CreateTable, o.DryRun = true, true
	var out bytes.Buffer
	o.Out = &out
	if _, err := Copy(t.Context(), o); err != nil {
		t.Fatalf("dry run: %v", err)
	}
	t.Logf("plan:\n%s", out.String())
	for _, w := range []string{"dry run of job", "would be created", "task ", "3 of 4 regions in range", "3 tasks", "pruned", "by time"} {
		if !strings.Contains(out.String(), w) {
			t.Errorf("plan does not say %q", w)
		}
	}
	client := testsupport.Dial(t, env.Target)
	if _, err := client.TableDescriptor(t.Context(), target); !errors.Is(err, hbase.ErrTableNotFound) {
		t.Errorf("dry run created target table %s (err %v)", target, err)
	}
	reg := openRegistry(t, env, o.ZKRoot)
	if jobs, err := reg.Jobs(t.Context()); err != nil || len(jobs) != 0 {
		t.Errorf("dry run registered jobs %v (err %v)", jobs, err)
	}
	snaps, err := testsupport.Dial(t, env.Source).ListSnapshots(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range snaps {
		if strings.Contains(s.Name, "dryrun") && s.Table == table {
			t.Errorf("dry run left snapshot %s", s.Name)
		}
	}
}

// TestCopyResumePlanning resumes a job that a crashed master registered but
// never planned (no snapshot, no tasks), and refuses an unknown job id.
func TestCopyResumePlanning(t *testing.T) {
	env := testenv.Get(t)
	table := createSource(t, env, "plan")
	writeRounds(t, env.Source, table, binaryRows(40), 2, time.Now().UnixMilli()-100_000, true)
	o := testOptions(t, env, job.Spec{Table: table})
	o.CreateTable = true
	dropTargetLater(t, env, table)

	bad := o
	bad.Resume = "copy-no-such-job"
	if _, err := Copy(t.Context(), bad); err == nil || !strings.Contains(err.Error(), "no such job") {
		t.Fatalf("resume of an unknown job: %v", err)
	}

	// What a master that died right after registering leaves behind: the
	// target table and a Pending job. (Split like the source: a store
	// that gets three or more loaded files compacts them, and a compaction
	// of all of a store's files drops delete markers and what they
	// delete, so raw scans would differ while normal reads agree.)
	if err := env.Target.CreateTable(t.Context(), table, sampleFamilies, sampleSplits); err != nil {
		t.Fatal(err)
	}
	id := master.JobID(o.Source, o.Target, o.Spec)
	rec, err := job.EncodeRecord(job.Record{Spec: o.Spec, Snapshot: master.SnapshotName(id) + "-1"})
	if err != nil {
		t.Fatal(err)
	}
	reg := openRegistry(t, env, o.ZKRoot)
	if _, err := reg.CreateJob(t.Context(), id, rec); err != nil {
		t.Fatal(err)
	}
	o.Resume = id
	o.Spec = job.Spec{} // a resumed job brings its own spec
	rep, err := Copy(t.Context(), o)
	if err != nil {
		t.Fatalf("resume: %v", err)
	}
	testsupport.Compare(t, env, testsupport.CompareSpec{SourceTable: table, TargetTable: table, Mode: testsupport.Raw})
	assertFinished(t, env, o, rep)
	if hasSnapshot(t, env, master.SnapshotName(id)+"-1") {
		t.Errorf("snapshot of the resumed job left behind")
	}
}

// TestCopyFamilies copies one family into a target table that has only
// that family.
func TestCopyFamilies(t *testing.T) {
	env := testenv.Get(t)
	table := createSource(t, env, "fams")
	writeRounds(t, env.Source, table, binaryRows(40), 2, time.Now().UnixMilli()-100_000, true)
	target := testenv.UniqueName(t, "ft")
	if err := env.Target.CreateTable(t.Context(), target, sampleFamilies[:1], sampleSplits); err != nil {
		t.Fatal(err)
	}
	dropTargetLater(t, env, target)
	o := testOptions(t, env, job.Spec{Table: table, TargetTable: target, Families: []string{"cf1"}})
	rep, err := Copy(t.Context(), o)
	if err != nil {
		t.Fatalf("copy: %v", err)
	}
	assertFinished(t, env, o, rep)
	// The target holds the source's cf1 and nothing else.
	testsupport.Compare(t, env, testsupport.CompareSpec{SourceTable: table, TargetTable: target, Families: []string{"cf1"}, Mode: testsupport.Raw})
	// At least one file per region; a store's flushes with no timestamp
	// in common are copied as they are, one file each.
	if rep.FilesLoaded < 4 {
		t.Errorf("%d files loaded, want at least 4 (a region at least one, cf1 only)", rep.FilesLoaded)
	}
}

// TestCopyCreatesTargetNamespace copies a table of a namespace the target
// cluster lacks with --create-table: the copy creates the namespace (and
// says so in its report), then the table, and the target equals the source.
func TestCopyCreatesTargetNamespace(t *testing.T) {
	env := testenv.Get(t)
	ns := strings.NewReplacer("-", "_", ".", "_").Replace(testenv.UniqueName(t, "ns"))
	table := ns + ":t"
	if err := env.Source.CreateTable(t.Context(), table, sampleFamilies, sampleSplits); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { env.Source.DeleteTable(context.Background(), table) })
	writeRounds(t, env.Source, table, binaryRows(40), 2, time.Now().UnixMilli()-100_000, true)
	dropTargetLater(t, env, table)
	o := testOptions(t, env, job.Spec{Table: table})
	o.CreateTable = true
	rep, err := Copy(t.Context(), o)
	if err != nil {
		t.Fatalf("copy into a namespace the target lacks: %v", err)
	}
	if rep.CreatedNamespace != ns {
		t.Errorf("report says it created namespace %q, want %q", rep.CreatedNamespace, ns)
	}
	n := testsupport.Compare(t, env, testsupport.CompareSpec{SourceTable: table, TargetTable: table, Mode: testsupport.Raw}).Cells
	assertFinished(t, env, o, rep)
	t.Logf("%d cells copied into %s, namespace created", n, table)
}

// TestCopyPinLive copies the newest cells of a table, still in the source's
// memstores, pinned live: the copy flushes the regions itself, takes no
// snapshot and the target equals the source. With a cap below its plan, the
// same copy pins with a snapshot after all and says why.
func TestCopyPinLive(t *testing.T) {
	env := testenv.Get(t)
	table := createSource(t, env, "live")
	rows := binaryRows(60)
	t0 := time.Now().UnixMilli() - 100_000
	writeRounds(t, env.Source, table, rows, 1, t0, true)
	o := testOptions(t, env, job.Spec{Table: table})
	o.CreateTable = true
	dropTargetLater(t, env, table)
	rep, err := Copy(t.Context(), o)
	if err != nil {
		t.Fatalf("full copy: %v", err)
	}
	assertFinished(t, env, o, rep)
	if rep.Pinned != job.PinSnapshot || rep.LiveFallback != "" {
		t.Errorf("the full copy pinned %q (%q), want a snapshot", rep.Pinned, rep.LiveFallback)
	}
	// The second round is not flushed: only the live pin's flushes write it.
	t1 := t0 + 50_000
	writeRounds(t, env.Source, table, rows, 2, t1+1000, false)
	o2 := o
	o2.Spec.Time = job.TimeRange{Min: t1, Max: time.Now().UnixMilli() + 1}
	o2.Pin, o2.KeepSnapshot = job.PinLive, true
	rep2, err := Copy(t.Context(), o2)
	if err != nil {
		t.Fatalf("live copy: %v", err)
	}
	assertFinished(t, env, o2, rep2)
	if rep2.Pinned != job.PinLive || rep2.LiveFallback != "" || rep2.FilesLoaded == 0 {
		t.Errorf("live copy: pinned %q (%q), %d files loaded; want live and some", rep2.Pinned, rep2.LiveFallback, rep2.FilesLoaded)
	}
	snaps, err := dialCluster(t, env.Source).ListSnapshots(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range snaps {
		if strings.HasPrefix(s.Name, master.SnapshotName(rep2.Job)) {
			t.Errorf("the live copy left snapshot %s although asked to keep its snapshot: it should have taken none", s.Name)
		}
	}
	testsupport.Compare(t, env, testsupport.CompareSpec{SourceTable: table, TargetTable: table, Mode: testsupport.Raw})
	copytest.AssertLoadedWithSeqIDs(t, env, table)

	// The same copy again, with a cap below its plan: a snapshot after all.
	o3 := o2
	o3.KeepSnapshot, o3.LiveMaxBytes = false, 1
	o3.Spec.Time.Max++ // another job
	rep3, err := Copy(t.Context(), o3)
	if err != nil {
		t.Fatalf("capped live copy: %v", err)
	}
	assertFinished(t, env, o3, rep3)
	if rep3.Pinned != job.PinSnapshot || !strings.Contains(rep3.LiveFallback, "more than the 1 a live pin is kept for") {
		t.Errorf("capped live copy: pinned %q (%q); want a snapshot and why", rep3.Pinned, rep3.LiveFallback)
	}
	testsupport.Compare(t, env, testsupport.CompareSpec{SourceTable: table, TargetTable: table, Mode: testsupport.Raw})
}

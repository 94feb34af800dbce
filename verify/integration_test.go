package verify_test

import (
	"context"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"testing"

	"rangecopy/cluster"
	"rangecopy/inproc"
	"rangecopy/job"
	"rangecopy/master"
	"rangecopy/testenv"
	"rangecopy/testenv/copytest"
	"rangecopy/verify"
)

const ts0 = 1_700_000_000_000

// targetSplits cut the target at other rows than the source's, so batches
// are cut at both sides' region boundaries.
var targetSplits = [][]byte{{0x20}, {0x90}}

func clusters(t *testing.T, env *testenv.Env) (cluster.Config, cluster.Config) {
	t.Helper()
	src, err := cluster.Load("source", env.Source.ConfDir)
	if err != nil {
		t.Fatal(err)
	}
	tgt, err := cluster.Load("target", env.Target.ConfDir)
	if err != nil {
		t.Fatal(err)
	}
	return src, tgt
}

func logger(t *testing.T) *slog.Logger {
	return slog.New(slog.NewTextHandler(copytest.Writer{T: t}, &slog.HandlerOptions{Level: slog.LevelWarn}))
}

// copyRows copies rows of the source table into the target table with a
// one-process copy of a registry root and work folder of the test's own.
func copyRows(t *testing.T, env *testenv.Env, spec job.Spec) {
	t.Helper()
	src, tgt := clusters(t, env)
	u := testenv.UniqueName(t, "v")
	rep, err := inproc.Copy(t.Context(), inproc.Options{Options: master.Options{Source: src, Target: tgt, Spec: spec, Workers: 2, ZKRoot: "/rangecopy-test/" + u, RunOptions: job.RunOptions{WorkRoot: "/tmp/rangecopy-test/" + u, User: env.Target.User}, Logger: logger(t)}})
	if err != nil || rep.Status != job.ReportDone {
		t.Fatalf("copy %s rows %s: %v (report %+v)", spec.Table, spec.Rows, err, rep)
	}
}

// options verify srcTable against dstTable reading every batch (ReadAll):
// these tests check what reading finds. TestVerifyProvesByChecksums checks
// the batches matched by file checksums instead.
func options(t *testing.T, env *testenv.Env, srcTable, dstTable string, mode verify.Mode) verify.Options {
	src, tgt := clusters(t, env)
	return verify.Options{Source: src, Target: tgt, User: env.Target.User, Table: srcTable, TargetTable: dstTable,
		Mode: mode, MaxDiffs: 1000, BatchBytes: 4 << 10, ReadAll: true, Logger: logger(t)}
}

func run(t *testing.T, o verify.Options) verify.Report {
	t.Helper()
	rep, err := verify.Run(t.Context(), o)
	if err != nil {
		t.Fatalf("verify %s mode: %v", o.Mode, err)
	}
	var b strings.Builder
	verify.WriteText(&b, rep)
	t.Logf("%s", b.String())
	return rep
}

// setup creates a source table of the sample, writes three rounds with
// every delete kind, creates the target table (cut elsewhere) and copies
// the whole table.
func setup(t *testing.T, env *testenv.Env, prefix string, target testenv.TableOptions) (string, string, [][]byte) {
	t.Helper()
	srcTable := copytest.CreateSource(t, env, prefix)
	rows := copytest.BinaryRows(40)
	copytest.WriteRounds(t, env.Source, srcTable, rows, 3, ts0, true)
	dstTable := testenv.UniqueName(t, prefix+"-t")
	if err := env.Target.CreateTableWith(t.Context(), dstTable, copytest.SampleFamilies, targetSplits, target); err != nil {
		t.Fatal(err)
	}
	copytest.DropTargetLater(t, env, dstTable)
	copyRows(t, env, job.Spec{Table: srcTable, TargetTable: dstTable})
	return srcTable, dstTable, rows
}

// countCells counts the cells HBase's own client scans from the source table.
func countCells(t *testing.T, env *testenv.Env, table string, raw bool) int64 {
	t.Helper()
	cells, err := env.Source.Scan(t.Context(), table, testenv.ScanSpec{Raw: raw})
	if err != nil {
		t.Fatal(err)
	}
	return int64(len(cells))
}

func assertEqual(t *testing.T, rep verify.Report, wantCells int64) {
	t.Helper()
	if !rep.Equal() || rep.DifferenceCount != 0 || rep.BatchesMatched != rep.Batches {
		t.Fatalf("%s mode: not equal: %d of %d batches mismatched, %d differences: %v", rep.Mode, rep.BatchesMismatched, rep.Batches, rep.DifferenceCount, rep.Differences)
	}
	if rep.SourceCells != wantCells || rep.TargetCells != wantCells {
		t.Fatalf("%s mode: %d source and %d target cells compared, HBase's scan returns %d", rep.Mode, rep.SourceCells, rep.TargetCells, wantCells)
	}
	if rep.Batches < 2 || rep.SourceRows == 0 {
		t.Fatalf("%s mode: %d batches, %d rows: the comparison proves little", rep.Mode, rep.Batches, rep.SourceRows)
	}
}

func TestVerifyAfterCopyAndCompaction(t *testing.T) {
	env := testenv.Get(t)
	srcTable, dstTable, _ := setup(t, env, "verc", testenv.TableOptions{Compaction: true})
	visible, raw := countCells(t, env, srcTable, false), countCells(t, env, srcTable, true)
	if raw <= visible {
		t.Fatalf("the source holds %d raw and %d visible cells: no delete markers to test with", raw, visible)
	}
	assertEqual(t, run(t, options(t, env, srcTable, dstTable, verify.ModeVisible)), visible)

	if err := env.Target.Compact(t.Context(), dstTable, true); err != nil {
		t.Fatal(err)
	}
	assertEqual(t, run(t, options(t, env, srcTable, dstTable, verify.ModeVisible)), visible)
	// The major compaction dropped the markers and what they masked: raw
	// cells differ, and only by what the target lacks.
	rep := run(t, options(t, env, srcTable, dstTable, verify.ModeRaw))
	if rep.Equal() || rep.SourceCells != raw || rep.TargetCells != visible || rep.DifferenceCount != raw-visible {
		t.Fatalf("raw after the target's major compaction: equal %v, %d source cells (want %d), %d target (want %d), %d differences (want %d)",
			rep.Equal(), rep.SourceCells, raw, rep.TargetCells, visible, rep.DifferenceCount, raw-visible)
	}
	for _, d := range rep.Differences {
		if d.Kind != verify.MissingOnTarget {
			t.Errorf("raw after compaction: %s", d)
		}
	}
}

func diffKey(kind verify.DiffKind, row []byte, fam string, qual []byte, ts int64, typ string) string {
	return fmt.Sprintf("%s|%x|%s|%x|%d|%s", kind, row, fam, qual, ts, typ)
}

func diffKeys(rep verify.Report) []string {
	var out []string
	for _, d := range rep.Differences {
		out = append(out, diffKey(d.Kind, d.Row, d.Family, d.Qualifier, d.Timestamp, d.Type.String()))
	}
	slices.Sort(out)
	return out
}

func TestVerifyListsDifferences(t *testing.T) {
	env := testenv.Get(t)
	srcTable, dstTable, rows := setup(t, env, "verd", testenv.TableOptions{})
	assertEqual(t, run(t, options(t, env, srcTable, dstTable, verify.ModeRaw)), countCells(t, env, srcTable, true))
	assertEqual(t, run(t, options(t, env, srcTable, dstTable, verify.ModeVisible)), countCells(t, env, srcTable, false))

	deleted, overwritten, dropped := rows[4], rows[6], rows[7]
	added := []byte{0x50, 0x01}
	q1 := []byte("q1")
	edits := []testenv.Cell{
		{Row: deleted, Family: []byte("cf1"), Qualifier: q1, Timestamp: ts0 + 2000, Type: "Delete"},
		{Row: overwritten, Family: []byte("cf1"), Qualifier: q1, Timestamp: ts0 + 1000, Type: "Put", Value: []byte("overwritten")},
		{Row: added, Family: []byte("cf1"), Qualifier: q1, Timestamp: ts0, Type: "Put", Value: []byte("added")},
		{Row: dropped, Family: []byte("cf2"), Timestamp: ts0 + 5000, Type: "DeleteFamily"},
	}
	if err := env.Target.Mutate(t.Context(), dstTable, edits); err != nil {
		t.Fatal(err)
	}

	// Visible: what each edit hides or shows.
	want := []string{
		diffKey(verify.MissingOnTarget, deleted, "cf1", q1, ts0+2000, "Put"),
		diffKey(verify.ValueDiffers, overwritten, "cf1", q1, ts0+1000, "Put"),
		diffKey(verify.ExtraOnTarget, added, "cf1", q1, ts0, "Put"),
	}
	visible, err := env.Source.Scan(t.Context(), srcTable, testenv.ScanSpec{StartRow: dropped, StopRow: append(slices.Clone(dropped), 0)})
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, c := range visible {
		if string(c.Family) == "cf2" {
			want = append(want, diffKey(verify.MissingOnTarget, c.Row, "cf2", c.Qualifier, c.Timestamp, "Put"))
			n++
		}
	}
	if n == 0 {
		t.Fatalf("row %x has no visible cf2 cells to drop", dropped)
	}
	slices.Sort(want)
	rep := run(t, options(t, env, srcTable, dstTable, verify.ModeVisible))
	if got := diffKeys(rep); strings.Join(got, "\n") != strings.Join(want, "\n") || rep.DifferenceCount != int64(len(want)) {
		t.Errorf("visible differences (%d)\n%s\nwant\n%s", rep.DifferenceCount, strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if rep.Equal() || rep.BatchesMismatched == 0 || rep.BatchesMatched == 0 || len(rep.MismatchedRanges) == 0 {
		t.Errorf("visible: %d batches matched, %d mismatched, ranges %v", rep.BatchesMatched, rep.BatchesMismatched, rep.MismatchedRanges)
	}

	// Raw: the edits themselves.
	want = []string{
		diffKey(verify.ExtraOnTarget, deleted, "cf1", q1, ts0+2000, "Delete"),
		diffKey(verify.ValueDiffers, overwritten, "cf1", q1, ts0+1000, "Put"),
		diffKey(verify.ExtraOnTarget, added, "cf1", q1, ts0, "Put"),
		diffKey(verify.ExtraOnTarget, dropped, "cf2", nil, ts0+5000, "DeleteFamily"),
	}
	slices.Sort(want)
	rep = run(t, options(t, env, srcTable, dstTable, verify.ModeRaw))
	if got := diffKeys(rep); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("raw differences\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}

	// A time range that ends before the edits' newest cells leaves only
	// the ones inside it.
	o := options(t, env, srcTable, dstTable, verify.ModeRaw)
	o.Time = job.TimeRange{Min: 0, Max: ts0 + 1000}
	rep = run(t, o)
	if got := diffKeys(rep); len(got) != 1 || got[0] != diffKey(verify.ExtraOnTarget, added, "cf1", q1, ts0, "Put") {
		t.Errorf("raw differences in [0, ts0+1000): %v", got)
	}
}

func TestVerifyRepair(t *testing.T) {
	env := testenv.Get(t)
	srcTable, dstTable, rows := setup(t, env, "verr", testenv.TableOptions{})
	overwritten := rows[6]
	added := []byte{0x90, 0x01}
	q1 := []byte("q1")
	if err := env.Target.Mutate(t.Context(), dstTable, []testenv.Cell{
		{Row: overwritten, Family: []byte("cf1"), Qualifier: q1, Timestamp: ts0 + 1000, Type: "Put", Value: []byte("overwritten")},
	}); err != nil {
		t.Fatal(err)
	}
	// A row written on the source after the copy is missing on the target.
	if err := env.Source.Mutate(t.Context(), srcTable, []testenv.Cell{
		{Row: added, Family: []byte("cf2"), Qualifier: q1, Timestamp: ts0, Type: "Put", Value: []byte("late")},
	}); err != nil {
		t.Fatal(err)
	}
	o := options(t, env, srcTable, dstTable, verify.ModeVisible)
	rep := run(t, o)
	want := []string{
		diffKey(verify.ValueDiffers, overwritten, "cf1", q1, ts0+1000, "Put"),
		diffKey(verify.MissingOnTarget, added, "cf2", q1, ts0, "Put"),
	}
	slices.Sort(want)
	if got := diffKeys(rep); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("differences before the repair\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	var copied []job.KeyRange
	rep, err := verify.Repair(t.Context(), o, rep, func(_ context.Context, rng job.KeyRange) error {
		copied = append(copied, rng)
		copyRows(t, env, job.Spec{Table: srcTable, TargetTable: dstTable, Rows: rng})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if !rep.Equal() || len(rep.Repaired) != len(copied) || len(copied) == 0 || rep.SourceCells == 0 {
		t.Fatalf("after the repair of %v: %+v", copied, rep)
	}
	// The whole table, raw too: the re-copied cells win by sequence id.
	assertEqual(t, run(t, options(t, env, srcTable, dstTable, verify.ModeVisible)), countCells(t, env, srcTable, false))
	assertEqual(t, run(t, options(t, env, srcTable, dstTable, verify.ModeRaw)), countCells(t, env, srcTable, true))
}

// TestVerifyProvesByChecksums copies a table whose store files are apart in
// time onto a target cut alike, so the copy's fast path copies every file
// whole: verify then matches every batch by the files' HDFS checksums
// without reading a byte. After a cell is overwritten on the target, the
// batches of the region that gained a file are read again and the cell is
// listed, as a run reading everything lists it.
func TestVerifyProvesByChecksums(t *testing.T) {
	env := testenv.Get(t)
	srcTable := copytest.CreateSource(t, env, "verp")
	rows := copytest.BinaryRows(40)
	copytest.WriteRounds(t, env.Source, srcTable, rows, 2, ts0, false)
	dstTable := testenv.UniqueName(t, "verp-t")
	if err := env.Target.CreateTableWith(t.Context(), dstTable, copytest.SampleFamilies, copytest.SampleSplits, testenv.TableOptions{}); err != nil {
		t.Fatal(err)
	}
	copytest.DropTargetLater(t, env, dstTable)
	copyRows(t, env, job.Spec{Table: srcTable, TargetTable: dstTable})

	for _, mode := range []verify.Mode{verify.ModeVisible, verify.ModeRaw} {
		o := options(t, env, srcTable, dstTable, mode)
		o.ReadAll = false
		rep := run(t, o)
		if !rep.Equal() || rep.Batches < 2 || rep.BatchesProven != rep.Batches || rep.BatchesMatched != rep.Batches ||
			rep.SourceCells != 0 || rep.TargetCells != 0 || rep.BytesRead != 0 {
			t.Fatalf("%s mode after a fast-path copy: %d of %d batches proven, %d matched, %d+%d cells and %d bytes read; want every batch proven, none read",
				mode, rep.BatchesProven, rep.Batches, rep.BatchesMatched, rep.SourceCells, rep.TargetCells, rep.BytesRead)
		}
	}

	changed := rows[6]
	q1 := []byte("q1")
	if err := env.Target.Mutate(t.Context(), dstTable, []testenv.Cell{
		{Row: changed, Family: []byte("cf1"), Qualifier: q1, Timestamp: ts0 + 1000, Type: "Put", Value: []byte("overwritten")},
	}); err != nil {
		t.Fatal(err)
	}
	want := diffKey(verify.ValueDiffers, changed, "cf1", q1, ts0+1000, "Put")
	o := options(t, env, srcTable, dstTable, verify.ModeVisible)
	o.ReadAll = false
	rep := run(t, o)
	all := run(t, options(t, env, srcTable, dstTable, verify.ModeVisible))
	for name, r := range map[string]verify.Report{"with checksums": rep, "reading all": all} {
		if got := diffKeys(r); len(got) != 1 || got[0] != want || r.DifferenceCount != 1 || r.BatchesMismatched != 1 {
			t.Errorf("%s, after the overwrite: differences %v (%d batches mismatched), want %s", name, got, r.BatchesMismatched, want)
		}
	}
	if rep.BatchesProven == 0 || rep.BatchesProven >= rep.Batches || rep.SourceCells == 0 || rep.SourceCells >= all.SourceCells || all.BatchesProven != 0 {
		t.Errorf("after the overwrite: %d of %d batches proven, %d source cells read (reading all: %d, %d proven); want the changed region's batches read, the others proven",
			rep.BatchesProven, rep.Batches, rep.SourceCells, all.SourceCells, all.BatchesProven)
	}
}

package verify_test

import (
	"bytes"
	"fmt"
	"path/filepath"
	"slices"
	"testing"

	"reflect"

	"rangecopy/fsys"
	"rangecopy/hashtable"
	"rangecopy/job"
	"rangecopy/testenv"
	"rangecopy/testenv/copytest"
	"rangecopy/verify"
)

// htBatch is a small HashTable batch size, so the sample table makes
// several batches per region.
const htBatch = 300

func syncTable(t *testing.T, env *testenv.Env, dir, srcTable, dstTable string) testenv.SyncTableResult {
	t.Helper()
	r, err := env.Target.SyncTable(t.Context(), env.Source, []string{"--dryrun=true", "file://" + dir, srcTable, dstTable})
	if err != nil {
		t.Fatal(err)
	}
	if r.ExitCode != 0 {
		t.Fatalf("SyncTable --dryrun %s: exit %d, counters %v", dir, r.ExitCode, r.Counters)
	}
	t.Logf("SyncTable --dryrun %s: %v", filepath.Base(dir), r.Counters)
	return r
}

func readHashTable(t *testing.T, dir string) hashtable.Output {
	t.Helper()
	out, err := hashtable.Read(t.Context(), fsys.Local{}, dir)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestHashTableInterop checks our HashTable output against HBase's own
// HashTable and SyncTable, and our comparison against HashTable output
// against SyncTable's.
func TestHashTableInterop(t *testing.T) {
	env := testenv.Get(t)
	srcTable, dstTable, rows := setup(t, env, "vht", testenv.TableOptions{})
	tmp := t.TempDir()

	// Ours, from the source's HFiles.
	ours := filepath.Join(tmp, "ours")
	o := options(t, env, srcTable, dstTable, verify.ModeVisible)
	hrep, err := verify.WriteHashTable(t.Context(), o, verify.HashTableOptions{BatchSize: htBatch, NumHashFiles: 2}, fsys.Local{}, ours)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("ours: %+v", hrep)
	visible, err := env.Source.Scan(t.Context(), srcTable, testenv.ScanSpec{})
	if err != nil {
		t.Fatal(err)
	}
	// A HashTable scan reads one version: the newest visible one of each column.
	newest := map[string]bool{}
	for _, c := range visible {
		newest[fmt.Sprintf("%x/%s/%x", c.Row, c.Family, c.Qualifier)] = true
	}
	if hrep.Cells != int64(len(newest)) || hrep.Batches < 6 || hrep.NumHashFiles != 2 {
		t.Fatalf("ours: %d cells hashed (HBase's scan has %d columns), %d batches, %d files", hrep.Cells, len(newest), hrep.Batches, hrep.NumHashFiles)
	}

	// HBase's SyncTable finds every batch of ours matched on the copy.
	r := syncTable(t, env, ours, srcTable, dstTable)
	c := r.Counters
	if c["HASHES_MATCHED"] != int64(hrep.Batches) || c["HASHES_NOT_MATCHED"] != 0 || c["BATCHES"] != int64(hrep.Batches) {
		t.Fatalf("SyncTable on our hashes of an equal target: %v, want %d batches all matched", c, hrep.Batches)
	}

	// HBase's HashTable of the source writes what we wrote, batch for batch.
	theirs := filepath.Join(tmp, "theirs")
	exit, err := env.Source.HashTable(t.Context(), []string{fmt.Sprintf("--batchsize=%d", htBatch), "--numhashfiles=2", srcTable, "file://" + theirs})
	if err != nil || exit != 0 {
		t.Fatalf("HashTable: exit %d, %v", exit, err)
	}
	a, b := readHashTable(t, ours), readHashTable(t, theirs)
	if a.Manifest.Table != b.Manifest.Table || a.Manifest.NumHashFiles != b.Manifest.NumHashFiles || a.Manifest.TargetBatchSize != b.Manifest.TargetBatchSize ||
		!slices.EqualFunc(a.Partitions, b.Partitions, bytes.Equal) || len(a.Batches) != len(b.Batches) {
		t.Fatalf("ours %+v %x (%d batches), HBase's %+v %x (%d batches)", a.Manifest, a.Partitions, len(a.Batches), b.Manifest, b.Partitions, len(b.Batches))
	}
	for i := range a.Batches {
		if !bytes.Equal(a.Batches[i].Start, b.Batches[i].Start) || a.Batches[i].Hash != b.Batches[i].Hash {
			t.Fatalf("batch %d: ours %x %x, HBase's %x %x", i, a.Batches[i].Start, a.Batches[i].Hash, b.Batches[i].Start, b.Batches[i].Hash)
		}
	}

	// Our comparison of the equal target with HBase's hashes.
	ag := o
	ag.Table, ag.TargetTable = "", dstTable
	rep, err := verify.AgainstHashTable(t.Context(), ag, fsys.Local{}, theirs)
	if err != nil {
		t.Fatal(err)
	}
	if !rep.Equal() || rep.BatchesMatched != len(b.Batches) || rep.TargetCells != hrep.Cells {
		t.Fatalf("against HBase's hashes, equal target: %+v", rep)
	}

	// Alter the target: the newest version of a column overwritten, the
	// newest version of another deleted, a row added.
	overwritten := rows[6]
	// The last row whose cf2:q1 reads at its newest round: deleting that
	// version shows an older one.
	var deleted []byte
	for _, c := range visible {
		if string(c.Family) == "cf2" && string(c.Qualifier) == "q1" && c.Timestamp == ts0+2000 {
			deleted = c.Row
		}
	}
	if deleted == nil || bytes.Equal(deleted, overwritten) {
		t.Fatalf("no row to delete a version of (found %x)", deleted)
	}
	added := []byte{0x50, 0x01}
	q1 := []byte("q1")
	if err := env.Target.Mutate(t.Context(), dstTable, []testenv.Cell{
		{Row: overwritten, Family: []byte("cf1"), Qualifier: q1, Timestamp: ts0 + 2000, Type: "Put", Value: []byte("overwritten")},
		{Row: deleted, Family: []byte("cf2"), Qualifier: q1, Timestamp: ts0 + 2000, Type: "Delete"},
		{Row: added, Family: []byte("cf1"), Qualifier: q1, Timestamp: ts0, Type: "Put", Value: []byte("added")},
	}); err != nil {
		t.Fatal(err)
	}
	// The batches the edits fall in.
	want := map[int]bool{}
	for _, row := range [][]byte{overwritten, deleted, added} {
		i, _ := slices.BinarySearchFunc(b.Batches, row, func(bt hashtable.Batch, r []byte) int { return bytes.Compare(bt.Start, r) })
		if i == len(b.Batches) || !bytes.Equal(b.Batches[i].Start, row) {
			i--
		}
		want[i] = true
	}
	theirSync := syncTable(t, env, theirs, srcTable, dstTable).Counters
	ourSync := syncTable(t, env, ours, srcTable, dstTable).Counters
	if theirSync["HASHES_NOT_MATCHED"] != int64(len(want)) || theirSync["HASHES_MATCHED"] != int64(len(b.Batches)-len(want)) {
		t.Fatalf("SyncTable on HBase's hashes of the altered target: %v, want %d of %d batches mismatched", theirSync, len(want), len(b.Batches))
	}
	for _, k := range []string{"BATCHES", "HASHES_MATCHED", "HASHES_NOT_MATCHED", "TARGETMISSINGCELLS", "SOURCEMISSINGCELLS", "DIFFERENTCELLVALUES"} {
		if ourSync[k] != theirSync[k] {
			t.Errorf("SyncTable counter %s: %d on our hashes, %d on HBase's", k, ourSync[k], theirSync[k])
		}
	}

	// Ours agrees with SyncTable on the same pair, and narrows the
	// mismatches to the cells SyncTable counts.
	ag.Source = o.Source
	rep, err = verify.AgainstHashTable(t.Context(), ag, fsys.Local{}, theirs)
	if err != nil {
		t.Fatal(err)
	}
	run := func(r verify.Report) string {
		var s bytes.Buffer
		verify.WriteText(&s, r)
		return s.String()
	}
	t.Logf("%s", run(rep))
	if int64(rep.BatchesMismatched) != theirSync["HASHES_NOT_MATCHED"] || int64(rep.BatchesMatched) != theirSync["HASHES_MATCHED"] {
		t.Fatalf("against HBase's hashes: %d matched, %d mismatched; SyncTable %v", rep.BatchesMatched, rep.BatchesMismatched, theirSync)
	}
	kinds := map[verify.DiffKind]int64{}
	diffRows := map[string]bool{}
	for _, d := range rep.Differences {
		kinds[d.Kind]++
		diffRows[fmt.Sprintf("%x", d.Row)] = true
	}
	if kinds[verify.MissingOnTarget] != theirSync["TARGETMISSINGCELLS"] || kinds[verify.ExtraOnTarget] != theirSync["SOURCEMISSINGCELLS"] ||
		kinds[verify.ValueDiffers] != theirSync["DIFFERENTCELLVALUES"] || rep.DifferenceCount != int64(len(rep.Differences)) {
		t.Errorf("differences by kind %v, SyncTable %v", kinds, theirSync)
	}
	wantRows := map[string]bool{fmt.Sprintf("%x", overwritten): true, fmt.Sprintf("%x", deleted): true, fmt.Sprintf("%x", added): true}
	if fmt.Sprint(diffRows) != fmt.Sprint(wantRows) {
		t.Errorf("rows with differences %v, want %v", diffRows, wantRows)
	}
}

// TestHashTableScanMatchesHBase writes our HashTable output of a row range,
// a time range that ends before the last round's delete markers (which a
// user scan applies all the same), two versions and both families, and
// compares it with HBase HashTable's of the same scan, batch for batch.
func TestHashTableScanMatchesHBase(t *testing.T) {
	env := testenv.Get(t)
	srcTable := copytest.CreateSource(t, env, "vhts")
	copytest.WriteRounds(t, env.Source, srcTable, copytest.BinaryRows(40), 3, ts0, true)
	tmp := t.TempDir()
	o := options(t, env, srcTable, srcTable, verify.ModeVisible)
	o.Rows = job.KeyRange{Start: []byte{0x30}, End: []byte{0xf0}}
	o.Time = job.TimeRange{Min: ts0 + 500, Max: ts0 + 1500}
	o.Families = []string{"cf2", "cf1"}
	ours := filepath.Join(tmp, "ours")
	hrep, err := verify.WriteHashTable(t.Context(), o, verify.HashTableOptions{BatchSize: 150, Versions: 2}, fsys.Local{}, ours)
	if err != nil {
		t.Fatal(err)
	}
	theirs := filepath.Join(tmp, "theirs")
	exit, err := env.Source.HashTable(t.Context(), []string{"--batchsize=150", "--startrow=30", "--stoprow=f0",
		fmt.Sprintf("--starttime=%d", ts0+500), fmt.Sprintf("--endtime=%d", ts0+1500), "--versions=2", "--families=cf1,cf2", srcTable, "file://" + theirs})
	if err != nil || exit != 0 {
		t.Fatalf("HashTable: exit %d, %v", exit, err)
	}
	a, b := readHashTable(t, ours), readHashTable(t, theirs)
	t.Logf("ours %+v, %d batches, %d cells; HBase's %+v, %d batches", a.Manifest, len(a.Batches), hrep.Cells, b.Manifest, len(b.Batches))
	if !reflect.DeepEqual(a.Manifest, b.Manifest) || len(a.Batches) != len(b.Batches) || len(a.Batches) < 3 {
		t.Fatalf("manifests or batch counts differ: ours %+v (%d), HBase's %+v (%d)", a.Manifest, len(a.Batches), b.Manifest, len(b.Batches))
	}
	for i := range a.Batches {
		if !bytes.Equal(a.Batches[i].Start, b.Batches[i].Start) || a.Batches[i].Hash != b.Batches[i].Hash {
			t.Fatalf("batch %d: ours %x %x, HBase's %x %x", i, a.Batches[i].Start, a.Batches[i].Hash, b.Batches[i].Start, b.Batches[i].Hash)
		}
	}
}

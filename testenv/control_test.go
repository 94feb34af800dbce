package testenv_test

import (
	"bytes"
	"context"
	"fmt"
	"path"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"rangecopy/testenv"
)

// TestSplitMoveFlushCompact drives a table of its own through a split, a move,
// flushes and a major compaction, checking each in hbase:meta and on HDFS.
func TestSplitMoveFlushCompact(t *testing.T) {
	env := testenv.Get(t)
	t.Parallel()
	c := env.Target
	ctx := t.Context()
	// It compacts below, so compaction is on.
	table := newTableWith(t, ctx, c, "split", nil, testenv.TableOptions{Compaction: true})
	cells := sampleCells(200, 1000)
	if err := c.Mutate(ctx, table, cells); err != nil {
		t.Fatal(err)
	}

	key := []byte("row-0100\x00")
	if err := c.Split(ctx, table, key); err != nil {
		t.Fatal(err)
	}
	regions, err := c.Regions(ctx, table)
	if err != nil {
		t.Fatal(err)
	}
	if len(regions) != 2 || len(regions[0].StartKey) != 0 || !bytes.Equal(regions[0].EndKey, key) ||
		!bytes.Equal(regions[1].StartKey, key) || len(regions[1].EndKey) != 0 {
		t.Fatalf("regions after split at %q: %+v", key, regions)
	}
	if err := c.Split(ctx, table, key); err == nil || !strings.Contains(err.Error(), "already starts at") {
		t.Fatalf("second split at the same key: %v, want an error naming it", err)
	}

	moved, err := c.Move(ctx, regions[1].EncodedName, "")
	if err != nil {
		t.Fatal(err)
	}
	if moved == regions[1].Server {
		t.Fatalf("move of %s stayed on %s", regions[1].EncodedName, moved)
	}
	after, err := c.Regions(ctx, table)
	if err != nil || len(after) != 2 || after[1].Server != moved {
		t.Fatalf("after the move: %+v (%v), want region 2 on %s", after, err, moved)
	}

	// Two flushes make two store files per region; a major compaction leaves one.
	client := hdfsClient(t, c)
	storeFiles := func() map[string]int {
		t.Helper()
		n := map[string]int{}
		for _, r := range after {
			dir := path.Join(c.RootDirPath(), "data", "default", table, r.EncodedName, "f")
			infos, err := client.ReadDir(dir)
			if err != nil {
				t.Fatalf("list %s: %v", dir, err)
			}
			n[r.EncodedName] = len(infos)
		}
		return n
	}
	if err := c.Flush(ctx, table); err != nil {
		t.Fatal(err)
	}
	if err := c.Mutate(ctx, table, sampleCells(200, 2000)); err != nil {
		t.Fatal(err)
	}
	if err := c.Flush(ctx, table); err != nil {
		t.Fatal(err)
	}
	for r, n := range storeFiles() {
		if n < 2 {
			t.Errorf("region %s has %d store files after two flushes, want 2 or more", r, n)
		}
	}
	if err := c.Compact(ctx, table, true); err != nil {
		t.Fatal(err)
	}
	for r, n := range storeFiles() {
		if n != 1 {
			t.Errorf("region %s has %d store files after a major compaction, want 1", r, n)
		}
	}
	got, err := c.Scan(ctx, table, testenv.ScanSpec{MaxVersions: 3})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 400 {
		t.Fatalf("scan of all versions after compaction: %d cells, want 400", len(got))
	}
}

// TestMutateAllDeleteKinds writes every delete kind through HBase's write path
// and reads the markers back with a raw scan.
func TestMutateAllDeleteKinds(t *testing.T) {
	env := testenv.Get(t)
	t.Parallel()
	c := env.Source
	ctx := t.Context()
	table := newTable(t, ctx, c, "deletes", nil)
	put := func(row, q string, ts int64) testenv.Cell {
		return testenv.Cell{Row: []byte(row), Family: []byte("f"), Qualifier: []byte(q), Timestamp: ts, Type: "Put", Value: []byte(row + q)}
	}
	del := func(typ, row, q string, ts int64) testenv.Cell {
		return testenv.Cell{Row: []byte(row), Family: []byte("f"), Qualifier: []byte(q), Timestamp: ts, Type: typ}
	}
	in := []testenv.Cell{
		put("a", "q", 10), put("a", "q", 20), del("Delete", "a", "q", 20),
		put("b", "q", 10), del("DeleteColumn", "b", "q", 15),
		put("c", "q", 10), del("DeleteFamily", "c", "", 15),
		put("d", "q", 10), del("DeleteFamilyVersion", "d", "", 10),
	}
	if err := c.Mutate(ctx, table, in); err != nil {
		t.Fatal(err)
	}
	raw, err := c.Scan(ctx, table, testenv.ScanSpec{Raw: true})
	if err != nil {
		t.Fatal(err)
	}
	want := []testenv.Cell{
		put("a", "q", 20), del("Delete", "a", "q", 20), put("a", "q", 10),
		del("DeleteColumn", "b", "q", 15), put("b", "q", 10),
		del("DeleteFamily", "c", "", 15), put("c", "q", 10),
		del("DeleteFamilyVersion", "d", "", 10), put("d", "q", 10),
	}
	// A raw scan sorts a family delete before the row's columns, a version
	// delete before the put it masks.
	wantOrder := []testenv.Cell{want[1], want[0], want[2], want[3], want[4], want[5], want[6], want[7], want[8]}
	sameCells(t, "raw scan", raw, wantOrder)
	visible, err := c.Scan(ctx, table, testenv.ScanSpec{})
	if err != nil {
		t.Fatal(err)
	}
	sameCells(t, "plain scan", visible, []testenv.Cell{put("a", "q", 10)})

	if err := c.Mutate(ctx, table, []testenv.Cell{{Row: []byte("x"), Family: []byte("f"), Type: "Smash"}}); err == nil ||
		!strings.Contains(err.Error(), `unknown cell type "Smash"`) {
		t.Fatalf("mutate with a bad type: %v, want an error naming it", err)
	}
}

// TestBadRequestsNameTheProblem checks that the control channel answers bad
// input with an error that says what was wrong.
func TestBadRequestsNameTheProblem(t *testing.T) {
	env := testenv.Get(t)
	t.Parallel()
	ctx := t.Context()
	missing := testenv.UniqueName(t, "missing")
	cases := []struct {
		name string
		call func() error
		want string
	}{
		{"stop unknown region server", func() error { return env.Source.StopRegionServer(ctx, "localhost,1,1") }, "no live region server localhost,1,1"},
		{"stop unknown DataNode", func() error { return env.Source.StopDataNode(ctx, "127.0.0.1:1") }, "no running DataNode 127.0.0.1:1"},
		{"start DataNode never stopped", func() error { return env.Source.StartDataNode(ctx, "127.0.0.1:1") }, "was not stopped"},
		{"table without families", func() error { return env.Source.CreateTable(ctx, missing, nil, nil) }, "at least one family"},
		{"bad compression", func() error {
			return env.Source.CreateTable(ctx, missing, []testenv.Family{{Name: "f", Compression: "BROTLI9"}}, nil)
		}, "family f"},
		{"unknown tool", func() error {
			_, err := env.Source.RunTool(ctx, "no.such.Tool", nil, nil)
			return err
		}, "no class no.such.Tool"},
		{"split of a missing table", func() error { return env.Source.Split(ctx, missing, []byte("k")) }, missing},
	}
	for _, tc := range cases {
		err := tc.call()
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want it to contain %q", tc.name, err, tc.want)
		}
	}
}

// TestToolHFilePrettyPrinter runs HBase's HFile pretty printer on a store file
// written by a flush and checks what it reports.
func TestToolHFilePrettyPrinter(t *testing.T) {
	env := testenv.Get(t)
	t.Parallel()
	c := env.Source
	ctx := t.Context()
	table := newTable(t, ctx, c, "hfile", nil)
	if err := c.Mutate(ctx, table, sampleCells(25, 1000)); err != nil {
		t.Fatal(err)
	}
	if err := c.Flush(ctx, table); err != nil {
		t.Fatal(err)
	}
	regions, err := c.Regions(ctx, table)
	if err != nil {
		t.Fatal(err)
	}
	dir := path.Join(c.RootDirPath(), "data", "default", table, regions[0].EncodedName, "f")
	infos, err := hdfsClient(t, c).ReadDir(dir)
	if err != nil || len(infos) != 1 {
		t.Fatalf("store files in %s: %v (%v), want 1", dir, infos, err)
	}
	file := c.FSDefaultFS + path.Join(dir, infos[0].Name())
	res, err := c.RunTool(ctx, "org.apache.hadoop.hbase.io.hfile.HFilePrettyPrinter", []string{"-k", "-m", "-p", "-f", file}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if res.ExitCode != 0 {
		t.Fatalf("pretty printer exit %d:\n%s", res.ExitCode, res.Output)
	}
	if !strings.Contains(res.Output, "Scanned kv count -> 25") {
		t.Fatalf("pretty printer output lacks 'Scanned kv count -> 25':\n%s", res.Output)
	}
	if !strings.Contains(res.Output, `K: row-0007\x00\xFF/f:q/1000/Put/vlen=7`) {
		t.Fatalf("pretty printer output lacks row-0007's cell:\n%s", res.Output)
	}
	bad, err := c.RunTool(ctx, "org.apache.hadoop.hbase.io.hfile.HFilePrettyPrinter", []string{"-f", c.FSDefaultFS + "/no/such/hfile"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(bad.Output, "/no/such/hfile") {
		t.Fatalf("pretty printer on a missing file: exit %d, output does not name it:\n%s", bad.ExitCode, bad.Output)
	}
}

// TestToolCopyTableThenSyncTable copies a table with CopyTable, proves the
// copy equal with HashTable + SyncTable --dryrun, then changes one target
// cell and sees SyncTable find it.
func TestToolCopyTableThenSyncTable(t *testing.T) {
	env := testenv.Get(t)
	t.Parallel()
	ctx := t.Context()
	src, dst := env.Source, env.Target
	splits := [][]byte{[]byte("row-0050")}
	table := newTable(t, ctx, src, "copytable", splits)
	if err := dst.CreateTable(ctx, table, []testenv.Family{{Name: "f", MaxVersions: 3}}, splits); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { dst.DeleteTable(context.Background(), table) })
	cells := sampleCells(100, 1000)
	if err := src.Mutate(ctx, table, cells); err != nil {
		t.Fatal(err)
	}

	res, err := src.RunTool(ctx, "org.apache.hadoop.hbase.mapreduce.CopyTable", []string{"--peer.adr=" + dst.ClusterKey, table}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if res.ExitCode != 0 {
		t.Fatalf("CopyTable exit %d:\n%s", res.ExitCode, res.Output)
	}
	got, err := dst.Scan(ctx, table, testenv.ScanSpec{})
	if err != nil {
		t.Fatal(err)
	}
	sameCells(t, "target after CopyTable", got, cells)

	hashDir := src.FSDefaultFS + "/tmp/" + testenv.UniqueName(t, "hashes")
	res, err = src.RunTool(ctx, "org.apache.hadoop.hbase.mapreduce.HashTable", []string{"--batchsize=1000", "--numhashfiles=2", table, hashDir}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if res.ExitCode != 0 {
		t.Fatalf("HashTable exit %d:\n%s", res.ExitCode, res.Output)
	}
	sync := func() map[string]int {
		t.Helper()
		res, err := dst.RunTool(ctx, "org.apache.hadoop.hbase.mapreduce.SyncTable",
			[]string{"--dryrun=true", "--sourcezkcluster=" + src.ClusterKey, hashDir, table, table}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if res.ExitCode != 0 {
			t.Fatalf("SyncTable exit %d:\n%s", res.ExitCode, res.Output)
		}
		return counters(res.Output)
	}
	if n := sync(); n["HASHES_MATCHED"] == 0 || n["HASHES_NOT_MATCHED"] != 0 {
		t.Fatalf("SyncTable on an identical copy: counters %v, want HASHES_MATCHED > 0 and no HASHES_NOT_MATCHED", n)
	}

	changed := cells[42]
	changed.Value = []byte("changed")
	if err := dst.Mutate(ctx, table, []testenv.Cell{changed}); err != nil {
		t.Fatal(err)
	}
	if n := sync(); n["HASHES_NOT_MATCHED"] != 1 || n["DIFFERENTCELLVALUES"] != 1 {
		t.Fatalf("SyncTable after changing one cell: counters %v, want HASHES_NOT_MATCHED=1 and DIFFERENTCELLVALUES=1", n)
	}
}

var counterLine = regexp.MustCompile(`(?m)^\s*([A-Z_]+)=(\d+)\s*$`)

// counters parses the NAME=value lines of a MapReduce job's counter dump.
func counters(out string) map[string]int {
	n := map[string]int{}
	for _, m := range counterLine.FindAllStringSubmatch(out, -1) {
		v, _ := strconv.Atoi(m[2])
		n[m[1]] = v
	}
	return n
}

// TestToolExportSnapshot exports a source snapshot into the target's root
// directory with ExportSnapshot, clones it there, and compares the rows.
func TestToolExportSnapshot(t *testing.T) {
	env := testenv.Get(t)
	t.Parallel()
	ctx := t.Context()
	src, dst := env.Source, env.Target
	table := newTable(t, ctx, src, "export", [][]byte{[]byte("row-0030")})
	cells := sampleCells(60, 1000)
	if err := src.Mutate(ctx, table, cells); err != nil {
		t.Fatal(err)
	}
	snapshot := testenv.UniqueName(t, "snap")
	if err := src.CreateSnapshot(ctx, table, snapshot); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { src.DeleteSnapshot(context.Background(), snapshot) })
	res, err := src.RunTool(ctx, "org.apache.hadoop.hbase.snapshot.ExportSnapshot",
		[]string{"-snapshot", snapshot, "-copy-to", dst.HBaseRootDir, "-mappers", "2"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if res.ExitCode != 0 {
		t.Fatalf("ExportSnapshot exit %d:\n%s", res.ExitCode, res.Output)
	}
	clone := testenv.UniqueName(t, "clone")
	if err := dst.CloneSnapshot(ctx, snapshot, clone); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		dst.DeleteTable(context.Background(), clone)
		dst.DeleteSnapshot(context.Background(), snapshot)
	})
	got, err := dst.Scan(ctx, clone, testenv.ScanSpec{})
	if err != nil {
		t.Fatal(err)
	}
	sameCells(t, fmt.Sprintf("clone of exported snapshot %s", snapshot), got, cells)
	regions, err := dst.Regions(ctx, clone)
	if err != nil || len(regions) != 2 {
		t.Fatalf("regions of the clone: %v (%v), want 2 like the source", regions, err)
	}
}

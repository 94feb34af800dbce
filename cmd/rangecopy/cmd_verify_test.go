package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"rangecopy/testenv"
	"rangecopy/testenv/copytest"
	"rangecopy/verify"
)

func TestVerifyOptions(t *testing.T) {
	src := confDir(t, "zk1,zk2", "hdfs://nn1:8020/hbase")
	base := verifyFlags{source: clusterFlags{side: "source", spec: src},
		target: clusterFlags{side: "target", spec: "tzk:2181:/hbase", rootDir: "hdfs://tnn:9000/hb"},
		rng:    rangeFlags{table: "ns:t"}, mode: "visible", maxDiffs: 20, parallelism: 4, registry: registryFlags{zkRoot: "/rangecopy"}}

	f := base
	f.rng.startRow, f.rng.stopRow, f.rng.endTime, f.rng.families = `\x00a`, `\xFF`, "500", "cf2,cf1"
	f.mode, f.bandwidth, f.batchSize = "raw", "10MB/s", "4MiB"
	o, err := verifyOptions(f)
	if err != nil {
		t.Fatal(err)
	}
	if o.Table != "ns:t" || string(o.Rows.Start) != "\x00a" || string(o.Rows.End) != "\xff" || o.Time.Min != 0 || o.Time.Max != 500 ||
		strings.Join(o.Families, ",") != "cf2,cf1" || o.Mode != verify.ModeRaw || o.Bandwidth != 10e6 || o.BatchBytes != 4<<20 ||
		o.Target.RootDir != "/hb" || o.MaxDiffs != 20 {
		t.Errorf("options %+v", o)
	}

	for name, mutate := range map[string]func(*verifyFlags){
		"no table":      func(f *verifyFlags) { f.rng.table = "" },
		"no source":     func(f *verifyFlags) { f.source.spec = "" },
		"bad mode":      func(f *verifyFlags) { f.mode = "cooked" },
		"reversed rows": func(f *verifyFlags) { f.rng.startRow, f.rng.stopRow = "b", "a" },
		"bad time":      func(f *verifyFlags) { f.rng.endTime = "soon" },
		"no diffs":      func(f *verifyFlags) { f.maxDiffs = 0 },
		"parallelism":   func(f *verifyFlags) { f.parallelism = 0 },
		"bandwidth":     func(f *verifyFlags) { f.bandwidth = "fast" },
		"batch size":    func(f *verifyFlags) { f.batchSize = "12" },
	} {
		f := base
		mutate(&f)
		if _, err := verifyOptions(f); !errors.Is(err, errUsage) {
			t.Errorf("%s: err %v, want a usage error", name, err)
		}
	}
}

func TestVerifyUsageExit(t *testing.T) {
	var out, errb bytes.Buffer
	if code := run(t.Context(), []string{"verify", "--table", "t"}, &out, &errb); code != exitUsage {
		t.Fatalf("exit %d, want %d; stderr %s", code, exitUsage, errb.String())
	}
	if !strings.Contains(errb.String(), "--source and --target are required") {
		t.Errorf("stderr %s", errb.String())
	}
}

// commandSource creates a source table of the sample (prefix, 16 binary
// rows) written in two rounds with every delete kind, for the command tests.
func commandSource(t *testing.T, env *testenv.Env, prefix string) (string, [][]byte) {
	t.Helper()
	src := copytest.CreateSource(t, env, prefix)
	rows := copytest.BinaryRows(16)
	copytest.WriteRounds(t, env.Source, src, rows, 2, 1_700_000_000_000, true)
	return src, rows
}

// testRegistryFlags are --zk-root and --work-dir of the test's own.
func testRegistryFlags(t *testing.T) []string {
	u := testenv.UniqueName(t, "v")
	return []string{"--zk-root", "/rangecopy-test/" + u, "--work-dir", "/tmp/rangecopy-test/" + u}
}

// TestVerifyCommand runs rangecopy copy and rangecopy verify on the test
// clusters: equal after the copy (exit 0), different after the target's
// value changed (exit 3, the JSON report naming the cell), equal again
// after --repair.
func TestVerifyCommand(t *testing.T) {
	env := testenv.Get(t)
	ctx := t.Context()
	src, rows := commandSource(t, env, "vcmd")
	dst := testenv.UniqueName(t, "vcmd-t")
	copytest.DropTargetLater(t, env, dst)
	common := []string{"--source", env.Source.ConfDir, "--target", env.Target.ConfDir, "--table", src, "--target-table", dst,
		"--user", env.Target.User}
	registry := testRegistryFlags(t)
	var out, errb bytes.Buffer
	if code := run(ctx, append(append([]string{"copy", "--create-table"}, common...), registry...), &out, &errb); code != exitOK {
		t.Fatalf("copy: exit %d\n%s\n%s", code, out.String(), errb.String())
	}
	verifyJSON := func(want int, extra ...string) verify.Report {
		t.Helper()
		var out, errb bytes.Buffer
		code := run(ctx, append(append([]string{"verify", "--json"}, common...), extra...), &out, &errb)
		var rep verify.Report
		if err := json.Unmarshal(out.Bytes(), &rep); err != nil || code != want {
			t.Fatalf("verify %v: exit %d (want %d), report %v\n%s\n%s", extra, code, want, err, out.String(), errb.String())
		}
		return rep
	}
	// The copy made with the source's regions copies whole the files of
	// the regions whose files are apart in time (the last round's delete
	// markers overlap the others' times in some): their batches match by
	// the files' checksums, unread, until --read-all reads every one.
	proven := verifyJSON(exitOK)
	if proven.Batches == 0 || proven.BatchesProven == 0 {
		t.Fatalf("after the copy: no batch proven by checksums: %+v", proven)
	}
	if rep := verifyJSON(exitOK, "--read-all"); rep.BatchesProven != 0 || rep.SourceCells <= proven.SourceCells || rep.BytesRead <= proven.BytesRead {
		t.Fatalf("--read-all after %+v: %+v", proven, rep)
	}
	if rep := verifyJSON(exitOK, "--mode", "raw", "--read-all"); rep.SourceCells == 0 || rep.SourceCells != rep.TargetCells || rep.BatchesProven != 0 {
		t.Fatalf("raw --read-all: %+v", rep)
	}
	if err := env.Target.Mutate(ctx, dst, []testenv.Cell{{Row: rows[2], Family: []byte("cf1"), Qualifier: []byte("q1"),
		Timestamp: 1_700_000_001_000, Type: "Put", Value: []byte("changed")}}); err != nil {
		t.Fatal(err)
	}
	rep := verifyJSON(exitDifferent)
	if rep.DifferenceCount != 1 || len(rep.Differences) != 1 || rep.Differences[0].Kind != verify.ValueDiffers ||
		string(rep.Differences[0].Row) != string(rows[2]) {
		t.Fatalf("after the change: %+v", rep)
	}
	rep = verifyJSON(exitOK, append([]string{"--repair"}, registry...)...)
	if len(rep.Repaired) == 0 {
		t.Fatalf("after --repair: %+v", rep)
	}
}

func TestVerifyHashTableOptions(t *testing.T) {
	src := confDir(t, "zk1,zk2", "hdfs://nn1:8020/hbase")
	tgt := clusterFlags{side: "target", spec: "tzk:2181:/hbase", rootDir: "hdfs://tnn:9000/hb"}
	base := verifyFlags{source: clusterFlags{side: "source", spec: src}, rng: rangeFlags{table: "ns:t"}, mode: "visible", maxDiffs: 20,
		parallelism: 4, registry: registryFlags{zkRoot: "/rangecopy"}, hashBatch: 8000}

	out := base
	out.hashOut = "/tmp/ht"
	if o, err := verifyOptions(out); err != nil || o.Table != "ns:t" || len(o.Target.ZKQuorum) != 0 {
		t.Fatalf("--hashtable-out without --target: %+v, %v", o, err)
	}
	against := base
	against.source, against.target, against.rng, against.against = clusterFlags{side: "source"}, tgt, rangeFlags{targetTable: "ns:t2"}, "/tmp/ht"
	if o, err := verifyOptions(against); err != nil || o.Table != "" || o.TargetTable != "ns:t2" {
		t.Fatalf("--against-hashtable without --source and --table: %+v, %v", o, err)
	}
	for name, f := range map[string]verifyFlags{
		"both":            func() verifyFlags { f := out; f.against = "/x"; return f }(),
		"out and repair":  func() verifyFlags { f := out; f.repair = true; return f }(),
		"out and raw":     func() verifyFlags { f := out; f.mode = "raw"; return f }(),
		"out no source":   func() verifyFlags { f := out; f.source.spec = ""; return f }(),
		"out batch 0":     func() verifyFlags { f := out; f.hashBatch = 0; return f }(),
		"against no tgt":  func() verifyFlags { f := against; f.target.spec = ""; return f }(),
		"against rows":    func() verifyFlags { f := against; f.rng.startRow = "a"; return f }(),
		"against times":   func() verifyFlags { f := against; f.rng.endTime = "5"; return f }(),
		"against repair":  func() verifyFlags { f := against; f.repair = true; return f }(),
		"against version": func() verifyFlags { f := against; f.mode = "raw"; return f }(),
	} {
		if _, err := verifyOptions(f); !errors.Is(err, errUsage) {
			t.Errorf("%s: err %v, want a usage error", name, err)
		}
	}
}

// TestVerifyHashTableCommand runs rangecopy verify --hashtable-out to the
// target's HDFS and HBase's SyncTable --dryrun on it, then HBase's HashTable
// and rangecopy verify --against-hashtable on its output: equal (exit 0)
// after the copy, different (exit 3) after a change on the target.
func TestVerifyHashTableCommand(t *testing.T) {
	env := testenv.Get(t)
	ctx := t.Context()
	src, rows := commandSource(t, env, "vhcmd")
	dst := testenv.UniqueName(t, "vhcmd-t")
	copytest.DropTargetLater(t, env, dst)
	u := testenv.UniqueName(t, "v")
	clusters := []string{"--source", env.Source.ConfDir, "--target", env.Target.ConfDir, "--user", env.Target.User}
	var out, errb bytes.Buffer
	if code := run(ctx, append(append([]string{"copy", "--create-table", "--table", src, "--target-table", dst}, clusters...),
		"--zk-root", "/rangecopy-test/"+u, "--work-dir", "/tmp/rangecopy-test/"+u), &out, &errb); code != exitOK {
		t.Fatalf("copy: exit %d\n%s\n%s", code, out.String(), errb.String())
	}

	hdfsPath := "/tmp/rangecopy-test/" + u + "-ht"
	hdfsDir := env.Target.FSDefaultFS + hdfsPath
	fsClient := env.Target.HDFS(t, env.Target.User)
	t.Cleanup(func() { fsClient.RemoveAll(hdfsPath) })
	out.Reset()
	errb.Reset()
	if code := run(ctx, append([]string{"verify", "--json", "--table", src, "--hashtable-out", hdfsDir, "--hash-batch-size", "200"}, clusters...), &out, &errb); code != exitOK {
		t.Fatalf("verify --hashtable-out: exit %d\n%s\n%s", code, out.String(), errb.String())
	}
	var hrep verify.HashTableReport
	if err := json.Unmarshal(out.Bytes(), &hrep); err != nil || hrep.Batches < 4 || hrep.NumHashFiles != 1 {
		t.Fatalf("verify --hashtable-out: %+v, %v\n%s", hrep, err, out.String())
	}
	r, err := env.Target.SyncTable(ctx, env.Source, []string{"--dryrun=true", hdfsDir, src, dst})
	if err != nil || r.ExitCode != 0 || r.Counters["HASHES_MATCHED"] != int64(hrep.Batches) || r.Counters["HASHES_NOT_MATCHED"] != 0 {
		t.Fatalf("SyncTable on %s: %+v, %v; want %d batches matched", hdfsDir, r, err, hrep.Batches)
	}
	t.Logf("SyncTable --dryrun on %s: %v", hdfsDir, r.Counters)

	local := t.TempDir() + "/theirs"
	if exit, err := env.Source.HashTable(ctx, []string{"--batchsize=200", src, "file://" + local}); err != nil || exit != 0 {
		t.Fatalf("HashTable: exit %d, %v", exit, err)
	}
	against := func(want int) verify.Report {
		t.Helper()
		var out, errb bytes.Buffer
		code := run(ctx, append([]string{"verify", "--json", "--target-table", dst, "--against-hashtable", local}, clusters...), &out, &errb)
		var rep verify.Report
		if err := json.Unmarshal(out.Bytes(), &rep); err != nil || code != want {
			t.Fatalf("verify --against-hashtable: exit %d (want %d), %v\n%s\n%s", code, want, err, out.String(), errb.String())
		}
		return rep
	}
	if rep := against(exitOK); rep.Batches != hrep.Batches || rep.BatchesMatched != hrep.Batches || rep.TargetCells != hrep.Cells {
		t.Fatalf("against HBase's hashes of an equal target: %+v (ours wrote %+v)", rep, hrep)
	}
	if err := env.Target.Mutate(ctx, dst, []testenv.Cell{{Row: rows[2], Family: []byte("cf1"), Qualifier: []byte("q1"),
		Timestamp: 1_700_000_001_000, Type: "Put", Value: []byte("changed")}}); err != nil {
		t.Fatal(err)
	}
	rep := against(exitDifferent)
	if rep.BatchesMismatched != 1 || rep.DifferenceCount != 1 || rep.Differences[0].Kind != verify.ValueDiffers || string(rep.Differences[0].Row) != string(rows[2]) {
		t.Fatalf("against HBase's hashes after a change: %+v", rep)
	}
}

// TestCopyVerify runs rangecopy copy --verify: the copy then its
// verification, both reports printed; a target cell the source lacks makes
// it exit 3 naming the cell; --verify refuses what it cannot verify.
func TestCopyVerify(t *testing.T) {
	env := testenv.Get(t)
	ctx := t.Context()
	src, _ := commandSource(t, env, "cpver")
	registry := testRegistryFlags(t)
	copyArgs := func(dst string, extra ...string) []string {
		args := []string{"copy", "--source", env.Source.ConfDir, "--target", env.Target.ConfDir, "--table", src, "--target-table", dst,
			"--user", env.Target.User}
		return append(append(args, registry...), extra...)
	}

	for _, bad := range [][]string{{"--verify", "--detach"}, {"--verify", "--dry-run"}, {"--verify=cooked"}} {
		var out, errb bytes.Buffer
		if code := run(ctx, copyArgs("cpver_never", bad...), &out, &errb); code != exitUsage || !strings.Contains(errb.String(), "--verify") {
			t.Errorf("copy %v: exit %d, stderr %q; want a usage error naming --verify", bad, code, errb.String())
		}
	}

	dst := testenv.UniqueName(t, "cpver-t")
	copytest.DropTargetLater(t, env, dst)
	var out, errb bytes.Buffer
	if code := run(ctx, copyArgs(dst, "--create-table", "--verify=raw", "--json"), &out, &errb); code != exitOK {
		t.Fatalf("copy --verify=raw: exit %d\n%s\n%s", code, out.String(), errb.String())
	}
	var both struct {
		Copy struct {
			Status string `json:"status"`
			Job    string `json:"job"`
		} `json:"copy"`
		Verification verify.Report `json:"verification"`
	}
	if err := json.Unmarshal(out.Bytes(), &both); err != nil {
		t.Fatalf("copy --verify --json: %v\n%s", err, out.String())
	}
	if v := both.Verification; both.Copy.Status != "done" || both.Copy.Job == "" || !v.Equal() || v.Mode != verify.ModeRaw || v.Batches == 0 ||
		v.TargetTable != dst || v.MaxTimeMs <= 1_700_000_001_000 || v.MaxTimeMs > time.Now().UnixMilli() {
		t.Fatalf("copy --verify=raw report: %+v", both)
	}

	// A target that holds a cell the source lacks: copied onto, it still
	// differs by that cell.
	dst2 := testenv.UniqueName(t, "cpver-x")
	if err := env.Target.CreateTableWith(ctx, dst2, copytest.SampleFamilies, copytest.SampleSplits, testenv.TableOptions{}); err != nil {
		t.Fatal(err)
	}
	copytest.DropTargetLater(t, env, dst2)
	extra := []byte{0x30, 0x01}
	if err := env.Target.Mutate(ctx, dst2, []testenv.Cell{{Row: extra, Family: []byte("cf1"), Qualifier: []byte("q1"),
		Timestamp: 1_700_000_000_500, Type: "Put", Value: []byte("only here")}}); err != nil {
		t.Fatal(err)
	}
	out.Reset()
	errb.Reset()
	code := run(ctx, copyArgs(dst2, "--verify"), &out, &errb)
	if code != exitDifferent || !strings.Contains(out.String(), "DIFFERENT") || !strings.Contains(out.String(), `extra on target Put row 0\x01 cf1:q1`) {
		t.Fatalf("copy --verify onto a target with an extra cell: exit %d (want %d)\n%s\n%s", code, exitDifferent, out.String(), errb.String())
	}
}

package bench_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"rangecopy/bench"
	"rangecopy/testenv"
)

// TestMain lets this test binary serve as the benchmark's child copier, as
// bench/cmd/bench does.
func TestMain(m *testing.M) {
	if kind := os.Getenv(bench.ChildEnvVar); kind != "" {
		if err := bench.RunChild(context.Background(), kind, os.Stdin, os.Stdout); err != nil {
			fmt.Fprintln(os.Stderr, "bench child:", err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// TestIntegrationRunAll runs the harness end to end at a tiny size on the real
// clusters: load a table, the idle baseline, the raw HDFS copy and a
// rangecopy incremental copy (the time-range path, with pruning), then writes
// the record, chart and document. It checks what was measured, not how fast.
func TestIntegrationRunAll(t *testing.T) {
	te := testenv.Get(t)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	dir := t.TempDir()
	rc := filepath.Join(dir, "rangecopy")
	if out, err := exec.CommandContext(ctx, "go", "build", "-o", rc, "rangecopy/cmd/rangecopy").CombinedOutput(); err != nil {
		t.Fatalf("build rangecopy: %v\n%s", err, out)
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	env, err := bench.Connect(ctx, te)
	if err != nil {
		t.Fatal(err)
	}
	defer env.Close()
	table := testenv.UniqueName(t, "bench")
	env.Rangecopy, env.Child, env.Workers, env.GetRate = rc, self, 2, 50
	env.Prefix, env.LogDir = table, filepath.Join(dir, "logs")
	const rows = 2000 // about 2.5 MiB
	r, err := env.RunAll(ctx, bench.Options{Table: table, Rows: rows, Idle: time.Second, Command: "go test ./bench",
		Methods: []bench.Method{bench.RawHDFS, bench.RangecopyIncremental, bench.VerifyWhole, bench.HashSync}})
	if err != nil {
		t.Fatal(err)
	}
	if r.Data.Rows != rows || r.Data.Files == 0 || r.Data.Bytes < rows*bench.DValueBytes {
		t.Fatalf("dataset %+v: want %d rows in files of at least %d bytes", r.Data, rows, rows*bench.DValueBytes)
	}
	if r.Idle.Count == 0 || r.Idle.Errors != 0 {
		t.Fatalf("idle Get workload: %+v", r.Idle)
	}
	if len(r.Results) != 4 || r.Results[0].Method != bench.RawHDFS || r.Results[1].Method != bench.RangecopyIncremental ||
		r.Results[2].Method != bench.VerifyWhole || r.Results[3].Method != bench.HashSync {
		t.Fatalf("results %+v", r.Results)
	}
	raw, inc, hs := r.Results[0], r.Results[1], r.Results[3]
	for _, x := range r.Results {
		if x.Error != "" {
			t.Fatalf("%s failed: %s", x.Method, x.Error)
		}
		// HashTable and SyncTable run in the harness JVM: no process of
		// their own to measure.
		if x.Seconds <= 0 || x.Latency.Count == 0 || (x.WorkerPeakRSS <= 0 && x.Method != bench.HashSync) || x.HarnessPeakRSS <= 0 {
			t.Errorf("%s: missing figures %+v", x.Method, x)
		}
	}
	// Both verifiers found the copy equal (each method fails otherwise);
	// SyncTable's scans went through the region servers.
	if !strings.Contains(hs.Note, "HASHES_NOT_MATCHED 0") || hs.SourceRSCPUSeconds <= 0 || hs.TargetRSCPUSeconds <= 0 {
		t.Errorf("HashTable + SyncTable: note %q, region-server CPU %.3f s source, %.3f s target", hs.Note, hs.SourceRSCPUSeconds, hs.TargetRSCPUSeconds)
	}
	if raw.Bytes != r.Data.Bytes {
		t.Errorf("raw copy moved %d bytes, the snapshot holds %d", raw.Bytes, r.Data.Bytes)
	}
	// The newest 1% is in files of its own: rangecopy must have left the
	// major-compacted files (one per region and family) unread, copied
	// the rest, and the sampled rows must match.
	if inc.FilesTotal != r.Data.Files || inc.FilesPruned < 2*r.Data.Regions || inc.FilesPruned >= inc.FilesTotal {
		t.Errorf("incremental copy read %d files and pruned %d; want the %d compacted files pruned out of %d", inc.FilesTotal-inc.FilesPruned, inc.FilesPruned, 2*r.Data.Regions, r.Data.Files)
	}
	if inc.Verified == 0 || inc.Bytes <= 0 || inc.Bytes >= r.Data.Bytes {
		t.Errorf("incremental copy: verified %d rows, read %d of %d bytes", inc.Verified, inc.Bytes, r.Data.Bytes)
	}

	doc := filepath.Join(dir, "benchmarks.md")
	if err := os.WriteFile(doc, []byte("# Benchmarks\n\n"+bench.BeginMarker+"\nold\n"+bench.EndMarker+"\n\nkept\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	jsonPath, err := bench.WriteOutputs(r, filepath.Join(dir, "results"), doc)
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(jsonPath)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	back, err := bench.ReadRun(f)
	if err != nil || len(back.Results) != 4 {
		t.Fatalf("read back %s: %v, %+v", jsonPath, err, back)
	}
	if _, err := os.Stat(strings.TrimSuffix(jsonPath, ".json") + ".png"); err != nil {
		t.Fatalf("chart: %v", err)
	}
	md, err := os.ReadFile(doc)
	if err != nil {
		t.Fatal(err)
	}
	if s := string(md); strings.Contains(s, "\nold\n") || !strings.Contains(s, "rangecopy, newest 1% by time") || !strings.Contains(s, "**Verification**") || !strings.HasSuffix(s, "\nkept\n") {
		t.Fatalf("document not updated in place:\n%s", s)
	}
}

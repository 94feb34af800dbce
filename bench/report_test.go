package bench

import (
	"bytes"
	"errors"
	"image/png"
	"strings"
	"testing"
	"time"
)

// sampleRun is a run with every method, figures chosen so each aim's outcome
// is known.
func sampleRun() *Run {
	lat := func(p99 float64) Latency { return Latency{Count: 1000, P50: 1, P99: p99, P999: p99 * 2, Max: p99 * 3} }
	return &Run{
		Started: time.Date(2026, 11, 30, 1, 0, 0, 0, time.UTC),
		Command: "make bench SIZE=2GiB",
		Machine: Machine{CPUs: 2, CPUModel: "Test CPU", MemoryGB: 24, Kernel: "6.1", LoadBefore: "0.1 0.2 0.3", LoadAfter: "2.0 1.0 0.5"},
		Data:    Dataset{Table: "t", Rows: 100, Regions: 16, Families: []string{"d", "m"}, KeyBytes: 100, DValueBytes: 1000, MValueBytes: 100, SpanMs: 7 * 24 * 3600 * 1000, Files: 32, Bytes: 2 << 30},
		GetRate: 150,
		Workers: 4,
		Idle:    lat(10),
		Results: []Result{
			{Method: RawHDFS, Scope: "whole table", Bytes: 1e9, Seconds: 10, FilesTotal: -1, FilesPruned: -1},
			{Method: ExportSnapshot, Scope: "whole table", Bytes: 1e9, Seconds: 20, Latency: lat(11), FilesTotal: -1, FilesPruned: -1},
			{Method: CopyTable, Scope: "whole table", Bytes: 1e9, Seconds: 100, Latency: Latency{Count: 990, Errors: 10, P50: 1, P99: 40, P999: 80}, FilesTotal: -1, FilesPruned: -1},
			{Method: ScanPut, Scope: "whole table", Error: "boom | bad", FilesTotal: -1, FilesPruned: -1},
			// 0.8× raw (missed), 2× ExportSnapshot, 10× CopyTable, p99 1.1× idle.
			{Method: RangecopyFull, Scope: "whole table", Bytes: 1e9, Seconds: 12.5, WorkerPeakRSS: 400 << 20, Latency: lat(11), FilesTotal: 32, FilesPruned: 0, Verified: 50},
			// 20 s / 2.5 s = 8× ExportSnapshot.
			{Method: RangecopyRange, Scope: "10%", Bytes: 1e8, Seconds: 2.5, FilesTotal: 4, FilesPruned: 0},
			// 12.5 / 1 = 12.5×: missed.
			{Method: RangecopyIncremental, Scope: "newest 1%", Bytes: 1e7, Seconds: 1, FilesTotal: 32, FilesPruned: 16},
			// 40 MB/s under 40 MB/s.
			{Method: RangecopyBandwidth, Scope: "whole table", Bytes: 1e9, Seconds: 25, BandwidthLimit: 40e6},
			// 12.5 / 0.5 = 25×: met.
			{Method: RangecopyServerIncremental, Scope: "newest 1%, via the server", Bytes: 1e7, Seconds: 0.5, WorkerPeakRSS: 90 << 20, FilesTotal: 32, FilesPruned: 16, Verified: 50},
			{Method: ServerWindow, Scope: "a window after 1% new rows", Bytes: 1e7, Seconds: 2.5, WorkerPeakRSS: 90 << 20, FilesTotal: 32, FilesPruned: 30, Verified: 50},
		},
		// p99 60 ms: missed; 60 MiB: met.
		API: &APIResult{Jobs: 1000, Clients: 50, Latency: Latency{Count: 20000, P50: 5, P99: 60, P999: 80, Max: 90, Seconds: 10},
			RequestsPerSecond: 2000, PeakRSS: 60 << 20, CPUSeconds: 7.5, ListPages: 10, ListJobs: 1000, ListSeconds: 0.05},
	}
}

func TestAims(t *testing.T) {
	got := map[string]Aim{}
	for _, a := range Aims(sampleRun()) {
		got[a.Name] = a
	}
	want := []struct {
		name   string
		status Status
		value  float64
	}{
		{"rangecopy whole table vs the raw HDFS copy (wall time)", Missed, 0.8},
		{"rangecopy whole table vs ExportSnapshot + clone", Met, 1.6},
		{"rangecopy whole table vs CopyTable", Missed, 8},
		{"rangecopy 10% key range vs ExportSnapshot of the whole table", Met, 8},
		{"rangecopy newest 1% (incremental) vs rangecopy whole table", Missed, 12.5},
		{"source Get p99 during rangecopy whole table vs idle", Met, 1.1},
		{"rangecopy --bandwidth: measured rate vs the limit", Met, 1},
		{"newest 1% via a warm server vs rangecopy whole table", Met, 25},
		{"relocation window, 1% new, warm server vs rangecopy whole table", Missed, 5},
		{"relocation window, 1% new, warm server", Missed, 2.5},
		{"server GET /jobs/{id} p99, 50 clients, 1,000 jobs", Missed, 60},
		{"server peak RSS meanwhile (no embedded workers)", Met, 60 << 20},
		// Measured in TestThrottleAndVerifyAims: this run has neither the
		// adaptive throttle nor the verifiers.
		{"--protect-source 2x: source Get p99 vs idle", NotMeasured, 0},
		{"--protect-source 2x: rate vs the unthrottled copy", NotMeasured, 0},
		{"rangecopy verify vs HashTable + SyncTable --dryrun (wall time)", NotMeasured, 0},
		{"region-server CPU (source + target) during verify vs during HashTable + SyncTable", NotMeasured, 0},
		{"rangecopy verify peak RSS vs a worker's default memory budget", NotMeasured, 0},
		{"rangecopy verify --read-all (every batch hashed) vs HashTable + SyncTable --dryrun (wall time)", NotMeasured, 0},
		{"rangecopy, 30 files a store: peak RSS vs the default 512 MiB budget", NotMeasured, 0},
		{"read amplification (bytes read / the plan's input), worst rangecopy copy", NotMeasured, 0},
	}
	if len(got) != len(want) {
		t.Fatalf("got %d aims, want %d", len(got), len(want))
	}
	for _, w := range want {
		a, ok := got[w.name]
		if !ok {
			t.Fatalf("aim %q missing", w.name)
		}
		if a.Status != w.status || !near(a.Value, w.value) {
			t.Errorf("%s: status %v value %v, want %v %v", w.name, a.Status, a.Value, w.status, w.value)
		}
	}
}

func TestAimsNotMeasured(t *testing.T) {
	r := sampleRun()
	r.Results = r.Results[:1]
	r.API = nil
	aims := Aims(r)
	// The same aims as a full run, each not measured: none may go missing.
	if want := len(Aims(sampleRun())); len(aims) != want || want == 0 {
		t.Fatalf("got %d aims with only the raw copy measured, want the %d of a full run", len(aims), want)
	}
	for _, a := range aims {
		if a.Status != NotMeasured || a.Got != "" {
			t.Errorf("%s: %v %q with only the raw copy measured", a.Name, a.Status, a.Got)
		}
	}
}

func near(a, b float64) bool { return a-b < 1e-9 && b-a < 1e-9 }

func TestMarkdown(t *testing.T) {
	md := Markdown(sampleRun(), "bench/results/x.json", "bench/results/x.png")
	for _, want := range []string{
		"make bench SIZE=2GiB",
		"2 cores (Test CPU), 24.0 GiB",
		"| rangecopy, whole table | whole table | 12.5 s | 80.0 | 0.80× | 1.60× | 8.00× | – | 400 MiB |",
		"| scan+put (our client) | whole table | failed: boom / bad |",
		"| rangecopy, newest 1% by time | newest 1% | 1.0 s | 10.0 |",
		"| 16 / 16 |",
		"| rangecopy whole table vs CopyTable | ≥ 10× | 8.00× | missed |",
		"7 days",
		"| 1.00 / 40.00 / 80.00 (10 of 1000 failed) |",
		"| newest 1% via the server | newest 1%, via the server | 0.5 s | 20.0 |",
		"| 20000 | 2000 | 5.00 ms | 60.00 ms | 80.00 ms | 90.00 ms | 0 | 60 MiB | 7.5 s | 10 pages, 0.050 s |",
		"| server GET /jobs/{id} p99, 50 clients, 1,000 jobs | < 50 ms | 60.0 ms (50 clients, 1000 jobs, 0 errors) | missed |",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("markdown lacks %q:\n%s", want, md)
		}
	}
}

func TestUpdateDoc(t *testing.T) {
	fresh, err := UpdateDoc("", "table 1")
	if err != nil {
		t.Fatal(err)
	}
	if fresh != BeginMarker+"\ntable 1\n"+EndMarker+"\n" {
		t.Fatalf("fresh doc = %q", fresh)
	}
	doc := "# Benchmarks\n\nintro\n\n" + fresh + "\nanalysis by hand\n"
	got, err := UpdateDoc(doc, "table 2\n")
	if err != nil {
		t.Fatal(err)
	}
	want := "# Benchmarks\n\nintro\n\n" + BeginMarker + "\ntable 2\n" + EndMarker + "\n\nanalysis by hand\n"
	if got != want {
		t.Fatalf("UpdateDoc = %q, want %q", got, want)
	}
	for _, bad := range []string{"no markers", EndMarker + BeginMarker, BeginMarker + BeginMarker + EndMarker} {
		if _, err := UpdateDoc(bad, "x"); !errors.Is(err, ErrMarkers) {
			t.Errorf("UpdateDoc(%q) error = %v, want ErrMarkers", bad, err)
		}
	}
}

func TestRunJSONRoundTrip(t *testing.T) {
	r := sampleRun()
	var buf bytes.Buffer
	if err := r.WriteJSON(&buf); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), `"method": "rangecopy-newest1"`) {
		t.Fatalf("methods are not written by name:\n%s", buf.String())
	}
	back, err := ReadRun(&buf)
	if err != nil {
		t.Fatal(err)
	}
	if len(back.Results) != len(r.Results) || back.Results[6] != r.Results[6] || back.Idle != r.Idle || !back.Started.Equal(r.Started) {
		t.Fatalf("round trip changed the run: %+v", back)
	}
	if _, err := ReadRun(strings.NewReader(`{"results":[{"method":"nope"}]}`)); err == nil {
		t.Fatal("an unknown method name was accepted")
	}
}

func TestParseMethod(t *testing.T) {
	for _, m := range Methods {
		got, err := ParseMethod(m.String())
		if err != nil || got != m {
			t.Errorf("ParseMethod(%q) = %v, %v", m, got, err)
		}
	}
	if _, err := ParseMethod("distcp"); err == nil {
		t.Error("ParseMethod accepted distcp")
	}
}

func TestWriteChart(t *testing.T) {
	r := sampleRun()
	var buf bytes.Buffer
	if err := WriteChart(&buf, r); err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(&buf)
	if err != nil {
		t.Fatalf("chart is not a PNG: %v", err)
	}
	b := img.Bounds()
	if b.Dx() != chartWidth || b.Dy() < 2*len(r.Results)*chartBarH {
		t.Fatalf("chart is %v", b)
	}
	// A pixel near the start of the first bar (the raw copy) has the
	// throughput colour.
	y := chartMargin + chartTitleH + chartBarH/2
	x := chartMargin + chartLabelW + 10
	if got := img.At(x, y); !sameColor(got, chartRate) {
		t.Fatalf("pixel in the raw bar is %v, want %v", got, chartRate)
	}
}

func sameColor(a, b interface{ RGBA() (r, g, b, a uint32) }) bool {
	r1, g1, b1, a1 := a.RGBA()
	r2, g2, b2, a2 := b.RGBA()
	return r1 == r2 && g1 == g2 && b1 == b2 && a1 == a2
}

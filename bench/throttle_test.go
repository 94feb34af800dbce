package bench

import (
	"bytes"
	"errors"
	"image/png"
	"strings"
	"testing"
)

// curveRun is sampleRun with the fixed limits, the adaptive throttle and
// both verifiers, figures chosen so each aim's outcome is known.
func curveRun() *Run {
	r := sampleRun()
	// Serving the Gets costs the source's region servers 0.01 CPU s/s.
	r.IdleSourceRSCPU = 0.01
	lat := func(p99 float64) Latency { return Latency{Count: 500, P50: 1, P99: p99} }
	r.Results = append(r.Results,
		// Unthrottled: 1e9 bytes over 10 s of its own = 100 MB/s.
		Result{Method: RangecopyBandwidthQuarter, Bytes: 1e9, Seconds: 41, CopySeconds: 40, BandwidthLimit: 25e6, Latency: lat(10.5)},
		Result{Method: RangecopyBandwidthThreeQuarters, Bytes: 1e9, Seconds: 14, CopySeconds: 13.5, BandwidthLimit: 75e6, Latency: lat(15)},
		// 70 MB/s (70%: met) at p99 19 ms (1.9× the 10 ms idle: met).
		Result{Method: RangecopyProtect, Bytes: 7e8, Seconds: 11, CopySeconds: 10, Latency: lat(19)},
		// 20 s against 100 s: 5× (met); RS CPU beyond the Gets 0.3 + 0.5 s
		// against 29 + 20 s: 1.6% (met);
		// 600 MiB: over the budget (missed).
		Result{Method: VerifyWhole, Bytes: 2 << 30, Seconds: 20, SourceRSCPUSeconds: 0.5, TargetRSCPUSeconds: 0.5, WorkerPeakRSS: 600 << 20, Latency: lat(11)},
		// --read-all: 50 s against 100 s, 2× (missed).
		Result{Method: VerifyReadAll, Bytes: 2 << 30, Seconds: 50, Latency: lat(11)},
		Result{Method: HashSync, Bytes: 2 << 30, Seconds: 100, SourceRSCPUSeconds: 30, TargetRSCPUSeconds: 20, Latency: lat(30)},
		// 640 MiB: 1.25× the budget (met); 1.08× read amplification, the worst (missed).
		Result{Method: RangecopyManyFiles, Bytes: 108e6, InputBytes: 100e6, Seconds: 5, WorkerPeakRSS: 640 << 20, FilesTotal: 960, FilesPruned: 0, Latency: lat(12)},
	)
	for i := range r.Results {
		switch r.Results[i].Method {
		case RangecopyFull:
			r.Results[i].CopySeconds = 10
		case RangecopyBandwidth:
			r.Results[i].Latency = lat(12)
		}
	}
	return r
}

func TestThrottleCurve(t *testing.T) {
	pts := ThrottleCurve(curveRun())
	var got []Method
	for _, p := range pts {
		got = append(got, p.Method)
	}
	// Fixed limits by rate (25 MB/s, 40, 74, 100), then the adaptive one.
	want := []Method{RangecopyBandwidthQuarter, RangecopyBandwidth, RangecopyBandwidthThreeQuarters, RangecopyFull, RangecopyProtect}
	if len(got) != len(want) {
		t.Fatalf("curve %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("curve %v, want %v", got, want)
		}
	}
	if p := pts[0]; p.Rate != 25e6 || p.Share != 0.25 || p.P99 != 10.5 || p.Limit != 25e6 {
		t.Errorf("quarter point %+v, want 25 MB/s, share 0.25, p99 10.5 ms, limit 25 MB/s", p)
	}
	// No unthrottled copy, no curve.
	r := curveRun()
	for i := range r.Results {
		if r.Results[i].Method == RangecopyFull {
			r.Results[i].Error = "failed"
		}
	}
	if pts := ThrottleCurve(r); pts != nil {
		t.Errorf("curve without the unthrottled copy: %v, want none", pts)
	}
	if err := WriteThrottleChart(&bytes.Buffer{}, r); !errors.Is(err, ErrNoCurve) {
		t.Errorf("chart without a curve: %v, want ErrNoCurve", err)
	}
}

func TestThrottleAndVerifyAims(t *testing.T) {
	got := map[string]Aim{}
	for _, a := range Aims(curveRun()) {
		got[a.Name] = a
	}
	for _, w := range []struct {
		name   string
		status Status
		value  float64
	}{
		{"--protect-source 2x: source Get p99 vs idle", Met, 1.9},
		{"--protect-source 2x: rate vs the unthrottled copy", Met, 0.7},
		{"rangecopy verify vs HashTable + SyncTable --dryrun (wall time)", Met, 5},
		{"region-server CPU (source + target) during verify vs during HashTable + SyncTable", Met, 0.8 / 49},
		{"rangecopy verify peak RSS vs a worker's default memory budget", Missed, 600 << 20},
		{"rangecopy verify --read-all (every batch hashed) vs HashTable + SyncTable --dryrun (wall time)", Missed, 2},
		{"rangecopy, 30 files a store: peak RSS vs the default 512 MiB budget", Met, 1.25},
		{"read amplification (bytes read / the plan's input), worst rangecopy copy", Missed, 1.08},
	} {
		a, ok := got[w.name]
		if !ok {
			t.Errorf("aim %q missing", w.name)
			continue
		}
		if a.Status != w.status || a.Value < w.value*0.999 || a.Value > w.value*1.001 {
			t.Errorf("aim %q: %s %.4f (%s), want %s %.4f", w.name, a.Status, a.Value, a.Got, w.status, w.value)
		}
	}
	// Without the verifiers, their aims are not measured.
	for _, a := range Aims(sampleRun()) {
		if strings.Contains(a.Name, "verify") && a.Status != NotMeasured {
			t.Errorf("aim %q on a run without verifiers: %s", a.Name, a.Status)
		}
	}
}

func TestThrottleChartAndMarkdown(t *testing.T) {
	r := curveRun()
	var b bytes.Buffer
	if err := WriteThrottleChart(&b, r); err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(&b)
	if err != nil {
		t.Fatalf("decode the throttle chart: %v", err)
	}
	if s := img.Bounds().Size(); s.X != curveW || s.Y != curveH {
		t.Errorf("throttle chart %v, want %dx%d", s, curveW, curveH)
	}
	md := Markdown(r, "r.json", "r.png")
	for _, want := range []string{
		"**Throttle curve**",
		"| rangecopy, --bandwidth quarter | 25.0 MB/s | 25.0 | 25% | 1.00 / 10.50 | 1.05× |",
		"| rangecopy, --protect-source 2x | adaptive | 70.0 | 70% | 1.00 / 19.00 | 1.90× |",
		"**Verification**",
		"| rangecopy verify, whole table | 20.0 s |",
		"| 5.00× | 0.50 s | 0.50 s | 0.80 s | 600 MiB |",
		"**Memory and reads**",
		"| rangecopy, 30 files a store | 960 | 95 MiB | 103 MiB | 1.080× | 640 MiB | 1.25× |",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("markdown lacks %q:\n%s", want, md)
		}
	}
	// The verifiers are not rows of the copies' table.
	for _, l := range strings.Split(md, "\n") {
		if strings.HasPrefix(l, "| HashTable + SyncTable --dryrun | whole table |") {
			t.Errorf("a verifier is a row of the copies' table: %s", l)
		}
	}
}

func TestNiceCeil(t *testing.T) {
	for _, c := range []struct{ in, want float64 }{{0, 1}, {0.7, 1}, {1, 1}, {1.2, 2}, {3, 5}, {7, 10}, {42, 50}, {101, 200}, {0.03, 0.05}} {
		if got := niceCeil(c.in); got < c.want*0.999 || got > c.want*1.001 {
			t.Errorf("niceCeil(%v) = %v, want %v", c.in, got, c.want)
		}
	}
}

package progress

import (
	"rangecopy/job"

	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestRates(t *testing.T) {
	t0 := time.Unix(1000, 0)
	first := Rates(nil, Sample{At: t0.Add(10 * time.Second), Elapsed: 10 * time.Second, BytesRead: 1000, BytesTotal: 11000})
	if first.Rate != 100 || first.ETA != 100*time.Second {
		t.Fatalf("first sample: rate %v, ETA %v; want 100 B/s and 100s", first.Rate, first.ETA)
	}
	// 2000 bytes in the next 10 s: 200 B/s now, smoothed 0.3*200 + 0.7*100.
	second := Rates(&first, Sample{At: t0.Add(20 * time.Second), Elapsed: 20 * time.Second, BytesRead: 3000, BytesTotal: 11000})
	if second.Rate != 130 {
		t.Fatalf("second sample: rate %v, want 130", second.Rate)
	}
	if second.ETA != 62*time.Second { // 8000 bytes left at 130 B/s
		t.Fatalf("second sample: ETA %v", second.ETA)
	}
	same := Rates(&second, Sample{At: second.At, BytesRead: 3000, BytesTotal: 11000})
	if same.Rate != second.Rate {
		t.Fatalf("a sample at the same instant changed the rate to %v", same.Rate)
	}
	done := Rates(&second, Sample{At: t0.Add(30 * time.Second), BytesRead: 11000, BytesTotal: 11000})
	if done.ETA != 0 {
		t.Fatalf("ETA %v with nothing left", done.ETA)
	}
	idle := Rates(nil, Sample{At: t0, BytesTotal: 10})
	if idle.Rate != 0 || idle.ETA != 0 {
		t.Fatalf("no time elapsed: rate %v ETA %v", idle.Rate, idle.ETA)
	}
}

func TestFraction(t *testing.T) {
	for _, tc := range []struct {
		s    Sample
		want float64
	}{
		{Sample{BytesRead: 50, BytesTotal: 200}, 0.25},
		{Sample{BytesRead: 300, BytesTotal: 200}, 1},
		{Sample{TasksDone: 1, TasksTotal: 4}, 0.25},
		{Sample{}, 0},
	} {
		if got := tc.s.Fraction(); got != tc.want {
			t.Errorf("%+v: Fraction() = %v, want %v", tc.s, got, tc.want)
		}
	}
}

func TestFormat(t *testing.T) {
	for n, want := range map[int64]string{0: "0 B", 1023: "1023 B", 1536: "1.5 KiB", 3 << 30: "3.0 GiB", 5 << 50: "5.0 PiB", 7 << 60: "7168.0 PiB"} {
		if got := Bytes(n); got != want {
			t.Errorf("Bytes(%d) = %q, want %q", n, got, want)
		}
	}
	for n, want := range map[int64]string{999: "999", 12345: "12.3k", 4_500_000: "4.5M", 6_700_000_000: "6.7G"} {
		if got := Count(n); got != want {
			t.Errorf("Count(%d) = %q, want %q", n, got, want)
		}
	}
}

func TestPrinters(t *testing.T) {
	s := Sample{BytesRead: 1 << 30, BytesTotal: 4 << 30, Rate: 100 << 20, TasksDone: 3, TasksTotal: 12, TasksFailed: 1,
		FilesLoaded: 7, Cells: 12345, ETA: 31 * time.Second}
	var term bytes.Buffer
	tp := &Terminal{W: &term, Width: 8}
	tp.Update(s)
	tp.Finish(s)
	want := "\r\x1b[K[==      ]  25% 1.0 GiB of 4.0 GiB, 100.0 MiB/s, tasks 3/12 (1 failed), files 7, cells 12.3k, ETA 31s"
	if got := term.String(); got != want+want+"\n" {
		t.Fatalf("terminal output %q, want %q twice and a newline", got, want)
	}
	var logs bytes.Buffer
	lp := &Log{Logger: slog.New(slog.NewTextHandler(&logs, nil))}
	lp.Update(s)
	lp.Finish(s)
	if !strings.Contains(logs.String(), `msg="copy progress" read="1.0 GiB"`) || !strings.Contains(logs.String(), `msg="copy finished"`) ||
		!strings.Contains(logs.String(), "tasks_failed=1") {
		t.Fatalf("log output:\n%s", logs.String())
	}
}

type recorder struct {
	mu       sync.Mutex
	updates  []Sample
	finished *Sample
}

func (r *recorder) Update(s Sample) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.updates = append(r.updates, s)
}

func (r *recorder) Finish(s Sample) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.finished = &s
}

func (r *recorder) count() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.updates)
}

func TestRun(t *testing.T) {
	var c Counters
	c.TasksTotal.Store(2)
	c.BytesTotal.Store(1000)
	rec := &recorder{}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan Sample)
	start := time.Now()
	go func() { done <- Run(ctx, &c, start, time.Millisecond, rec) }()
	c.BytesRead.Add(400)
	c.TasksDone.Add(1)
	deadline := time.After(time.Minute)
	for rec.count() < 3 {
		select {
		case <-deadline:
			t.Fatal("no updates")
		case <-time.After(time.Millisecond):
		}
	}
	c.BytesRead.Add(600)
	c.TasksDone.Add(1)
	cancel()
	last := <-done
	if rec.finished == nil || rec.finished.BytesRead != 1000 || rec.finished.TasksDone != 2 || last.BytesRead != 1000 {
		t.Fatalf("final sample %+v (returned %+v), want all 1000 bytes and 2 tasks", rec.finished, last)
	}
}

func TestReport(t *testing.T) {
	r := testReport()
	r.Status, r.FilesPruned = job.ReportDone, 3
	Fill(&r, Sample{Elapsed: 4 * time.Second, TasksTotal: 5, TasksDone: 5, BytesRead: 4 << 20, BytesLoaded: 5 << 20, FilesLoaded: 6, Cells: 7, Retries: 1})
	var js bytes.Buffer
	if err := WriteJSON(&js, r); err != nil {
		t.Fatal(err)
	}
	var back job.Report
	if err := json.Unmarshal(js.Bytes(), &back); err != nil || back != r {
		t.Fatalf("JSON round trip: %+v, %v", back, err)
	}
	if r.BytesPerSecond != float64(1<<20) {
		t.Fatalf("bytes per second %v", r.BytesPerSecond)
	}
	var txt bytes.Buffer
	if err := WriteText(&txt, r); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"job j1: done", "t -> t2, [\"a\", \"b\"), all time", "5/5 tasks done", "read 4.0 MiB, loaded 5.0 MiB in 6 files (7 cells), 1 retries", "4.0 s at 1.0 MiB/s, 3 input files pruned"} {
		if !strings.Contains(txt.String(), want) {
			t.Errorf("text report lacks %q:\n%s", want, txt.String())
		}
	}
}

// TestReportTextNotDone: a report of a job that did not finish says its
// status and error first, then what was done before it stopped, and no rate.
func TestReportTextNotDone(t *testing.T) {
	base := testReport()
	for _, tc := range []struct {
		name   string
		report func() job.Report
		want   []string
	}{
		{name: "failed before planning", report: func() job.Report {
			r := base
			r.Status, r.Error = job.ReportFailed, "job j1: registry: connection lost"
			return r
		}, want: []string{"job j1: failed\n  error: job j1: registry: connection lost\n  t -> t2, [\"a\", \"b\"), all time",
			"done before it stopped: nothing (no task was planned or run)"}},
		{name: "failed tasks", report: func() job.Report {
			r := base
			r.Status, r.Error = job.ReportFailed, "job j1: tasks failed: 2 of 5"
			Fill(&r, Sample{Elapsed: 12340 * time.Millisecond, TasksTotal: 5, TasksDone: 3, TasksFailed: 2,
				BytesRead: 3 << 20, BytesLoaded: 4 << 20, FilesLoaded: 6, Cells: 7, Retries: 4})
			return r
		}, want: []string{"job j1: failed\n  error: job j1: tasks failed: 2 of 5\n",
			"done before it stopped: 3 of 5 tasks (2 failed); read 3.0 MiB, loaded 4.0 MiB in 6 files (7 cells), 4 retries, in 12.3s\n"}},
		{name: "interrupted", report: func() job.Report {
			r := base
			r.Status, r.Error = job.ReportInterrupted, "job j1 stopped (resume with --resume j1): context canceled"
			Fill(&r, Sample{Elapsed: time.Second, TasksTotal: 2, BytesRead: 1 << 10})
			return r
		}, want: []string{"job j1: interrupted\n  error: job j1 stopped (resume with --resume j1)",
			"done before it stopped: 0 of 2 tasks (0 failed); read 1.0 KiB"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var txt bytes.Buffer
			if err := WriteText(&txt, tc.report()); err != nil {
				t.Fatal(err)
			}
			for _, want := range tc.want {
				if !strings.Contains(txt.String(), want) {
					t.Errorf("text report lacks %q:\n%s", want, txt.String())
				}
			}
			for _, not := range []string{"/s", " s at ", "pruned"} {
				if strings.Contains(txt.String(), not) {
					t.Errorf("text report of a job that is not done shows %q:\n%s", not, txt.String())
				}
			}
		})
	}
}

// testReport is a report of a job copying rows ["a", "b") of t into t2.
func testReport() job.Report {
	return job.NewReport("j1", job.Spec{Table: "t", TargetTable: "t2", Rows: job.KeyRange{Start: []byte("a"), End: []byte("b")}})
}

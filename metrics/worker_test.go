package metrics

import (
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
)

func TestWorkerTracksJobCounts(t *testing.T) {
	reg := prometheus.NewPedanticRegistry()
	connected := true
	w, err := NewWorker(reg, func() bool { return connected })
	if err != nil {
		t.Fatal(err)
	}
	var counts JobCounts
	untrack := w.Track("job-a", func() JobCounts { return counts })
	counts = JobCounts{BytesRead: 100, BytesWritten: 80, BytesLoaded: 70, FastFiles: 1, RewrittenFiles: 2, LoadRetries: 1}
	w.TaskStarted("job-a")
	w.Retried("job-a", CauseTaskAttempt)
	w.SetBandwidth("job-a", 5e6, 1e6)
	if err := testutil.GatherAndCompare(reg, strings.NewReader(`
# HELP rangecopy_worker_read_bytes_total Bytes read from source HFiles (decoded and fast-path copied).
# TYPE rangecopy_worker_read_bytes_total counter
rangecopy_worker_read_bytes_total{job="job-a"} 100
# HELP rangecopy_worker_output_files_total Output files written, by path: fast (a verified copy of an input) or rewritten (decoded and written anew).
# TYPE rangecopy_worker_output_files_total counter
rangecopy_worker_output_files_total{job="job-a",path="fast"} 1
rangecopy_worker_output_files_total{job="job-a",path="rewritten"} 2
# HELP rangecopy_worker_retries_total Retries by cause: task_attempt, checkpoint_save, bulk_load.
# TYPE rangecopy_worker_retries_total counter
rangecopy_worker_retries_total{cause="bulk_load",job="job-a"} 1
rangecopy_worker_retries_total{cause="task_attempt",job="job-a"} 1
# HELP rangecopy_worker_tasks Tasks of the job in this worker, by state (running).
# TYPE rangecopy_worker_tasks gauge
rangecopy_worker_tasks{job="job-a",state="running"} 1
# HELP rangecopy_worker_bandwidth_limit_bytes_per_second This worker's share of the job's read limit; 0 means no limit.
# TYPE rangecopy_worker_bandwidth_limit_bytes_per_second gauge
rangecopy_worker_bandwidth_limit_bytes_per_second{job="job-a"} 5e+06
# HELP rangecopy_worker_zookeeper_connected 1 while the process holds a ZooKeeper session, else 0.
# TYPE rangecopy_worker_zookeeper_connected gauge
rangecopy_worker_zookeeper_connected 1
`), "rangecopy_worker_read_bytes_total", "rangecopy_worker_output_files_total", "rangecopy_worker_retries_total",
		"rangecopy_worker_tasks", "rangecopy_worker_bandwidth_limit_bytes_per_second", "rangecopy_worker_zookeeper_connected"); err != nil {
		t.Fatal(err)
	}

	// More counted, the task ends, the job is untracked: the last counts
	// are added, its gauges go, its counters stay; a new opening of the
	// job counts from zero on top.
	counts.BytesRead = 150
	w.TaskEnded("job-a", OutcomeDone, 3*time.Second)
	w.FileLoaded("job-a", time.Second)
	untrack()
	untrack() // twice is once
	counts2 := JobCounts{BytesRead: 10}
	w.Track("job-a", func() JobCounts { return counts2 })
	connected = false
	if got := testutil.ToFloat64(w.bytesRead.WithLabelValues("job-a")); got != 150 {
		t.Fatalf("read bytes before the scrape %v, want 150", got)
	}
	if _, err := reg.Gather(); err != nil {
		t.Fatal(err)
	}
	if got := testutil.ToFloat64(w.bytesRead.WithLabelValues("job-a")); got != 160 {
		t.Errorf("read bytes %v, want 160", got)
	}
	if n := testutil.CollectAndCount(w.limit); n != 0 {
		t.Errorf("%d bandwidth gauges left after untrack", n)
	}
	if got := testutil.ToFloat64(w.session); got != 0 {
		t.Errorf("session gauge %v while disconnected", got)
	}
	if n := testutil.CollectAndCount(w.taskSeconds); n != 1 {
		t.Errorf("%d task histograms, want 1", n)
	}
}

// TestNilWorker: metrics left off cost nothing and never panic.
func TestNilWorker(t *testing.T) {
	var w *Worker
	w.Track("j", func() JobCounts { return JobCounts{} })()
	w.TaskStarted("j")
	w.TaskEnded("j", OutcomeDone, time.Second)
	w.FileLoaded("j", time.Second)
	w.Retried("j", CauseCheckpointSave)
	w.SetBandwidth("j", 1, 1)
}

func TestRegisterTwice(t *testing.T) {
	reg := prometheus.NewRegistry()
	if _, err := NewWorker(reg, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := NewWorker(reg, nil); err == nil {
		t.Fatal("a second worker's metrics registered on the same registry")
	}
}

func TestMaster(t *testing.T) {
	reg := prometheus.NewPedanticRegistry()
	m, err := NewMaster(reg, func() bool { return true })
	if err != nil {
		t.Fatal(err)
	}
	m.SetLeading(true)
	m.SetTasks("job-a", TaskCounts{Pending: 3, Claimed: 2, Done: 1})
	m.SetTasks("job-b", TaskCounts{Failed: 1})
	if got := testutil.ToFloat64(m.tasks.WithLabelValues("job-a", "pending")); got != 3 {
		t.Errorf("pending %v, want 3", got)
	}
	m.SetThrottle("job-a", 5<<20, 0.012)
	if got := testutil.ToFloat64(m.rate.WithLabelValues("job-a")); got != 5<<20 {
		t.Errorf("throttle rate %v", got)
	}
	if got := testutil.ToFloat64(m.p99.WithLabelValues("job-a")); got != 0.012 {
		t.Errorf("probe p99 %v", got)
	}
	m.ForgetJob("job-a")
	if n := testutil.CollectAndCount(m.rate); n != 0 {
		t.Errorf("%d throttle gauges after forgetting job-a", n)
	}
	if n := testutil.CollectAndCount(m.tasks); n != 4 {
		t.Errorf("%d task gauges after forgetting job-a, want job-b's 4", n)
	}
	m.SetLeading(false)
	if n := testutil.CollectAndCount(m.tasks); n != 0 || testutil.ToFloat64(m.leading) != 0 {
		t.Errorf("%d task gauges, leading %v after losing the lead", n, testutil.ToFloat64(m.leading))
	}
	if n, err := testutil.GatherAndCount(reg, "rangecopy_master_zookeeper_connected"); err != nil || n != 1 {
		t.Errorf("session gauge: %d, %v", n, err)
	}
	var nilM *Master
	nilM.SetLeading(true)
	nilM.SetTasks("j", TaskCounts{})
	nilM.ForgetJob("j")
	nilM.SetThrottle("j", 0, 0)
}

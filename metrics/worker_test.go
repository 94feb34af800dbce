package metrics

import (
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	dto "github.com/prometheus/client_model/go"
)

// sample is the value of the series of name with the labels (name=value pairs, in
// order), and whether reg has it.
func sample(t *testing.T, reg prometheus.Gatherer, name string, labels ...string) (float64, bool) {
	t.Helper()
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, mf := range mfs {
		if mf.GetName() != name {
			continue
		}
	next:
		for _, m := range mf.GetMetric() {
			for i := 0; i+1 < len(labels); i += 2 {
				if labelValue(m, labels[i]) != labels[i+1] {
					continue next
				}
			}
			switch {
			case m.Counter != nil:
				return m.Counter.GetValue(), true
			case m.Gauge != nil:
				return m.Gauge.GetValue(), true
			case m.Histogram != nil:
				return float64(m.Histogram.GetSampleCount()), true
			}
		}
	}
	return 0, false
}

func labelValue(m *dto.Metric, name string) string {
	for _, l := range m.GetLabel() {
		if l.GetName() == name {
			return l.GetValue()
		}
	}
	return ""
}

// seriesCount is how many series reg has (a histogram counts once).
func seriesCount(t *testing.T, reg prometheus.Gatherer) int {
	t.Helper()
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, mf := range mfs {
		n += len(mf.GetMetric())
	}
	return n
}

func TestWorkerTracksJobCounts(t *testing.T) {
	reg := prometheus.NewPedanticRegistry()
	w, err := NewWorker(reg)
	if err != nil {
		t.Fatal(err)
	}
	var counts JobCounts
	untrack := w.Track(Job{ID: "job-a"}, func() JobCounts { return counts })
	counts = JobCounts{BytesRead: 100, BytesWritten: 80, BytesLoaded: 70, FastFiles: 1, RewrittenFiles: 2, LoadRetries: 1}
	w.TaskStarted("job-a")
	w.Retried("job-a", CauseTaskAttempt)
	w.SetBandwidth("job-a", 5e6, 1e6)
	if err := testutil.GatherAndCompare(reg, strings.NewReader(`
# HELP rangecopy_worker_read_bytes_total Bytes read from source HFiles (decoded and fast-path copied).
# TYPE rangecopy_worker_read_bytes_total counter
rangecopy_worker_read_bytes_total{job_id="job-a",relocation=""} 100
# HELP rangecopy_worker_output_files_total Output files written, by path: fast (a verified copy of an input) or rewritten (decoded and written anew).
# TYPE rangecopy_worker_output_files_total counter
rangecopy_worker_output_files_total{job_id="job-a",path="fast",relocation=""} 1
rangecopy_worker_output_files_total{job_id="job-a",path="rewritten",relocation=""} 2
# HELP rangecopy_worker_retries_total Retries by cause: task_attempt, checkpoint_save, bulk_load.
# TYPE rangecopy_worker_retries_total counter
rangecopy_worker_retries_total{cause="bulk_load",job_id="job-a",relocation=""} 1
rangecopy_worker_retries_total{cause="checkpoint_save",job_id="job-a",relocation=""} 0
rangecopy_worker_retries_total{cause="task_attempt",job_id="job-a",relocation=""} 1
# HELP rangecopy_worker_running_tasks Tasks of the job (or relocation) running in this worker.
# TYPE rangecopy_worker_running_tasks gauge
rangecopy_worker_running_tasks{job_id="job-a",relocation=""} 1
# HELP rangecopy_worker_bandwidth_limit_bytes_per_second This worker's share of the job's read limit; 0 means no limit.
# TYPE rangecopy_worker_bandwidth_limit_bytes_per_second gauge
rangecopy_worker_bandwidth_limit_bytes_per_second{job_id="job-a",relocation=""} 5e+06
`), "rangecopy_worker_read_bytes_total", "rangecopy_worker_output_files_total", "rangecopy_worker_retries_total",
		"rangecopy_worker_running_tasks", "rangecopy_worker_bandwidth_limit_bytes_per_second"); err != nil {
		t.Fatal(err)
	}

	// More counted, the task ends, the job is untracked: the next scrape shows the
	// last counts, the one after has none of the job's series left.
	counts.BytesRead = 150
	w.TaskEnded("job-a", OutcomeDone, 3*time.Second)
	w.FileLoaded("job-a", time.Second)
	untrack()
	untrack() // twice is once
	if v, ok := sample(t, reg, "rangecopy_worker_read_bytes_total", LabelJobID, "job-a"); !ok || v != 150 {
		t.Fatalf("read bytes at the scrape after the end %v (there %v), want 150", v, ok)
	}
	if _, ok := sample(t, reg, "rangecopy_worker_read_bytes_total", LabelJobID, "job-a"); ok {
		t.Fatal("the ended job's read bytes are still there at the second scrape")
	}
	if v, _ := sample(t, reg, "rangecopy_worker_task_duration_seconds", "outcome", OutcomeDone); v != 1 {
		t.Errorf("%v tasks done in the histogram, want 1", v)
	}
	if v, _ := sample(t, reg, "rangecopy_worker_load_duration_seconds"); v != 1 {
		t.Errorf("%v loads in the histogram, want 1", v)
	}

	// A new opening of the job counts from zero.
	counts2 := JobCounts{BytesRead: 10}
	w.Track(Job{ID: "job-a"}, func() JobCounts { return counts2 })
	if v, _ := sample(t, reg, "rangecopy_worker_read_bytes_total", LabelJobID, "job-a"); v != 10 {
		t.Errorf("read bytes of the new opening %v, want 10", v)
	}
}

// TestWorkerReopenBeforeScrape: a job untracked and tracked again before a scrape keeps
// its series and adds on.
func TestWorkerReopenBeforeScrape(t *testing.T) {
	reg := prometheus.NewPedanticRegistry()
	w, err := NewWorker(reg)
	if err != nil {
		t.Fatal(err)
	}
	c1 := JobCounts{BytesRead: 5}
	w.Track(Job{ID: "a"}, func() JobCounts { return c1 })()
	c2 := JobCounts{BytesRead: 7}
	w.Track(Job{ID: "a"}, func() JobCounts { return c2 })
	for range 2 {
		if v, ok := sample(t, reg, "rangecopy_worker_read_bytes_total", LabelJobID, "a"); !ok || v != 12 {
			t.Fatalf("read bytes %v (there %v), want 12", v, ok)
		}
	}
}

// TestRelocationJobsShareSeries: a relocation's window jobs add to the relocation's
// series (job_id empty), at once or one after the other; its gauges are sums.
func TestRelocationJobsShareSeries(t *testing.T) {
	reg := prometheus.NewPedanticRegistry()
	w, err := NewWorker(reg)
	if err != nil {
		t.Fatal(err)
	}
	a, b := JobCounts{BytesRead: 100}, JobCounts{BytesRead: 50}
	ua := w.Track(Job{ID: "win-1a", Relocation: "rel_1"}, func() JobCounts { return a })
	ub := w.Track(Job{ID: "win-1b", Relocation: "rel_1"}, func() JobCounts { return b })
	w.TaskStarted("win-1a")
	w.TaskStarted("win-1b")
	w.SetBandwidth("win-1a", 1000, 300)
	w.SetBandwidth("win-1b", 2000, 400)
	rel := []string{LabelJobID, "", LabelRelocation, "rel_1"}
	for _, c := range []struct {
		name string
		want float64
	}{{"rangecopy_worker_read_bytes_total", 150}, {"rangecopy_worker_running_tasks", 2},
		{"rangecopy_worker_bandwidth_limit_bytes_per_second", 3000}, {"rangecopy_worker_read_rate_bytes_per_second", 700}} {
		if v, ok := sample(t, reg, c.name, rel...); !ok || v != c.want {
			t.Errorf("%s %v (there %v), want %v", c.name, v, ok, c.want)
		}
	}
	if _, ok := sample(t, reg, "rangecopy_worker_read_bytes_total", LabelJobID, "win-1a"); ok {
		t.Error("a window job has a series of its own")
	}
	w.TaskEnded("win-1a", OutcomeDone, time.Second)
	ua()
	// win-1b runs on: the relocation's series stay, the ended job's gauges are gone.
	reg.Gather()
	if v, ok := sample(t, reg, "rangecopy_worker_bandwidth_limit_bytes_per_second", rel...); !ok || v != 2000 {
		t.Errorf("limit %v (there %v) with one job left, want 2000", v, ok)
	}
	b.BytesRead = 60
	w.TaskEnded("win-1b", OutcomeDone, time.Second)
	ub()
	if v, ok := sample(t, reg, "rangecopy_worker_read_bytes_total", rel...); !ok || v != 160 {
		t.Errorf("read %v (there %v) after both ended, want 160", v, ok)
	}
	if _, ok := sample(t, reg, "rangecopy_worker_read_bytes_total", rel...); ok {
		t.Error("the relocation's series outlive its last job's end and a scrape")
	}
}

// TestWindowJobsSeriesBackToBaseline is issue 27's "after 200 window jobs the worker's
// series count is back to its baseline": 200 jobs of distinct ids sharing one relocation
// go through the calls a worker and a master make for a job (track, tasks, bytes,
// retries, bandwidth, throttle, end), with scrapes in between; after the last ends, the
// worker's and master's registries hold as many series as before the first.
func TestWindowJobsSeriesBackToBaseline(t *testing.T) {
	for _, rel := range []string{"rel_0123456789abcdef", ""} {
		t.Run("relocation="+rel, func(t *testing.T) { testJobsSeriesBackToBaseline(t, rel) })
	}
}

// testJobsSeriesBackToBaseline runs 200 jobs of relocation rel (none when empty).
func testJobsSeriesBackToBaseline(t *testing.T, rel string) {
	reg := prometheus.NewPedanticRegistry()
	if err := NewProcess(reg, BuildOf("test"), func() bool { return true }); err != nil {
		t.Fatal(err)
	}
	w, err := NewWorker(reg)
	if err != nil {
		t.Fatal(err)
	}
	m, err := NewMaster(reg)
	if err != nil {
		t.Fatal(err)
	}
	m.SetLeading(true)
	// The Go collector's series vary only by what it has seen; one gather settles them.
	reg.Gather()
	base := seriesCount(t, reg)
	peak := 0
	for i := range 200 {
		j := Job{ID: fmt.Sprintf("win-%03d", i), Relocation: rel}
		c := JobCounts{}
		untrack := w.Track(j, func() JobCounts { return c })
		m.SetTasks(j, TaskCounts{Pending: 2})
		w.TaskStarted(j.ID)
		w.SetBandwidth(j.ID, 1e6, 5e5)
		c = JobCounts{BytesRead: 1000, BytesWritten: 900, BytesLoaded: 900, RewrittenFiles: 1, LoadRetries: int64(i % 2)}
		w.Retried(j.ID, CauseCheckpointSave)
		m.SetThrottle(j, 1e6, 0.01)
		m.SetTasks(j, TaskCounts{Claimed: 1, Done: 1})
		if i%10 == 0 {
			peak = max(peak, seriesCount(t, reg))
		}
		w.FileLoaded(j.ID, time.Second)
		w.TaskEnded(j.ID, OutcomeDone, 2*time.Second)
		m.SetTasks(j, TaskCounts{Done: 2})
		untrack()
		m.JobEnded(JobDone)
		m.ForgetJob(j.ID)
	}
	if rel != "" {
		if v, _ := sample(t, reg, "rangecopy_worker_read_bytes_total", LabelRelocation, rel); v != 200*1000 {
			t.Errorf("the relocation's read bytes %v at the scrape after its last job, want %v", v, 200*1000)
		}
	}
	reg.Gather() // the scrape that shows the last jobs' final counts
	got := seriesCount(t, reg)
	t.Logf("series: %d before, %d at most while a job ran, %d after 200 jobs", base, peak, got)
	if got != base {
		t.Errorf("%d series after 200 jobs, %d before", got, base)
	}
	if v, _ := sample(t, reg, "rangecopy_master_jobs_ended_total", "outcome", JobDone); v != 200 {
		t.Errorf("jobs ended done %v, want 200", v)
	}
}

// TestEndedSeriesBounded: with no scrape at all, the series of ended jobs are dropped
// past maxEnded.
func TestEndedSeriesBounded(t *testing.T) {
	reg := prometheus.NewPedanticRegistry()
	w, err := NewWorker(reg)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 3 * maxEnded {
		w.Track(Job{ID: fmt.Sprint("j", i)}, func() JobCounts { return JobCounts{} })()
	}
	w.mu.Lock()
	n := len(w.series)
	w.mu.Unlock()
	if n > maxEnded {
		t.Errorf("%d series kept of jobs that ended, more than %d", n, maxEnded)
	}
}

// TestNilWorker: metrics left off cost nothing and never panic.
func TestNilWorker(t *testing.T) {
	var w *Worker
	w.Track(Job{ID: "j"}, func() JobCounts { return JobCounts{} })()
	w.TaskStarted("j")
	w.TaskEnded("j", OutcomeDone, time.Second)
	w.FileLoaded("j", time.Second)
	w.Retried("j", CauseCheckpointSave)
	w.SetBandwidth("j", 1, 1)
}

func TestRegisterTwice(t *testing.T) {
	reg := prometheus.NewRegistry()
	if _, err := NewWorker(reg); err != nil {
		t.Fatal(err)
	}
	if _, err := NewWorker(reg); err == nil {
		t.Fatal("a second worker's metrics registered on the same registry")
	}
}

// TestOneRegistry: a server registers the process's, a master's and a worker's metrics
// on one registry; no name is registered twice.
func TestOneRegistry(t *testing.T) {
	reg := prometheus.NewPedanticRegistry()
	if err := NewProcess(reg, Build{Version: "v1.2.3", Revision: "abc", GoVersion: "go1.26"}, func() bool { return false }); err != nil {
		t.Fatal(err)
	}
	if _, err := NewMaster(reg); err != nil {
		t.Fatal(err)
	}
	if _, err := NewWorker(reg); err != nil {
		t.Fatal(err)
	}
	if v, ok := sample(t, reg, "rangecopy_build_info", "version", "v1.2.3", "revision", "abc", "goversion", "go1.26"); !ok || v != 1 {
		t.Errorf("build_info %v (there %v)", v, ok)
	}
	if v, ok := sample(t, reg, "rangecopy_zookeeper_session_up"); !ok || v != 0 {
		t.Errorf("session_up %v (there %v) while disconnected", v, ok)
	}
}

func TestMaster(t *testing.T) {
	reg := prometheus.NewPedanticRegistry()
	m, err := NewMaster(reg)
	if err != nil {
		t.Fatal(err)
	}
	m.SetLeading(true)
	a, b := Job{ID: "job-a"}, Job{ID: "job-b"}
	m.SetTasks(a, TaskCounts{Pending: 3, Claimed: 2, Done: 1})
	m.SetTasks(b, TaskCounts{Failed: 1})
	if v, _ := sample(t, reg, "rangecopy_master_job_tasks", LabelJobID, "job-a", "state", "pending"); v != 3 {
		t.Errorf("pending %v, want 3", v)
	}
	m.SetThrottle(a, 5<<20, 0.012)
	if v, _ := sample(t, reg, "rangecopy_master_throttle_rate_bytes_per_second", LabelJobID, "job-a"); v != 5<<20 {
		t.Errorf("throttle rate %v", v)
	}
	if v, _ := sample(t, reg, "rangecopy_master_source_probe_p99_seconds", LabelJobID, "job-a"); v != 0.012 {
		t.Errorf("probe p99 %v", v)
	}
	// Two jobs of a relocation: one series, summed (the p99 the highest).
	r1, r2 := Job{ID: "w1", Relocation: "rel_x"}, Job{ID: "w2", Relocation: "rel_x"}
	m.SetTasks(r1, TaskCounts{Pending: 1})
	m.SetTasks(r2, TaskCounts{Pending: 2})
	m.SetThrottle(r1, 100, 0.5)
	m.SetThrottle(r2, 200, 0.1)
	rel := []string{LabelJobID, "", LabelRelocation, "rel_x"}
	if v, _ := sample(t, reg, "rangecopy_master_job_tasks", append(rel, "state", "pending")...); v != 3 {
		t.Errorf("the relocation's pending %v, want 3", v)
	}
	if v, _ := sample(t, reg, "rangecopy_master_throttle_rate_bytes_per_second", rel...); v != 300 {
		t.Errorf("the relocation's throttle rate %v, want 300", v)
	}
	if v, _ := sample(t, reg, "rangecopy_master_source_probe_p99_seconds", rel...); v != 0.5 {
		t.Errorf("the relocation's p99 %v, want 0.5", v)
	}
	m.ForgetJob("job-a")
	if _, ok := sample(t, reg, "rangecopy_master_throttle_rate_bytes_per_second", LabelJobID, "job-a"); ok {
		t.Error("throttle gauge after forgetting job-a")
	}
	if _, ok := sample(t, reg, "rangecopy_master_job_tasks", LabelJobID, "job-b"); !ok {
		t.Error("job-b's task gauges went with job-a's")
	}
	m.JobEnded(JobFailed)
	if v, _ := sample(t, reg, "rangecopy_master_jobs_ended_total", "outcome", JobFailed); v != 1 {
		t.Errorf("jobs ended failed %v, want 1", v)
	}
	m.SetLeading(false)
	if _, ok := sample(t, reg, "rangecopy_master_job_tasks"); ok {
		t.Error("task gauges after losing the lead")
	}
	if v, _ := sample(t, reg, "rangecopy_master_leader"); v != 0 {
		t.Errorf("leader %v after losing the lead", v)
	}
	var nilM *Master
	nilM.SetLeading(true)
	nilM.SetTasks(a, TaskCounts{})
	nilM.ForgetJob("j")
	nilM.SetThrottle(a, 0, 0)
	nilM.JobEnded(JobDone)
}

// TestWorkerConcurrent: jobs tracked, counted and untracked while scrapes run (go test
// -race); at the end no job's series is left.
func TestWorkerConcurrent(t *testing.T) {
	reg := prometheus.NewPedanticRegistry()
	w, err := NewWorker(reg)
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	scraped := make(chan error)
	go func() {
		for {
			select {
			case <-done:
				close(scraped)
				return
			default:
				if _, err := reg.Gather(); err != nil {
					scraped <- err
				}
			}
		}
	}()
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 100 {
				j := Job{ID: fmt.Sprintf("g%d-%d", g, i), Relocation: []string{"", "rel_a"}[i%2]}
				var read atomic.Int64
				untrack := w.Track(j, func() JobCounts { return JobCounts{BytesRead: read.Load()} })
				w.TaskStarted(j.ID)
				read.Add(10)
				w.SetBandwidth(j.ID, 1, 1)
				w.Retried(j.ID, CauseTaskAttempt)
				w.TaskEnded(j.ID, OutcomeDone, time.Millisecond)
				untrack()
			}
		}()
	}
	wg.Wait()
	close(done)
	for err := range scraped {
		t.Fatal(err)
	}
	reg.Gather()
	if _, ok := sample(t, reg, "rangecopy_worker_read_bytes_total"); ok {
		t.Error("series of jobs that ended are left")
	}
}

package metrics

import (
	"fmt"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// Task outcomes, the values of the outcome label.
const (
	OutcomeDone     = "done"     // the task completed
	OutcomeFailed   = "failed"   // the task was recorded as failed
	OutcomeReleased = "released" // stopped from outside, given back with its checkpoint
	OutcomeLost     = "lost"     // its claim was lost; another worker takes it over
)

// Retry causes, the values of the cause label.
const (
	CauseTaskAttempt    = "task_attempt"    // a task run again from its checkpoint
	CauseCheckpointSave = "checkpoint_save" // a checkpoint save tried again
	CauseBulkLoad       = "bulk_load"       // a bulk load request repeated
)

// JobCounts are the running totals of one job in one process, kept by the
// task code (worker.Counters, bulkload.Counters); each only grows.
type JobCounts struct {
	BytesRead, BytesWritten, BytesLoaded int64
	FastFiles, RewrittenFiles            int64
	LoadRetries                          int64
}

// Worker is the metrics of a worker process. It is one prometheus.Collector:
// at each scrape it first adds what the tracked jobs counted since the last
// one, so the counters are current without a hook on every byte.
type Worker struct {
	bytesRead, bytesWritten, bytesLoaded *prometheus.CounterVec
	files                                *prometheus.CounterVec
	tasks                                *prometheus.GaugeVec
	taskSeconds                          *prometheus.HistogramVec
	loadSeconds                          *prometheus.HistogramVec
	retries                              *prometheus.CounterVec
	limit, rate                          *prometheus.GaugeVec
	session                              prometheus.GaugeFunc

	mu      sync.Mutex
	tracked map[*tracked]struct{}
}

// tracked is a job's counts as last added.
type tracked struct {
	job    string
	counts func() JobCounts
	last   JobCounts
}

// NewWorker makes a worker's metrics and registers them on reg. connected
// says whether the process holds a ZooKeeper session (nil: the gauge is
// left out).
func NewWorker(reg prometheus.Registerer, connected func() bool) (*Worker, error) {
	job := []string{"job"}
	w := &Worker{
		bytesRead: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "rangecopy_worker_read_bytes_total",
			Help: "Bytes read from source HFiles (decoded and fast-path copied)."}, job),
		bytesWritten: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "rangecopy_worker_written_bytes_total",
			Help: "Bytes of output HFiles written to the target."}, job),
		bytesLoaded: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "rangecopy_worker_loaded_bytes_total",
			Help: "Bytes of files bulk loaded into the target."}, job),
		files: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "rangecopy_worker_output_files_total",
			Help: "Output files written, by path: fast (a verified copy of an input) or rewritten (decoded and written anew)."},
			[]string{"job", "path"}),
		tasks: prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "rangecopy_worker_tasks",
			Help: "Tasks of the job in this worker, by state (running)."}, []string{"job", "state"}),
		taskSeconds: prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "rangecopy_worker_task_duration_seconds",
			Help:    "How long a claimed task ran here, by outcome (done, failed, released, lost).",
			Buckets: prometheus.ExponentialBuckets(1, 2, 16)}, []string{"job", "outcome"}),
		loadSeconds: prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "rangecopy_worker_load_duration_seconds",
			Help:    "How long the bulk load of one output file took (with its retries and re-splits).",
			Buckets: prometheus.ExponentialBuckets(0.05, 2, 14)}, job),
		retries: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "rangecopy_worker_retries_total",
			Help: "Retries by cause: task_attempt, checkpoint_save, bulk_load."}, []string{"job", "cause"}),
		limit: prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "rangecopy_worker_bandwidth_limit_bytes_per_second",
			Help: "This worker's share of the job's read limit; 0 means no limit."}, job),
		rate: prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "rangecopy_worker_read_rate_bytes_per_second",
			Help: "Bytes per second read for the job over the last refresh interval."}, job),
		tracked: map[*tracked]struct{}{},
	}
	if connected != nil {
		w.session = sessionGauge("rangecopy_worker", connected)
	}
	if err := reg.Register(w); err != nil {
		return nil, fmt.Errorf("metrics: register the worker's metrics: %w", err)
	}
	return w, nil
}

func sessionGauge(prefix string, connected func() bool) prometheus.GaugeFunc {
	return prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: prefix + "_zookeeper_connected",
		Help: "1 while the process holds a ZooKeeper session, else 0."}, func() float64 {
		if connected() {
			return 1
		}
		return 0
	})
}

func (w *Worker) collectors() []prometheus.Collector {
	cs := []prometheus.Collector{w.bytesRead, w.bytesWritten, w.bytesLoaded, w.files, w.tasks,
		w.taskSeconds, w.loadSeconds, w.retries, w.limit, w.rate}
	if w.session != nil {
		cs = append(cs, w.session)
	}
	return cs
}

// Describe implements prometheus.Collector.
func (w *Worker) Describe(ch chan<- *prometheus.Desc) {
	for _, c := range w.collectors() {
		c.Describe(ch)
	}
}

// Collect implements prometheus.Collector: it adds the tracked jobs' counts
// first.
func (w *Worker) Collect(ch chan<- prometheus.Metric) {
	w.mu.Lock()
	for t := range w.tracked {
		w.sync(t)
	}
	w.mu.Unlock()
	for _, c := range w.collectors() {
		c.Collect(ch)
	}
}

// sync adds what t counted since it was last added. w.mu is held.
func (w *Worker) sync(t *tracked) {
	now := t.counts()
	add := func(c prometheus.Counter, cur, last int64) {
		if d := cur - last; d > 0 {
			c.Add(float64(d))
		}
	}
	add(w.bytesRead.WithLabelValues(t.job), now.BytesRead, t.last.BytesRead)
	add(w.bytesWritten.WithLabelValues(t.job), now.BytesWritten, t.last.BytesWritten)
	add(w.bytesLoaded.WithLabelValues(t.job), now.BytesLoaded, t.last.BytesLoaded)
	add(w.files.WithLabelValues(t.job, "fast"), now.FastFiles, t.last.FastFiles)
	add(w.files.WithLabelValues(t.job, "rewritten"), now.RewrittenFiles, t.last.RewrittenFiles)
	add(w.retries.WithLabelValues(t.job, CauseBulkLoad), now.LoadRetries, t.last.LoadRetries)
	t.last = now
}

// Track adds a job's counts to the counters at every scrape, from zero,
// until the returned function is called: it adds them a last time and drops
// the job's gauges (its counters stay). Track the counts of each opening of
// a job anew.
func (w *Worker) Track(job string, counts func() JobCounts) (untrack func()) {
	if w == nil {
		return func() {}
	}
	t := &tracked{job: job, counts: counts}
	w.mu.Lock()
	w.tracked[t] = struct{}{}
	w.mu.Unlock()
	return func() {
		w.mu.Lock()
		defer w.mu.Unlock()
		if _, ok := w.tracked[t]; !ok {
			return
		}
		w.sync(t)
		delete(w.tracked, t)
		w.limit.DeleteLabelValues(job)
		w.rate.DeleteLabelValues(job)
		w.tasks.DeletePartialMatch(prometheus.Labels{"job": job})
	}
}

// TaskStarted counts a task of the job running here.
func (w *Worker) TaskStarted(job string) {
	if w == nil {
		return
	}
	w.tasks.WithLabelValues(job, "running").Inc()
}

// TaskEnded counts a task of the job ended here with the outcome
// (OutcomeDone...) after running for d.
func (w *Worker) TaskEnded(job, outcome string, d time.Duration) {
	if w == nil {
		return
	}
	w.tasks.WithLabelValues(job, "running").Dec()
	w.taskSeconds.WithLabelValues(job, outcome).Observe(d.Seconds())
}

// FileLoaded observes the bulk load of one output file of the job.
func (w *Worker) FileLoaded(job string, d time.Duration) {
	if w == nil {
		return
	}
	w.loadSeconds.WithLabelValues(job).Observe(d.Seconds())
}

// Retried counts a retry of the job with the cause (CauseTaskAttempt...).
func (w *Worker) Retried(job, cause string) {
	if w == nil {
		return
	}
	w.retries.WithLabelValues(job, cause).Inc()
}

// SetBandwidth shows this worker's read limit of the job (bytes per second,
// 0 for none) and the rate it read at lately.
func (w *Worker) SetBandwidth(job string, limit, rate float64) {
	if w == nil {
		return
	}
	w.limit.WithLabelValues(job).Set(limit)
	w.rate.WithLabelValues(job).Set(rate)
}

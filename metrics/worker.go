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

// causes are the values of the cause label, in the order series are shown.
var causes = [...]string{CauseTaskAttempt, CauseCheckpointSave, CauseBulkLoad}

// Label names of the per-job series.
const (
	// LabelJobID is a job's id, on the series of a job that belongs to no relocation.
	LabelJobID = "job_id"
	// LabelRelocation is a relocation's id, on the series of its jobs.
	LabelRelocation = "relocation"
)

// Job names a job in the metrics.
type Job struct {
	// ID is the job's id.
	ID string
	// Relocation is the id of the relocation the job belongs to (a window's job);
	// empty for none.
	Relocation string
}

// seriesKey is the label values of a job's series: job_id and relocation.
type seriesKey struct{ jobID, relocation string }

// key is j's series: the relocation's when it belongs to one (every window job of a
// relocation adds to the same series), else its own.
func (j Job) key() seriesKey {
	if j.Relocation != "" {
		return seriesKey{relocation: j.Relocation}
	}
	return seriesKey{jobID: j.ID}
}

// JobCounts are the running totals of one job in one process, kept by the
// task code (worker.Counters, bulkload.Counters); each only grows.
type JobCounts struct {
	BytesRead, BytesWritten, BytesLoaded int64
	FastFiles, RewrittenFiles            int64
	LoadRetries                          int64
}

// maxEnded bounds the series of jobs that ended kept for the next scrape: past it (no
// scrape for a long while) they are dropped at once.
const maxEnded = 1024

// Worker is the metrics of a worker process. It is one prometheus.Collector:
// at each scrape it first adds what the tracked jobs counted since the last
// one, so the counters are current without a hook on every byte. Task and
// load durations are histograms of the whole worker (by outcome), not per job.
type Worker struct {
	read, written, loaded, files, retries *prometheus.Desc
	running, limit, rate                  *prometheus.Desc
	taskSeconds                           *prometheus.HistogramVec
	loadSeconds                           prometheus.Histogram

	mu       sync.Mutex
	series   map[seriesKey]*jobSeries
	openings map[*opening]struct{}
	latest   map[string]*opening // by job id: the newest opening, for the task calls
	ended    int                 // series whose openings were all untracked
}

// jobSeries is the values of one job's series (or one relocation's).
type jobSeries struct {
	read, written, loaded, fast, rewritten float64
	retries                                [len(causes)]float64
	running                                int
	open                                   int // openings tracked
}

// opening is one tracked opening of a job: its counts as last added, and its
// bandwidth as last set.
type opening struct {
	job         Job
	s           *jobSeries
	counts      func() JobCounts
	last        JobCounts
	limit, rate float64
	bandwidth   bool // limit and rate were set
}

// NewWorker makes a worker's metrics and registers them on reg (NewProcess adds
// what every process exports).
func NewWorker(reg prometheus.Registerer) (*Worker, error) {
	jl := []string{LabelJobID, LabelRelocation}
	desc := func(name, help string, extra ...string) *prometheus.Desc {
		return prometheus.NewDesc(name, help, append(jl[:2:2], extra...), nil)
	}
	w := &Worker{
		read:    desc("rangecopy_worker_read_bytes_total", "Bytes read from source HFiles (decoded and fast-path copied)."),
		written: desc("rangecopy_worker_written_bytes_total", "Bytes of output HFiles written to the target."),
		loaded:  desc("rangecopy_worker_loaded_bytes_total", "Bytes of files bulk loaded into the target."),
		files: desc("rangecopy_worker_output_files_total",
			"Output files written, by path: fast (a verified copy of an input) or rewritten (decoded and written anew).", "path"),
		retries: desc("rangecopy_worker_retries_total", "Retries by cause: task_attempt, checkpoint_save, bulk_load.", "cause"),
		running: desc("rangecopy_worker_running_tasks", "Tasks of the job (or relocation) running in this worker."),
		limit:   desc("rangecopy_worker_bandwidth_limit_bytes_per_second", "This worker's share of the job's read limit; 0 means no limit."),
		rate:    desc("rangecopy_worker_read_rate_bytes_per_second", "Bytes per second read for the job over the last refresh interval."),
		taskSeconds: prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "rangecopy_worker_task_duration_seconds",
			Help:    "How long a claimed task ran here, by outcome (done, failed, released, lost).",
			Buckets: prometheus.ExponentialBuckets(1, 2, 16)}, []string{"outcome"}),
		loadSeconds: prometheus.NewHistogram(prometheus.HistogramOpts{Name: "rangecopy_worker_load_duration_seconds",
			Help:    "How long the bulk load of one output file took (with its retries and re-splits).",
			Buckets: prometheus.ExponentialBuckets(0.05, 2, 14)}),
		series:   map[seriesKey]*jobSeries{},
		openings: map[*opening]struct{}{},
		latest:   map[string]*opening{},
	}
	for _, o := range []string{OutcomeDone, OutcomeFailed, OutcomeReleased, OutcomeLost} {
		w.taskSeconds.WithLabelValues(o)
	}
	if err := reg.Register(w); err != nil {
		return nil, fmt.Errorf("metrics: register the worker's metrics: %w", err)
	}
	return w, nil
}

// Describe implements prometheus.Collector.
func (w *Worker) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{w.read, w.written, w.loaded, w.files, w.retries, w.running, w.limit, w.rate} {
		ch <- d
	}
	w.taskSeconds.Describe(ch)
	w.loadSeconds.Describe(ch)
}

// Collect implements prometheus.Collector: it adds the tracked jobs' counts
// first, and drops the series of jobs that ended once it has shown them.
func (w *Worker) Collect(ch chan<- prometheus.Metric) {
	for _, m := range w.jobMetrics() {
		ch <- m
	}
	w.taskSeconds.Collect(ch)
	w.loadSeconds.Collect(ch)
}

// jobMetrics are the per-job series, the tracked jobs' counts added first; the series of
// jobs that ended are dropped once made.
func (w *Worker) jobMetrics() []prometheus.Metric {
	w.mu.Lock()
	defer w.mu.Unlock()
	type bw struct{ limit, rate float64 }
	bws := map[*jobSeries]*bw{}
	for o := range w.openings {
		w.sync(o)
		if o.bandwidth {
			b := bws[o.s]
			if b == nil {
				b = &bw{}
				bws[o.s] = b
			}
			b.limit += o.limit
			b.rate += o.rate
		}
	}
	var out []prometheus.Metric
	for k, s := range w.series {
		lv := []string{k.jobID, k.relocation}
		counter := func(d *prometheus.Desc, v float64, extra ...string) {
			out = append(out, prometheus.MustNewConstMetric(d, prometheus.CounterValue, v, append(lv[:2:2], extra...)...))
		}
		gauge := func(d *prometheus.Desc, v float64) {
			out = append(out, prometheus.MustNewConstMetric(d, prometheus.GaugeValue, v, lv...))
		}
		counter(w.read, s.read)
		counter(w.written, s.written)
		counter(w.loaded, s.loaded)
		counter(w.files, s.fast, "fast")
		counter(w.files, s.rewritten, "rewritten")
		for i, c := range causes {
			counter(w.retries, s.retries[i], c)
		}
		gauge(w.running, float64(s.running))
		if b := bws[s]; b != nil {
			gauge(w.limit, b.limit)
			gauge(w.rate, b.rate)
		}
		if s.open == 0 {
			delete(w.series, k)
		}
	}
	w.ended = 0
	return out
}

// sync adds what o counted since it was last added. w.mu is held.
func (w *Worker) sync(o *opening) {
	now := o.counts()
	add := func(c *float64, cur, last int64) {
		if d := cur - last; d > 0 {
			*c += float64(d)
		}
	}
	s := o.s
	add(&s.read, now.BytesRead, o.last.BytesRead)
	add(&s.written, now.BytesWritten, o.last.BytesWritten)
	add(&s.loaded, now.BytesLoaded, o.last.BytesLoaded)
	add(&s.fast, now.FastFiles, o.last.FastFiles)
	add(&s.rewritten, now.RewrittenFiles, o.last.RewrittenFiles)
	add(&s.retries[causeIndex(CauseBulkLoad)], now.LoadRetries, o.last.LoadRetries)
	o.last = now
}

// Track adds a job's counts to its series at every scrape, from zero, until
// the returned function is called: it adds them a last time and, when no
// other opening of the job (or of its relocation's jobs) is tracked, the
// series go after the next scrape. Track the counts of each opening of a job
// anew.
func (w *Worker) Track(j Job, counts func() JobCounts) (untrack func()) {
	if w == nil {
		return func() {}
	}
	w.mu.Lock()
	k := j.key()
	s := w.series[k]
	if s == nil {
		s = &jobSeries{}
		w.series[k] = s
	} else if s.open == 0 {
		w.ended-- // back before its series went
	}
	s.open++
	o := &opening{job: j, s: s, counts: counts}
	w.openings[o] = struct{}{}
	w.latest[j.ID] = o
	w.mu.Unlock()
	return func() {
		w.mu.Lock()
		defer w.mu.Unlock()
		if _, ok := w.openings[o]; !ok {
			return
		}
		w.sync(o)
		delete(w.openings, o)
		if w.latest[j.ID] == o {
			delete(w.latest, j.ID)
		}
		if s.open--; s.open > 0 {
			return
		}
		if w.ended++; w.ended > maxEnded {
			for k, s := range w.series {
				if s.open == 0 {
					delete(w.series, k)
				}
			}
			w.ended = 0
		}
	}
}

// seriesOf is the series of the job's newest tracked opening; nil when it is
// not tracked (its tasks then count in the histograms only). w.mu is held.
func (w *Worker) seriesOf(job string) *jobSeries {
	if o := w.latest[job]; o != nil {
		return o.s
	}
	return nil
}

// TaskStarted counts a task of the job running here.
func (w *Worker) TaskStarted(job string) {
	if w == nil {
		return
	}
	w.mu.Lock()
	if s := w.seriesOf(job); s != nil {
		s.running++
	}
	w.mu.Unlock()
}

// TaskEnded counts a task of the job ended here with the outcome
// (OutcomeDone...) after running for d.
func (w *Worker) TaskEnded(job, outcome string, d time.Duration) {
	if w == nil {
		return
	}
	w.mu.Lock()
	if s := w.seriesOf(job); s != nil && s.running > 0 {
		s.running--
	}
	w.mu.Unlock()
	w.taskSeconds.WithLabelValues(outcome).Observe(d.Seconds())
}

// FileLoaded observes the bulk load of one output file of the job.
func (w *Worker) FileLoaded(_ string, d time.Duration) {
	if w == nil {
		return
	}
	w.loadSeconds.Observe(d.Seconds())
}

// Retried counts a retry of the job with the cause (CauseTaskAttempt...).
func (w *Worker) Retried(job, cause string) {
	if w == nil {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	s := w.seriesOf(job)
	if s == nil {
		return
	}
	if i := causeIndex(cause); i >= 0 {
		s.retries[i]++
	}
}

// causeIndex is cause's place in causes; -1 for none.
func causeIndex(cause string) int {
	for i, c := range causes {
		if c == cause {
			return i
		}
	}
	return -1
}

// SetBandwidth shows this worker's read limit of the job (bytes per second,
// 0 for none) and the rate it read at lately; a relocation's series show the
// sums over its jobs here.
func (w *Worker) SetBandwidth(job string, limit, rate float64) {
	if w == nil {
		return
	}
	w.mu.Lock()
	if o := w.latest[job]; o != nil {
		o.limit, o.rate, o.bandwidth = limit, rate, true
	}
	w.mu.Unlock()
}

package metrics

import (
	"fmt"
	"sync"

	"github.com/prometheus/client_golang/prometheus"
)

// TaskCounts are a job's tasks by registry status.
type TaskCounts struct {
	Pending, Claimed, Done, Failed int
}

// Job outcomes, the values of rangecopy_master_jobs_ended_total's outcome label: the
// final states of a job.
const (
	JobDone      = "done"
	JobFailed    = "failed"
	JobCancelled = "cancelled"
)

// Master is the metrics of a master process (the leader's view of the running jobs). It
// is one prometheus.Collector: a job's gauges are what was last set for it until
// ForgetJob, summed over a relocation's jobs.
type Master struct {
	leader prometheus.Gauge
	ended  *prometheus.CounterVec
	tasks  *prometheus.Desc
	rate   *prometheus.Desc
	p99    *prometheus.Desc

	mu   sync.Mutex
	jobs map[string]*masterJob
}

// masterJob is what the leader last set for a job.
type masterJob struct {
	key       seriesKey
	counts    TaskCounts
	counted   bool
	throttled bool
	rate, p99 float64
}

// NewMaster makes a master's metrics and registers them on reg (NewProcess adds what
// every process exports).
func NewMaster(reg prometheus.Registerer) (*Master, error) {
	jl := []string{LabelJobID, LabelRelocation}
	m := &Master{
		leader: prometheus.NewGauge(prometheus.GaugeOpts{Name: "rangecopy_master_leader",
			Help: "1 while this process leads the master election, else 0."}),
		ended: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "rangecopy_master_jobs_ended_total",
			Help: "Jobs the leader saw end, by outcome (done, failed, cancelled)."}, []string{"outcome"}),
		tasks: prometheus.NewDesc("rangecopy_master_job_tasks",
			"Tasks of each running job (or relocation), by state (pending, claimed, done, failed), as the leader last counted them.",
			append(jl, "state"), nil),
		rate: prometheus.NewDesc("rangecopy_master_throttle_rate_bytes_per_second",
			"The job-wide read rate the source throttle (protect-source) set for each job (summed over a relocation's); 0 means no limit.",
			jl, nil),
		p99: prometheus.NewDesc("rangecopy_master_source_probe_p99_seconds",
			"The p99 of the source throttle's probes (small Gets on the source) over its last window, for each job (a relocation's highest).",
			jl, nil),
		jobs: map[string]*masterJob{},
	}
	for _, o := range []string{JobDone, JobFailed, JobCancelled} {
		m.ended.WithLabelValues(o)
	}
	if err := reg.Register(m); err != nil {
		return nil, fmt.Errorf("metrics: register the master's metrics: %w", err)
	}
	return m, nil
}

// Describe implements prometheus.Collector.
func (m *Master) Describe(ch chan<- *prometheus.Desc) {
	m.leader.Describe(ch)
	m.ended.Describe(ch)
	ch <- m.tasks
	ch <- m.rate
	ch <- m.p99
}

// Collect implements prometheus.Collector.
func (m *Master) Collect(ch chan<- prometheus.Metric) {
	m.leader.Collect(ch)
	m.ended.Collect(ch)
	type agg struct {
		counts    TaskCounts
		counted   bool
		throttled bool
		rate, p99 float64
	}
	m.mu.Lock()
	aggs := map[seriesKey]*agg{}
	for _, j := range m.jobs {
		a := aggs[j.key]
		if a == nil {
			a = &agg{}
			aggs[j.key] = a
		}
		if j.counted {
			a.counted = true
			a.counts.Pending += j.counts.Pending
			a.counts.Claimed += j.counts.Claimed
			a.counts.Done += j.counts.Done
			a.counts.Failed += j.counts.Failed
		}
		if j.throttled {
			a.throttled = true
			a.rate += j.rate
			a.p99 = max(a.p99, j.p99)
		}
	}
	m.mu.Unlock()
	for k, a := range aggs {
		if a.counted {
			for _, st := range []struct {
				name string
				n    int
			}{{"pending", a.counts.Pending}, {"claimed", a.counts.Claimed}, {"done", a.counts.Done}, {"failed", a.counts.Failed}} {
				ch <- prometheus.MustNewConstMetric(m.tasks, prometheus.GaugeValue, float64(st.n), k.jobID, k.relocation, st.name)
			}
		}
		if a.throttled {
			ch <- prometheus.MustNewConstMetric(m.rate, prometheus.GaugeValue, a.rate, k.jobID, k.relocation)
			ch <- prometheus.MustNewConstMetric(m.p99, prometheus.GaugeValue, a.p99, k.jobID, k.relocation)
		}
	}
}

// SetLeading says whether this master leads; a master that stops leading forgets every
// job.
func (m *Master) SetLeading(leading bool) {
	if m == nil {
		return
	}
	v := 0.0
	if leading {
		v = 1
	}
	m.leader.Set(v)
	if !leading {
		m.mu.Lock()
		clear(m.jobs)
		m.mu.Unlock()
	}
}

// job is j's entry, made when missing. m.mu is held.
func (m *Master) job(j Job) *masterJob {
	mj := m.jobs[j.ID]
	if mj == nil {
		mj = &masterJob{}
		m.jobs[j.ID] = mj
	}
	mj.key = j.key()
	return mj
}

// SetTasks shows a job's tasks by status.
func (m *Master) SetTasks(j Job, c TaskCounts) {
	if m == nil {
		return
	}
	m.mu.Lock()
	mj := m.job(j)
	mj.counts, mj.counted = c, true
	m.mu.Unlock()
}

// SetThrottle shows a job's source throttle: the rate it set (bytes/s, 0:
// no limit) and its probes' p99 (seconds).
func (m *Master) SetThrottle(j Job, rate, p99Seconds float64) {
	if m == nil {
		return
	}
	m.mu.Lock()
	mj := m.job(j)
	mj.rate, mj.p99, mj.throttled = rate, p99Seconds, true
	m.mu.Unlock()
}

// ForgetJob drops a job's gauges (it ended, or stopped running): a job's series
// go with it, a relocation's with its last job.
func (m *Master) ForgetJob(id string) {
	if m == nil {
		return
	}
	m.mu.Lock()
	delete(m.jobs, id)
	m.mu.Unlock()
}

// JobEnded counts a job the leader saw end with outcome (JobDone, JobFailed or
// JobCancelled).
func (m *Master) JobEnded(outcome string) {
	if m == nil {
		return
	}
	m.ended.WithLabelValues(outcome).Inc()
}

package metrics

import (
	"fmt"

	"github.com/prometheus/client_golang/prometheus"
)

// TaskCounts are a job's tasks by registry status.
type TaskCounts struct {
	Pending, Claimed, Done, Failed int
}

// Master is the metrics of a master process.
type Master struct {
	leading prometheus.Gauge
	tasks   *prometheus.GaugeVec
	rate    *prometheus.GaugeVec
	p99     *prometheus.GaugeVec
}

// NewMaster makes a master's metrics and registers them on reg. connected
// says whether the process holds a ZooKeeper session (nil: the gauge is
// left out).
func NewMaster(reg prometheus.Registerer, connected func() bool) (*Master, error) {
	m := &Master{
		leading: prometheus.NewGauge(prometheus.GaugeOpts{Name: "rangecopy_master_leading",
			Help: "1 while this master leads, else 0."}),
		tasks: prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "rangecopy_master_job_tasks",
			Help: "Tasks of each running job, by status (pending, claimed, done, failed), as the leader last counted them."},
			[]string{"job", "state"}),
		rate: prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "rangecopy_master_throttle_rate_bytes_per_second",
			Help: "The job-wide read rate the source throttle (protect-source) set for each job; 0 means no limit."},
			[]string{"job"}),
		p99: prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "rangecopy_master_source_probe_p99_seconds",
			Help: "The p99 of the source throttle's probes (small Gets on the source) over its last window, for each job."},
			[]string{"job"}),
	}
	cs := []prometheus.Collector{m.leading, m.tasks, m.rate, m.p99}
	if connected != nil {
		cs = append(cs, sessionGauge("rangecopy_master", connected))
	}
	for _, c := range cs {
		if err := reg.Register(c); err != nil {
			return nil, fmt.Errorf("metrics: register the master's metrics: %w", err)
		}
	}
	return m, nil
}

// SetLeading says whether this master leads.
func (m *Master) SetLeading(leading bool) {
	if m == nil {
		return
	}
	v := 0.0
	if leading {
		v = 1
	}
	m.leading.Set(v)
	if !leading {
		m.tasks.Reset()
		m.rate.Reset()
		m.p99.Reset()
	}
}

// SetTasks shows a job's tasks by status.
func (m *Master) SetTasks(job string, c TaskCounts) {
	if m == nil {
		return
	}
	m.tasks.WithLabelValues(job, "pending").Set(float64(c.Pending))
	m.tasks.WithLabelValues(job, "claimed").Set(float64(c.Claimed))
	m.tasks.WithLabelValues(job, "done").Set(float64(c.Done))
	m.tasks.WithLabelValues(job, "failed").Set(float64(c.Failed))
}

// ForgetJob drops a job's gauges (it ended, or stopped running).
func (m *Master) ForgetJob(job string) {
	if m == nil {
		return
	}
	m.tasks.DeletePartialMatch(prometheus.Labels{"job": job})
	m.rate.DeletePartialMatch(prometheus.Labels{"job": job})
	m.p99.DeletePartialMatch(prometheus.Labels{"job": job})
}

// SetThrottle shows a job's source throttle: the rate it set (bytes/s, 0:
// no limit) and its probes' p99 (seconds).
func (m *Master) SetThrottle(job string, rate, p99Seconds float64) {
	if m == nil {
		return
	}
	m.rate.WithLabelValues(job).Set(rate)
	m.p99.WithLabelValues(job).Set(p99Seconds)
}

package bench

import (
	"slices"
	"sync"
	"time"
)

// Histogram records operation latencies. It keeps every sample, so its
// percentiles are exact; a benchmark records a few hundred samples per second
// for minutes. It is safe for concurrent use.
type Histogram struct {
	mu      sync.Mutex
	samples []time.Duration
	errors  int
}

// Record adds one successful operation's latency.
func (h *Histogram) Record(d time.Duration) {
	h.mu.Lock()
	h.samples = append(h.samples, d)
	h.mu.Unlock()
}

// RecordError counts one failed operation.
func (h *Histogram) RecordError() {
	h.mu.Lock()
	h.errors++
	h.mu.Unlock()
}

// Latency summarises a Histogram in milliseconds.
type Latency struct {
	Count  int     `json:"count"`
	Errors int     `json:"errors"`
	P50    float64 `json:"p50Ms"`
	P99    float64 `json:"p99Ms"`
	P999   float64 `json:"p999Ms"`
	Max    float64 `json:"maxMs"`
	// Seconds is how long the workload ran.
	Seconds float64 `json:"seconds"`
}

// Summary returns the percentiles of what was recorded so far (nearest rank);
// all zero when nothing was.
func (h *Histogram) Summary(elapsed time.Duration) Latency {
	h.mu.Lock()
	s := slices.Clone(h.samples)
	errs := h.errors
	h.mu.Unlock()
	slices.Sort(s)
	l := Latency{Count: len(s), Errors: errs, Seconds: elapsed.Seconds()}
	if len(s) == 0 {
		return l
	}
	l.P50 = ms(percentile(s, 0.50))
	l.P99 = ms(percentile(s, 0.99))
	l.P999 = ms(percentile(s, 0.999))
	l.Max = ms(s[len(s)-1])
	return l
}

// percentile returns the nearest-rank q-quantile of sorted, non-empty s.
func percentile(s []time.Duration, q float64) time.Duration {
	rank := int(q*float64(len(s)) + 0.999999999)
	if rank < 1 {
		rank = 1
	}
	if rank > len(s) {
		rank = len(s)
	}
	return s[rank-1]
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

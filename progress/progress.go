// Package progress counts what a copy has done and renders it: a live bar on
// a terminal, periodic log lines otherwise, and a final report. The counters
// are apart from their rendering: workers add to a Counters, an Updater
// samples it on a ticker, and a Printer shows each Sample. The final report
// is a job.Report record; WriteText and WriteJSON render it.
package progress

import (
	"fmt"
	"sync/atomic"
	"time"
)

// Counters are the running totals of a job, safe for concurrent use.
type Counters struct {
	// Totals known from the plan.
	TasksTotal atomic.Int64
	BytesTotal atomic.Int64 // estimated input bytes
	// What has been done.
	TasksDone   atomic.Int64
	TasksFailed atomic.Int64
	BytesRead   atomic.Int64 // input bytes read (or copied on the fast path)
	Cells       atomic.Int64 // cells written
	FilesLoaded atomic.Int64 // output files bulk loaded
	BytesLoaded atomic.Int64 // bytes of the loaded files
	Retries     atomic.Int64
}

// Sample is the counters at one moment, with rates over the last interval.
type Sample struct {
	At      time.Time
	Elapsed time.Duration

	TasksTotal, TasksDone, TasksFailed int64
	BytesTotal, BytesRead              int64
	Cells, FilesLoaded, BytesLoaded    int64
	Retries                            int64

	// Rate is input bytes per second, smoothed; ETA is the time left at that
	// rate, zero when unknown.
	Rate float64
	ETA  time.Duration
}

// Take reads the counters.
func (c *Counters) Take(at time.Time, start time.Time) Sample {
	return Sample{
		At:          at,
		Elapsed:     at.Sub(start),
		TasksTotal:  c.TasksTotal.Load(),
		TasksDone:   c.TasksDone.Load(),
		TasksFailed: c.TasksFailed.Load(),
		BytesTotal:  c.BytesTotal.Load(),
		BytesRead:   c.BytesRead.Load(),
		Cells:       c.Cells.Load(),
		FilesLoaded: c.FilesLoaded.Load(),
		BytesLoaded: c.BytesLoaded.Load(),
		Retries:     c.Retries.Load(),
	}
}

// smoothing weighs the newest interval's rate in the running rate.
const smoothing = 0.3

// Rates fills s's Rate and ETA from the previous sample (nil for the first):
// an exponentially smoothed rate of input bytes, and the time to read what
// is left at that rate. Pure.
func Rates(prev *Sample, s Sample) Sample {
	switch {
	case prev == nil:
		if secs := s.Elapsed.Seconds(); secs > 0 {
			s.Rate = float64(s.BytesRead) / secs
		}
	default:
		dt := s.At.Sub(prev.At).Seconds()
		if dt <= 0 {
			s.Rate = prev.Rate
			break
		}
		now := float64(s.BytesRead-prev.BytesRead) / dt
		if prev.Rate == 0 {
			s.Rate = now
		} else {
			s.Rate = smoothing*now + (1-smoothing)*prev.Rate
		}
	}
	if left := s.BytesTotal - s.BytesRead; s.Rate > 0 && left > 0 {
		s.ETA = time.Duration(float64(left) / s.Rate * float64(time.Second)).Round(time.Second)
	}
	return s
}

// Fraction is the share of the input read, in [0, 1]; 0 when the total is
// not known.
func (s Sample) Fraction() float64 {
	if s.BytesTotal <= 0 {
		if s.TasksTotal > 0 {
			return float64(s.TasksDone) / float64(s.TasksTotal)
		}
		return 0
	}
	return min(1, float64(s.BytesRead)/float64(s.BytesTotal))
}

// Bytes writes a byte count with a binary unit: 0 B, 999 B, 1.5 KiB, 2.0 GiB.
func Bytes(n int64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	v := float64(n)
	for _, u := range []string{"KiB", "MiB", "GiB", "TiB", "PiB"} {
		v /= unit
		if v < unit || u == "PiB" {
			return fmt.Sprintf("%.1f %s", v, u)
		}
	}
	return fmt.Sprintf("%d B", n)
}

// Count writes a large count readably: 999, 12.3k, 4.5M, 6.7G.
func Count(n int64) string {
	switch {
	case n < 1000:
		return fmt.Sprint(n)
	case n < 1_000_000:
		return fmt.Sprintf("%.1fk", float64(n)/1e3)
	case n < 1_000_000_000:
		return fmt.Sprintf("%.1fM", float64(n)/1e6)
	}
	return fmt.Sprintf("%.1fG", float64(n)/1e9)
}

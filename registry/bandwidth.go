package registry

import (
	"context"
	"fmt"
	"math"
)

// MaxBandwidth bounds a bandwidth override: 1 PB/s, far above any link,
// and exact as an integer in a float64.
const MaxBandwidth = 1e15

// SetBandwidth sets the job-wide read limit of a job in bytes per second,
// from now on: 0 means no limit. It overrides the bandwidth of the job's
// record; the workers serving the job take it at their next refresh. The job
// must exist; the rate is rounded to whole bytes per second.
func (r *Registry) SetBandwidth(ctx context.Context, job string, bytesPerSec float64) error {
	if math.IsNaN(bytesPerSec) || bytesPerSec < 0 || bytesPerSec > MaxBandwidth {
		return fmt.Errorf("registry: job %s: bandwidth %v bytes/s: want 0 (no limit) to %v", job, bytesPerSec, MaxBandwidth)
	}
	return r.PutJobData(ctx, job, NodeBandwidth, encodeBandwidth(uint64(math.Round(bytesPerSec))))
}

// Bandwidth returns the job-wide read limit set by SetBandwidth, in bytes
// per second (0: no limit); ok is false when none was set and the job's
// record says the limit.
func (r *Registry) Bandwidth(ctx context.Context, job string) (bytesPerSec float64, ok bool, err error) {
	b, err := r.JobData(ctx, job, NodeBandwidth)
	if err != nil || b == nil {
		return 0, false, err
	}
	v, err := decodeBandwidth(b)
	if err != nil {
		return 0, false, fmt.Errorf("registry: job %s: %s: %w", job, NodeBandwidth, err)
	}
	return float64(v), true, nil
}

func encodeBandwidth(v uint64) []byte {
	w := newRecord(recBandwidth, 12)
	w.uvarint(v)
	return w
}

func decodeBandwidth(b []byte) (uint64, error) {
	r := readBuf{b: b}
	r.header(recBandwidth)
	v := r.uvarint("bytes per second")
	r.end()
	if r.err == nil && v > MaxBandwidth {
		r.fail(fmt.Sprintf("bandwidth %d out of range", v))
	}
	return v, r.err
}

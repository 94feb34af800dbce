package bench

import (
	"context"
	"math/rand/v2"
	"time"

	"golang.org/x/sync/errgroup"

	"rangecopy/hbase"
	"rangecopy/retry"
)

// Workload is a steady Get workload on the source table: Rate Gets a second of
// random existing rows, each timed from the moment it was due (so a stalled
// server shows as latency, not as fewer Gets).
type Workload struct {
	Client *hbase.Client
	Table  string
	Rows   int64
	Rate   float64
	// MaxInFlight caps outstanding Gets; a Get due while that many are
	// outstanding counts as an error. Default 64.
	MaxInFlight int
	// Timeout bounds one Get; default 10 s.
	Timeout time.Duration
}

// Start runs the workload until the returned stop is called; stop waits for
// the outstanding Gets and returns their latencies.
func (w *Workload) Start(ctx context.Context, seed uint64) (stop func() Latency) {
	ctx, cancel := context.WithCancel(ctx)
	h := &Histogram{}
	maxIn := w.MaxInFlight
	if maxIn <= 0 {
		maxIn = 64
	}
	timeout := w.Timeout
	if timeout <= 0 {
		timeout = 10 * time.Second
	}
	interval := time.Duration(float64(time.Second) / max(w.Rate, 0.1))
	var gets errgroup.Group
	gets.SetLimit(maxIn)
	rng := rand.New(rand.NewPCG(seed, 7))
	start := time.Now()
	done := make(chan struct{})
	go func() {
		defer close(done)
		next := time.Now()
		for {
			next = next.Add(interval)
			if retry.Sleep(ctx, time.Until(next)) != nil {
				return
			}
			due := next
			row := RowKey(rng.Int64N(w.Rows))
			started := gets.TryGo(func() error {
				gctx, gcancel := context.WithTimeout(context.WithoutCancel(ctx), timeout)
				defer gcancel()
				res, err := w.Client.Get(gctx, w.Table, hbase.Get{Row: row})
				if err != nil || len(res.Cells) == 0 {
					h.RecordError()
					return nil
				}
				h.Record(time.Since(due))
				return nil
			})
			if !started {
				h.RecordError() // MaxInFlight Gets are outstanding: count it lost
			}
		}
	}()
	return func() Latency {
		cancel()
		<-done
		_ = gets.Wait()
		return h.Summary(time.Since(start))
	}
}

package master

import (
	"context"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"rangecopy/cluster/dial"
	"rangecopy/job"
	"rangecopy/registry"
	"rangecopy/throttle"
)

// throttleRetry is how long the leader waits before it starts a job's
// throttle again after its source could not be reached or probed.
const throttleRetry = 10 * time.Second

// jobThrottle is the source throttle of one detached job with
// protect-source, run by the leader while the job runs: it probes the
// source and writes the job-wide rate with registry.SetBandwidth, which the
// workers follow at their next refresh.
type jobThrottle struct {
	cancel context.CancelFunc
	done   chan struct{}
	loaded atomic.Int64 // the job's bytes loaded, from the leader's reports

	mu   sync.Mutex
	thr  *throttle.Throttle
	last throttle.Status
}

// startThrottle starts the throttle of a running job; idle is an idle p99
// learned before (0: learn it, at the floor rate).
func startThrottle(ctx context.Context, reg *registry.Registry, id string, rec job.Record, idle time.Duration, dialTimeout time.Duration, log *slog.Logger) *jobThrottle {
	ctx, cancel := context.WithCancel(ctx)
	jt := &jobThrottle{cancel: cancel, done: make(chan struct{})}
	log = log.With("job", id, "part", "throttle")
	go func() {
		defer close(jt.done)
		for ctx.Err() == nil {
			err := jt.run(ctx, reg, id, rec, idle, dialTimeout, log)
			if ctx.Err() != nil {
				return
			}
			log.Warn("source throttle stopped; starting it again", "err", err, "in", throttleRetry)
			if st, ok := jt.status(); ok && st.Idle > 0 {
				idle = st.Idle
			}
			select {
			case <-ctx.Done():
			case <-time.After(throttleRetry):
			}
		}
	}()
	return jt
}

// run dials the source and runs the throttle until ctx ends or it fails.
func (jt *jobThrottle) run(ctx context.Context, reg *registry.Registry, id string, rec job.Record, idle, dialTimeout time.Duration, log *slog.Logger) error {
	src, err := dial.HBase(ctx, rec.Source, rec.Options.User, dialTimeout, log)
	if err != nil {
		return err
	}
	defer src.Close()
	thr, err := throttle.Start(ctx, throttle.RunConfig{
		Prober:     &throttle.Prober{Client: src, Table: rec.Spec.Table, Logger: log},
		Controller: throttle.Config{Target: rec.Options.ProtectSource, Ceiling: rec.Options.Bandwidth},
		Idle:       idle,
		Read:       jt.loaded.Load,
		Apply: func(ctx context.Context, rate float64) error {
			return reg.SetBandwidth(ctx, id, rate)
		},
		Logger: log,
	})
	if err != nil {
		return err
	}
	jt.mu.Lock()
	jt.thr = thr
	jt.mu.Unlock()
	err = thr.Wait()
	jt.mu.Lock()
	jt.last, jt.thr = thr.Status(), nil
	jt.mu.Unlock()
	return err
}

// status is the throttle's status, or its last one; ok is false before it
// ever ran.
func (jt *jobThrottle) status() (throttle.Status, bool) {
	if jt == nil {
		return throttle.Status{}, false
	}
	jt.mu.Lock()
	defer jt.mu.Unlock()
	if jt.thr != nil {
		return jt.thr.Status(), true
	}
	return jt.last, jt.last.Probes > 0
}

// stop ends the throttle and waits for it.
func (jt *jobThrottle) stop() {
	if jt == nil {
		return
	}
	jt.cancel()
	<-jt.done
}

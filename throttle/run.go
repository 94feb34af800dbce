package throttle

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"time"

	"rangecopy/job"
)

// DefaultInterval is how often a Throttle decides.
const DefaultInterval = 2 * time.Second

// RunConfig is a throttle at work.
type RunConfig struct {
	// Prober probes the source. Required.
	Prober *Prober
	// Controller decides. Required.
	Controller Config
	// Idle, when positive, is an idle p99 learned before (a resumed job's):
	// no warm-up.
	Idle time.Duration
	// Interval is how often the rate is decided (DefaultInterval).
	Interval time.Duration
	// Read returns the job's bytes read so far (cumulative), for the rate
	// measured; nil means not known.
	Read func() int64
	// Apply sets the job-wide rate (bytes/s, 0: none). Required. It is
	// called at the start with the first rate, and at every change.
	Apply func(ctx context.Context, rate float64) error
	// Logger receives a line at every change; nil discards.
	Logger *slog.Logger
}

// Throttle runs a Prober and a Controller, applying the controller's
// rate. Its methods are safe for concurrent use.
type Throttle struct {
	cfg  RunConfig
	log  *slog.Logger
	done chan struct{}
	warm chan struct{}
	err  error

	mu     sync.Mutex
	c      *Controller
	window []readAt
}

type readAt struct {
	at    time.Time
	bytes int64
}

// Start starts the throttle; it runs until ctx ends or its prober fails
// (Wait returns the error).
func Start(ctx context.Context, cfg RunConfig) (*Throttle, error) {
	if cfg.Prober == nil || cfg.Apply == nil {
		return nil, errors.New("throttle: RunConfig needs a Prober and Apply")
	}
	setDefault(&cfg.Interval, DefaultInterval)
	c, err := NewController(cfg.Controller)
	if err != nil {
		return nil, err
	}
	c.SetIdle(cfg.Idle)
	t := &Throttle{cfg: cfg, c: c, log: cfg.Logger, done: make(chan struct{}), warm: make(chan struct{})}
	if t.log == nil {
		t.log = slog.New(slog.DiscardHandler)
	}
	if !c.Status().Warm {
		close(t.warm)
	}
	if err := cfg.Apply(ctx, c.Status().Rate); err != nil {
		return nil, err
	}
	rctx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	wg.Add(2)
	go func() {
		defer wg.Done()
		defer cancel()
		if err := cfg.Prober.Run(rctx, func(p Probe) {
			t.mu.Lock()
			t.c.Observe(p.Sample)
			t.mu.Unlock()
		}); err != nil {
			t.err = err
		}
	}()
	go func() {
		defer wg.Done()
		t.loop(rctx)
	}()
	go func() {
		wg.Wait()
		close(t.done)
	}()
	return t, nil
}

// loop ticks the controller every interval.
func (t *Throttle) loop(ctx context.Context) {
	tick := time.NewTicker(t.cfg.Interval)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		now := time.Now()
		t.mu.Lock()
		measured := t.measure(now)
		wasWarm := t.c.Status().Warm
		d := t.c.Tick(now, measured)
		st := t.c.Status()
		t.mu.Unlock()
		if wasWarm && !st.Warm {
			t.log.Info("source idle p99 learned", "idle_p99", st.Idle, "target_p99", st.Target, "probes", d.Samples)
			close(t.warm)
		}
		if d.Changed || (wasWarm && !st.Warm) {
			if d.Changed {
				t.log.Info("source throttle", "action", d.Action, "rate_bytes_per_s", d.Rate, "p99", d.P99, "target_p99", st.Target, "measured_bytes_per_s", measured)
			}
			if err := t.cfg.Apply(ctx, d.Rate); err != nil && ctx.Err() == nil {
				t.log.Warn("set the job's rate; trying at the next change", "rate_bytes_per_s", d.Rate, "err", err)
			}
		}
	}
}

// measure is the read rate over the controller's window (bytes/s); called
// with t.mu held.
func (t *Throttle) measure(now time.Time) float64 {
	if t.cfg.Read == nil {
		return 0
	}
	t.window = append(t.window, readAt{now, t.cfg.Read()})
	w := t.c.cfg.Window
	for len(t.window) > 2 && now.Sub(t.window[1].at) >= w {
		t.window = t.window[1:]
	}
	first, last := t.window[0], t.window[len(t.window)-1]
	if dt := last.at.Sub(first.at).Seconds(); dt > 0 {
		return float64(last.bytes-first.bytes) / dt
	}
	return 0
}

// WaitWarm returns once the idle p99 is learned, or with an error when ctx
// ends or the throttle stopped first.
func (t *Throttle) WaitWarm(ctx context.Context) error {
	select {
	case <-t.warm:
		return nil
	case <-t.done:
		if t.err != nil {
			return t.err
		}
		return errors.New("throttle: stopped before the idle p99 was learned")
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Wait waits for the throttle to stop (its context ended) and returns the
// prober's error, if it failed.
func (t *Throttle) Wait() error {
	<-t.done
	return t.err
}

// Status is the controller's status now.
func (t *Throttle) Status() Status {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.c.Status()
}

// Fill writes the status into a job report.
func (s Status) Fill(r *job.Report, target job.Protect) {
	r.ProtectSource = target.String()
	r.ThrottleRate = s.Rate
	r.ProbeP99Ms = ms(s.P99)
	r.ProbeIdleP99Ms = ms(s.Idle)
	r.ProbeTargetMs = ms(s.Target)
	r.Probes, r.ProbeErrors, r.ThrottleDecreases = s.Probes, s.Errors, s.Decreases
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// Package throttle protects the source cluster of a copy: it probes the
// source's read latency with small Gets on every region server while the
// copy runs (Prober), and a pure controller (Controller) sets the job-wide
// read rate from the probes' p99 by additive increase and multiplicative
// decrease. Run joins the two for an executor that applies the rate: the
// job's limiter in rangecopy copy, the job's bandwidth node for a detached
// job's leading master.
package throttle

import (
	"fmt"
	"slices"
	"time"

	"rangecopy/job"
)

// Defaults of a Config.
const (
	DefaultFloor      = 1 << 20 // bytes/s
	DefaultWindow     = 10 * time.Second
	DefaultMinSamples = 8
	DefaultStep       = 0.05
	DefaultDecrease   = 0.7
	DefaultBreaches   = 2
	DefaultCalm       = 2
	DefaultHysteresis = 0.8
	DefaultMinSlack   = 2 * time.Millisecond
	DefaultWarmUp     = 5 * time.Second
	DefaultLiftAbove  = 1.5
)

// Config is how a Controller decides. Zero fields take the defaults.
type Config struct {
	// Target is the p99 to keep to: a factor of the idle p99 or a latency.
	Target job.Protect
	// Floor is the lowest rate set, bytes/s (DefaultFloor): the copy goes on
	// however slow the source is.
	Floor float64
	// Ceiling is the highest rate, bytes/s (the job's --bandwidth); 0 means
	// none: the copy starts unlimited and a first cut starts from the rate
	// measured.
	Ceiling float64
	// Window is how far back the probes of a p99 go (DefaultWindow); only
	// probes since the last change of rate count.
	Window time.Duration
	// MinSamples is the fewest probes a p99 is taken of (DefaultMinSamples);
	// with fewer the rate holds.
	MinSamples int
	// Step is the additive increase, a fraction of the reference rate (the
	// ceiling, else the highest rate measured) (DefaultStep).
	Step float64
	// Decrease multiplies the rate at a cut (DefaultDecrease).
	Decrease float64
	// Breaches is how many ticks in a row the p99 must be above the target,
	// with a probe above it since the tick before, before a cut
	// (DefaultBreaches); Calm how many in a row at or below
	// Hysteresis × target before an increase (DefaultCalm). Between the two
	// bounds the rate holds.
	Breaches, Calm int
	Hysteresis     float64
	// MinSlack is the least a learned target lies above the idle p99
	// (DefaultMinSlack), so that a sub-millisecond idle p99 does not make
	// every scheduling hiccup a breach.
	MinSlack time.Duration
	// WarmUp is how long the idle p99 is learned for (DefaultWarmUp), with
	// at least MinSamples probes.
	WarmUp time.Duration
	// LiftAbove: with no ceiling, a rate raised above LiftAbove × the highest
	// rate measured is lifted (no limit) (DefaultLiftAbove).
	LiftAbove float64
}

func (c *Config) defaults() {
	setDefault(&c.Floor, DefaultFloor)
	setDefault(&c.Step, DefaultStep)
	setDefault(&c.Decrease, DefaultDecrease)
	setDefault(&c.Hysteresis, DefaultHysteresis)
	setDefault(&c.LiftAbove, DefaultLiftAbove)
	setDefault(&c.Window, DefaultWindow)
	setDefault(&c.MinSamples, DefaultMinSamples)
	setDefault(&c.Breaches, DefaultBreaches)
	setDefault(&c.Calm, DefaultCalm)
	setDefault(&c.MinSlack, DefaultMinSlack)
	setDefault(&c.WarmUp, DefaultWarmUp)
}

// setDefault sets *v to d when it is not positive (unset).
func setDefault[T ~int | ~int64 | ~float64](v *T, d T) {
	if *v <= 0 {
		*v = d
	}
}

// Sample is one probe's outcome: when it was sent and how long it took; a
// probe that failed or timed out counts with its timeout as latency.
type Sample struct {
	At      time.Time
	Latency time.Duration
	Err     bool
}

// Action is what a tick decided.
type Action int

// The actions of a tick.
const (
	// Warm: the idle p99 is being learned; the rate is the floor.
	Warm Action = iota
	// Hold keeps the rate: too few probes, the p99 between the bounds, or
	// not yet enough ticks in a row beyond one.
	Hold
	// Increase adds a step to the rate (or lifts the limit).
	Increase
	// Decrease cuts the rate.
	Decrease
)

// String names the action.
func (a Action) String() string {
	switch a {
	case Warm:
		return "warm"
	case Hold:
		return "hold"
	case Increase:
		return "increase"
	case Decrease:
		return "decrease"
	}
	return fmt.Sprintf("action(%d)", int(a))
}

// Decision is a tick's outcome.
type Decision struct {
	Action Action
	// Rate is the job-wide rate from now on, bytes/s; 0 means no limit.
	Rate float64
	// Changed says Rate differs from the one before.
	Changed bool
	// P99 is the probes' p99 over the window, Samples how many it is of
	// (0 when too few).
	P99     time.Duration
	Samples int
}

// Status is what a Controller knows, for reports.
type Status struct {
	// Rate is the rate set, bytes/s (0: none); Warm says the idle p99 is
	// still being learned.
	Rate float64
	Warm bool
	// Idle is the learned idle p99, Target the p99 kept to, P99 the last
	// window's.
	Idle, Target, P99 time.Duration
	// Probes, Errors, Decreases and Increases count since the start.
	Probes, Errors, Decreases, Increases int64
}

// Controller decides the job-wide read rate from probes of the source's
// latency. It does no I/O and reads no clock: the executor gives it the
// probes (Observe) and asks it every interval (Tick). It is not safe for
// concurrent use.
type Controller struct {
	cfg      Config
	idle     time.Duration
	target   time.Duration
	warming  bool
	warmAt   time.Time // first warm-up probe
	rate     float64   // 0: none
	peak     float64   // highest measured rate
	since    time.Time // probes before are not counted (the last change)
	samples  []Sample
	p99      time.Duration
	run      int // ticks in a row beyond a bound: >0 above the target, <0 calm
	lastTick time.Time
	st       Status
}

// NewController returns a controller of cfg. A latency target needs no
// warm-up; a factor is applied to the idle p99 learned first (or given with
// SetIdle). It starts at the ceiling (no limit without one), or at the floor
// while it warms up.
func NewController(cfg Config) (*Controller, error) {
	cfg.defaults()
	if cfg.Target.IsZero() {
		return nil, fmt.Errorf("throttle: no target")
	}
	if err := cfg.Target.Validate(); err != nil {
		return nil, fmt.Errorf("throttle: %w", err)
	}
	if cfg.Ceiling > 0 && cfg.Ceiling < cfg.Floor {
		cfg.Floor = cfg.Ceiling
	}
	if !(cfg.Decrease < 1) || !(cfg.Hysteresis <= 1) {
		return nil, fmt.Errorf("throttle: decrease %v must be below 1 and hysteresis %v at most 1", cfg.Decrease, cfg.Hysteresis)
	}
	c := &Controller{cfg: cfg}
	if cfg.Target.Latency > 0 {
		c.target = cfg.Target.Latency
		c.rate = cfg.Ceiling
	} else {
		c.warming = true
		c.rate = cfg.Floor
	}
	return c, nil
}

// SetIdle gives the idle p99 learned before (a resumed job's), ending the
// warm-up; a factor target applies to it.
func (c *Controller) SetIdle(idle time.Duration) {
	if idle <= 0 || c.cfg.Target.Factor == 0 {
		return
	}
	c.learn(idle)
}

func (c *Controller) learn(idle time.Duration) {
	c.idle = idle
	c.target = max(time.Duration(float64(idle)*c.cfg.Target.Factor), idle+c.cfg.MinSlack)
	c.warming = false
	c.rate = c.cfg.Ceiling
	c.samples = c.samples[:0]
	c.run = 0
}

// Observe adds a probe.
func (c *Controller) Observe(s Sample) {
	c.st.Probes++
	if s.Err {
		c.st.Errors++
	}
	if c.warming && c.warmAt.IsZero() {
		c.warmAt = s.At
	}
	c.samples = append(c.samples, s)
}

// Tick decides the rate at now; measured is the job's read rate over the
// recent past (bytes/s; 0 if not known), the base of a first cut when there
// is no limit.
func (c *Controller) Tick(now time.Time, measured float64) Decision {
	c.peak = max(c.peak, measured)
	if c.warming {
		d := Decision{Action: Warm, Rate: c.rate}
		if !c.warmAt.IsZero() && now.Sub(c.warmAt) >= c.cfg.WarmUp && len(c.samples) >= c.cfg.MinSamples {
			p, n := percentile(c.samples, 0.99), len(c.samples)
			c.learn(p)
			d = Decision{Action: Hold, Rate: c.rate, Changed: c.rate != c.cfg.Floor, P99: p, Samples: n}
			c.since = now
			c.p99 = p
		}
		return d
	}
	// Keep the probes of the window sent since the last change.
	from := now.Add(-c.cfg.Window)
	if c.since.After(from) {
		from = c.since
	}
	keep := c.samples[:0]
	for _, s := range c.samples {
		if !s.At.Before(from) {
			keep = append(keep, s)
		}
	}
	c.samples = keep
	if len(c.samples) < c.cfg.MinSamples {
		return Decision{Action: Hold, Rate: c.rate}
	}
	p := percentile(c.samples, 0.99)
	c.p99 = p
	d := Decision{Action: Hold, Rate: c.rate, P99: p, Samples: len(c.samples)}
	last := c.lastTick
	c.lastTick = now
	switch {
	case p > c.target && !c.freshBelow(last):
		c.run = max(c.run, 0) + 1
		if c.run < c.cfg.Breaches {
			return d
		}
		base := c.rate
		if base == 0 {
			base = measured
			if base == 0 {
				base = c.peak
			}
		}
		next := max(c.cfg.Floor, base*c.cfg.Decrease)
		if base == 0 {
			next = c.cfg.Floor
		}
		c.st.Decreases++
		return c.change(now, d, Decrease, next)
	case p <= time.Duration(float64(c.target)*c.cfg.Hysteresis):
		c.run = min(c.run, 0) - 1
		if -c.run < c.cfg.Calm || c.rate == 0 || (c.cfg.Ceiling > 0 && c.rate >= c.cfg.Ceiling) {
			return d
		}
		ref := c.cfg.Ceiling
		if ref == 0 {
			ref = max(c.peak, c.rate)
		}
		next := c.rate + c.cfg.Step*ref
		switch {
		case c.cfg.Ceiling > 0:
			next = min(next, c.cfg.Ceiling)
		case c.peak > 0 && next > c.cfg.LiftAbove*c.peak:
			next = 0
		}
		c.st.Increases++
		return c.change(now, d, Increase, next)
	default:
		c.run = 0
		return d
	}
}

// freshBelow reports whether every probe since the tick at last took at
// most the target: a window whose p99 is above the target only because of
// an earlier probe is not a breach again, so one slow probe is not counted
// in every window it stays in.
func (c *Controller) freshBelow(last time.Time) bool {
	for _, s := range c.samples {
		if !s.At.Before(last) && s.Latency > c.target {
			return false
		}
	}
	return true
}

func (c *Controller) change(now time.Time, d Decision, a Action, rate float64) Decision {
	d.Action, d.Changed, d.Rate = a, rate != c.rate, rate
	c.rate, c.since, c.run = rate, now, 0
	c.samples = c.samples[:0]
	return d
}

// Status is what the controller knows now.
func (c *Controller) Status() Status {
	s := c.st
	s.Rate, s.Warm, s.Idle, s.Target, s.P99 = c.rate, c.warming, c.idle, c.target, c.p99
	return s
}

// percentile is the nearest-rank q-quantile of the samples' latencies.
func percentile(samples []Sample, q float64) time.Duration {
	l := make([]time.Duration, len(samples))
	for i, s := range samples {
		l[i] = s.Latency
	}
	slices.Sort(l)
	rank := int(q*float64(len(l)) + 0.999999999)
	rank = min(max(rank, 1), len(l))
	return l[rank-1]
}

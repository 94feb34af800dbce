// Package retry is the one backoff rule and the one context-aware sleep that
// every retry loop of rangecopy uses. It imports nothing of rangecopy, so any
// package may use it.
package retry

import (
	"context"
	"math"
	"math/rand/v2"
	"time"
)

// Backoff is a capped exponential backoff: the wait before retry number n
// (0-based) is d = min(Max, Initial·Multiplier^n), of which the fraction
// Jitter is random, so the wait lies in [d·(1−Jitter), d]. The zero Backoff
// waits nothing.
type Backoff struct {
	// Initial is the wait before the first retry (attempt 0).
	Initial time.Duration
	// Max caps the wait; below Initial it is taken as Initial.
	Max time.Duration
	// Multiplier is the growth from one retry to the next; 0 means 2, and a
	// value below 1 is taken as 1 (a constant wait).
	Multiplier float64
	// Jitter is the random fraction of the wait, in [0, 1]; 0 makes Delay a
	// pure function of the attempt.
	Jitter float64
}

// Delay returns the wait before retry number attempt (0-based), its jitter
// drawn from math/rand/v2.
func (b Backoff) Delay(attempt int) time.Duration {
	if b.Jitter <= 0 {
		return b.DelayAt(attempt, 0)
	}
	return b.DelayAt(attempt, rand.Float64())
}

// DelayAt is Delay with the random draw given: u in [0, 1) picks the wait
// within the jitter window, from its shortest (0) to its longest (towards 1).
// It is pure.
func (b Backoff) DelayAt(attempt int, u float64) time.Duration {
	if b.Initial <= 0 {
		return 0
	}
	mult := b.Multiplier
	switch {
	case mult == 0:
		mult = 2
	case mult < 1:
		mult = 1
	}
	limit := max(b.Max, b.Initial)
	// Float arithmetic so that a large attempt saturates at limit instead of
	// overflowing.
	d := float64(b.Initial) * math.Pow(mult, float64(max(attempt, 0)))
	if d > float64(limit) || math.IsNaN(d) {
		d = float64(limit)
	}
	jitter := min(max(b.Jitter, 0), 1)
	u = min(max(u, 0), 1)
	return time.Duration(d * (1 - jitter + jitter*u))
}

// Sleep waits for d, or until ctx is done and then returns ctx.Err(). A d of
// zero or less returns at once, with ctx.Err().
func Sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

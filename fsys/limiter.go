package fsys

import (
	"context"
	"fmt"
	"sync"
	"time"

	"rangecopy/retry"
)

// TokenBucket is an fsys.Limiter of a job's read bandwidth, shared by every
// task of a worker (or by every worker of a job, if it is distributed), that lets Rate bytes per second through on average,
// in bursts of at most Burst bytes.
type TokenBucket struct {
	rate  float64
	burst float64
	now   func() time.Time

	mu     sync.Mutex
	tokens float64
	last   time.Time
}

// NewTokenBucket returns a limiter of rate bytes per second with the given
// burst (bytes; at least 1). The bucket starts full.
func NewTokenBucket(rate float64, burst int) (*TokenBucket, error) {
	if rate <= 0 || burst < 1 {
		return nil, fmt.Errorf("fsys: token bucket rate %v and burst %d must be positive", rate, burst)
	}
	return &TokenBucket{rate: rate, burst: float64(burst), now: time.Now, tokens: float64(burst), last: time.Now()}, nil
}

// WaitN takes n tokens, waiting for them as needed. A request larger than the
// burst is taken in burst-sized parts.
func (b *TokenBucket) WaitN(ctx context.Context, n int) error {
	for n > 0 {
		part := min(float64(n), b.burst)
		wait := b.reserve(part)
		if err := retry.Sleep(ctx, wait); err != nil {
			return err
		}
		n -= int(part)
	}
	return nil
}

// reserve takes n tokens (possibly going into debt) and returns how long the
// caller must wait until the debt is paid.
func (b *TokenBucket) reserve(n float64) time.Duration {
	b.mu.Lock()
	defer b.mu.Unlock()
	now := b.now()
	b.tokens = min(b.burst, b.tokens+now.Sub(b.last).Seconds()*b.rate)
	b.last = now
	b.tokens -= n
	if b.tokens >= 0 {
		return 0
	}
	return time.Duration(-b.tokens / b.rate * float64(time.Second))
}

// NewRateLimit returns the limiter of a job-wide (or a worker's share of a)
// bandwidth of rate bytes per second: a token bucket whose burst is a
// second's worth, within [64 KiB, 8 MiB].
func NewRateLimit(rate float64) (*TokenBucket, error) {
	return NewTokenBucket(rate, int(max(min(rate, 8<<20), 64<<10)))
}

// SetRate changes the rate (bytes per second, positive) from now on; tokens
// already in the bucket stay, up to the burst.
func (b *TokenBucket) SetRate(rate float64) {
	if rate <= 0 {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	now := b.now()
	b.tokens = min(b.burst, b.tokens+now.Sub(b.last).Seconds()*b.rate)
	b.last = now
	b.rate = rate
}

// Rate is the current rate in bytes per second.
func (b *TokenBucket) Rate() float64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.rate
}

// BandwidthLimit is an fsys.Limiter whose rate may change at any time,
// between a limit and none: a job's read limit as an operator sets it while
// the job runs. A change reaches the reads already waiting too: lifted, they
// go on at once; changed, what is left of each wait is scaled by the old rate
// over the new (the bytes still owed, paid at the new rate). Without that, a
// read that had queued behind others at a low rate (eight of a worker's
// tiny tasks' families at 1,000 B/s wait up to 7 minutes) would sleep on
// for minutes after the limit was raised or lifted. The zero value lets
// everything through.
type BandwidthLimit struct {
	mu      sync.Mutex
	b       *TokenBucket  // nil: no limit
	changed chan struct{} // closed, and replaced, by every Set; nil until the first
}

// Set changes the limit to rate bytes per second from now on; 0 (or less)
// lifts it. A rate that changes keeps the tokens in the bucket.
func (l *BandwidthLimit) Set(rate float64) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	switch {
	case rate <= 0:
		if l.b == nil {
			return nil
		}
		l.b = nil
	case l.b == nil:
		b, err := NewRateLimit(rate)
		if err != nil {
			return err
		}
		l.b = b
	case l.b.Rate() == rate:
		return nil
	default:
		l.b.SetRate(rate)
	}
	if l.changed != nil {
		close(l.changed)
	}
	l.changed = make(chan struct{})
	return nil
}

// Rate is the current limit in bytes per second; 0 means none.
func (l *BandwidthLimit) Rate() float64 {
	b, _ := l.current()
	if b == nil {
		return 0
	}
	return b.Rate()
}

// current is the limit in force and the channel its next change closes.
func (l *BandwidthLimit) current() (*TokenBucket, chan struct{}) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.changed == nil {
		l.changed = make(chan struct{})
	}
	return l.b, l.changed
}

// WaitN takes n bytes from the current limit's bucket, in parts of at most
// its burst, or returns at once when there is no limit.
func (l *BandwidthLimit) WaitN(ctx context.Context, n int) error {
	for n > 0 {
		b, changed := l.current()
		if b == nil {
			return ctx.Err()
		}
		part := int(min(float64(n), b.burst))
		rate := b.Rate()
		deadline := time.Now().Add(b.reserve(float64(part)))
		for {
			wait := time.Until(deadline)
			if wait <= 0 {
				break
			}
			t := time.NewTimer(wait)
			select {
			case <-ctx.Done():
				t.Stop()
				return ctx.Err()
			case <-t.C:
			case <-changed:
				t.Stop()
				var nb *TokenBucket
				nb, changed = l.current()
				if nb == nil {
					deadline = time.Now() // lifted
					continue
				}
				newRate := nb.Rate()
				deadline = time.Now().Add(time.Duration(float64(time.Until(deadline)) * rate / newRate))
				rate = newRate
			}
		}
		n -= part
	}
	return ctx.Err()
}

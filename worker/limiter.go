package worker

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
		return nil, fmt.Errorf("worker: token bucket rate %v and burst %d must be positive", rate, burst)
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
// the job runs. The zero value lets everything through.
type BandwidthLimit struct {
	mu sync.Mutex
	b  *TokenBucket // nil: no limit
}

// Set changes the limit to rate bytes per second from now on; 0 (or less)
// lifts it. A rate that changes keeps the tokens in the bucket.
func (l *BandwidthLimit) Set(rate float64) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	switch {
	case rate <= 0:
		l.b = nil
	case l.b == nil:
		b, err := NewRateLimit(rate)
		if err != nil {
			return err
		}
		l.b = b
	default:
		l.b.SetRate(rate)
	}
	return nil
}

// Rate is the current limit in bytes per second; 0 means none.
func (l *BandwidthLimit) Rate() float64 {
	l.mu.Lock()
	b := l.b
	l.mu.Unlock()
	if b == nil {
		return 0
	}
	return b.Rate()
}

// WaitN takes n bytes from the current limit's bucket, or returns at once
// when there is no limit.
func (l *BandwidthLimit) WaitN(ctx context.Context, n int) error {
	l.mu.Lock()
	b := l.b
	l.mu.Unlock()
	if b == nil {
		return ctx.Err()
	}
	return b.WaitN(ctx, n)
}

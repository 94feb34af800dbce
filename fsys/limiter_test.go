package fsys

import (
	"testing"
	"time"
)

func TestTokenBucketReserve(t *testing.T) {
	b, err := NewTokenBucket(1000, 500)
	if err != nil {
		t.Fatal(err)
	}
	now := time.Unix(0, 0)
	b.now = func() time.Time { return now }
	b.last = now
	if w := b.reserve(500); w != 0 {
		t.Fatalf("full bucket waits %v", w)
	}
	if w := b.reserve(100); w != 100*time.Millisecond {
		t.Fatalf("empty bucket: wait %v, want 100ms", w)
	}
	now = now.Add(time.Second) // -100 + 1000, capped at the burst: 500
	if w := b.reserve(400); w != 0 {
		t.Fatalf("refilled bucket waits %v", w)
	}
	if w := b.reserve(101); w != time.Millisecond {
		t.Fatalf("wait %v, want 1ms", w)
	}
	if _, err := NewTokenBucket(0, 1); err == nil {
		t.Fatal("zero rate accepted")
	}
}

// TestBandwidthLimit goes from no limit to a limit, changes it and lifts it.
func TestBandwidthLimit(t *testing.T) {
	var l BandwidthLimit
	var _ Limiter = &l
	for i, step := range []struct{ set, want float64 }{
		{0, 0}, {5e6, 5e6}, {1e6, 1e6}, {0, 0}, {-1, 0}, {2e6, 2e6},
	} {
		if err := l.Set(step.set); err != nil {
			t.Fatalf("step %d: set %v: %v", i, step.set, err)
		}
		if got := l.Rate(); got != step.want {
			t.Fatalf("step %d: set %v: rate %v, want %v", i, step.set, got, step.want)
		}
		if err := l.WaitN(t.Context(), 1); err != nil {
			t.Fatalf("step %d: WaitN: %v", i, err)
		}
	}
	// The limit in force is a token bucket of that rate.
	l.mu.Lock()
	b := l.b
	l.mu.Unlock()
	if b == nil || b.Rate() != 2e6 {
		t.Fatalf("bucket %v, want one of 2e6 B/s", b)
	}
}

// TestBandwidthLimitWakesWaiters: reads queued behind others at a low limit
// follow the limit when it is raised or lifted, rather than sleeping out the
// waits the old rate gave them (65 and 131 s here).
func TestBandwidthLimitWakesWaiters(t *testing.T) {
	var l BandwidthLimit
	ctx := t.Context()
	queue := func() chan error {
		t.Helper()
		done := make(chan error, 2)
		for range 2 {
			go func() { done <- l.WaitN(ctx, 64<<10) }()
		}
		// Both wait once the bucket owes their 128 KiB beyond the burst taken first.
		for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(time.Millisecond) {
			b, _ := l.current()
			b.mu.Lock()
			owed := -b.tokens
			b.mu.Unlock()
			if owed >= 127<<10 {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("the two reads did not queue: the bucket owes %.0f bytes", owed)
			}
		}
		return done
	}
	wait := func(done chan error, what string) {
		t.Helper()
		for range 2 {
			select {
			case err := <-done:
				if err != nil {
					t.Fatalf("%s: WaitN: %v", what, err)
				}
			case <-time.After(30 * time.Second):
				t.Fatalf("%s: a read still waits 30 s later (at 1,000 B/s it owed 65 and 131 s)", what)
			}
		}
	}
	for _, change := range []struct {
		what string
		rate float64
	}{{"raised to 1 GB/s", 1e9}, {"lifted", 0}} {
		if err := l.Set(1000); err != nil {
			t.Fatal(err)
		}
		b, _ := l.current()
		b.mu.Lock()
		b.tokens = b.burst // the first 64 KiB pass at once
		b.last = time.Now()
		b.mu.Unlock()
		if err := l.WaitN(ctx, 64<<10); err != nil {
			t.Fatal(err)
		}
		done := queue()
		if err := l.Set(change.rate); err != nil {
			t.Fatal(err)
		}
		wait(done, change.what)
	}
}

func TestTokenBucketSetRate(t *testing.T) {
	b, err := NewTokenBucket(1000, 500)
	if err != nil {
		t.Fatal(err)
	}
	now := time.Unix(0, 0)
	b.now = func() time.Time { return now }
	b.last = now
	b.reserve(500) // empty
	now = now.Add(100 * time.Millisecond)
	b.SetRate(4000) // the 100 tokens earned at the old rate stay
	if b.Rate() != 4000 {
		t.Fatalf("rate %v", b.Rate())
	}
	if w := b.reserve(500); w != 100*time.Millisecond {
		t.Fatalf("after SetRate: wait %v, want 100ms (400 tokens short at 4000/s)", w)
	}
	b.SetRate(0) // ignored
	if b.Rate() != 4000 {
		t.Fatalf("SetRate(0) changed the rate to %v", b.Rate())
	}
}

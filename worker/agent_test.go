package worker

import (
	"testing"
	"time"
)

func TestShareOf(t *testing.T) {
	for _, tc := range []struct {
		capacity, total int
		want            float64
	}{
		{4, 16, 0.25},
		{8, 16, 0.5},
		{4, 4, 1},
		{4, 0, 1}, // not registered yet: the whole job's bandwidth, until the next look
		{4, 2, 1}, // a stale listing that misses this worker
	} {
		if got := shareOf(tc.capacity, tc.total); got != tc.want {
			t.Errorf("shareOf(%d, %d) = %v, want %v", tc.capacity, tc.total, got, tc.want)
		}
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

package worker

import (
	"context"
	"errors"
	"sync"
	"testing"

	"rangecopy/fsys"
)

// countingLimiter records what passes it.
type countingLimiter struct {
	mu sync.Mutex
	n  int
}

func (c *countingLimiter) WaitN(_ context.Context, n int) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.n += n
	return nil
}

// TestLimiterSeesEveryByte checks that both paths pass every source byte
// through the limiter.
func TestLimiterSeesEveryByte(t *testing.T) {
	dir := t.TempDir()
	p := writeHFile(t, dir, "in", writerOptionsForTest(), manyRows(50))
	for _, fast := range []bool{true, false} {
		var lim countingLimiter
		var ctr Counters
		run(t, baseTask(t, input(p)), Options{Limiter: &lim, Counters: &ctr, NoFastPath: !fast, ReadAhead: 4096})
		if lim.n < int(ctr.BytesRead.Load()) || ctr.BytesRead.Load() == 0 {
			t.Errorf("fast=%v: limiter saw %d bytes, %d read", fast, lim.n, ctr.BytesRead.Load())
		}
	}
	var ctr Counters
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	tb, _ := fsys.NewTokenBucket(1, 1)
	err := Run(ctx, baseTask(t, input(p)), Options{Source: fsys.Local{}, Target: fsys.Local{}, Limiter: tb, Counters: &ctr}, (&collector{}).emit)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled run: %v", err)
	}
}

package parallel

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
)

func TestForEach(t *testing.T) {
	var running, most, ran atomic.Int64
	err := ForEach(t.Context(), 50, 4, func(ctx context.Context, i int) error {
		n := running.Add(1)
		for {
			m := most.Load()
			if n <= m || most.CompareAndSwap(m, n) {
				break
			}
		}
		ran.Add(1)
		running.Add(-1)
		return nil
	})
	if err != nil || ran.Load() != 50 || most.Load() > 4 {
		t.Errorf("ForEach = %v after %d runs, at most %d at once; want nil, 50, ≤ 4", err, ran.Load(), most.Load())
	}
	boom := errors.New("boom")
	ran.Store(0)
	err = ForEach(t.Context(), 100, 1, func(ctx context.Context, i int) error {
		ran.Add(1)
		if i == 3 {
			return boom
		}
		return nil
	})
	if !errors.Is(err, boom) || ran.Load() != 4 {
		t.Errorf("ForEach with a failure = %v after %d runs; want boom after 4 (none started after it)", err, ran.Load())
	}
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if err := ForEach(ctx, 3, 2, func(context.Context, int) error { return nil }); !errors.Is(err, context.Canceled) {
		t.Errorf("ForEach on an ended context = %v", err)
	}
	if err := ForEach(t.Context(), 0, 0, nil); err != nil {
		t.Errorf("ForEach of nothing = %v", err)
	}
}

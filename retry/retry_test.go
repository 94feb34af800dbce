package retry

import (
	"context"
	"errors"
	"testing"
	"time"
)

func TestDelayAt(t *testing.T) {
	ms := time.Millisecond
	tests := []struct {
		name    string
		b       Backoff
		attempt int
		u       float64
		want    time.Duration
	}{
		{"first", Backoff{Initial: 100 * ms, Max: 5 * time.Second}, 0, 0, 100 * ms},
		{"doubling by default", Backoff{Initial: 100 * ms, Max: 5 * time.Second}, 3, 0, 800 * ms},
		{"capped", Backoff{Initial: 100 * ms, Max: 5 * time.Second}, 6, 0, 5 * time.Second},
		{"no overflow", Backoff{Initial: 100 * ms, Max: 5 * time.Second}, 1 << 20, 0, 5 * time.Second},
		{"negative attempt is the first", Backoff{Initial: 100 * ms, Max: time.Second}, -3, 0, 100 * ms},
		{"max below initial", Backoff{Initial: time.Second, Max: 10 * ms}, 4, 0, time.Second},
		{"no max means initial", Backoff{Initial: time.Second}, 4, 0, time.Second},
		{"own multiplier", Backoff{Initial: time.Second, Max: time.Minute, Multiplier: 3}, 2, 0, 9 * time.Second},
		{"multiplier below one is constant", Backoff{Initial: time.Second, Max: time.Minute, Multiplier: 0.5}, 5, 0, time.Second},
		{"zero waits nothing", Backoff{}, 3, 0.5, 0},
		{"jitter shortest", Backoff{Initial: 100 * ms, Max: time.Second, Jitter: 0.5}, 1, 0, 100 * ms},
		{"jitter middle", Backoff{Initial: 100 * ms, Max: time.Second, Jitter: 0.5}, 1, 0.5, 150 * ms},
		{"jitter longest", Backoff{Initial: 100 * ms, Max: time.Second, Jitter: 0.5}, 1, 1, 200 * ms},
		{"u below range", Backoff{Initial: 100 * ms, Max: time.Second, Jitter: 0.5}, 1, -2, 100 * ms},
		{"u above range", Backoff{Initial: 100 * ms, Max: time.Second, Jitter: 0.5}, 1, 7, 200 * ms},
		{"full jitter", Backoff{Initial: 100 * ms, Max: time.Second, Jitter: 1}, 0, 0.25, 25 * ms},
		{"jitter above one is one", Backoff{Initial: 100 * ms, Max: time.Second, Jitter: 4}, 0, 0, 0},
		{"jitter of a capped wait", Backoff{Initial: 100 * ms, Max: time.Second, Jitter: 0.5}, 9, 0, 500 * ms},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.b.DelayAt(tt.attempt, tt.u); got != tt.want {
				t.Errorf("%+v.DelayAt(%d, %v) = %v, want %v", tt.b, tt.attempt, tt.u, got, tt.want)
			}
		})
	}
}

func TestDelayWithinJitterWindow(t *testing.T) {
	b := Backoff{Initial: 100 * time.Millisecond, Max: 5 * time.Second, Jitter: 0.5}
	for attempt := range 10 {
		lo, hi := b.DelayAt(attempt, 0), b.DelayAt(attempt, 1)
		for range 50 {
			if d := b.Delay(attempt); d < lo || d > hi {
				t.Fatalf("Delay(%d) = %v, want in [%v, %v]", attempt, d, lo, hi)
			}
		}
	}
	still := Backoff{Initial: time.Second, Max: time.Minute}
	if got, want := still.Delay(2), 4*time.Second; got != want {
		t.Errorf("Delay without jitter = %v, want %v", got, want)
	}
}

func TestSleep(t *testing.T) {
	if err := Sleep(context.Background(), time.Millisecond); err != nil {
		t.Errorf("Sleep: %v", err)
	}
	if err := Sleep(context.Background(), 0); err != nil {
		t.Errorf("Sleep(0): %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := Sleep(ctx, time.Hour); !errors.Is(err, context.Canceled) {
		t.Errorf("Sleep on a cancelled context = %v, want context.Canceled", err)
	}
	if err := Sleep(ctx, 0); !errors.Is(err, context.Canceled) {
		t.Errorf("Sleep(0) on a cancelled context = %v, want context.Canceled", err)
	}
}

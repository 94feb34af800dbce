package bench

import (
	"sync"
	"testing"
	"time"
)

func TestHistogramPercentiles(t *testing.T) {
	var h Histogram
	// 1..1000 ms in a scrambled order: nearest rank gives p50 = 500,
	// p99 = 990, p999 = 999, max = 1000.
	for i := 0; i < 1000; i++ {
		h.Record(time.Duration((i*7919)%1000+1) * time.Millisecond)
	}
	h.RecordError()
	got := h.Summary(10 * time.Second)
	want := Latency{Count: 1000, Errors: 1, P50: 500, P99: 990, P999: 999, Max: 1000, Seconds: 10}
	if got != want {
		t.Fatalf("Summary = %+v, want %+v", got, want)
	}
}

func TestHistogramSmallAndEmpty(t *testing.T) {
	var h Histogram
	if got := h.Summary(0); got != (Latency{}) {
		t.Fatalf("empty Summary = %+v, want zero", got)
	}
	h.Record(3 * time.Millisecond)
	h.Record(1 * time.Millisecond)
	got := h.Summary(time.Second)
	if got.P50 != 1 || got.P99 != 3 || got.P999 != 3 || got.Max != 3 || got.Count != 2 {
		t.Fatalf("two samples: %+v", got)
	}
}

func TestHistogramConcurrent(t *testing.T) {
	var h Histogram
	var wg sync.WaitGroup
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 500; i++ {
				h.Record(time.Millisecond)
			}
		}()
	}
	wg.Wait()
	if got := h.Summary(time.Second).Count; got != 4000 {
		t.Fatalf("Count = %d, want 4000", got)
	}
}

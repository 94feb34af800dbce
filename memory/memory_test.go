package memory

import (
	"errors"
	"testing"
)

const (
	MiB   = 1 << 20
	minIn = BlockBuffers*DefaultBlock + ReadAheadChunks*MinReadAhead + Batches*MinBatch
)

func out(block int) int { return WriterBytes + WriterBlocks*max(block, DefaultBlock) }

func TestPlanTask(t *testing.T) {
	tests := []struct {
		name      string
		share     int64
		inputs    int
		block     int
		wantRA    int
		wantBatch int
		wantErr   error
	}{
		{"one input: the largest buffers", 128 * MiB, 1, 0, MaxReadAhead, MaxBatch, nil},
		{"four inputs: still the largest", 128 * MiB, 4, 0, MaxReadAhead, MaxBatch, nil},
		// out = 14.25 MiB, minimum per input = 896 KiB, one eighth (16 MiB)
		// unplanned: read-ahead = 256 KiB + half the spare per input.
		{"30 inputs in 128 MiB: read-ahead shrinks", 128 * MiB, 30, 0, MinReadAhead + (112*MiB-out(0)-30*minIn)/30/2, MinBatch, nil},
		{"60 inputs in 128 MiB: less again", 128 * MiB, 60, 0, MinReadAhead + (112*MiB-out(0)-60*minIn)/60/2, MinBatch, nil},
		{"128 inputs in 128 MiB: the minimum", 128 * MiB, 128, 0, MinReadAhead, MinBatch, nil},
		{"200 inputs in 128 MiB: refused", 128 * MiB, 200, 0, 0, 0, ErrTooSmall},
		{"huge blocks: refused sooner", 128 * MiB, 30, 4 * MiB, 0, 0, ErrTooSmall},
		{"no room for the output: refused", 8 * MiB, 0, 0, 0, 0, ErrTooSmall},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p, err := PlanTask(tc.share, tc.inputs, tc.block, 0)
			if !errors.Is(err, tc.wantErr) {
				t.Fatalf("PlanTask: %v, want %v", err, tc.wantErr)
			}
			if err != nil {
				return
			}
			if p.ReadAhead != tc.wantRA || p.Batch != tc.wantBatch {
				t.Errorf("read-ahead %d, batch %d; want %d, %d", p.ReadAhead, p.Batch, tc.wantRA, tc.wantBatch)
			}
			if p.Total > tc.share {
				t.Errorf("plan of %d bytes exceeds the share of %d", p.Total, tc.share)
			}
			if p.Total != p.Output+int64(tc.inputs)*p.PerInput {
				t.Errorf("total %d is not output %d + %d × %d", p.Total, p.Output, tc.inputs, p.PerInput)
			}
		})
	}
}

// TestPlanShrinks checks that read-ahead never grows as inputs multiply and
// the plan always fits the share until it is refused.
func TestPlanShrinks(t *testing.T) {
	share := int64(128 << 20)
	prev := MaxReadAhead + 1
	refused := false
	for n := 1; n <= 300; n++ {
		p, err := PlanTask(share, n, 0, 0)
		if err != nil {
			if !errors.Is(err, ErrTooSmall) {
				t.Fatalf("%d inputs: %v", n, err)
			}
			refused = true
			continue
		}
		if refused {
			t.Fatalf("%d inputs fit after fewer were refused", n)
		}
		if p.ReadAhead > prev || p.ReadAhead < MinReadAhead || p.Total > share {
			t.Fatalf("%d inputs: read-ahead %d (before %d), total %d of %d", n, p.ReadAhead, prev, p.Total, share)
		}
		prev = p.ReadAhead
	}
	if !refused {
		t.Fatal("300 inputs fit in 128 MiB")
	}
}

func TestBudget(t *testing.T) {
	b := New(100)
	if err := b.Reserve(60); err != nil {
		t.Fatal(err)
	}
	if err := b.Reserve(50); !errors.Is(err, ErrExhausted) {
		t.Fatalf("over the limit: %v, want ErrExhausted", err)
	}
	if err := b.Reserve(101); !errors.Is(err, ErrTooSmall) {
		t.Fatalf("over the whole budget: %v, want ErrTooSmall", err)
	}
	b.Release(60)
	if err := b.Reserve(100); err != nil {
		t.Fatal(err)
	}
	b.Release(100)
	if b.Used() != 0 || b.HighWater() != 100 || b.Share(4) != 25 {
		t.Fatalf("used %d, high water %d, share %d", b.Used(), b.HighWater(), b.Share(4))
	}
}

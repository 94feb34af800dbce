package memory

import (
	"errors"
	"testing"
)

// TestFitSlots runs as many tasks at once as the budget gives each the share PlanTask needs,
// and none when one task does not fit the whole budget.
func TestFitSlots(t *testing.T) {
	one := Need(1, 0, 0) // about 15 MiB
	for _, c := range []struct {
		name         string
		limit        int64
		want, inputs int
		blocks       []int
		wantSlots    int
	}{
		{"default budget, four tasks", Default, 4, 1, nil, 4},
		{"128MiB, four tasks of one input", 128 << 20, 4, 1, nil, 4},
		{"128MiB, four tasks of 40 inputs", 128 << 20, 4, 40, nil, 2},
		{"40MiB, four tasks", 40 << 20, 4, 1, nil, 2},
		{"just one", one, 4, 1, nil, 1},
		{"one byte short", one - 1, 4, 1, nil, 0},
		{"8MiB blocks need more", 40 << 20, 4, 1, []int{64 << 10, 8 << 20}, 0},
		{"the largest block decides", 128 << 20, 8, 1, []int{1 << 20, 64 << 10}, 6},
		{"want 0 is one", Default, 0, 1, nil, 1},
	} {
		got := FitSlots(c.limit, c.want, c.inputs, c.blocks)
		if got != c.wantSlots {
			t.Errorf("%s: FitSlots = %d; want %d", c.name, got, c.wantSlots)
		}
		// The decision agrees with PlanTask: each share holds the task, one more would not.
		blocks := c.blocks
		if len(blocks) == 0 {
			blocks = []int{0}
		}
		for _, b := range blocks {
			if got > 0 {
				if _, err := PlanTask(c.limit/int64(got), c.inputs, 0, b); err != nil {
					t.Errorf("%s: %d slots, yet PlanTask refuses a share: %v", c.name, got, err)
				}
			}
		}
		if got < max(c.want, 1) {
			refused := false
			for _, b := range blocks {
				if _, err := PlanTask(c.limit/int64(got+1), c.inputs, 0, b); errors.Is(err, ErrTooSmall) {
					refused = true
				}
			}
			if !refused {
				t.Errorf("%s: %d slots, yet %d would fit", c.name, got, got+1)
			}
		}
	}
}

package inproc

import (
	"context"
	"fmt"
	"slices"

	"rangecopy/job"
	"rangecopy/memory"
	"rangecopy/registry"
)

// budgetLimit is the size of the memory budget the copy's workers share.
func (c *copyRun) budgetLimit() int64 {
	switch {
	case c.display.Budget != nil:
		return c.display.Budget.Limit()
	case c.display.Memory > 0:
		return c.display.Memory
	}
	return memory.Default
}

// fitWorkers runs fewer tasks at once than the workers asked for when the memory budget
// cannot give each the least share a task of inputs input files needs (memory.FitSlots),
// and says so in the log. Not even one task fitting is an error that wraps
// memory.ErrTooSmall: before the job is registered (inputs 1, called before anything is
// made) nothing, snapshot or target table, is made for a copy that could not run.
func (c *copyRun) fitWorkers(inputs int) error {
	limit, want, blocks := c.budgetLimit(), c.o.Workers, c.p.OutputBlockSizes()
	n := memory.FitSlots(limit, want, inputs, blocks)
	if n == 0 {
		var need int64
		for _, b := range append(blocks, 0) {
			need = max(need, memory.Need(inputs, 0, b))
		}
		return fmt.Errorf("%w: a budget of %s cannot hold one task, which needs at least %s (its output's buffers and %d input file(s)); nothing was made: give --memory %s or more",
			memory.ErrTooSmall, memory.Bytes(limit), memory.Bytes(need), inputs, memory.Bytes(need))
	}
	if n < want {
		c.log.Warn(fmt.Sprintf("the memory budget of %s holds %d tasks at once, not the %d workers asked for: running %d", memory.Bytes(limit), n, want, n),
			"memory", limit, "workers", want, "running", n, "inputs", inputs)
		c.o.Workers = n
	}
	return nil
}

// fitPlanned runs fewer tasks at once when the planned tasks still to run need more than
// their share: the most input files of one family in one task decides. A task that does not
// fit the whole budget fails on its own (memory.ErrTooSmall); the others run.
func (c *copyRun) fitPlanned(ctx context.Context, id string) error {
	tasks, err := c.reg.Tasks(ctx, id)
	if err != nil {
		return fmt.Errorf("job %s: tasks: %w", id, err)
	}
	done, err := c.reg.TasksWith(ctx, id, registry.StatusDone)
	if err != nil {
		return fmt.Errorf("job %s: done tasks: %w", id, err)
	}
	most := 0
	for _, t := range tasks {
		if _, ok := slices.BinarySearch(done, t); ok {
			continue
		}
		b, err := c.reg.TaskSpec(ctx, id, t)
		if err != nil {
			return fmt.Errorf("job %s: task %s: %w", id, t, err)
		}
		spec, err := job.DecodeTaskSpec(b)
		if err != nil {
			return fmt.Errorf("job %s: task %s: %w", id, t, err)
		}
		per := map[string]int{}
		for _, in := range spec.Inputs {
			per[in.File.Family]++
			most = max(most, per[in.File.Family])
		}
	}
	if most <= 1 {
		return nil
	}
	if err := c.fitWorkers(most); err != nil {
		c.log.Warn("a task has more input files than the whole memory budget holds: it will fail; give --memory more",
			"job", id, "inputs", most, "err", err)
	}
	return nil
}

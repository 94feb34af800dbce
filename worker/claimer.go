package worker

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	"rangecopy/registry"
)

// claimer finds tasks of one job for one worker to claim: first the tasks of
// the job's claim order (the master's list of its costliest tasks, costliest
// first), then what registry.ClaimAny finds from the worker's bucket: orphans
// (tasks with a checkpoint whose holder went away) before pending tasks, and
// only in the buckets its sweep found open. It is safe for concurrent use by a
// worker's slots.
type claimer struct {
	reg *registry.Registry
	job string

	mu        sync.Mutex
	orderRead bool
	queue     []string  // the claim order's tasks not tried yet
	start     int       // the bucket ClaimAny starts from
	idleTil   time.Time // ClaimAny found nothing: don't ask before
}

func newClaimer(reg *registry.Registry, job string, start int) *claimer {
	return &claimer{reg: reg, job: job, start: ((start % registry.Buckets) + registry.Buckets) % registry.Buckets}
}

// wake lets the next call scan at once (the job changed).
func (c *claimer) wake() {
	c.mu.Lock()
	c.idleTil = time.Time{}
	c.mu.Unlock()
}

// next claims a task for worker, or returns (nil, nil) when there is none to
// claim now; a job with nothing claimable is left alone for idle (or until
// wake).
func (c *claimer) next(ctx context.Context, worker string, idle time.Duration) (*registry.Claim, error) {
	if err := c.loadOrder(ctx); err != nil {
		return nil, err
	}
	for {
		id, ok := c.pop()
		if !ok {
			break
		}
		if ctx.Err() != nil {
			return nil, nil
		}
		cl, err := c.reg.ClaimTask(ctx, c.job, id, worker)
		switch {
		case err == nil:
			return cl, nil
		case errors.Is(err, registry.ErrClaimed), errors.Is(err, registry.ErrFinished),
			errors.Is(err, registry.ErrConflict), errors.Is(err, registry.ErrNotFound):
			// Someone got there first.
		default:
			return nil, fmt.Errorf("claim task %s: %w", id, err)
		}
	}
	c.mu.Lock()
	idleNow := time.Now().Before(c.idleTil)
	c.mu.Unlock()
	if idleNow || ctx.Err() != nil {
		return nil, nil
	}
	cl, err := c.reg.ClaimAny(ctx, c.job, worker, c.start)
	switch {
	case err == nil:
		return cl, nil
	case errors.Is(err, registry.ErrNotFound):
		c.mu.Lock()
		c.idleTil = time.Now().Add(idle)
		c.mu.Unlock()
		return nil, nil
	}
	return nil, fmt.Errorf("claim a task: %w", err)
}

// pop takes the next task of the claim order, if any is left.
func (c *claimer) pop() (string, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.queue) == 0 {
		return "", false
	}
	id := c.queue[0]
	c.queue = c.queue[1:]
	return id, true
}

// loadOrder reads the job's claim order into the queue, once.
func (c *claimer) loadOrder(ctx context.Context) error {
	c.mu.Lock()
	read := c.orderRead
	c.mu.Unlock()
	if read {
		return nil
	}
	order, err := c.readOrder(ctx)
	if err != nil {
		return err
	}
	c.mu.Lock()
	if !c.orderRead {
		c.orderRead = true
		c.queue = append(order, c.queue...)
	}
	c.mu.Unlock()
	return nil
}

// readOrder reads the job's claim order; a job without one has none.
func (c *claimer) readOrder(ctx context.Context) ([]string, error) {
	b, err := c.reg.JobData(ctx, c.job, registry.NodeOrder)
	if err != nil || len(b) == 0 {
		return nil, err
	}
	var order []string
	if err := json.Unmarshal(b, &order); err != nil {
		return nil, fmt.Errorf("job %s: claim order: %w", c.job, err)
	}
	return order, nil
}

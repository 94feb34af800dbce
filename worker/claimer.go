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
// first), then tasks found scanning the buckets from where the last scan
// stopped. It is safe for concurrent use by a worker's slots.
type claimer struct {
	reg *registry.Registry
	job string

	mu        sync.Mutex
	orderRead bool
	queue     []string  // candidates, in the order to try them
	cursor    int       // the next bucket to scan
	idleTil   time.Time // a full scan found nothing: don't scan before
}

func newClaimer(reg *registry.Registry, job string, start int) *claimer {
	return &claimer{reg: reg, job: job, cursor: ((start % registry.Buckets) + registry.Buckets) % registry.Buckets}
}

// wake lets the next call scan at once (the job changed).
func (c *claimer) wake() {
	c.mu.Lock()
	c.idleTil = time.Time{}
	c.mu.Unlock()
}

// next claims a task for worker, or returns (nil, nil) when there is none to
// claim now; a scan of every bucket that finds none makes the job idle for
// idle. A scan stops once it has want candidates.
func (c *claimer) next(ctx context.Context, worker string, want int, idle time.Duration) (*registry.Claim, error) {
	for ctx.Err() == nil {
		id, err := c.candidate(ctx, want, idle)
		if err != nil || id == "" {
			return nil, err
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
	return nil, nil
}

// candidate returns the next task to try, "" for none.
func (c *claimer) candidate(ctx context.Context, want int, idle time.Duration) (string, error) {
	c.mu.Lock()
	if !c.orderRead {
		c.mu.Unlock()
		order, err := c.readOrder(ctx)
		if err != nil {
			return "", err
		}
		c.mu.Lock()
		if !c.orderRead {
			c.orderRead = true
			c.queue = append(order, c.queue...)
		}
	}
	if len(c.queue) == 0 {
		if time.Now().Before(c.idleTil) {
			c.mu.Unlock()
			return "", nil
		}
		c.mu.Unlock()
		found, err := c.scan(ctx, want)
		if err != nil {
			return "", err
		}
		c.mu.Lock()
		if len(found) == 0 {
			c.idleTil = time.Now().Add(idle)
			c.mu.Unlock()
			return "", nil
		}
		c.queue = append(c.queue, found...)
	}
	id := c.queue[0]
	c.queue = c.queue[1:]
	c.mu.Unlock()
	return id, nil
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

// scan looks through the buckets from the cursor for up to want claimable
// tasks, one full round at most.
func (c *claimer) scan(ctx context.Context, want int) ([]string, error) {
	c.mu.Lock()
	start := c.cursor
	c.mu.Unlock()
	var found []string
	b := start
	for i := 0; i < registry.Buckets && len(found) < want; i++ {
		b = (start + i) % registry.Buckets
		ids, err := c.reg.Claimable(ctx, c.job, b)
		if err != nil {
			return nil, err
		}
		found = append(found, ids...)
	}
	c.mu.Lock()
	c.cursor = (b + 1) % registry.Buckets
	c.mu.Unlock()
	return found, nil
}

package registry_test

import (
	"context"
	"errors"
	"log"

	"rangecopy/registry"
)

// A worker claims tasks, checkpoints as it goes and stops at once when its
// claim is lost.
func Example_worker() {
	ctx := context.Background()
	reg, err := registry.Open(ctx, registry.Config{Servers: []string{"zk1:2181"}})
	if err != nil {
		log.Fatal(err)
	}
	defer reg.Close()
	const me = "worker-a"
	if err := reg.RegisterWorker(ctx, registry.Worker{ID: me, Capacity: 4}); err != nil {
		log.Fatal(err)
	}
	for {
		c, err := reg.ClaimAny(ctx, "job-1", me, registry.Bucket(me))
		if errors.Is(err, registry.ErrNotFound) {
			return // nothing left; a real worker waits on WatchJob
		}
		if err != nil {
			log.Fatal(err)
		}
		taskCtx, cancel := context.WithCancel(ctx)
		go func() { <-c.Lost(); cancel() }()
		err = copyTask(taskCtx, c)
		switch {
		case err == nil:
			err = c.Done(ctx)
		case registry.Classify(err) == registry.ActionStop || taskCtx.Err() != nil:
			err = c.Release(ctx) // or ErrLostClaim: someone else has it now
		default:
			err = c.Fail(ctx, err)
		}
		cancel()
		if err != nil && registry.Classify(err) != registry.ActionStop {
			log.Print(err)
		}
	}
}

func copyTask(ctx context.Context, c *registry.Claim) error {
	// ... read c.Spec(), copy, and before each bulk load:
	if ok, err := c.Valid(ctx); err != nil || !ok {
		return registry.ErrLostClaim
	}
	// ... bulk load, then:
	return c.SaveCheckpoint(ctx, []byte("encoded checkpoint"))
}

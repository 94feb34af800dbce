package registry

import (
	"context"
	"errors"
	"fmt"

	"github.com/go-zookeeper/zk"
)

// armFunc sets one one-shot ZooKeeper watch. gone reports that the watched
// thing no longer exists and watching should end.
type armFunc func() (ch <-chan zk.Event, gone bool, err error)

type fired struct {
	i  int
	ev zk.Event
}

// WatchJob returns a channel that receives a value whenever something in the
// job changed: its state or message, tasks added, a claim taken, released or
// vanished with its session, a result written or reset. Changes are coalesced
// (one value may stand for many); the receiver re-reads what it needs. After
// a session expiry every watch is set again and a value is sent, since
// changes may have been missed. The channel is closed when ctx ends or the
// job is deleted.
func (r *Registry) WatchJob(ctx context.Context, job string) (<-chan struct{}, error) {
	if err := ValidateJobID(job); err != nil {
		return nil, fmt.Errorf("registry: job: %w", err)
	}
	jobPath := r.p.job(job)
	arms := []armFunc{
		func() (<-chan zk.Event, bool, error) {
			ok, _, ch, err := r.conn.ExistsW(jobPath)
			return ch, err == nil && !ok, err
		},
		func() (<-chan zk.Event, bool, error) {
			ok, _, ch, err := r.conn.ExistsW(r.p.events(job))
			return ch, err == nil && !ok, err
		},
	}
	for b := 0; b < Buckets; b++ {
		dir := r.p.bucketDir(job, kindClaims, b)
		arms = append(arms, func() (<-chan zk.Event, bool, error) {
			_, _, ch, err := r.conn.ChildrenW(dir)
			if errors.Is(err, zk.ErrNoNode) {
				return nil, true, nil
			}
			return ch, false, err
		})
	}
	return r.watch(ctx, "job "+job, arms)
}

// WatchWorkers returns a channel that receives a value whenever a worker
// registers, goes away or updates its registration (coalesced). It is closed
// when ctx ends.
func (r *Registry) WatchWorkers(ctx context.Context) (<-chan struct{}, error) {
	dir := r.p.workersDir()
	return r.watch(ctx, "workers", []armFunc{
		func() (<-chan zk.Event, bool, error) {
			_, _, ch, err := r.conn.ChildrenW(dir)
			return ch, errors.Is(err, zk.ErrNoNode), ignoreNoNode(err)
		},
	})
}

func ignoreNoNode(err error) error {
	if errors.Is(err, zk.ErrNoNode) {
		return nil
	}
	return err
}

// watch sets every watch, then keeps them set until ctx ends or one reports
// its thing gone, sending a coalesced value on every event.
func (r *Registry) watch(ctx context.Context, what string, arms []armFunc) (<-chan struct{}, error) {
	firedCh := make(chan fired, len(arms))
	forward := func(i int, ch <-chan zk.Event) {
		select {
		case ev := <-ch:
			firedCh <- fired{i, ev}
		case <-ctx.Done():
		case <-r.closed:
		}
	}
	// arm sets watch i; it reports gone, or an error to retry later.
	arm := func(i int) (bool, error) {
		if err := r.alive(ctx); err != nil {
			return false, err
		}
		ch, gone, err := arms[i]()
		if err != nil || gone {
			return gone, err
		}
		go forward(i, ch)
		return false, nil
	}
	var failed []int
	for i := range arms {
		gone, err := arm(i)
		if gone {
			return nil, fmt.Errorf("registry: watch %s: %w", what, ErrNotFound)
		}
		if err != nil {
			if r.alive(ctx) != nil {
				return nil, err
			}
			failed = append(failed, i)
		}
	}
	out := make(chan struct{}, 1)
	notify := func() {
		select {
		case out <- struct{}{}:
		default:
		}
	}
	go func() {
		defer close(out)
		for {
			if len(failed) > 0 {
				// A watch could not be set (no connection): retry after a
				// pause, and tell the receiver to look again.
				if err := r.pause(ctx, retryPause); err != nil {
					return
				}
				if err := r.waitSession(ctx); err != nil {
					return
				}
				retry := failed
				failed = nil
				for _, i := range retry {
					gone, err := arm(i)
					if gone || r.alive(ctx) != nil {
						notify()
						return
					}
					if err != nil {
						failed = append(failed, i)
					}
				}
				notify()
				continue
			}
			select {
			case <-ctx.Done():
				return
			case <-r.closed:
				return
			case f := <-firedCh:
				notify()
				if f.ev.Type == zk.EventNodeDeleted && f.i == 0 {
					return // the watched thing itself is gone
				}
				gone, err := arm(f.i)
				if gone {
					return
				}
				if err != nil {
					r.log.Debug("watch: re-arm", "what", what, "err", err)
					failed = append(failed, f.i)
				}
			}
		}
	}()
	return out, nil
}

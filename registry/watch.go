package registry

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

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

// wake sends a value on ch, a channel of capacity one, unless one is waiting
// there already: receivers learn that something changed, not how often.
func wake(ch chan<- struct{}) {
	select {
	case ch <- struct{}{}:
	default:
	}
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
	notify := func() { wake(out) }
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

// WatchAllJobs returns a channel that receives a value whenever a job is registered or
// removed, changes state or message, or has tasks added, claimed, released, finished or reset
// (coalesced: one value may stand for many). It sets two watches a job (its node and its
// events node), not one a bucket as WatchJob does, so a master or worker may hold it over
// every job; a claim that vanishes with its session is not told, so a receiver also looks at
// a period of its own. The channel is closed when ctx ends or the registry closes.
func (r *Registry) WatchAllJobs(ctx context.Context) (<-chan struct{}, error) {
	if err := r.alive(ctx); err != nil {
		return nil, err
	}
	out := make(chan struct{}, 1)
	notify := func() { wake(out) }
	go func() {
		defer close(out)
		subs := map[string]context.CancelFunc{}
		// The forwarders notify on out: every one has returned before it is closed.
		var forwarders sync.WaitGroup
		defer func() {
			for _, cancel := range subs {
				cancel()
			}
			forwarders.Wait()
		}()
		for ctx.Err() == nil && !isClosed(r.closed) {
			var ids []string
			var ch <-chan zk.Event
			err := r.alive(ctx)
			if err == nil {
				ids, _, ch, err = r.conn.ChildrenW(r.p.jobsDir())
			}
			if err != nil {
				if errors.Is(err, zk.ErrNoNode) {
					// No job was ever registered: wait for the folder.
					var ok bool
					ok, _, ch, err = r.conn.ExistsW(r.p.jobsDir())
					if err == nil && ok {
						continue
					}
				}
				if err != nil {
					if r.pause(ctx, retryPause) != nil {
						return
					}
					notify()
					continue
				}
			}
			live := make(map[string]bool, len(ids))
			changed := false
			for _, id := range ids {
				live[id] = true
				if _, ok := subs[id]; !ok {
					jctx, cancel := context.WithCancel(ctx)
					subs[id] = cancel
					forwarders.Add(1)
					go func() {
						defer forwarders.Done()
						r.forwardJob(jctx, id, notify)
					}()
					changed = true
				}
			}
			for id, cancel := range subs {
				if !live[id] {
					cancel()
					delete(subs, id)
					changed = true
				}
			}
			if changed {
				// Jobs came or went between two listings (or before the first): say so.
				notify()
			}
			select {
			case <-ch:
				notify()
			case <-ctx.Done():
				return
			case <-r.closed:
				return
			}
		}
	}()
	return out, nil
}

// forwardJob calls notify whenever a job's node or events node changes, until ctx ends or
// the job is gone. Only a watch that fired is set again (an unfired one stays registered
// with the client; setting it again would pile channels up on the path).
func (r *Registry) forwardJob(ctx context.Context, job string, notify func()) {
	var jobCh, evCh <-chan zk.Event
	for ctx.Err() == nil && !isClosed(r.closed) {
		if r.alive(ctx) != nil {
			if r.pause(ctx, retryPause) != nil {
				return
			}
			continue
		}
		var err error
		if jobCh == nil {
			var ok bool
			ok, _, jobCh, err = r.conn.ExistsW(r.p.job(job))
			if err == nil && !ok {
				return
			}
		}
		if err == nil && evCh == nil {
			_, _, evCh, err = r.conn.ExistsW(r.p.events(job))
		}
		if err != nil {
			jobCh, evCh = nil, nil // a failed call: the session may have changed; set both again
			if r.pause(ctx, retryPause) != nil {
				return
			}
			notify()
			continue
		}
		select {
		case <-jobCh:
			jobCh = nil
		case <-evCh:
			evCh = nil
		case <-ctx.Done():
			return
		case <-r.closed:
			return
		}
		notify()
	}
}

// Pacer paces a loop that looks at every job: it waits for its period, or for a change told
// by WatchAllJobs, but never looks again sooner than MinGap after the last look (a busy job
// would wake it with every claim). A nil Changes waits for the period only.
type Pacer struct {
	// Changes is a WatchAllJobs channel, or nil.
	Changes <-chan struct{}
	// Period is the longest wait; MinGap the shortest time between two looks.
	Period, MinGap time.Duration

	last  time.Time
	timer *time.Timer
}

// Wait returns when the loop should look again: true for a change, false for the period.
// It returns false at once when ctx has ended.
func (p *Pacer) Wait(ctx context.Context) bool {
	defer func() { p.last = time.Now() }()
	if p.timer == nil {
		p.timer = time.NewTimer(p.Period)
	} else {
		p.timer.Reset(p.Period - min(p.Period, time.Since(p.last)))
	}
	changed := false
	select {
	case <-ctx.Done():
		return false
	case <-p.timer.C:
	case _, ok := <-p.Changes:
		if !ok {
			p.Changes = nil // the watch ended: the period alone from now on
		}
		changed = ok
		if !p.timer.Stop() {
			<-p.timer.C
		}
		if gap := p.MinGap - time.Since(p.last); gap > 0 {
			t := time.NewTimer(gap)
			select {
			case <-ctx.Done():
				t.Stop()
				return false
			case <-t.C:
			}
		}
	}
	return changed
}

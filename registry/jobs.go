package registry

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"sync"

	"github.com/go-zookeeper/zk"
)

// Job is a job node as read: its state, a message (why it failed, who paused
// it) and the caller's spec bytes, with the node version that SetJobState
// expects.
type Job struct {
	ID      string
	State   JobState
	Message string
	Spec    []byte
	Version int32
}

// CreateJob registers a job in state Pending, with all its bucket folders, in
// one transaction. A job that exists is ErrExists.
func (r *Registry) CreateJob(ctx context.Context, id string, spec []byte) (Job, error) {
	if err := ValidateJobID(id); err != nil {
		return Job{}, fmt.Errorf("registry: job: %w", err)
	}
	if len(spec) > MaxSpec {
		return Job{}, fmt.Errorf("registry: job %s: spec of %d bytes: %w (max %d)", id, len(spec), ErrTooLarge, MaxSpec)
	}
	if err := r.alive(ctx); err != nil {
		return Job{}, err
	}
	rec := jobRecord{State: JobPending, Spec: spec}
	ops := []any{
		&zk.CreateRequest{Path: r.p.job(id), Data: rec.encode(), Acl: openACL},
		&zk.CreateRequest{Path: r.p.events(id), Acl: openACL},
	}
	for _, k := range kinds {
		var data []byte
		if k == kindTasks {
			data = digestFresh // AddTasks: no task added yet
		}
		ops = append(ops, &zk.CreateRequest{Path: r.p.dir(id, k), Data: data, Acl: openACL})
		for b := 0; b < Buckets; b++ {
			ops = append(ops, &zk.CreateRequest{Path: r.p.bucketDir(id, k, b), Acl: openACL})
		}
	}
	if _, err := multiErr(r.conn.Multi(ops...)); err != nil {
		if errors.Is(err, zk.ErrNodeExists) {
			return Job{}, fmt.Errorf("registry: job %s: %w", id, ErrExists)
		}
		return Job{}, fmt.Errorf("registry: create job %s: %w", id, err)
	}
	return Job{ID: id, State: JobPending, Spec: spec}, nil
}

// Job reads a job.
func (r *Registry) Job(ctx context.Context, id string) (Job, error) {
	if err := ValidateJobID(id); err != nil {
		return Job{}, fmt.Errorf("registry: job: %w", err)
	}
	if err := r.alive(ctx); err != nil {
		return Job{}, err
	}
	b, st, err := r.conn.Get(r.p.job(id))
	if err != nil {
		if errors.Is(err, zk.ErrNoNode) {
			return Job{}, fmt.Errorf("registry: job %s: %w", id, ErrNotFound)
		}
		return Job{}, fmt.Errorf("registry: read job %s: %w", id, err)
	}
	rec, err := decodeJobRecord(b)
	if err != nil {
		return Job{}, fmt.Errorf("registry: job %s: %w", id, err)
	}
	return Job{ID: id, State: rec.State, Message: rec.Message, Spec: rec.Spec, Version: st.Version}, nil
}

// Jobs lists the ids of all jobs, sorted.
func (r *Registry) Jobs(ctx context.Context) ([]string, error) {
	if err := r.alive(ctx); err != nil {
		return nil, err
	}
	ids, _, err := r.conn.Children(r.p.jobsDir())
	if err != nil {
		return nil, fmt.Errorf("registry: list jobs: %w", err)
	}
	sort.Strings(ids)
	return ids, nil
}

// SetJobState moves a job from the state it had when read (j.State, at
// j.Version) to another, with a message (cut to MaxMessage). A transition the
// state machine refuses is ErrTransition; a job changed since it was read is
// ErrConflict: read it again and decide again.
func (r *Registry) SetJobState(ctx context.Context, j Job, to JobState, message string) (Job, error) {
	if err := Transition(j.State, to); err != nil {
		return Job{}, fmt.Errorf("registry: job %s: %w", j.ID, err)
	}
	if err := ValidateJobID(j.ID); err != nil {
		return Job{}, fmt.Errorf("registry: job: %w", err)
	}
	if err := r.alive(ctx); err != nil {
		return Job{}, err
	}
	rec := jobRecord{State: to, Message: truncateMessage(message), Spec: j.Spec}
	st, err := r.conn.Set(r.p.job(j.ID), rec.encode(), j.Version)
	switch {
	case errors.Is(err, zk.ErrBadVersion):
		return Job{}, fmt.Errorf("registry: job %s: %v to %v at version %d: %w", j.ID, j.State, to, j.Version, ErrConflict)
	case errors.Is(err, zk.ErrNoNode):
		return Job{}, fmt.Errorf("registry: job %s: %w", j.ID, ErrNotFound)
	case err != nil:
		return Job{}, fmt.Errorf("registry: job %s: set state %v: %w", j.ID, to, err)
	}
	return Job{ID: j.ID, State: to, Message: rec.Message, Spec: j.Spec, Version: st.Version}, nil
}

// DeleteJob removes a job with all its tasks, claims, checkpoints and results.
// A job that does not exist is not an error.
func (r *Registry) DeleteJob(ctx context.Context, id string) error {
	if err := ValidateJobID(id); err != nil {
		return fmt.Errorf("registry: job: %w", err)
	}
	r.forgetHint(id)
	if err := r.deleteTree(ctx, r.p.job(id)); err != nil {
		return fmt.Errorf("registry: delete job %s: %w", id, err)
	}
	return nil
}

// deleteTree deletes a node and everything below it: leaves first, each
// folder's children in transactions of at most deleteBatch deletes, the
// folders of one level in parallel.
func (r *Registry) deleteTree(ctx context.Context, p string) error {
	if err := r.alive(ctx); err != nil {
		return err
	}
	children, _, err := r.conn.Children(p)
	if errors.Is(err, zk.ErrNoNode) {
		return nil
	}
	if err != nil {
		return err
	}
	sort.Strings(children)
	// Try the children as leaves in batches; a batch that fails because a
	// child has children of its own is done one by one, recursively.
	const deleteBatch = 500
	err = parallel(ctx, (len(children)+deleteBatch-1)/deleteBatch, 8, func(i int) error {
		batch := children[i*deleteBatch : min(len(children), (i+1)*deleteBatch)]
		ops := make([]any, len(batch))
		for j, c := range batch {
			ops[j] = &zk.DeleteRequest{Path: p + "/" + c, Version: -1}
		}
		if _, err := multiErr(r.conn.Multi(ops...)); err == nil {
			return nil
		}
		return parallel(ctx, len(batch), 8, func(j int) error {
			return r.deleteTree(ctx, p+"/"+batch[j])
		})
	})
	if err != nil {
		return err
	}
	if err := r.conn.Delete(p, -1); err != nil && !errors.Is(err, zk.ErrNoNode) {
		return fmt.Errorf("delete %s: %w", p, err)
	}
	return nil
}

// parallel runs f(0..n-1) on at most width goroutines and returns the first
// error; it stops starting new calls after an error or when ctx is done.
func parallel(ctx context.Context, n, width int, f func(i int) error) error {
	var (
		wg       sync.WaitGroup
		mu       sync.Mutex
		firstErr error
		next     int
	)
	take := func() (int, bool) {
		mu.Lock()
		defer mu.Unlock()
		if firstErr != nil || next >= n {
			return 0, false
		}
		if err := ctx.Err(); err != nil {
			firstErr = err
			return 0, false
		}
		next++
		return next - 1, true
	}
	for w := 0; w < min(width, n); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i, ok := take()
				if !ok {
					return
				}
				if err := f(i); err != nil {
					mu.Lock()
					if firstErr == nil {
						firstErr = err
					}
					mu.Unlock()
				}
			}
		}()
	}
	wg.Wait()
	return firstErr
}

// maxUpdateRaces bounds UpdateJob's retries after lost races.
const maxUpdateRaces = 20

// UpdateJob reads a job, asks decide for its next state and message, and
// writes them with a version check, reading and deciding again when another
// writer got there first (at most 20 times, then ErrConflict). decide sees
// the job as stored; an error from it is returned as is. A decision that
// keeps state and message writes nothing.
func (r *Registry) UpdateJob(ctx context.Context, id string, decide func(Job) (JobState, string, error)) (Job, error) {
	for attempt := 0; ; attempt++ {
		j, err := r.Job(ctx, id)
		if err != nil {
			return Job{}, err
		}
		to, msg, err := decide(j)
		if err != nil {
			return j, err
		}
		if to == j.State && truncateMessage(msg) == j.Message {
			return j, nil
		}
		nj, err := r.SetJobState(ctx, j, to, msg)
		if errors.Is(err, ErrConflict) && attempt+1 < maxUpdateRaces {
			continue
		}
		return nj, err
	}
}

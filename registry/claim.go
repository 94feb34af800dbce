package registry

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-zookeeper/zk"
)

// Claim is a worker's hold on a task in one ZooKeeper session, fenced by the
// task's epoch (the task node's version right after the claim).
type Claim struct {
	r       *Registry
	job     string
	task    string
	worker  string
	spec    []byte
	session int64
	epoch   int32
	lost    chan struct{} // closed when the claim is lost or ended
	stop    chan struct{} // closed by Release, Done, Fail
	once    sync.Once

	mu    sync.Mutex
	ended bool // released or finished
	// ending is set before the transaction that releases or finishes the
	// claim: the claim node's deletion is then no news to log.
	ending atomic.Bool
}

// Job, Task, Worker, Spec, Session and Epoch describe the claim.
func (c *Claim) Job() string    { return c.job }
func (c *Claim) Task() string   { return c.task }
func (c *Claim) Worker() string { return c.worker }
func (c *Claim) Spec() []byte   { return c.spec }
func (c *Claim) Session() int64 { return c.session }
func (c *Claim) Epoch() int32   { return c.epoch }

// Lost returns a channel closed when the claim is lost: its session ended
// (expired, or the connection was down for a whole session timeout), or its
// node was deleted or is owned by another session. The holder must stop the
// task at once (a worker cancels the task's context), and then call Release,
// which either gives the task back or reports ErrLostClaim. The channel is
// also closed once the claim is released or finished.
func (c *Claim) Lost() <-chan struct{} { return c.lost }

// watch closes c.lost when the claim is lost or ended.
func (c *Claim) watch(sessionLost <-chan struct{}) {
	defer close(c.lost)
	if why := c.r.holdNode(c.r.p.claim(c.job, c.task), c.session, sessionLost, c.stop); why != "" && !(why == "node deleted" && c.ending.Load()) {
		c.r.log.Warn("claim lost", "job", c.job, "task", c.task, "why", why)
	}
}

// maxClaimRaces bounds the retries of a claim that lost a race on the task's
// version to another writer that did not take the claim (a reset, a result).
const maxClaimRaces = 5

// ClaimTask claims a task for a worker in the current session. A task held by
// another claim is ErrClaimed; a task with a result is ErrFinished; an unknown
// task or job is ErrNotFound.
func (r *Registry) ClaimTask(ctx context.Context, job, task, worker string) (*Claim, error) {
	if err := validateTask(job, task); err != nil {
		return nil, err
	}
	if err := ValidateID(worker); err != nil {
		return nil, fmt.Errorf("registry: worker: %w", err)
	}
	for attempt := 0; ; attempt++ {
		if err := r.alive(ctx); err != nil {
			return nil, err
		}
		session, lost := r.session()
		select {
		case <-lost:
			return nil, fmt.Errorf("registry: claim job %s: task %s: %w", job, task, ErrSessionLost)
		default:
		}
		spec, st, err := r.conn.Get(r.p.task(job, task))
		if err != nil {
			return nil, notFound(err, "claim job %s: task %s", job, task)
		}
		// Read after the task's version: a result written before it is seen
		// here, one written after it moves the version and fails the Multi.
		for _, s := range []Status{StatusDone, StatusFailed} {
			ok, _, err := r.conn.Exists(r.p.result(job, task, s))
			if err != nil {
				return nil, fmt.Errorf("registry: claim job %s: task %s: %w", job, task, err)
			}
			if ok {
				return nil, fmt.Errorf("registry: claim job %s: task %s is %v: %w", job, task, s, ErrFinished)
			}
		}
		rec := claimRecord{Worker: worker, Session: session, Epoch: st.Version + 1}
		res, err := r.conn.Multi(
			&zk.CreateRequest{Path: r.p.claim(job, task), Data: rec.encode(), Acl: openACL, Flags: zk.FlagEphemeral},
			&zk.SetDataRequest{Path: r.p.task(job, task), Data: spec, Version: st.Version},
			&zk.SetDataRequest{Path: r.p.events(job), Version: -1},
		)
		i, err := multiErr(res, err)
		switch {
		case err == nil:
		case i == 0 && errors.Is(err, zk.ErrNodeExists):
			holder := "another worker"
			if b, _, gerr := r.conn.Get(r.p.claim(job, task)); gerr == nil {
				if h, derr := decodeClaimRecord(b); derr == nil {
					holder = fmt.Sprintf("worker %s (session %#x)", h.Worker, h.Session)
				}
			}
			return nil, fmt.Errorf("registry: claim job %s: task %s held by %s: %w", job, task, holder, ErrClaimed)
		case i == 1 && errors.Is(err, zk.ErrBadVersion):
			if attempt+1 < maxClaimRaces {
				continue
			}
			return nil, fmt.Errorf("registry: claim job %s: task %s: %w", job, task, ErrConflict)
		case errors.Is(err, zk.ErrNoNode):
			return nil, fmt.Errorf("registry: claim job %s: task %s: %w", job, task, ErrNotFound)
		default:
			return nil, fmt.Errorf("registry: claim job %s: task %s: %w", job, task, err)
		}
		epoch := res[1].Stat.Version
		c := &Claim{r: r, job: job, task: task, worker: worker, spec: spec, session: session, epoch: epoch,
			lost: make(chan struct{}), stop: make(chan struct{})}
		// The session may have changed while the transaction was in flight:
		// then the claim node belongs to a session the claim does not name.
		// Give it back rather than leave it held by nobody who knows.
		if r.conn.SessionID() != session || isClosed(lost) {
			r.dropOrphan(job, task)
			return nil, fmt.Errorf("registry: claim job %s: task %s: %w", job, task, ErrSessionLost)
		}
		go c.watch(lost)
		return c, nil
	}
}

// dropOrphan deletes a claim node that the current session owns but no Claim
// describes.
func (r *Registry) dropOrphan(job, task string) {
	ok, st, err := r.conn.Exists(r.p.claim(job, task))
	if err == nil && ok && st.EphemeralOwner == r.conn.SessionID() {
		_ = r.conn.Delete(r.p.claim(job, task), st.Version)
	}
}

func isClosed(ch <-chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}

// fence are the checks that open every write of a holder: the task is at the
// claim's epoch (no one claimed it since) and the claim node is there.
func (c *Claim) fence() []any {
	return []any{
		&zk.CheckVersionRequest{Path: c.r.p.task(c.job, c.task), Version: c.epoch},
		&zk.CheckVersionRequest{Path: c.r.p.claim(c.job, c.task), Version: 0},
	}
}

// fencedErr maps the error of a fenced transaction: a failed check, or an
// expired session, is ErrLostClaim.
func (c *Claim) fencedErr(what string, i int, err error) error {
	switch {
	case err == nil:
		return nil
	case i >= 0 && i < 2 && (errors.Is(err, zk.ErrBadVersion) || errors.Is(err, zk.ErrNoNode)),
		errors.Is(err, zk.ErrSessionExpired):
		return fmt.Errorf("registry: job %s: task %s: %s (epoch %d, session %#x): %w: %v", c.job, c.task, what, c.epoch, c.session, ErrLostClaim, err)
	}
	return fmt.Errorf("registry: job %s: task %s: %s: %w", c.job, c.task, what, err)
}

func (c *Claim) usable(ctx context.Context, what string) error {
	if err := c.r.alive(ctx); err != nil {
		return err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.ended {
		return fmt.Errorf("registry: job %s: task %s: %s after the claim ended: %w", c.job, c.task, what, ErrLostClaim)
	}
	return nil
}

// SaveCheckpoint stores the task's checkpoint (at most MaxCheckpoint bytes),
// only if the claim still holds: otherwise ErrLostClaim.
func (c *Claim) SaveCheckpoint(ctx context.Context, b []byte) error {
	if len(b) > MaxCheckpoint {
		return fmt.Errorf("registry: job %s: task %s: checkpoint of %d bytes: %w (max %d)", c.job, c.task, len(b), ErrTooLarge, MaxCheckpoint)
	}
	if err := c.usable(ctx, "save checkpoint"); err != nil {
		return err
	}
	path := c.r.p.checkpoint(c.job, c.task)
	i, err := multiErr(c.r.conn.Multi(append(c.fence(), &zk.SetDataRequest{Path: path, Data: b, Version: -1})...))
	if i == 2 && errors.Is(err, zk.ErrNoNode) {
		// The first save creates the node.
		i, err = multiErr(c.r.conn.Multi(append(c.fence(), &zk.CreateRequest{Path: path, Data: b, Acl: openACL})...))
	}
	return c.fencedErr("save checkpoint", i, err)
}

// Done records that the task is done and ends the claim, in one transaction.
func (c *Claim) Done(ctx context.Context) error {
	return c.finish(ctx, Result{Status: StatusDone, Worker: c.worker})
}

// Fail records that the task failed with an error (its message cut to
// MaxMessage bytes) and ends the claim, in one transaction. The task is not
// claimed again unless the master resets it (ResetTask).
func (c *Claim) Fail(ctx context.Context, cause error) error {
	msg := "unknown error"
	if cause != nil {
		msg = cause.Error()
	}
	return c.finish(ctx, Result{Status: StatusFailed, Worker: c.worker, Message: truncateMessage(msg)})
}

func (c *Claim) finish(ctx context.Context, res Result) error {
	what := "set result " + res.Status.String()
	if err := c.usable(ctx, what); err != nil {
		return err
	}
	// Moving the task's version as well closes the race with a claimer that
	// read "no result" before this transaction.
	c.ending.Store(true)
	i, err := multiErr(c.r.conn.Multi(
		&zk.SetDataRequest{Path: c.r.p.task(c.job, c.task), Data: c.spec, Version: c.epoch},
		&zk.DeleteRequest{Path: c.r.p.claim(c.job, c.task), Version: 0},
		&zk.CreateRequest{Path: c.r.p.result(c.job, c.task, res.Status), Data: res.encode(), Acl: openACL},
		&zk.SetDataRequest{Path: c.r.p.events(c.job), Version: -1},
	))
	if err == nil {
		c.end()
		return nil
	}
	ferr := c.fencedErr(what, i, err)
	if errors.Is(ferr, ErrLostClaim) && c.finishedEarlier(res) {
		// An earlier attempt whose answer was lost did write it.
		c.end()
		return nil
	}
	return ferr
}

// finishedEarlier reports whether this claim's result is already stored: the
// result is there, from this worker, and the task is at the version the
// result's transaction left (no claim or reset since).
func (c *Claim) finishedEarlier(res Result) bool {
	b, _, err := c.r.conn.Get(c.r.p.result(c.job, c.task, res.Status))
	if err != nil {
		return false
	}
	got, err := decodeResult(b)
	if err != nil || got != res {
		return false
	}
	ok, st, err := c.r.conn.Exists(c.r.p.task(c.job, c.task))
	return err == nil && ok && st.Version == c.epoch+1
}

// Release gives the task back (the worker stops without a result); its
// checkpoint stays for the next holder. A claim already lost is ErrLostClaim.
func (c *Claim) Release(ctx context.Context) error {
	if err := c.usable(ctx, "release"); err != nil {
		return err
	}
	c.ending.Store(true)
	i, err := multiErr(c.r.conn.Multi(
		&zk.CheckVersionRequest{Path: c.r.p.task(c.job, c.task), Version: c.epoch},
		&zk.DeleteRequest{Path: c.r.p.claim(c.job, c.task), Version: 0},
		&zk.SetDataRequest{Path: c.r.p.events(c.job), Version: -1},
	))
	if err == nil || Classify(c.fencedErr("release", i, err)) == ActionStop {
		c.end()
	}
	return c.fencedErr("release", i, err)
}

func (c *Claim) end() {
	c.mu.Lock()
	c.ended = true
	c.mu.Unlock()
	c.once.Do(func() { close(c.stop) })
}

// Valid asks the server whether the claim still holds: after a sync with the
// leader, the claim node must be owned by the claim's session, which must be
// the connection's current one, and the task must be at the claim's epoch.
// Run it right before an irreversible outside action (a bulk load); false
// means stop, an error means it could not be told (treat as false).
func (c *Claim) Valid(ctx context.Context) (bool, error) {
	if err := c.usable(ctx, "validate"); err != nil {
		if errors.Is(err, ErrLostClaim) {
			return false, nil
		}
		return false, err
	}
	if isClosed(c.lost) || c.r.conn.SessionID() != c.session {
		return false, nil
	}
	path := c.r.p.claim(c.job, c.task)
	if _, err := c.r.conn.Sync(path); err != nil {
		if errors.Is(err, zk.ErrNoNode) {
			return false, nil
		}
		return false, fmt.Errorf("registry: job %s: task %s: sync: %w", c.job, c.task, err)
	}
	ok, st, err := c.r.conn.Exists(path)
	if err != nil {
		return false, fmt.Errorf("registry: job %s: task %s: read claim: %w", c.job, c.task, err)
	}
	if !ok || st.EphemeralOwner != c.session {
		return false, nil
	}
	ok, st, err = c.r.conn.Exists(c.r.p.task(c.job, c.task))
	if err != nil {
		return false, fmt.Errorf("registry: job %s: task %s: read task: %w", c.job, c.task, err)
	}
	return ok && st.Version == c.epoch && c.r.conn.SessionID() == c.session && !isClosed(c.lost), nil
}

// ClaimAny claims some claimable task of a job for a worker: first an
// orphan (a task that saved a checkpoint and that no one holds or finished:
// its holder died or released it), then a pending one, looking through the
// buckets from start (mod Buckets; spread workers' starts, e.g. by a hash of
// the worker id, so they do not all race for the same tasks). Nothing
// claimable is ErrNotFound.
//
// The registry remembers per job which buckets may hold claimable tasks and
// the orphans, from a sweep of the buckets' sizes (see claimHint): a claim on
// a job with few claimable tasks left visits only their buckets. A sweep runs
// at the first claim, once every session timeout (a dead holder's claims go
// with its session: its orphans are found within about two session
// timeouts), and when the buckets thought open are used up, but then at
// most once a second: in that second a task given back in a bucket found
// empty may be answered ErrNotFound.
func (r *Registry) ClaimAny(ctx context.Context, job, worker string, start int) (*Claim, error) {
	if err := validateTask(job, worker); err != nil {
		return nil, err
	}
	start = ((start % Buckets) + Buckets) % Buckets
	h := r.claimHint(job)
	swept := false
	if h.due(time.Now(), r.sweepEvery()) {
		if err := r.sweep(ctx, job, h); err != nil {
			return nil, err
		}
		swept = true
	}
	for {
		for id := h.nextOrphan(); id != ""; id = h.nextOrphan() {
			c, err := r.tryClaim(ctx, job, id, worker)
			if c != nil || err != nil {
				return c, err
			}
		}
		for i := 0; i < Buckets; i++ {
			b := (start + i) % Buckets
			if !h.isOpen(b) {
				continue
			}
			ids, err := r.Claimable(ctx, job, b)
			if err != nil {
				return nil, err
			}
			for _, id := range ids {
				c, err := r.tryClaim(ctx, job, id, worker)
				if c != nil || err != nil {
					return c, err
				}
			}
			h.close(b)
		}
		if swept || !h.mayResweep(time.Now()) {
			return nil, fmt.Errorf("registry: job %s: no claimable task: %w", job, ErrNotFound)
		}
		if err := r.sweep(ctx, job, h); err != nil {
			return nil, err
		}
		swept = true
	}
}

// tryClaim claims a task, or returns (nil, nil) when someone got there first.
func (r *Registry) tryClaim(ctx context.Context, job, task, worker string) (*Claim, error) {
	c, err := r.ClaimTask(ctx, job, task, worker)
	switch {
	case err == nil:
		return c, nil
	case errors.Is(err, ErrClaimed), errors.Is(err, ErrFinished), errors.Is(err, ErrConflict), errors.Is(err, ErrNotFound):
		return nil, nil
	}
	return nil, err
}

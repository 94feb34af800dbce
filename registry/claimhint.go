package registry

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"time"
)

// claimHint is what a registry remembers of one job for ClaimAny: which
// buckets may hold claimable tasks and which orphans the last sweep found.
// A sweep reads the size of each bucket's folders (one stat each, no
// listing): a bucket is open when it holds more tasks than claims and
// results, and may hold orphans when it also holds more checkpoints than
// done tasks; only those are listed.
type claimHint struct {
	sweepMu sync.Mutex // one sweep at a time

	mu      sync.Mutex
	known   bool
	swept   time.Time
	open    [Buckets]bool
	orphans []string
}

// minResweep is the least time between two sweeps asked for because the
// buckets thought open were used up.
const minResweep = time.Second

// due reports whether a sweep is due before claiming: none yet, or the last
// is older than every.
func (h *claimHint) due(now time.Time, every time.Duration) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	return !h.known || now.Sub(h.swept) >= every
}

// mayResweep reports whether the buckets may be swept again now.
func (h *claimHint) mayResweep(now time.Time) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	return now.Sub(h.swept) >= minResweep
}

func (h *claimHint) isOpen(b int) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.open[b]
}

func (h *claimHint) close(b int) {
	h.mu.Lock()
	h.open[b] = false
	h.mu.Unlock()
}

// nextOrphan takes the next orphan to try, "" for none.
func (h *claimHint) nextOrphan() string {
	h.mu.Lock()
	defer h.mu.Unlock()
	if len(h.orphans) == 0 {
		return ""
	}
	id := h.orphans[0]
	h.orphans = h.orphans[1:]
	return id
}

// bucketSizes are the numbers of children of one bucket's folders.
type bucketSizes struct {
	tasks, claims, done, failed, checkpoints int32
}

// bucketOpen decides whether a bucket may hold a claimable task: more tasks
// than claims and results (a task has at most one of those).
func bucketOpen(s bucketSizes) bool {
	return s.tasks > s.claims+s.done+s.failed
}

// mayHoldOrphans decides whether an open bucket is worth listing for
// orphans: some task that is not done has a checkpoint. A done task that
// saved no checkpoint can hide an orphan from this test; that orphan is
// then claimed in its bucket's turn.
func mayHoldOrphans(s bucketSizes) bool {
	return bucketOpen(s) && s.checkpoints > s.done
}

// orphansOf are the checkpointed tasks of a bucket that are neither held nor
// finished, sorted.
func orphansOf(checkpoints, claims, done, failed []string) []string {
	busy := make(map[string]bool, len(claims)+len(done)+len(failed))
	for _, l := range [][]string{claims, done, failed} {
		for _, id := range l {
			busy[id] = true
		}
	}
	var out []string
	for _, id := range checkpoints {
		if !busy[id] {
			out = append(out, id)
		}
	}
	slices.Sort(out)
	return out
}

// claimHint returns the job's hint, made on first use.
func (r *Registry) claimHint(job string) *claimHint {
	r.hintsMu.Lock()
	defer r.hintsMu.Unlock()
	if r.hints == nil {
		r.hints = map[string]*claimHint{}
	}
	h := r.hints[job]
	if h == nil {
		h = &claimHint{}
		r.hints[job] = h
	}
	return h
}

// forgetHint drops a job's hint (the job was deleted).
func (r *Registry) forgetHint(job string) {
	r.hintsMu.Lock()
	delete(r.hints, job)
	r.hintsMu.Unlock()
}

// sweepEvery is how often ClaimAny sweeps a job's buckets: once a session
// timeout, within which a dead holder's claims vanish.
func (r *Registry) sweepEvery() time.Duration { return max(r.timeout, minResweep) }

// sweep reads the sizes of every bucket's folders, 16 buckets at once, and
// lists the buckets that may hold orphans.
func (r *Registry) sweep(ctx context.Context, job string, h *claimHint) error {
	h.sweepMu.Lock()
	defer h.sweepMu.Unlock()
	started := time.Now()
	var open [Buckets]bool
	var orphans [Buckets][]string
	err := parallel(ctx, Buckets, 16, func(b int) error {
		var n [len(kindsByStatus) + 1]int32
		for i, k := range append(kindsByStatus[:], kindCheckpoints) {
			if err := r.alive(ctx); err != nil {
				return err
			}
			ok, st, err := r.conn.Exists(r.p.bucketDir(job, k, b))
			if err != nil {
				return fmt.Errorf("registry: job %s: size of %s/%s: %w", job, k, bucketName(b), err)
			}
			if !ok {
				return fmt.Errorf("registry: job %s: %s/%s: %w", job, k, bucketName(b), ErrNotFound)
			}
			n[i] = st.NumChildren
		}
		s := bucketSizes{tasks: n[0], claims: n[1], done: n[2], failed: n[3], checkpoints: n[4]}
		open[b] = bucketOpen(s)
		if !mayHoldOrphans(s) {
			return nil
		}
		lists, err := r.listKinds(ctx, job, b, [...]string{kindCheckpoints, kindClaims, kindDone, kindFailed})
		if err != nil {
			return err
		}
		orphans[b] = orphansOf(lists[0], lists[1], lists[2], lists[3])
		return nil
	})
	if err != nil {
		return err
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	h.known, h.swept, h.open, h.orphans = true, started, open, slices.Concat(orphans[:]...)
	return nil
}

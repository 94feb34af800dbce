package master

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"rangecopy/hbase"
	"rangecopy/registry"
	"rangecopy/retry"
	"rangecopy/snapshot"
)

// PinAttempts bounds the snapshots one planning takes of the source: the
// first and PinAttempts-1 more after failed ones.
const PinAttempts = 6

// pinBackoff is the wait before each snapshot taken again: 15 s before the
// second, doubling to 2 min. The waits add up to 465 s before the sixth: an
// older master (one that coordinates snapshots through ZooKeeper) refuses
// any snapshot of a table while one of it runs, and one that waits on a dead
// server runs until the master's snapshot timeout (300 s by default) fails
// it; the later snapshots come after that.
func pinBackoff() retry.Backoff {
	return retry.Backoff{Initial: 15 * time.Second, Max: 2 * time.Minute}
}

// PinState is a job's side node registry.NodePin: the snapshot that pins the
// job's inputs when it is not the one the job's record names, because that
// one (and maybe more) failed.
type PinState struct {
	// Snapshot is the name of the snapshot in use (or being taken).
	Snapshot string `json:"snapshot"`
	// Failed are the names of the snapshots that failed, oldest first, and
	// Errors why, one each.
	Failed []string `json:"failed,omitempty"`
	Errors []string `json:"errors,omitempty"`
}

// Retries is how many snapshots were taken again after a failed one.
func (s PinState) Retries() int { return len(s.Failed) }

// PinRetry says whether a planning whose attempt-th snapshot (0 for the
// first) failed with err takes another, and how long it waits first. Only a
// failure of the snapshot itself (hbase.ErrSnapshotFailed: a region server
// died while it was taken, the master timed it out or refused it while
// another snapshot of the table ran) is worth another: any other error (the
// table is gone, the request ended, the snapshot is unreadable) would fail
// again the same way.
func PinRetry(err error, attempt int) (bool, time.Duration) {
	if err == nil || !errors.Is(err, hbase.ErrSnapshotFailed) || attempt+1 >= PinAttempts {
		return false, 0
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return false, 0
	}
	return true, pinBackoff().DelayAt(attempt, 0)
}

// PinName is the name of a job's attempt-th snapshot: the record's name for
// the first, with a suffix "-rN" for the N-th taken again.
func PinName(base string, attempt int) string {
	if attempt == 0 {
		return base
	}
	return fmt.Sprintf("%s-r%d", base, attempt)
}

// loadPinState reads a job's pin side node; a job with none pins with the
// snapshot its record names.
func loadPinState(ctx context.Context, reg *registry.Registry, id, base string) (PinState, error) {
	b, err := reg.JobData(ctx, id, registry.NodePin)
	if err != nil {
		return PinState{}, fmt.Errorf("job %s: read its snapshot state: %w", id, err)
	}
	if len(b) == 0 {
		return PinState{Snapshot: base}, nil
	}
	var s PinState
	if err := json.Unmarshal(b, &s); err != nil || s.Snapshot == "" || len(s.Failed) != len(s.Errors) {
		return PinState{}, fmt.Errorf("job %s: its snapshot state %q is not valid (%v)", id, b, err)
	}
	return s, nil
}

// pinJob returns the job's pinned inputs. It goes on with the snapshot in
// use (the record's, or the one a failed snapshot was replaced with); when a
// snapshot fails in a way that another may not (PinRetry), it takes one
// under a new name after a backoff, up to PinAttempts in all, recording each
// new name in the job's pin side node before taking it, so that a master
// that resumes the planning goes on with that name and the job's clean-up
// releases them all.
func (p *Planner) pinJob(ctx context.Context, id, base string) (*snapshot.Pinned, PinState, error) {
	st, err := loadPinState(ctx, p.reg, id, base)
	if err != nil {
		return nil, st, err
	}
	for {
		pd, err := p.pin(ctx, st.Snapshot)
		if err == nil {
			return pd, st, nil
		}
		attempt := st.Retries()
		again, wait := PinRetry(err, attempt)
		if !again {
			if attempt > 0 {
				err = fmt.Errorf("%w (snapshot %d of %d; the earlier ones failed: %v)", err, attempt+1, PinAttempts, st.Errors)
			}
			return nil, st, err
		}
		// A failed snapshot may have left one behind (complete but
		// unreadable, say): release it, it pins nothing the job uses.
		if rerr := snapshot.Release(context.WithoutCancel(ctx), p.src, st.Snapshot); rerr != nil && !errors.Is(rerr, hbase.ErrSnapshotNotFound) {
			p.log.Debug("release a failed snapshot", "snapshot", st.Snapshot, "err", rerr)
		}
		next := PinState{Snapshot: PinName(base, attempt+1), Failed: append(st.Failed, st.Snapshot), Errors: append(st.Errors, err.Error())}
		b, jerr := json.Marshal(next)
		if jerr == nil {
			jerr = p.reg.PutJobData(ctx, id, registry.NodePin, b)
		}
		if jerr != nil {
			return nil, st, fmt.Errorf("%w; and recording a new snapshot name failed: %v", err, jerr)
		}
		p.log.Warn("the source snapshot failed; taking another under a new name", "job", id, "failed", st.Snapshot,
			"next", next.Snapshot, "attempt", attempt+2, "of", PinAttempts, "wait", wait, "err", err)
		st = next
		if err := retry.Sleep(ctx, wait); err != nil {
			return nil, st, err
		}
	}
}

// releaseSnapshots deletes the job's snapshots: the one in use and any that
// failed. One already gone is not an error.
func (p *Planner) releaseSnapshots(ctx context.Context, id, base string) error {
	st, err := loadPinState(ctx, p.reg, id, base)
	if err != nil {
		p.log.Warn("read the job's snapshot state; releasing the record's snapshot only", "job", id, "err", err)
		st = PinState{Snapshot: base}
	}
	var errs []error
	for _, name := range append(st.Failed, st.Snapshot) {
		if err := snapshot.Release(ctx, p.src, name); err != nil && !errors.Is(err, hbase.ErrSnapshotNotFound) {
			p.log.Warn("delete the job's snapshot", "snapshot", name, "err", err)
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

package master

import (
	"context"
	"errors"
	"fmt"
	"time"

	"rangecopy/bulkload"
	"rangecopy/job"
	"rangecopy/registry"
)

// Finish ends a job whose tasks are all done: it releases the snapshot (unless kept),
// removes the work folder, stores the final report and marks the job done. A job the
// masters serve (detached) is marked done first and cleaned up after, so that its submitter
// (a relocation's window) hears of its end without waiting for the clean-up: the registry's
// NodeCleanup is set before the job is marked done and cleared after the clean-up, and a
// leader that finds it set on a done job cleans up (SweepCleanup). A job run in one
// process is cleaned up first. Either way a master that dies on the way leaves a job that
// the next one finishes the same way. Only the first to mark the job done logs "job done".
func (p *Planner) Finish(ctx context.Context, j registry.Job, rec job.Record, rep *job.Report) error {
	start := time.Now()
	if !p.detached {
		_ = p.cleanup(ctx, j.ID, rec) // logged; a job run in one process is not swept
	} else if err := p.reg.PutJobData(ctx, j.ID, registry.NodeCleanup, []byte(cleanupPending)); err != nil {
		return fmt.Errorf("job %s: mark its clean-up pending: %w", j.ID, err)
	}
	rep.Status = job.ReportDone
	rep.UpdatedAt = time.Now().UTC()
	rep.Error = ""
	if err := storeReport(ctx, p.reg, *rep); err != nil {
		p.log.Warn("store the job's report", "job", j.ID, "err", err)
	}
	if _, err := p.reg.SetJobState(ctx, j, registry.JobDone, "done"); err != nil {
		j2, err2 := p.reg.Job(ctx, j.ID)
		switch {
		case err2 == nil && j2.State == registry.JobDone:
			return nil // finished by another master meanwhile
		case err2 == nil:
			_, err = p.reg.SetJobState(ctx, j2, registry.JobDone, "done")
		}
		if err != nil {
			return fmt.Errorf("job %s: mark done: %w", j.ID, err)
		}
	}
	done := time.Since(start)
	if p.detached {
		p.finishCleanup(ctx, j.ID, rec)
	}
	p.log.Info("job done", "job", j.ID, "tasks", rep.Tasks, "files", rep.FilesLoaded, "bytes", rep.BytesLoaded,
		"marked_done_after", done, "finish", time.Since(start))
	return nil
}

// cleanupPending is NodeCleanup's content while a done job's clean-up is to come.
const cleanupPending = "pending"

// SweepCleanup cleans up a done job whose clean-up its master did not finish (NodeCleanup
// is set): snapshot released, work folder removed, the node cleared. A job with nothing
// pending is left as it is. It reports whether it cleaned up.
func (p *Planner) SweepCleanup(ctx context.Context, j registry.Job) (bool, error) {
	b, err := p.reg.JobData(ctx, j.ID, registry.NodeCleanup)
	if err != nil || len(b) == 0 {
		return false, err
	}
	rec, err := job.DecodeRecord(j.Spec)
	if err != nil {
		return false, fmt.Errorf("job %s: %w", j.ID, err)
	}
	p.log.Info("cleaning up a done job whose clean-up did not finish", "job", j.ID)
	p.finishCleanup(ctx, j.ID, rec)
	return true, nil
}

// finishCleanup cleans up a done job and clears its NodeCleanup; what fails is logged and
// left pending.
func (p *Planner) finishCleanup(ctx context.Context, id string, rec job.Record) {
	if err := p.cleanup(ctx, id, rec); err != nil {
		return // left pending: the next leader tries again
	}
	if err := p.reg.PutJobData(ctx, id, registry.NodeCleanup, nil); err != nil {
		p.log.Warn("clear the job's pending clean-up", "job", id, "err", err)
	}
}

// cleanup releases the job's snapshot (unless kept) and removes its work
// folder. Both may have been done before: that is not an error. It logs what
// failed and returns it.
func (p *Planner) cleanup(ctx context.Context, id string, rec job.Record) error {
	var errs []error
	if !rec.Options.KeepSnapshot {
		errs = append(errs, p.releaseSnapshots(ctx, id, rec.Snapshot))
	}
	wd, err := bulkload.OpenWorkDir(ctx, p.tgtFS, id, bulkload.WorkDirOptions{Root: rec.Options.WorkRoot, User: rec.Options.User})
	if err == nil {
		err = wd.Remove(ctx)
	}
	if err != nil {
		p.log.Warn("remove the job's work folder", "job", id, "err", err)
		errs = append(errs, fmt.Errorf("job %s: remove the work folder: %w", id, err))
	}
	return errors.Join(errs...)
}

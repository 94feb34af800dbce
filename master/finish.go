package master

import (
	"context"
	"fmt"
	"time"

	"rangecopy/bulkload"
	"rangecopy/job"
	"rangecopy/registry"
)

// Finish ends a job whose tasks are all done: it releases the snapshot
// (unless kept), removes the work folder, stores the final report and marks
// the job done, in that order, so that a master that dies on the way leaves
// a running job that the next leader finishes the same way. Only the first
// to mark the job done logs "job done".
func (p *Planner) Finish(ctx context.Context, j registry.Job, rec job.Record, rep *job.Report) error {
	p.cleanup(ctx, j.ID, rec)
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
	p.log.Info("job done", "job", j.ID, "tasks", rep.Tasks, "files", rep.FilesLoaded, "bytes", rep.BytesLoaded)
	return nil
}

// cleanup releases the job's snapshot (unless kept) and removes its work
// folder. Both may have been done before: that is not an error.
func (p *Planner) cleanup(ctx context.Context, id string, rec job.Record) {
	if !rec.Options.KeepSnapshot {
		p.releaseSnapshots(ctx, id, rec.Snapshot)
	}
	wd, err := bulkload.OpenWorkDir(ctx, p.tgtFS, id, bulkload.WorkDirOptions{Root: rec.Options.WorkRoot, User: rec.Options.User})
	if err == nil {
		err = wd.Remove(ctx)
	}
	if err != nil {
		p.log.Warn("remove the job's work folder", "job", id, "err", err)
	}
}

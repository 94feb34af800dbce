package master

import (
	"context"
	"encoding/json"
	"fmt"

	"rangecopy/bulkload"
	"rangecopy/job"
	"rangecopy/progress"
	"rangecopy/registry"
)

// finish ends a job whose tasks are all done: it releases the snapshot
// (unless kept), removes the work folder, stores the final report and marks
// the job done, in that order, so that a master that dies on the way leaves
// a running job that the next leader finishes the same way. Only the first
// to mark the job done logs "job done".
func (r *run) finish(ctx context.Context, j registry.Job, rec job.Record, rep *progress.Report) error {
	r.cleanup(ctx, j.ID, rec)
	rep.Status = "done"
	rep.Error = ""
	if err := storeReport(ctx, r.reg, j.ID, *rep); err != nil {
		r.log.Warn("store the job's report", "job", j.ID, "err", err)
	}
	if _, err := r.reg.SetJobState(ctx, j, registry.JobDone, "done"); err != nil {
		j2, err2 := r.reg.Job(ctx, j.ID)
		switch {
		case err2 == nil && j2.State == registry.JobDone:
			return nil // finished by another master meanwhile
		case err2 == nil:
			_, err = r.reg.SetJobState(ctx, j2, registry.JobDone, "done")
		}
		if err != nil {
			return fmt.Errorf("job %s: mark done: %w", j.ID, err)
		}
	}
	r.log.Info("job done", "job", j.ID, "tasks", rep.Tasks, "files", rep.FilesLoaded, "bytes", rep.BytesLoaded)
	return nil
}

// cleanup releases the job's snapshot (unless kept) and removes its work
// folder. Both may have been done before: that is not an error.
func (r *run) cleanup(ctx context.Context, id string, rec job.Record) {
	if !rec.Options.KeepSnapshot {
		r.releaseSnapshots(ctx, id, rec.Snapshot)
	}
	wd, err := bulkload.OpenWorkDir(ctx, r.tgtFS, id, bulkload.WorkDirOptions{Root: rec.Options.WorkRoot, User: rec.Options.User})
	if err == nil {
		err = wd.Remove(ctx)
	}
	if err != nil {
		r.log.Warn("remove the job's work folder", "job", id, "err", err)
	}
}

// storeReport writes a job's report into its registry node.
func storeReport(ctx context.Context, reg *registry.Registry, id string, rep progress.Report) error {
	b, err := json.Marshal(rep)
	if err != nil {
		return err
	}
	return reg.PutJobData(ctx, id, registry.NodeReport, b)
}

// LoadReport reads the report a master stored for a job: its progress while
// it runs, its final report once it ended. A job without one yet reads as
// (zero, false, nil).
func LoadReport(ctx context.Context, reg *registry.Registry, id string) (progress.Report, bool, error) {
	b, err := reg.JobData(ctx, id, registry.NodeReport)
	if err != nil || len(b) == 0 {
		return progress.Report{}, false, err
	}
	var rep progress.Report
	if err := json.Unmarshal(b, &rep); err != nil {
		return progress.Report{}, false, fmt.Errorf("job %s: report: %w", id, err)
	}
	return rep, true, nil
}

package master

import (
	"context"
	"errors"
	"fmt"
	"time"

	"rangecopy/job"
	"rangecopy/registry"
)

// Register finds the job the request names, or registers it: a job of the
// same copy that ended is deleted and registered anew, except that a done
// job asked for by Options.Resume is reported done (done set). It returns
// the job, its record and the report it starts from.
func (p *Planner) Register(ctx context.Context) (j registry.Job, rec job.Record, rep job.Report, done bool, err error) {
	o := p.o
	id := o.Resume
	if id == "" {
		id = JobID(o.Source, o.Target, o.Spec)
	}
	rep = job.NewReport(id, o.Spec)
	j, err = p.reg.Job(ctx, id)
	switch {
	case errors.Is(err, registry.ErrNotFound):
		j, err = p.create(ctx, id)
		if err != nil {
			return j, rec, rep, false, err
		}
	case err != nil:
		return j, rec, rep, false, fmt.Errorf("job %s: %w", id, err)
	case j.State == registry.JobDone && o.Resume != "":
		rep.Status = job.ReportDone
		p.log.Info("job is already done", "job", id)
		return j, rec, rep, true, nil
	case j.State.Final():
		p.log.Info("job of the same copy ended before; starting it anew", "job", id, "state", j.State.String())
		if err := p.reg.DeleteJob(ctx, id); err != nil {
			return j, rec, rep, false, fmt.Errorf("job %s: remove the ended run: %w", id, err)
		}
		if j, err = p.create(ctx, id); err != nil {
			return j, rec, rep, false, err
		}
	default:
		p.log.Info("resuming job", "job", id, "state", j.State.String())
	}
	rec, err = job.DecodeRecord(j.Spec)
	if err != nil {
		return j, rec, rep, false, fmt.Errorf("job %s: %w", id, err)
	}
	if !rec.IsCopy() {
		return j, rec, rep, false, fmt.Errorf("job %s is a %s job, not a copy", id, rec.Kind)
	}
	if len(rec.Source.ZKQuorum) == 0 {
		// A record of the first format names no clusters and options:
		// this run's serve it.
		rec.Source, rec.Target, rec.Options = o.Source, o.Target, p.record(rec.Snapshot).Options
	}
	return j, rec, rep, false, nil
}

// create registers the job; the target table is made sure of while the
// source is pinned (plan), or by Submit before.
func (p *Planner) create(ctx context.Context, id string) (registry.Job, error) {
	// A new name for every run of the job, so that a snapshot kept from an
	// earlier run of the same copy is never taken for this one's.
	snap := fmt.Sprintf("%s-%d", SnapshotName(id), time.Now().UnixMilli())
	b, err := job.EncodeRecord(p.record(snap))
	if err != nil {
		return registry.Job{}, err
	}
	j, err := p.reg.CreateJob(ctx, id, b)
	if err != nil {
		return registry.Job{}, fmt.Errorf("register job %s: %w", id, err)
	}
	p.log.Info("registered job", "job", id)
	return j, nil
}

// record is the job's registry record.
func (p *Planner) record(snapshot string) job.Record {
	o := p.o
	run := o.RunOptions
	run.Detached = p.detached
	return job.Record{Kind: job.KindCopy, Spec: o.Spec, Snapshot: snapshot, Source: o.Source, Target: o.Target, Options: run}
}

package server

import (
	"context"
	"errors"
	"fmt"

	"rangecopy/api"
	"rangecopy/job"
	"rangecopy/jobs"
	"rangecopy/master"
	"rangecopy/registry"
	"rangecopy/relocate"
	"rangecopy/units"
	"rangecopy/verify"
)

// The relocation driver (relocate) reaches jobs and verifications through interfaces it
// owns; these adapters implement them on the job service (jobs), the registry and verify. The job
// service's typed errors become the driver's errors here, and nowhere else.

// newRelocations is the server's relocation driver.
func newRelocations(s *Server) *relocate.Driver {
	return relocate.New(relocate.Config{Catalog: s.cat, Jobs: relocationJobs{s}, Verifier: relocationVerifier{s},
		Poll: s.cfg.Poll, Logger: s.cfg.Logger, CatalogError: func(error) { s.metrics.catalogErrors.Inc() }})
}

// relocationJobs is relocate.Jobs on the server's jobs.
type relocationJobs struct{ s *Server }

// Submit submits through the job service, on behalf of sub.By.
func (j relocationJobs) Submit(ctx context.Context, sub relocate.Submission) (string, error) {
	req, err := jobs.NewRequest(sub.Source, sub.Target, sub.Request)
	if err == nil {
		req.By, req.Relocation = sub.By, sub.Relocation
		var got jobs.Submitted
		if got, err = j.s.jobs.Submit(ctx, req); err == nil {
			return got.ID, nil
		}
	}
	return "", jobError(err)
}

// Control pauses, resumes or cancels a job in the registry.
func (j relocationJobs) Control(ctx context.Context, id string, c relocate.Control) error {
	act := map[relocate.Control]master.Action{relocate.Pause: master.ActionPause, relocate.Resume: master.ActionResume,
		relocate.Cancel: master.ActionCancel}[c]
	_, err := master.Control(ctx, j.s.reg, id, act)
	var se *master.StateError
	if errors.As(err, &se) {
		return &wrapped{kind: relocate.ErrConflict, err: err}
	}
	return err
}

// Outcome reads the registry's state first, one read: while a job runs, that is all. A job
// done gives its figures from its final report; the job's whole view (its tasks counted over
// every bucket, or its catalog row once the registry dropped it) is read only when it ended
// otherwise.
func (j relocationJobs) Outcome(ctx context.Context, id string) (relocate.Outcome, error) {
	rj, err := j.s.reg.Job(ctx, id)
	switch {
	case err == nil && !rj.State.Final():
		return relocate.Outcome{State: relocate.JobActive}, nil
	case err != nil && !errors.Is(err, registry.ErrNotFound):
		return relocate.Outcome{}, err
	case err == nil && rj.State == registry.JobDone:
		rep, ok, err := master.LoadReport(ctx, j.s.reg, id)
		if err != nil {
			return relocate.Outcome{}, err
		}
		if ok {
			return relocate.Outcome{State: relocate.JobDone, BytesRead: rep.BytesRead, FilesLoaded: rep.FilesLoaded,
				FilesPruned: int64(rep.FilesPruned)}, nil
		}
	}
	o, err := j.s.jobs.Outcome(ctx, id)
	if err != nil {
		return relocate.Outcome{}, jobError(err)
	}
	var out relocate.Outcome
	if r := o.Report; r != nil {
		out.BytesRead, out.FilesLoaded, out.FilesPruned = r.BytesRead, r.FilesLoaded, int64(r.FilesPruned)
	}
	switch {
	case o.Lost:
		out.State = relocate.JobLost
	case o.State == job.StateDone:
		out.State = relocate.JobDone
	case o.State == job.StateFailed:
		out.State = relocate.JobFailed
	case o.State == job.StateCancelled:
		out.State = relocate.JobCancelled
	default:
		return relocate.Outcome{State: relocate.JobActive}, nil
	}
	out.Why = o.Why()
	return out, nil
}

// Changes signals a change of any job in the registry.
func (j relocationJobs) Changes(ctx context.Context) (<-chan struct{}, error) {
	return j.s.reg.WatchAllJobs(ctx)
}

// jobError is err, an error of the job service, as the driver's errors: invalid, not found
// and conflict keep their kind. Its message stays err's.
func jobError(err error) error {
	var kind error
	switch {
	case errors.Is(err, jobs.ErrInvalid):
		kind = relocate.ErrInvalid
	case errors.Is(err, jobs.ErrNotFound):
		kind = relocate.ErrNotFound
	case errors.Is(err, jobs.ErrConflict):
		kind = relocate.ErrConflict
	default:
		return err
	}
	return &wrapped{kind: kind, err: err}
}

// wrapped is err, of kind (errors.Is), saying what err says.
type wrapped struct{ kind, err error }

func (w *wrapped) Error() string   { return w.err.Error() }
func (w *wrapped) Unwrap() []error { return []error{w.kind, w.err} }

// relocationVerifier is relocate.Verifier on verify.Run, in this process, with the
// clusters registered in the catalog; a repair re-copies as jobs of this server.
type relocationVerifier struct{ s *Server }

// Verify compares c's table over its rows and [0, c.Until), visible cells.
func (v relocationVerifier) Verify(ctx context.Context, c relocate.Check) (verify.Report, error) {
	o, err := v.options(ctx, c)
	if err != nil {
		return verify.Report{}, err
	}
	return verify.Run(ctx, o)
}

// Repair re-copies first's mismatched ranges over [0, c.Until) and verifies them again.
func (v relocationVerifier) Repair(ctx context.Context, c relocate.Check, first verify.Report) (verify.Report, error) {
	o, err := v.options(ctx, c)
	if err != nil {
		return first, err
	}
	zero, end := int64(0), c.Until
	base := api.JobSubmission{Source: c.Source, Target: c.Target, CopyRequest: api.CopyRequest{Table: c.Table.Source, TargetTable: c.Table.Target,
		StartTime: &zero, EndTime: &end, Families: c.Families, Bandwidth: c.Bandwidth}}
	return verify.Repair(ctx, o, first, v.s.rangeCopier(base, "relocation "+c.Relocation+" repair"))
}

// options are verify's options of c.
func (v relocationVerifier) options(ctx context.Context, c relocate.Check) (verify.Options, error) {
	s := v.s
	src, srcUser, err := s.api.clusterConfig(ctx, c.Source, "source")
	if err != nil {
		return verify.Options{}, err
	}
	tgt, tgtUser, err := s.api.clusterConfig(ctx, c.Target, "target")
	if err != nil {
		return verify.Options{}, err
	}
	user := tgtUser
	if user == "" {
		user = srcUser
	}
	if user == "" {
		user = s.cfg.User
	}
	var rows job.KeyRange
	if rows.Start, err = job.ParseKey(c.StartRow); err != nil {
		return verify.Options{}, fmt.Errorf("start row: %w", err)
	}
	if rows.End, err = job.ParseKey(c.StopRow); err != nil {
		return verify.Options{}, fmt.Errorf("stop row: %w", err)
	}
	var bw float64
	if c.Bandwidth != "" {
		if bw, err = units.ParseLimit(c.Bandwidth); err != nil {
			return verify.Options{}, fmt.Errorf("bandwidth: %w", err)
		}
	}
	return verify.Options{Source: src, Target: tgt, User: user, Table: c.Table.Source, TargetTable: c.Table.TargetTable(), Rows: rows,
		Time: job.TimeRange{Min: 0, Max: c.Until}, Families: c.Families, Mode: verify.ModeVisible, Bandwidth: bw,
		Logger: s.cfg.Logger.With("relocation", c.Relocation, "verify", c.Table.Source)}, nil
}

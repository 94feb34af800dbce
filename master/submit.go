package master

import (
	"context"
	"errors"
	"fmt"

	"rangecopy/registry"
)

// Submit registers a copy job for the running masters and workers (rangecopy
// copy --detach) and returns its id at once. It checks the request as Copy
// does (both clusters reachable, source table and families there, target
// table there or created with CreateTable) before it registers anything. A
// job of the same copy that is still under way, or registered by a submission
// of it at the same time, is not submitted again: its id is returned with
// existing set. A job of the same copy that ended is replaced.
func Submit(ctx context.Context, o Options) (id string, existing bool, err error) {
	if o.DryRun || o.Resume != "" {
		return "", false, errors.New("a detached job cannot be a dry run or a resume (use rangecopy job resume)")
	}
	p, err := Open(ctx, o)
	if err != nil {
		return "", false, err
	}
	defer p.Close()
	p.detached = true
	o = *p.o
	id = JobID(o.Source, o.Target, o.Spec)
	j, err := p.reg.Job(ctx, id)
	switch {
	case errors.Is(err, registry.ErrNotFound):
	case err != nil:
		return id, false, fmt.Errorf("job %s: %w", id, err)
	case !j.State.Final():
		p.log.Info("the same copy is already submitted", "job", id, "state", j.State.String())
		return id, true, nil
	default:
		// The ended run's clean-up first, if its master did not get to it (Finish).
		if _, err := p.SweepCleanup(ctx, j); err != nil {
			return id, false, fmt.Errorf("job %s: clean up the ended run: %w", id, err)
		}
		// A submission of the same copy at the same time may have removed it first.
		if err := p.reg.DeleteJob(ctx, id); err != nil && !errors.Is(err, registry.ErrNotFound) {
			return id, false, fmt.Errorf("job %s: remove the ended run: %w", id, err)
		}
	}
	// The table first, so that the submitter hears of a table that cannot
	// be created.
	if err := p.EnsureTable(ctx); err != nil {
		return id, false, err
	}
	if _, err := p.create(ctx, id); err != nil {
		if errors.Is(err, registry.ErrExists) {
			// A submission of the same copy at the same time registered it first:
			// that job is this one (its id says what it copies).
			p.log.Info("the same copy was submitted at the same time", "job", id)
			return id, true, nil
		}
		return id, false, err
	}
	return id, false, nil
}

package server

import (
	"context"
	"errors"
	"fmt"

	"github.com/danielgtaylor/huma/v2"

	"rangecopy/catalog"
	"rangecopy/progress"
	"rangecopy/registry"
)

// noteEvent adds an entry to a job's history in the catalog (a job the catalog does not
// know yet gets it at its next reconcile instead).
func (s *Server) noteEvent(ctx context.Context, id, msg string) {
	_, err := s.cat.UpdateJob(ctx, id, catalog.JobUpdate{Message: msg})
	if err != nil && !errors.Is(err, catalog.ErrNotFound) {
		s.metrics.catalogErrors.Inc()
		s.cfg.Logger.Warn("catalog: cannot record an event", "job", id, "event", msg, "err", err)
	}
}

// heldTasks counts the tasks each worker holds, over every running job.
func (s *Server) heldTasks(ctx context.Context) (map[string]int, error) {
	ids, err := s.reg.Jobs(ctx)
	if err != nil {
		return nil, err
	}
	out := map[string]int{}
	for _, id := range ids {
		j, err := s.reg.Job(ctx, id)
		if errors.Is(err, registry.ErrNotFound) {
			continue
		}
		if err != nil {
			return nil, err
		}
		if j.State != registry.JobRunning && j.State != registry.JobCancelling && j.State != registry.JobPaused {
			continue
		}
		holders, err := s.reg.ClaimHolders(ctx, id)
		if err != nil && !errors.Is(err, registry.ErrNotFound) {
			return nil, err
		}
		for _, w := range holders {
			out[w]++
		}
	}
	return out, nil
}

// rateText writes a bandwidth for people; 0 is no cap.
func rateText(bps float64) string {
	if bps <= 0 {
		return "no limit"
	}
	return progress.Bytes(int64(bps)) + "/s"
}

// setBandwidth changes the job-wide read cap of a job that has not ended; 0 removes it.
func (s *Server) setBandwidth(ctx context.Context, id string, bps float64) error {
	if err := knownJobID(id); err != nil {
		return err
	}
	j, err := s.reg.Job(ctx, id)
	if errors.Is(err, registry.ErrNotFound) {
		return huma.Error404NotFound("job " + id + ": no such job in the registry")
	}
	if err != nil {
		return huma.Error503ServiceUnavailable("job " + id + ": " + err.Error())
	}
	if j.State.Final() {
		return huma.Error409Conflict(fmt.Sprintf("job %s is %s: it has ended, its bandwidth cannot change", id, j.State))
	}
	if err := s.reg.SetBandwidth(ctx, id, bps); err != nil {
		return huma.Error503ServiceUnavailable("job " + id + ": set its bandwidth: " + err.Error())
	}
	return nil
}

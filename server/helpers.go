package server

import (
	"context"
	"errors"

	"rangecopy/catalog"
	"rangecopy/jobs"
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
func rateText(bps float64) string { return jobs.RateText(bps) }

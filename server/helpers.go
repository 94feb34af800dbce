package server

import (
	"context"
	"errors"

	"rangecopy/registry"
)

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

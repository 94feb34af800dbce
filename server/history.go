package server

import (
	"context"
	"time"

	"rangecopy/catalog"
)

// pruneHistory deletes, while this server leads, the audit entries older than
// Limits.AuditRetention and the ended jobs older than Limits.JobRetention (with their
// history, samples and reports), at once and then every Limits.PruneEvery, in batches of
// Limits.PruneBatch so that no delete holds the catalog for long. A retention of 0 keeps
// everything.
func (s *Server) pruneHistory(ctx context.Context) {
	lim := s.cfg.Limits
	if lim.AuditRetention <= 0 && lim.JobRetention <= 0 {
		return
	}
	t := time.NewTicker(lim.PruneEvery)
	defer t.Stop()
	for {
		s.pruneOnce(ctx, time.Now())
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// pruneOnce runs one pass of pruneHistory as of now and returns how many audit entries and
// jobs it deleted.
func (s *Server) pruneOnce(ctx context.Context, now time.Time) (audit, jobs int) {
	lim := s.cfg.Limits
	log := s.cfg.Logger
	batch := lim.PruneBatch
	if batch <= 0 {
		batch = catalog.DefaultPruneBatch
	}
	// drain calls prune until a batch comes back short (or ctx ends), pausing between
	// batches so that other writers get the catalog.
	drain := func(what string, prune func(ctx context.Context, before time.Time, batch int) (int, error), before time.Time) int {
		total := 0
		for ctx.Err() == nil {
			n, err := prune(ctx, before, batch)
			total += n
			if err != nil {
				if ctx.Err() == nil {
					log.Warn("prune the catalog", "what", what, "err", err)
					s.metrics.catalogErrors.Inc()
				}
				break
			}
			if n < batch {
				break
			}
			select {
			case <-ctx.Done():
			case <-time.After(50 * time.Millisecond):
			}
		}
		if total > 0 {
			log.Info("pruned the catalog", "what", what, "rows", total, "before", before.UTC().Format(time.RFC3339))
		}
		return total
	}
	if lim.AuditRetention > 0 {
		audit = drain("audit entries", s.cat.PruneAudit, now.Add(-lim.AuditRetention))
	}
	if lim.JobRetention > 0 {
		jobs = drain("ended jobs", s.cat.PruneJobs, now.Add(-lim.JobRetention))
	}
	return audit, jobs
}

package relocate

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"rangecopy/catalog"
	"rangecopy/relocation"
)

// windowStats are what a window's jobs did.
type windowStats struct {
	bytes, filesLoaded, filesPruned int64
}

// windowEnd is a window's end as its jobs tell it.
type windowEnd struct {
	event relocation.WindowEnded
	stats windowStats
}

// submitWindow submits the jobs r's running window lacks, one per table of sc; a job
// refused for what it asks (ErrInvalid, ErrConflict) ends the window failed. nil when
// there is nothing to submit or every job was.
func (d *Driver) submitWindow(ctx context.Context, r catalog.Relocation, sc relocation.Scope) (*windowEnd, error) {
	w, err := d.cfg.Catalog.RelocationWindow(ctx, r.ID, r.RunningSeq)
	if err != nil {
		return nil, err
	}
	plans := relocation.PlanWindow(sc, *windowOf(w))
	// Submitted one by one, each id recorded as it comes: a crash between two submissions
	// re-submits none that was recorded.
	for i := len(w.JobIDs); i < len(plans); i++ {
		start := time.Now()
		id, err := d.cfg.Jobs.Submit(ctx, Submission{Source: r.SourceCluster, Target: r.TargetCluster, Request: plans[i], By: "relocation " + r.ID,
			Relocation: r.ID})
		if errors.Is(err, ErrInvalid) || errors.Is(err, ErrConflict) {
			return &windowEnd{event: relocation.WindowEnded{Seq: w.Seq, Outcome: relocation.WindowFailed, At: time.Now(),
				Why: fmt.Sprintf("submit the job of table %s: %v", plans[i].Table, err)}}, nil
		}
		if err != nil {
			return nil, fmt.Errorf("window %d: submit the job of table %s: %w", w.Seq, plans[i].Table, err)
		}
		seq := w.Seq
		if _, err := d.cfg.Catalog.UpdateRelocation(ctx, r.ID, func(_ *catalog.Relocation, tx catalog.RelocationTx) error {
			cur, err := tx.Window(seq)
			if err != nil {
				return err
			}
			cur.JobIDs = append(cur.JobIDs, id)
			return tx.PutWindow(cur)
		}); err != nil {
			return nil, err
		}
		w.JobIDs = append(w.JobIDs, id)
		d.cfg.Logger.Info("relocation: window job submitted", "relocation", r.ID, "window", w.Seq, "job", id,
			"table", plans[i].Table, "took", time.Since(start), "since_window_start", time.Since(w.StartedAt))
	}
	return nil, nil
}

// watchWindow reports the end of r's running window once every job of it ended: ran when
// all are done, failed (saying which and why) when one failed, was cancelled or lost. nil
// while a job runs, or while the window lacks jobs (submitWindow's to submit).
func (d *Driver) watchWindow(ctx context.Context, r catalog.Relocation, sc relocation.Scope) (*windowEnd, error) {
	w, err := d.cfg.Catalog.RelocationWindow(ctx, r.ID, r.RunningSeq)
	if err != nil {
		return nil, err
	}
	plans := relocation.PlanWindow(sc, *windowOf(w))
	if len(w.JobIDs) < len(plans) {
		return nil, nil
	}
	var st windowStats
	var failed []string
	for i, id := range w.JobIDs {
		o, err := d.cfg.Jobs.Outcome(ctx, id)
		if err != nil {
			return nil, fmt.Errorf("window %d: job %s: %w", w.Seq, id, err)
		}
		if !o.State.Ended() {
			return nil, nil // while a job runs, the window does
		}
		if o.State != JobDone {
			table := "?"
			if i < len(plans) { // jobs are submitted in the plans' order
				table = plans[i].Table
			}
			failed = append(failed, fmt.Sprintf("job %s (%s) %s: %s", id, table, o.State, o.Why))
		}
		st.bytes += o.BytesRead
		st.filesLoaded += o.FilesLoaded
		st.filesPruned += o.FilesPruned
	}
	end := &windowEnd{stats: st, event: relocation.WindowEnded{Seq: w.Seq, Outcome: relocation.Ran, At: time.Now()}}
	if len(failed) > 0 {
		end.event.Outcome, end.event.Why = relocation.WindowFailed, strings.Join(failed, "; ")
	}
	return end, nil
}

package relocate

import (
	"context"
	"fmt"
	"time"

	"rangecopy/catalog"
	"rangecopy/relocation"
	"rangecopy/render"
	"rangecopy/verify"
)

// Report is what a verification of a relocation's scope found and repaired; the cut-over's
// is stored as the relocation's report (catalog.Relocation.Report, this JSON).
type Report struct {
	// Tables are the tables' parts, in scope order.
	Tables []TableReport `json:"tables"`
	// Until is the end of the time range verified, [0, until).
	Until int64 `json:"until"`
	// CellsCompared counts the source cells compared over every table.
	CellsCompared int64 `json:"cellsCompared"`
	// BatchesProven counts the batches matched unread, by file checksums.
	BatchesProven int `json:"batchesProven"`
	// Differences counts the cells that differed before the repair; Remaining after it.
	Differences int64 `json:"differences"`
	Remaining   int64 `json:"remaining"`
	// RangesRecopied counts the row ranges the repair copied again.
	RangesRecopied int `json:"rangesRecopied"`
	// BytesCopied sums the input bytes of every window; BytesVerified the HFile bytes the
	// verification read.
	BytesCopied   int64 `json:"bytesCopied"`
	BytesVerified int64 `json:"bytesVerified"`
	// Windows counts the windows by outcome.
	Windows map[string]int `json:"windows"`
	// DurationMs is how long the relocation took, creation to report; VerifyMs the
	// verification's part.
	DurationMs int64 `json:"durationMs"`
	VerifyMs   int64 `json:"verifyMs"`
}

// TableReport is one table's part of a Report.
type TableReport struct {
	// Source and Target are the table and its target.
	Source string `json:"source"`
	Target string `json:"target"`
	// CellsCompared counts the source cells compared; BatchesProven the batches matched
	// unread.
	CellsCompared int64 `json:"cellsCompared"`
	BatchesProven int   `json:"batchesProven"`
	// Differences counts the differing cells before the repair, Remaining after it.
	Differences int64 `json:"differences"`
	Remaining   int64 `json:"remaining"`
	// RangesRecopied are the row ranges copied again.
	RangesRecopied []verify.Range `json:"rangesRecopied,omitempty"`
}

// verifyRun is one verification (with repair) of a relocation's scope, in a goroutine.
type verifyRun struct {
	until  int64
	final  bool
	cancel context.CancelFunc
	done   chan struct{}
	result relocation.Verification
	report Report
	err    error // the run did not finish (its context ended): nothing to record
}

func (v *verifyRun) finished() bool {
	select {
	case <-v.done:
		return true
	default:
		return false
	}
}

// checkVerification looks at the verification of r (r.Verifying): one no run of this
// driver's holds is started (again); one that finished is recorded.
func (d *Driver) checkVerification(ctx context.Context, r catalog.Relocation) (catalog.Relocation, error) {
	run := d.get(r.ID)
	switch {
	case run == nil:
		// Started by this driver's earlier term, or another server's: start it again.
		// In a cut-over with no window running, the final window ran: this one is final.
		d.startVerification(ctx, r, r.Watermark, relocation.Phase(r.Phase) == relocation.CuttingOver && r.RunningSeq == 0)
	case run.finished():
		d.remove(r.ID)
		if run.err == nil {
			var rep *Report
			if run.final {
				rep = &run.report
			}
			return d.event(ctx, r.ID, relocation.VerificationEnded{Result: run.result}, nil, rep)
		}
	}
	return r, nil
}

// startVerification verifies r's scope over [0, until) in a goroutine, repairing what
// differs; checkVerification records its result.
func (d *Driver) startVerification(ctx context.Context, r catalog.Relocation, until int64, final bool) {
	vctx, cancel := context.WithCancel(ctx)
	run := &verifyRun{until: until, final: final, cancel: cancel, done: make(chan struct{})}
	if !d.add(r.ID, run) {
		cancel()
		return
	}
	go func() {
		defer close(run.done)
		defer cancel()
		start := time.Now()
		rep, err := d.verifyScope(vctx, r, until)
		if vctx.Err() != nil {
			run.err = vctx.Err()
			return
		}
		v := relocation.Verification{Until: until, At: time.Now().UTC(), Final: final}
		switch {
		case err != nil:
			v.Why = err.Error()
		case rep.Remaining > 0:
			v.Why = fmt.Sprintf("%d differing cells left after re-copying %d ranges", rep.Remaining, rep.RangesRecopied)
		default:
			v.Passed = true
		}
		rep.VerifyMs = time.Since(start).Milliseconds()
		if final {
			d.finishReport(vctx, r, &rep)
		}
		run.result, run.report = v, rep
		d.cfg.Logger.Info("relocation verified", "relocation", r.ID, "cells", render.Times(0, until), "final", final, "passed", v.Passed,
			"differences", rep.Differences, "remaining", rep.Remaining)
	}()
}

// finishReport adds the windows' part to a report.
func (d *Driver) finishReport(ctx context.Context, r catalog.Relocation, rep *Report) {
	rep.Windows = map[string]int{}
	if ws, err := d.cfg.Catalog.RelocationWindows(ctx, r.ID); err == nil {
		for _, w := range ws {
			rep.Windows[w.Outcome]++
			rep.BytesCopied += w.Bytes
		}
	}
	rep.DurationMs = time.Since(r.CreatedAt).Milliseconds()
}

// verifyScope verifies every table of r over [0, until) and re-copies what differs.
func (d *Driver) verifyScope(ctx context.Context, r catalog.Relocation, until int64) (Report, error) {
	rep := Report{Until: until}
	for _, t := range r.Tables {
		tm := relocation.TableMap{Source: t.Source, Target: t.Target}
		c := Check{Relocation: r.ID, Source: r.SourceCluster, Target: r.TargetCluster, Table: tm,
			StartRow: r.StartRow, StopRow: r.StopRow, Families: r.Families, Bandwidth: r.Bandwidth, Until: until}
		first, err := d.cfg.Verifier.Verify(ctx, c)
		if err != nil {
			return rep, fmt.Errorf("verify %s: %w", tm.Source, err)
		}
		tv := TableReport{Source: tm.Source, Target: tm.TargetTable(), CellsCompared: first.SourceCells, BatchesProven: first.BatchesProven, Differences: first.DifferenceCount}
		rep.BytesVerified += first.BytesRead
		after := first
		if !first.Equal() {
			if after, err = d.cfg.Verifier.Repair(ctx, c, first); err != nil {
				return rep, fmt.Errorf("repair %s: %w", tm.Source, err)
			}
			rep.BytesVerified += after.BytesRead
			tv.RangesRecopied = after.Repaired
		}
		tv.Remaining = after.DifferenceCount
		if !after.Equal() && tv.Remaining == 0 {
			tv.Remaining = int64(after.BatchesMismatched)
		}
		rep.Tables = append(rep.Tables, tv)
		rep.CellsCompared += tv.CellsCompared
		rep.BatchesProven += tv.BatchesProven
		rep.Differences += tv.Differences
		rep.Remaining += tv.Remaining
		rep.RangesRecopied += len(tv.RangesRecopied)
	}
	return rep, nil
}

// add registers a run unless one runs for the relocation.
func (d *Driver) add(id string, run *verifyRun) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.runs == nil {
		d.runs = map[string]*verifyRun{}
	}
	if d.runs[id] != nil {
		return false
	}
	d.runs[id] = run
	return true
}

func (d *Driver) get(id string) *verifyRun {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.runs[id]
}

func (d *Driver) remove(id string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	delete(d.runs, id)
}

// stop cancels the relocation's run, if any.
func (d *Driver) stop(id string) {
	d.mu.Lock()
	run := d.runs[id]
	delete(d.runs, id)
	d.mu.Unlock()
	if run != nil {
		run.cancel()
	}
}

// stopExcept cancels the runs of relocations not in open (ended, or deleted).
func (d *Driver) stopExcept(open map[string]bool) {
	d.mu.Lock()
	var ids []string
	for id := range d.runs {
		if !open[id] {
			ids = append(ids, id)
		}
	}
	d.mu.Unlock()
	for _, id := range ids {
		d.stop(id)
	}
}

// stopAll cancels every run and waits for them: the term of leadership ended.
func (d *Driver) stopAll() {
	d.mu.Lock()
	runs := d.runs
	d.runs = nil
	d.mu.Unlock()
	for _, run := range runs {
		run.cancel()
		<-run.done
	}
}

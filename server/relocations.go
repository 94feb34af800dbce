package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"reflect"
	"slices"
	"strings"
	"sync"
	"time"

	"rangecopy/api"
	"rangecopy/catalog"
	"rangecopy/job"
	"rangecopy/master"
	"rangecopy/registry"
	"rangecopy/relocation"
	"rangecopy/rowkey"
	"rangecopy/units"
	"rangecopy/verify"
)

// Defaults of a relocation.
const (
	// DefaultMargin is how far before the watermark a window starts.
	DefaultMargin = 10 * time.Minute
	// DefaultMaxLag is the cut-over's bound on the last window's lag.
	DefaultMaxLag = 5 * time.Minute
)

// relocator is the leader's part of relocations: the verifications running on this server.
type relocator struct {
	mu   sync.Mutex
	runs map[string]*verifyRun
}

// verifyRun is one verification (with repair) of a relocation's scope, in a goroutine.
type verifyRun struct {
	until  int64
	final  bool
	cancel context.CancelFunc
	done   chan struct{}
	result relocation.Verification
	report api.RelocationReport
	err    error // the run did not finish (its context ended): nothing to record
}

// relocationConfig is the decision config and scope of a catalog relocation.
func relocationConfig(r catalog.Relocation) (relocation.Config, relocation.Scope, error) {
	sched, err := relocation.ParseSchedule(r.Schedule)
	if err != nil {
		return relocation.Config{}, relocation.Scope{}, err
	}
	cfg := relocation.Config{Schedule: sched, Margin: time.Duration(r.MarginMs) * time.Millisecond,
		MaxLag: time.Duration(r.MaxLagMs) * time.Millisecond}
	sc := relocation.Scope{StartRow: r.StartRow, StopRow: r.StopRow, Families: r.Families, Bandwidth: r.Bandwidth}
	for _, t := range r.Tables {
		sc.Tables = append(sc.Tables, relocation.TableMap{Source: t.Source, Target: t.Target})
	}
	return cfg, sc, nil
}

// windowOf is the machine's form of a catalog window.
func windowOf(w catalog.RelocationWindow) *relocation.Window {
	out := &relocation.Window{Seq: w.Seq, Kind: relocation.Kind(w.Kind), StartTime: w.StartTime, EndTime: w.EndTime,
		SnapshotTime: w.SnapshotTime, StartedAt: w.StartedAt, Outcome: relocation.Outcome(w.Outcome), Why: w.Why}
	if w.FinishedAt != nil {
		out.FinishedAt = *w.FinishedAt
	}
	return out
}

// machineState reads a relocation's machine state from its row and windows.
func machineState(r catalog.Relocation, tx catalog.RelocationTx) (relocation.State, error) {
	s := relocation.State{Phase: relocation.Phase(r.Phase), Resume: relocation.Phase(r.ResumePhase), Why: r.Why,
		Watermark: r.Watermark, Seq: r.Seq, Verifying: r.Verifying}
	if r.NextTick != nil {
		s.NextTick = *r.NextTick
	}
	for _, x := range []struct {
		seq int
		dst **relocation.Window
	}{{r.RunningSeq, &s.Running}, {r.LastSeq, &s.Last}} {
		if x.seq == 0 {
			continue
		}
		w, err := tx.Window(x.seq)
		if err != nil {
			return s, err
		}
		*x.dst = windowOf(w)
	}
	if r.Verification != "" {
		var v relocation.Verification
		if err := json.Unmarshal([]byte(r.Verification), &v); err != nil {
			return s, fmt.Errorf("relocation %s: stored verification: %w", r.ID, err)
		}
		s.Verified = &v
	}
	return s, nil
}

// putState writes a machine state into a relocation's row.
func putState(r *catalog.Relocation, s relocation.State, now time.Time) {
	r.Phase, r.ResumePhase, r.Why = string(s.Phase), string(s.Resume), s.Why
	r.Watermark, r.Seq, r.Verifying = s.Watermark, s.Seq, s.Verifying
	r.NextTick = nil
	if !s.NextTick.IsZero() {
		t := s.NextTick
		r.NextTick = &t
	}
	r.RunningSeq, r.LastSeq = 0, 0
	if s.Running != nil {
		r.RunningSeq = s.Running.Seq
	}
	if s.Last != nil {
		r.LastSeq = s.Last.Seq
	}
	r.Verification = ""
	if s.Verified != nil {
		b, _ := json.Marshal(s.Verified)
		r.Verification = catalog.JSONText(b)
	}
	if s.Phase.Final() && r.FinishedAt == nil {
		r.FinishedAt = &now
	}
}

// windowStats are what a window's jobs did.
type windowStats struct {
	bytes, filesLoaded, filesPruned int64
}

// applyRelocation runs ev through the state machine in one catalog transaction and records
// the windows it makes or ends; it returns the relocation as written and the actions left
// for the caller (pausing, resuming or cancelling jobs, starting a verification). A
// *relocation.RefusedError is returned as it is, with nothing changed.
func (s *Server) applyRelocation(ctx context.Context, id string, ev relocation.Event, stats *windowStats, report *api.RelocationReport) (catalog.Relocation, []relocation.Action, error) {
	var acts []relocation.Action
	var same catalog.Relocation
	row, err := s.cat.UpdateRelocation(ctx, id, func(r *catalog.Relocation, tx catalog.RelocationTx) error {
		acts = nil
		cfg, _, err := relocationConfig(*r)
		if err != nil {
			return err
		}
		st, err := machineState(*r, tx)
		if err != nil {
			return err
		}
		next, out, err := relocation.Transition(cfg, st, ev)
		if err != nil {
			return err
		}
		if len(out) == 0 && report == nil && reflect.DeepEqual(next, st) {
			same = *r
			return errUnchanged // most clock events: nothing to write
		}
		now := time.Now().UTC()
		for _, a := range out {
			switch a := a.(type) {
			case relocation.SubmitWindow:
				if err := tx.PutWindow(windowRow(a.Window, nil)); err != nil {
					return err
				}
			case relocation.RecordSkipped:
				if err := tx.PutWindow(windowRow(a.Window, nil)); err != nil {
					return err
				}
			case relocation.RecordWindow:
				old, err := tx.Window(a.Window.Seq)
				if err != nil {
					return err
				}
				w := windowRow(a.Window, old.JobIDs)
				if stats != nil {
					w.Bytes, w.FilesLoaded, w.FilesPruned = stats.bytes, stats.filesLoaded, stats.filesPruned
				}
				if err := tx.PutWindow(w); err != nil {
					return err
				}
			default:
				acts = append(acts, a)
			}
		}
		putState(r, next, now)
		if report != nil {
			b, _ := json.Marshal(report)
			r.Report = catalog.JSONText(b)
		}
		return nil
	})
	if errors.Is(err, errUnchanged) {
		return same, nil, nil
	}
	return row, acts, err
}

// errUnchanged rolls back a step that changed nothing.
var errUnchanged = errors.New("relocation unchanged")

// windowRow is the catalog's form of a window.
func windowRow(w relocation.Window, jobs []string) catalog.RelocationWindow {
	out := catalog.RelocationWindow{Seq: w.Seq, Kind: string(w.Kind), StartTime: w.StartTime, EndTime: w.EndTime,
		SnapshotTime: w.SnapshotTime, JobIDs: jobs, StartedAt: w.StartedAt, Outcome: string(w.Outcome), Why: w.Why}
	if !w.FinishedAt.IsZero() {
		f := w.FinishedAt
		out.FinishedAt = &f
		out.DurationMs = w.FinishedAt.Sub(w.StartedAt).Milliseconds()
		if w.Outcome == relocation.Ran {
			out.LagMs = w.Lag().Milliseconds()
		}
	}
	return out
}

// runRelocations drives every open relocation while this server leads: every poll, at once
// when a job changes in the registry (a window's job planned, done or failed: the window
// ends without waiting for the poll), and at the next tick of a relocation's schedule.
func (s *Server) runRelocations(ctx context.Context) {
	pace := &registry.Pacer{Period: s.cfg.Poll, MinGap: relocationMinLook}
	if ch, err := s.reg.WatchAllJobs(ctx); err == nil {
		pace.Changes = ch
	} else if ctx.Err() == nil {
		s.cfg.Logger.Warn("relocations: cannot watch the jobs; looking every poll only", "err", err)
	}
	defer s.relocs.stopAll()
	for {
		rs, err := s.cat.ListRelocations(ctx, true)
		if err != nil && ctx.Err() == nil {
			s.cfg.Logger.Warn("relocations: list", "err", err)
			s.metrics.catalogErrors.Inc()
		}
		open := map[string]bool{}
		var next time.Time // the earliest tick to come
		for _, r := range rs {
			open[r.ID] = true
			after, err := s.stepRelocation(ctx, r)
			if err != nil && ctx.Err() == nil {
				s.cfg.Logger.Warn("relocation step", "relocation", r.ID, "err", err)
			}
			if t := after.NextTick; t != nil && (next.IsZero() || t.Before(next)) {
				next = *t
			}
		}
		s.relocs.stopExcept(open)
		if ctx.Err() != nil {
			return
		}
		pace.Period = s.cfg.Poll
		if !next.IsZero() {
			pace.Period = min(s.cfg.Poll, max(time.Until(next), relocationMinLook))
		}
		pace.Wait(ctx)
	}
}

// relocationMinLook is the shortest time between two looks at the relocations: a running
// window's jobs change with every task, and are taken together (registry.Pacer).
const relocationMinLook = 50 * time.Millisecond

// stepRelocation looks at one relocation: the jobs of its running window, its verification
// and the clock, and acts on what the state machine decides. A window the clock starts has
// its jobs submitted in the same step. It returns the relocation as it left it.
func (s *Server) stepRelocation(ctx context.Context, r catalog.Relocation) (catalog.Relocation, error) {
	_, sc, err := relocationConfig(r)
	if err != nil {
		return r, err
	}
	if relocation.Phase(r.Phase) == "" {
		if r, err = s.relocationEvent(ctx, r.ID, relocation.Start{Now: time.Now()}, nil, nil); err != nil {
			return r, err
		}
	}
	if r.RunningSeq > 0 {
		ended, err := s.driveWindow(ctx, r, sc)
		if err != nil {
			return r, err
		}
		if ended != nil {
			if r, err = s.relocationEvent(ctx, r.ID, ended.event, &ended.stats, nil); err != nil {
				return r, err
			}
			s.cfg.Logger.Info("relocation: window ended", "relocation", r.ID, "window", ended.event.Seq,
				"outcome", ended.event.Outcome, "bytes", ended.stats.bytes, "files_loaded", ended.stats.filesLoaded)
		}
	}
	if r.Verifying {
		if run := s.relocs.get(r.ID); run == nil {
			// Started by this server's earlier term, or another server's: start it again.
			// In a cut-over with no window running, the final window ran: this one is final.
			s.startVerification(ctx, r, r.Watermark, relocation.Phase(r.Phase) == relocation.CuttingOver && r.RunningSeq == 0)
		} else if run.finished() {
			s.relocs.remove(r.ID)
			if run.err == nil {
				var rep *api.RelocationReport
				if run.final {
					rep = &run.report
				}
				if r, err = s.relocationEvent(ctx, r.ID, relocation.VerificationEnded{Result: run.result}, nil, rep); err != nil {
					return r, err
				}
			}
		}
	}
	running := r.RunningSeq
	if r, err = s.relocationEvent(ctx, r.ID, relocation.Clock{Now: time.Now()}, nil, nil); err != nil {
		return r, err
	}
	if r.RunningSeq > 0 && r.RunningSeq != running {
		// A window began: submit its jobs now rather than at the next look.
		if _, err := s.driveWindow(ctx, r, sc); err != nil {
			return r, err
		}
	}
	return r, nil
}

// relocationEvent applies ev and performs the actions it leaves.
func (s *Server) relocationEvent(ctx context.Context, id string, ev relocation.Event, stats *windowStats, rep *api.RelocationReport) (catalog.Relocation, error) {
	r, acts, err := s.applyRelocation(ctx, id, ev, stats, rep)
	if err != nil {
		return r, err
	}
	s.perform(ctx, r, acts)
	return r, nil
}

// perform does what the state machine asked beside the catalog: job control and
// verifications (the latter only on the leader, which calls it from stepRelocation).
func (s *Server) perform(ctx context.Context, r catalog.Relocation, acts []relocation.Action) {
	control := func(seq int, act master.Action) {
		if seq == 0 {
			return
		}
		w, err := s.cat.RelocationWindow(ctx, r.ID, seq)
		if err != nil {
			s.cfg.Logger.Warn("relocation: window", "relocation", r.ID, "window", seq, "err", err)
			return
		}
		for _, id := range w.JobIDs {
			if _, err := master.Control(ctx, s.reg, id, act); err != nil {
				// A job that ended already has nothing to pause or cancel.
				var se *master.StateError
				if !errors.As(err, &se) {
					s.cfg.Logger.Warn("relocation: job control", "relocation", r.ID, "job", id, "action", act, "err", err)
				}
			}
		}
	}
	for _, a := range acts {
		switch a := a.(type) {
		case relocation.PauseJobs:
			control(a.Seq, master.ActionPause)
		case relocation.ResumeJobs:
			control(a.Seq, master.ActionResume)
		case relocation.CancelJobs:
			control(a.Seq, master.ActionCancel)
			s.relocs.stop(r.ID)
		case relocation.StartVerification:
			if s.leads() {
				s.startVerification(ctx, r, a.Until, a.Final)
			} // else the leader starts it at its next step: r.Verifying is set
		}
	}
}

// windowEnd is a window's end as its jobs tell it.
type windowEnd struct {
	event relocation.WindowEnded
	stats windowStats
}

// driveWindow submits what the running window lacks and reports its end once every job
// ended; nil while it runs.
func (s *Server) driveWindow(ctx context.Context, r catalog.Relocation, sc relocation.Scope) (*windowEnd, error) {
	w, err := s.cat.RelocationWindow(ctx, r.ID, r.RunningSeq)
	if err != nil {
		return nil, err
	}
	plans := relocation.PlanWindow(sc, *windowOf(w))
	if len(w.JobIDs) < len(plans) {
		// Submitted one by one, each id recorded as it comes: a crash between two
		// submissions re-submits none that was recorded.
		for i := len(w.JobIDs); i < len(plans); i++ {
			sub := api.JobSubmission{Source: r.SourceCluster, Target: r.TargetCluster, CopyRequest: api.CopyRequest(plans[i])}
			start := time.Now()
			id, _, err := s.Submit(ctx, sub, "relocation "+r.ID, "")
			if err != nil {
				if isStatus(err, http.StatusBadRequest) || isStatus(err, http.StatusConflict) {
					return &windowEnd{event: relocation.WindowEnded{Seq: w.Seq, Outcome: relocation.WindowFailed, At: time.Now(),
						Why: fmt.Sprintf("submit the job of table %s: %v", plans[i].Table, err)}}, nil
				}
				return nil, fmt.Errorf("window %d: submit the job of table %s: %w", w.Seq, plans[i].Table, err)
			}
			seq := w.Seq
			if _, err := s.cat.UpdateRelocation(ctx, r.ID, func(_ *catalog.Relocation, tx catalog.RelocationTx) error {
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
			s.cfg.Logger.Info("relocation: window job submitted", "relocation", r.ID, "window", w.Seq, "job", id,
				"table", plans[i].Table, "took", time.Since(start), "since_window_start", time.Since(w.StartedAt))
		}
		return nil, nil
	}
	// The registry's state first, one read a job: while a job runs the window does. Jobs all
	// done give the window's figures from their final reports; the jobs' whole views (their
	// tasks counted over every bucket) are read only when one ended otherwise.
	var st windowStats
	allDone := true
	for _, id := range w.JobIDs {
		j, err := s.reg.Job(ctx, id)
		switch {
		case err == nil && !j.State.Final():
			return nil, nil
		case err != nil && !errors.Is(err, registry.ErrNotFound):
			return nil, fmt.Errorf("window %d: job %s: %w", w.Seq, id, err)
		case err == nil && j.State == registry.JobDone:
			rep, ok, err := master.LoadReport(ctx, s.reg, id)
			if err != nil {
				return nil, fmt.Errorf("window %d: job %s: %w", w.Seq, id, err)
			}
			if ok {
				st.bytes += rep.BytesRead
				st.filesLoaded += rep.FilesLoaded
				st.filesPruned += int64(rep.FilesPruned)
				continue
			}
		}
		allDone = false
	}
	if allDone {
		return &windowEnd{stats: st, event: relocation.WindowEnded{Seq: w.Seq, Outcome: relocation.Ran, At: time.Now()}}, nil
	}
	st = windowStats{}
	var failed []string
	for _, id := range w.JobIDs {
		v, err := s.Job(ctx, id)
		if err != nil {
			return nil, fmt.Errorf("window %d: job %s: %w", w.Seq, id, err)
		}
		switch stateNamed(v.State) {
		case catalog.StateOf(job.StateDone):
		case catalog.StateOf(job.StateFailed), catalog.StateOf(job.StateCancelled), catalog.JobLost():
			why := v.LastError
			if why == "" {
				why = v.Message
			}
			failed = append(failed, fmt.Sprintf("job %s (%s) %s: %s", id, v.Table, v.State, why))
		default:
			return nil, nil
		}
		st.bytes += v.Progress.BytesDone
		st.filesLoaded += v.Progress.FilesLoaded
		st.filesPruned += int64(v.Progress.FilesPruned)
	}
	end := &windowEnd{stats: st, event: relocation.WindowEnded{Seq: w.Seq, Outcome: relocation.Ran, At: time.Now()}}
	if len(failed) > 0 {
		end.event.Outcome, end.event.Why = relocation.WindowFailed, strings.Join(failed, "; ")
	}
	return end, nil
}

// startVerification verifies r's scope over [0, until) in a goroutine, repairing what
// differs; stepRelocation records its result.
func (s *Server) startVerification(ctx context.Context, r catalog.Relocation, until int64, final bool) {
	vctx, cancel := context.WithCancel(ctx)
	run := &verifyRun{until: until, final: final, cancel: cancel, done: make(chan struct{})}
	if !s.relocs.add(r.ID, run) {
		cancel()
		return
	}
	go func() {
		defer close(run.done)
		defer cancel()
		start := time.Now()
		rep, err := s.verifyScope(vctx, r, until)
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
			s.finishReport(vctx, r, &rep)
		}
		run.result, run.report = v, rep
		s.cfg.Logger.Info("relocation verified", "relocation", r.ID, "until", until, "final", final, "passed", v.Passed,
			"differences", rep.Differences, "remaining", rep.Remaining)
	}()
}

// finishReport adds the windows' part to a report.
func (s *Server) finishReport(ctx context.Context, r catalog.Relocation, rep *api.RelocationReport) {
	rep.Windows = map[string]int{}
	if ws, err := s.cat.RelocationWindows(ctx, r.ID); err == nil {
		for _, w := range ws {
			rep.Windows[w.Outcome]++
			rep.BytesCopied += w.Bytes
		}
	}
	rep.DurationMs = time.Since(r.CreatedAt).Milliseconds()
}

// verifyScope verifies every table of r over [0, until) from both sides' HFiles and
// re-copies what differs.
func (s *Server) verifyScope(ctx context.Context, r catalog.Relocation, until int64) (api.RelocationReport, error) {
	rep := api.RelocationReport{Until: until}
	src, srcUser, err := s.api.clusterConfig(ctx, r.SourceCluster, "source")
	if err != nil {
		return rep, err
	}
	tgt, tgtUser, err := s.api.clusterConfig(ctx, r.TargetCluster, "target")
	if err != nil {
		return rep, err
	}
	user := tgtUser
	if user == "" {
		user = srcUser
	}
	if user == "" {
		user = s.cfg.User
	}
	var rows job.KeyRange
	if rows.Start, err = job.ParseKey(r.StartRow); err != nil {
		return rep, fmt.Errorf("start row: %w", err)
	}
	if rows.End, err = job.ParseKey(r.StopRow); err != nil {
		return rep, fmt.Errorf("stop row: %w", err)
	}
	var bw float64
	if r.Bandwidth != "" {
		if bw, err = units.ParseLimit(r.Bandwidth); err != nil {
			return rep, fmt.Errorf("bandwidth: %w", err)
		}
	}
	for _, t := range r.Tables {
		tm := relocation.TableMap{Source: t.Source, Target: t.Target}
		o := verify.Options{Source: src, Target: tgt, User: user, Table: tm.Source, TargetTable: tm.TargetTable(), Rows: rows,
			Time: job.TimeRange{Min: 0, Max: until}, Families: r.Families, Mode: verify.ModeVisible, Bandwidth: bw,
			Logger: s.cfg.Logger.With("relocation", r.ID, "verify", tm.Source)}
		first, err := verify.Run(ctx, o)
		if err != nil {
			return rep, fmt.Errorf("verify %s: %w", tm.Source, err)
		}
		tv := api.TableVerification{Source: tm.Source, Target: tm.TargetTable(), CellsCompared: first.SourceCells, BatchesProven: first.BatchesProven, Differences: first.DifferenceCount}
		rep.BytesVerified += first.BytesRead
		after := first
		if !first.Equal() {
			after, err = verify.Repair(ctx, o, first, s.recopier(r, tm, until))
			if err != nil {
				return rep, fmt.Errorf("repair %s: %w", tm.Source, err)
			}
			rep.BytesVerified += after.BytesRead
			tv.RangesRecopied = rowRanges(after.Repaired)
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

// recopier copies one row range of a table again over [0, until), as a job of the server,
// and waits for it.
func (s *Server) recopier(r catalog.Relocation, tm relocation.TableMap, until int64) verify.CopyFunc {
	zero := int64(0)
	end := until
	base := api.JobSubmission{Source: r.SourceCluster, Target: r.TargetCluster, CopyRequest: api.CopyRequest{Table: tm.Source, TargetTable: tm.Target,
		StartTime: &zero, EndTime: &end, Families: r.Families, Bandwidth: r.Bandwidth}}
	return s.rangeCopier(base, "relocation "+r.ID+" repair")
}

// rangeCopier copies one row range of base's table again (base's rows replaced by the
// range), as a job of the server submitted on behalf of by, and waits for it.
func (s *Server) rangeCopier(base api.JobSubmission, by string) verify.CopyFunc {
	return func(ctx context.Context, rng job.KeyRange) error {
		sub := base
		sub.Families = slices.Clone(base.Families)
		sub.StartRow, sub.StopRow = rowkey.Format(rng.Start), rowkey.Format(rng.End)
		id, _, err := s.Submit(ctx, sub, by, "")
		if err != nil {
			return err
		}
		t := time.NewTicker(s.cfg.Poll)
		defer t.Stop()
		for {
			v, err := s.Job(ctx, id)
			if err != nil {
				return err
			}
			switch stateNamed(v.State) {
			case catalog.StateOf(job.StateDone):
				return nil
			case catalog.StateOf(job.StateFailed), catalog.StateOf(job.StateCancelled), catalog.JobLost(), catalog.StateOf(job.StatePaused):
				return fmt.Errorf("repair job %s %s: %s", id, v.State, v.LastError)
			}
			select {
			case <-ctx.Done():
				return ctx.Err()
			case <-t.C:
			}
		}
	}
}

func (v *verifyRun) finished() bool {
	select {
	case <-v.done:
		return true
	default:
		return false
	}
}

// add registers a run unless one runs for the relocation.
func (rl *relocator) add(id string, run *verifyRun) bool {
	rl.mu.Lock()
	defer rl.mu.Unlock()
	if rl.runs == nil {
		rl.runs = map[string]*verifyRun{}
	}
	if rl.runs[id] != nil {
		return false
	}
	rl.runs[id] = run
	return true
}

func (rl *relocator) get(id string) *verifyRun {
	rl.mu.Lock()
	defer rl.mu.Unlock()
	return rl.runs[id]
}

func (rl *relocator) remove(id string) {
	rl.mu.Lock()
	defer rl.mu.Unlock()
	delete(rl.runs, id)
}

// stop cancels the relocation's run, if any.
func (rl *relocator) stop(id string) {
	rl.mu.Lock()
	run := rl.runs[id]
	delete(rl.runs, id)
	rl.mu.Unlock()
	if run != nil {
		run.cancel()
	}
}

// stopExcept cancels the runs of relocations not in open (ended, or deleted).
func (rl *relocator) stopExcept(open map[string]bool) {
	rl.mu.Lock()
	var ids []string
	for id := range rl.runs {
		if !open[id] {
			ids = append(ids, id)
		}
	}
	rl.mu.Unlock()
	for _, id := range ids {
		rl.stop(id)
	}
}

// stopAll cancels every run and waits for them: the term of leadership ended.
func (rl *relocator) stopAll() {
	rl.mu.Lock()
	runs := rl.runs
	rl.runs = nil
	rl.mu.Unlock()
	for _, run := range runs {
		run.cancel()
		<-run.done
	}
}

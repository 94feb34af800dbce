package relocate

import (
	"encoding/json"
	"fmt"
	"time"

	"rangecopy/catalog"
	"rangecopy/relocation"
)

// Defaults of a relocation.
const (
	// DefaultMargin is how far before the watermark a window starts.
	DefaultMargin = 10 * time.Minute
	// DefaultMaxLag is the cut-over's bound on the last window's lag.
	DefaultMaxLag = 5 * time.Minute
)

// ConfigOf is the decision config and scope of a catalog relocation.
func ConfigOf(r catalog.Relocation) (relocation.Config, relocation.Scope, error) {
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

// StateOf reads a relocation's machine state from its row and, through tx, its windows.
func StateOf(r catalog.Relocation, tx catalog.RelocationTx) (relocation.State, error) {
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

// Started is a new relocation r as it is created at now: its machine state after
// relocation.Start written into it, and the window (the full copy) that starts with it.
func Started(r catalog.Relocation, now time.Time) (catalog.Relocation, []catalog.RelocationWindow, error) {
	cfg, _, err := ConfigOf(r)
	if err != nil {
		return r, nil, err
	}
	st, acts, err := relocation.Transition(cfg, relocation.State{}, relocation.Start{Now: now})
	if err != nil {
		return r, nil, err
	}
	putState(&r, st, now)
	var windows []catalog.RelocationWindow
	for _, act := range acts {
		if sw, ok := act.(relocation.SubmitWindow); ok {
			windows = append(windows, windowRow(sw.Window, nil))
		}
	}
	return r, windows, nil
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

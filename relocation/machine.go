package relocation

import (
	"fmt"
	"time"
)

// Schedule says when the next catch-up is due; a parsed cron expression is one.
type Schedule interface {
	// Next returns the first tick after t.
	Next(t time.Time) time.Time
}

// Config is what a relocation's decisions depend on besides its state.
type Config struct {
	// Schedule says when catch-up windows are due.
	Schedule Schedule
	// Margin is how far before the watermark a window starts: a window copies
	// [watermark − Margin, snapshot time), so cells that reached the source a little late
	// (clock skew, writes in flight at the snapshot) are copied by the next one.
	Margin time.Duration
	// MaxLag is the cut-over gate: the last window's lag must be under it.
	MaxLag time.Duration
}

// Window is one round of copy jobs: the full copy, a catch-up, or the final window.
type Window struct {
	// Seq numbers the windows of a relocation from 1, skipped ticks included.
	Seq int
	// Kind is what the window is for.
	Kind Kind
	// StartTime and EndTime bound the cells it copies by timestamp (ms), [StartTime,
	// EndTime); the full copy has none (both 0) and copies every cell.
	StartTime, EndTime int64
	// SnapshotTime (ms) is the time the window copies up to: the watermark after it ran.
	SnapshotTime int64
	// StartedAt is when it was submitted, FinishedAt when its jobs ended (zero until then).
	StartedAt, FinishedAt time.Time
	// Outcome is how it ended, Running until then.
	Outcome Outcome
	// Why says why it failed or was skipped.
	Why string
}

// Lag is how far behind the source the target was when the window finished: FinishedAt
// minus its snapshot time; 0 until it finished.
func (w Window) Lag() time.Duration {
	if w.FinishedAt.IsZero() {
		return 0
	}
	return w.FinishedAt.Sub(time.UnixMilli(w.SnapshotTime))
}

// Verification is the outcome of a verification of the whole scope over [0, Until).
type Verification struct {
	// Until (ms) is the end of the time range verified.
	Until int64 `json:"until"`
	// At is when it ended.
	At time.Time `json:"at"`
	// Passed: source and target were equal over the range (after the repair).
	Passed bool `json:"passed"`
	// Final: it was the cut-over's.
	Final bool `json:"final,omitempty"`
	// Why says what differed, or what failed.
	Why string `json:"why,omitempty"`
}

// State is a relocation's state: everything Transition needs, and all of it persisted.
type State struct {
	// Phase is where the relocation is.
	Phase Phase
	// Resume is the phase a paused relocation returns to.
	Resume Phase
	// Why says why it failed, or who paused or cancelled it.
	Why string
	// Watermark (ms) is the snapshot time of the last window that ran; 0 before the full copy.
	Watermark int64
	// NextTick is when the next catch-up is due; zero before the full copy ran.
	NextTick time.Time
	// Seq is the number of the last window made.
	Seq int
	// Running is the window whose jobs run, nil when none.
	Running *Window
	// Last is the last window that ran, nil before the full copy ran.
	Last *Window
	// Verifying is true while a verification runs.
	Verifying bool
	// Verified is the last verification, nil before the first.
	Verified *Verification
}

// Event is something Transition reacts to: one of the types below.
type Event interface{ event() }

// Start: the relocation was created at Now.
type Start struct{ Now time.Time }

// Clock: the time is Now; a catch-up is due if Now has reached State.NextTick.
type Clock struct{ Now time.Time }

// WindowEnded: the jobs of window Seq ended at At, every one done (Ran) or one failed or
// cancelled (WindowFailed, with Why).
type WindowEnded struct {
	Seq     int
	Outcome Outcome
	At      time.Time
	Why     string
}

// VerificationEnded: the verification started by a StartVerification ended.
type VerificationEnded struct{ Result Verification }

// Pause: an operator (By) pauses the relocation.
type Pause struct{ By string }

// ResumeEvent: an operator (By) resumes a paused relocation at Now.
type ResumeEvent struct {
	By  string
	Now time.Time
}

// Cancel: an operator (By) cancels the relocation.
type Cancel struct{ By string }

// Cutover: an operator (By) asks for the cut-over at Now; Force passes over the lag and
// verification gates.
type Cutover struct {
	By    string
	Now   time.Time
	Force bool
}

func (Start) event()             {}
func (Clock) event()             {}
func (WindowEnded) event()       {}
func (VerificationEnded) event() {}
func (Pause) event()             {}
func (ResumeEvent) event()       {}
func (Cancel) event()            {}
func (Cutover) event()           {}

// Action is something the executor does: one of the types below.
type Action interface{ action() }

// SubmitWindow: submit the window's jobs (PlanWindow) and record it.
type SubmitWindow struct{ Window Window }

// RecordSkipped: record a tick that found window Busy running, as a window that copied
// nothing.
type RecordSkipped struct {
	Window Window
	Busy   int
}

// RecordWindow: the window ended; record its outcome.
type RecordWindow struct{ Window Window }

// StartVerification: verify the whole scope over [0, Until) and repair what differs; the
// cut-over's (Final) also writes the relocation's report.
type StartVerification struct {
	Until int64
	Final bool
}

// PauseJobs, ResumeJobs and CancelJobs act on the jobs of window Seq; CancelJobs also stops
// a running verification.
type (
	PauseJobs  struct{ Seq int }
	ResumeJobs struct{ Seq int }
	CancelJobs struct{ Seq int }
)

func (SubmitWindow) action()      {}
func (RecordSkipped) action()     {}
func (RecordWindow) action()      {}
func (StartVerification) action() {}
func (PauseJobs) action()         {}
func (ResumeJobs) action()        {}
func (CancelJobs) action()        {}

// RefusedError says why Transition refused an operator's event in the state it found: a pause
// of a relocation that ended, a cut-over a gate blocks. The state is unchanged.
type RefusedError struct {
	// Phase is the relocation's phase.
	Phase Phase
	// Reason says why.
	Reason string
	// Gates are the gates of a refused cut-over, nil for other refusals.
	Gates []Gate
}

// Error implements error.
func (e *RefusedError) Error() string {
	return fmt.Sprintf("relocation is %s: %s", e.Phase, e.Reason)
}

// Transition is the relocation's state machine: it returns the state after ev and what the
// executor must do. Events from the executor (Clock, WindowEnded, VerificationEnded) are
// never refused; one that no longer applies (a window of a cancelled relocation) changes
// nothing. An operator's event that the state forbids returns a *RefusedError and s as it
// was.
func Transition(cfg Config, s State, ev Event) (State, []Action, error) {
	s = s.clone()
	switch e := ev.(type) {
	case Start:
		if s.Phase != "" {
			return s, nil, nil
		}
		s.Phase = Copying
		w := s.newWindow(Full, e.Now)
		w.SnapshotTime = e.Now.UnixMilli()
		s.Running = &w
		return s, []Action{SubmitWindow{Window: w}}, nil
	case Clock:
		return clock(cfg, s, e.Now)
	case WindowEnded:
		return windowEnded(cfg, s, e)
	case VerificationEnded:
		return verificationEnded(cfg, s, e.Result)
	case Pause:
		switch s.Phase {
		case Copying, CatchingUp, Ready:
		default:
			return s, nil, &RefusedError{Phase: s.Phase, Reason: "only a relocation that is copying, catching up or ready can be paused"}
		}
		s.Resume, s.Phase, s.Why = s.Phase, Paused, "paused by "+e.By
		if s.Running != nil {
			return s, []Action{PauseJobs{Seq: s.Running.Seq}}, nil
		}
		return s, nil, nil
	case ResumeEvent:
		if s.Phase != Paused {
			return s, nil, &RefusedError{Phase: s.Phase, Reason: "only a paused relocation can be resumed"}
		}
		s.Phase, s.Resume, s.Why = s.Resume, "", ""
		var acts []Action
		if s.Running != nil {
			acts = append(acts, ResumeJobs{Seq: s.Running.Seq})
		}
		// Ticks missed while paused make one catch-up at once, not one per tick.
		next, more, _ := clock(cfg, s, e.Now)
		return next, append(acts, more...), nil
	case Cancel:
		if s.Phase.Final() {
			return s, nil, &RefusedError{Phase: s.Phase, Reason: "it has ended"}
		}
		s.Phase, s.Resume, s.Why = Cancelled, "", "cancelled by "+e.By
		if s.Running != nil || s.Verifying {
			seq := 0
			if s.Running != nil {
				seq = s.Running.Seq
			}
			return s, []Action{CancelJobs{Seq: seq}}, nil
		}
		return s, nil, nil
	case Cutover:
		return cutover(cfg, s, e)
	}
	return s, nil, fmt.Errorf("relocation: unknown event %T", ev)
}

// clone copies the state's pointers, so that Transition never changes the caller's state.
func (s State) clone() State {
	if s.Running != nil {
		w := *s.Running
		s.Running = &w
	}
	if s.Last != nil {
		w := *s.Last
		s.Last = &w
	}
	if s.Verified != nil {
		v := *s.Verified
		s.Verified = &v
	}
	return s
}

// newWindow numbers a new window of kind k starting at now.
func (s *State) newWindow(k Kind, now time.Time) Window {
	s.Seq++
	return Window{Seq: s.Seq, Kind: k, StartedAt: now, Outcome: Running}
}

// span is the time range of a window that copies up to now: [watermark − margin, now).
func (s *State) span(cfg Config, now time.Time) (int64, int64) {
	start := s.Watermark - cfg.Margin.Milliseconds()
	return max(0, start), now.UnixMilli()
}

// clock makes the catch-up that is due at now, if one is: one window however many ticks
// were missed, and the next tick after now.
func clock(cfg Config, s State, now time.Time) (State, []Action, error) {
	if s.Phase != CatchingUp && s.Phase != Ready {
		return s, nil, nil
	}
	if s.NextTick.IsZero() || now.Before(s.NextTick) {
		return s, nil, nil
	}
	s.NextTick = cfg.Schedule.Next(now)
	if s.Running != nil {
		w := s.newWindow(CatchUp, now)
		w.Outcome, w.FinishedAt = Skipped, now
		w.Why = fmt.Sprintf("window %d was still running", s.Running.Seq)
		return s, []Action{RecordSkipped{Window: w, Busy: s.Running.Seq}}, nil
	}
	w := s.newWindow(CatchUp, now)
	w.StartTime, w.EndTime = s.span(cfg, now)
	w.SnapshotTime = w.EndTime
	s.Running = &w
	return s, []Action{SubmitWindow{Window: w}}, nil
}

// windowEnded records a window's end and decides what follows it.
func windowEnded(cfg Config, s State, e WindowEnded) (State, []Action, error) {
	if s.Running == nil || s.Running.Seq != e.Seq || s.Phase.Final() {
		return s, nil, nil
	}
	w := *s.Running
	w.Outcome, w.FinishedAt, w.Why = e.Outcome, e.At, e.Why
	s.Running = nil
	acts := []Action{RecordWindow{Window: w}}
	// A window that ends while the relocation is paused is bookkept in the phase it
	// returns to.
	phase := s.Phase
	if phase == Paused {
		phase = s.Resume
	}
	if e.Outcome != Ran {
		switch w.Kind {
		case Full:
			phase, s.Why = Failed, fmt.Sprintf("the full copy failed: %s", e.Why)
		case Final:
			phase, s.Why = Failed, fmt.Sprintf("the final window failed: %s", e.Why)
		}
		// A catch-up that failed leaves the watermark: the next window covers its range.
		s = s.settle(phase)
		if phase == CuttingOver {
			fw := s.finalWindow(cfg, e.At)
			acts = append(acts, SubmitWindow{Window: fw})
		}
		return s, acts, nil
	}
	s.Watermark = w.SnapshotTime
	s.Last = &w
	switch w.Kind {
	case Full:
		phase = CatchingUp
		s.NextTick = cfg.Schedule.Next(e.At)
	case CatchUp:
		if phase == CatchingUp || phase == Ready {
			phase = readiness(cfg, s)
			if s.Phase != Paused && !s.Verifying && w.Lag() < cfg.MaxLag && (s.Verified == nil || !s.Verified.Passed) {
				s.Verifying = true
				acts = append(acts, StartVerification{Until: s.Watermark})
			}
		} else if phase == CuttingOver {
			// The window that ran when the cut-over began: now the final one.
			s = s.settle(phase)
			fw := s.finalWindow(cfg, e.At)
			return s, append(acts, SubmitWindow{Window: fw}), nil
		}
	case Final:
		if !s.Verifying {
			s.Verifying = true
			acts = append(acts, StartVerification{Until: s.Watermark, Final: true})
		}
	}
	return s.settle(phase), acts, nil
}

// settle puts the relocation in phase p, or keeps it paused returning to p.
func (s State) settle(p Phase) State {
	switch {
	case p == Failed:
		s.Phase, s.Resume = Failed, ""
	case s.Phase == Paused:
		s.Resume = p
	default:
		s.Phase = p
	}
	return s
}

// readiness is catching-up or ready, as the gates say.
func readiness(cfg Config, s State) Phase {
	if s.Last != nil && s.Last.Kind != Full && s.Last.Lag() < cfg.MaxLag && s.Verified != nil && s.Verified.Passed {
		return Ready
	}
	return CatchingUp
}

// verificationEnded records a verification and decides what follows it.
func verificationEnded(cfg Config, s State, v Verification) (State, []Action, error) {
	if !s.Verifying || s.Phase.Final() {
		return s, nil, nil
	}
	s.Verifying = false
	s.Verified = &v
	phase := s.Phase
	if phase == Paused {
		phase = s.Resume
	}
	switch {
	case v.Final && v.Passed:
		return s.settle(Done), nil, nil
	case v.Final:
		s.Why = "the cut-over verification found differences it could not repair: " + v.Why
		return s.settle(Failed), nil, nil
	case phase == CuttingOver:
		// A verification from before the cut-over ended; the final window may have run.
		if s.Running == nil && s.Last != nil && s.Last.Kind == Final {
			s.Verifying = true
			return s, []Action{StartVerification{Until: s.Watermark, Final: true}}, nil
		}
		return s, nil, nil
	case phase == CatchingUp || phase == Ready:
		return s.settle(readiness(cfg, s)), nil, nil
	}
	return s, nil, nil
}

// cutover starts the cut-over if the gates (or force) allow it.
func cutover(cfg Config, s State, e Cutover) (State, []Action, error) {
	gates := Gates(cfg, s)
	if s.Phase != CatchingUp && s.Phase != Ready {
		return s, nil, &RefusedError{Phase: s.Phase, Reason: "a cut-over starts from catching-up or ready", Gates: gates}
	}
	if blocked := Blocking(gates, e.Force); len(blocked) > 0 {
		return s, nil, &RefusedError{Phase: s.Phase, Reason: "gate " + blocked[0].Name + ": " + blocked[0].Detail +
			" (force passes over the lag and verification gates)", Gates: gates}
	}
	s.Phase = CuttingOver
	s.Why = "cut-over asked by " + e.By
	if e.Force {
		s.Why += " (forced)"
	}
	if s.Running != nil {
		// The running window ends first; the final window follows it.
		return s, nil, nil
	}
	w := s.finalWindow(cfg, e.Now)
	return s, []Action{SubmitWindow{Window: w}}, nil
}

// finalWindow makes the final window, starting at now, the running one.
func (s *State) finalWindow(cfg Config, now time.Time) Window {
	w := s.newWindow(Final, now)
	w.StartTime, w.EndTime = s.span(cfg, now)
	w.SnapshotTime = w.EndTime
	s.Running = &w
	return w
}

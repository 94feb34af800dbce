package relocation

import (
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"
)

// every is a schedule that ticks on multiples of d since the epoch.
type every time.Duration

func (e every) Next(t time.Time) time.Time {
	d := time.Duration(e)
	return t.Truncate(d).Add(d)
}

var (
	t0  = time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	cfg = Config{Schedule: every(10 * time.Minute), Margin: 10 * time.Minute, MaxLag: 5 * time.Minute}
)

func at(d time.Duration) time.Time { return t0.Add(d) }
func ms(d time.Duration) int64     { return at(d).UnixMilli() }

// describe names actions compactly, for comparisons.
func describe(acts []Action) []string {
	out := []string{}
	for _, a := range acts {
		switch a := a.(type) {
		case SubmitWindow:
			out = append(out, fmt.Sprintf("submit %d %s [%d,%d)", a.Window.Seq, a.Window.Kind, a.Window.StartTime, a.Window.EndTime))
		case RecordSkipped:
			out = append(out, fmt.Sprintf("skipped %d (busy %d)", a.Window.Seq, a.Busy))
		case RecordWindow:
			out = append(out, fmt.Sprintf("record %d %s", a.Window.Seq, a.Window.Outcome))
		case StartVerification:
			out = append(out, fmt.Sprintf("verify [0,%d) final=%v", a.Until, a.Final))
		case PauseJobs:
			out = append(out, fmt.Sprintf("pause %d", a.Seq))
		case ResumeJobs:
			out = append(out, fmt.Sprintf("resume %d", a.Seq))
		case CancelJobs:
			out = append(out, fmt.Sprintf("cancel %d", a.Seq))
		default:
			out = append(out, fmt.Sprintf("%T", a))
		}
	}
	return out
}

// Some states along a relocation's life.
var (
	// copying: the full copy (window 1) submitted at t0.
	copying = State{Phase: Copying, Seq: 1, Running: &Window{Seq: 1, Kind: Full, SnapshotTime: ms(0), StartedAt: t0, Outcome: Running}}
	fullRan = &Window{Seq: 1, Kind: Full, SnapshotTime: ms(0), StartedAt: t0, FinishedAt: at(7 * time.Minute), Outcome: Ran}
	// caught: catching up, watermark t0, next tick at 10:10, nothing running.
	caught = State{Phase: CatchingUp, Seq: 1, Watermark: ms(0), NextTick: at(10 * time.Minute), Last: fullRan}
	// busy: window 2 over [t0-10m, t0+10m) running.
	busy = State{Phase: CatchingUp, Seq: 2, Watermark: ms(0), NextTick: at(20 * time.Minute), Last: fullRan,
		Running: &Window{Seq: 2, Kind: CatchUp, StartTime: ms(-10 * time.Minute), EndTime: ms(10 * time.Minute),
			SnapshotTime: ms(10 * time.Minute), StartedAt: at(10 * time.Minute), Outcome: Running}}
	passed = &Verification{Until: ms(10 * time.Minute), At: at(15 * time.Minute), Passed: true}
	// ready: window 2 ran with a lag of 1 min, verification passed.
	ready = State{Phase: Ready, Seq: 2, Watermark: ms(10 * time.Minute), NextTick: at(20 * time.Minute), Verified: passed,
		Last: &Window{Seq: 2, Kind: CatchUp, SnapshotTime: ms(10 * time.Minute), FinishedAt: at(11 * time.Minute), Outcome: Ran}}
)

func with(s State, f func(*State)) State {
	s = s.clone()
	f(&s)
	return s
}

func TestTransition(t *testing.T) {
	cases := []struct {
		name  string
		s     State
		ev    Event
		phase Phase
		acts  []string
		check func(t *testing.T, s State)
		// refused: the event is refused with a reason containing this.
		refused string
	}{
		{name: "start submits the full copy", s: State{}, ev: Start{Now: t0}, phase: Copying,
			acts: []string{"submit 1 full [0,0)"},
			check: func(t *testing.T, s State) {
				if s.Running == nil || s.Running.SnapshotTime != ms(0) {
					t.Errorf("running %+v; want the full copy with snapshot time t0", s.Running)
				}
			}},
		{name: "a tick while copying does nothing", s: copying, ev: Clock{Now: at(30 * time.Minute)}, phase: Copying, acts: []string{}},
		{name: "full copy ran: catching up, watermark its snapshot time, first tick after it", s: copying,
			ev: WindowEnded{Seq: 1, Outcome: Ran, At: at(7 * time.Minute)}, phase: CatchingUp, acts: []string{"record 1 ran"},
			check: func(t *testing.T, s State) {
				if s.Watermark != ms(0) || !s.NextTick.Equal(at(10*time.Minute)) || s.Running != nil {
					t.Errorf("watermark %d next %s running %v", s.Watermark, s.NextTick, s.Running)
				}
			}},
		{name: "full copy failed: failed with why", s: copying,
			ev: WindowEnded{Seq: 1, Outcome: WindowFailed, At: at(time.Minute), Why: "table t: no such table"}, phase: Failed,
			acts: []string{"record 1 failed"},
			check: func(t *testing.T, s State) {
				if !strings.Contains(s.Why, "full copy failed: table t: no such table") {
					t.Errorf("why %q", s.Why)
				}
			}},
		{name: "before the tick nothing happens", s: caught, ev: Clock{Now: at(9 * time.Minute)}, phase: CatchingUp, acts: []string{}},
		{name: "the tick submits [watermark - margin, now)", s: caught, ev: Clock{Now: at(10 * time.Minute)}, phase: CatchingUp,
			acts: []string{fmt.Sprintf("submit 2 catch-up [%d,%d)", ms(-10*time.Minute), ms(10*time.Minute))},
			check: func(t *testing.T, s State) {
				if !s.NextTick.Equal(at(20 * time.Minute)) {
					t.Errorf("next tick %s", s.NextTick)
				}
			}},
		{name: "margin never goes below time 0", s: with(caught, func(s *State) { s.Watermark = 1000 }), ev: Clock{Now: at(10 * time.Minute)},
			phase: CatchingUp, acts: []string{fmt.Sprintf("submit 2 catch-up [0,%d)", ms(10*time.Minute))}},
		{name: "after downtime one window at once, then the next tick after now", s: caught, ev: Clock{Now: at(3*time.Hour + 5*time.Minute)},
			phase: CatchingUp, acts: []string{fmt.Sprintf("submit 2 catch-up [%d,%d)", ms(-10*time.Minute), ms(3*time.Hour+5*time.Minute))},
			check: func(t *testing.T, s State) {
				if !s.NextTick.Equal(at(3*time.Hour + 10*time.Minute)) {
					t.Errorf("next tick %s; want 13:10", s.NextTick)
				}
			}},
		{name: "a tick finding the window running is skipped and recorded", s: busy, ev: Clock{Now: at(20 * time.Minute)},
			phase: CatchingUp, acts: []string{"skipped 3 (busy 2)"},
			check: func(t *testing.T, s State) {
				if s.Running.Seq != 2 || s.Seq != 3 || !s.NextTick.Equal(at(30*time.Minute)) {
					t.Errorf("running %d seq %d next %s", s.Running.Seq, s.Seq, s.NextTick)
				}
			}},
		{name: "a window under max-lag moves the watermark and starts the first verification", s: busy,
			ev: WindowEnded{Seq: 2, Outcome: Ran, At: at(12 * time.Minute)}, phase: CatchingUp,
			acts: []string{"record 2 ran", fmt.Sprintf("verify [0,%d) final=false", ms(10*time.Minute))},
			check: func(t *testing.T, s State) {
				if s.Watermark != ms(10*time.Minute) || !s.Verifying || s.Last.Lag() != 2*time.Minute {
					t.Errorf("watermark %d verifying %v lag %s", s.Watermark, s.Verifying, s.Last.Lag())
				}
			}},
		{name: "a window over max-lag starts no verification", s: busy,
			ev: WindowEnded{Seq: 2, Outcome: Ran, At: at(16 * time.Minute)}, phase: CatchingUp, acts: []string{"record 2 ran"}},
		{name: "a failed window keeps the watermark; the next covers its range", s: busy,
			ev: WindowEnded{Seq: 2, Outcome: WindowFailed, At: at(12 * time.Minute), Why: "region server gone"}, phase: CatchingUp,
			acts: []string{"record 2 failed"},
			check: func(t *testing.T, s State) {
				next, acts, _ := Transition(cfg, s, Clock{Now: at(20 * time.Minute)})
				want := []string{fmt.Sprintf("submit 3 catch-up [%d,%d)", ms(-10*time.Minute), ms(20*time.Minute))}
				if s.Watermark != ms(0) || !reflect.DeepEqual(describe(acts), want) || next.Running == nil {
					t.Errorf("watermark %d, next tick does %v; want %v", s.Watermark, describe(acts), want)
				}
			}},
		{name: "an end of a window that is not running changes nothing", s: caught,
			ev: WindowEnded{Seq: 7, Outcome: Ran, At: at(12 * time.Minute)}, phase: CatchingUp, acts: []string{}},
		{name: "a passed verification with lag under max-lag: ready",
			s:  with(ready, func(s *State) { s.Phase, s.Verified, s.Verifying = CatchingUp, nil, true }),
			ev: VerificationEnded{Result: *passed}, phase: Ready, acts: []string{}},
		{name: "a failed verification stays catching up and is tried after the next window",
			s:  with(ready, func(s *State) { s.Phase, s.Verified, s.Verifying = CatchingUp, nil, true }),
			ev: VerificationEnded{Result: Verification{Until: 1, At: at(15 * time.Minute), Why: "3 differences"}}, phase: CatchingUp, acts: []string{},
			check: func(t *testing.T, s State) {
				s, _, _ = Transition(cfg, s, Clock{Now: at(20 * time.Minute)})
				_, acts, _ := Transition(cfg, s, WindowEnded{Seq: 3, Outcome: Ran, At: at(21 * time.Minute)})
				if d := describe(acts); len(d) != 2 || !strings.HasPrefix(d[1], "verify") {
					t.Errorf("after the next window: %v; want a verification again", d)
				}
			}},
		{name: "ready falls back to catching up when a window lags",
			s: with(ready, func(s *State) {
				s.Running = &Window{Seq: 3, Kind: CatchUp, SnapshotTime: ms(20 * time.Minute), Outcome: Running}
				s.Seq = 3
			}),
			ev: WindowEnded{Seq: 3, Outcome: Ran, At: at(40 * time.Minute)}, phase: CatchingUp, acts: []string{"record 3 ran"}},
		{name: "pause pauses the running window's jobs", s: busy, ev: Pause{By: "op"}, phase: Paused, acts: []string{"pause 2"},
			check: func(t *testing.T, s State) {
				if s.Resume != CatchingUp || s.Why != "paused by op" {
					t.Errorf("resume %s why %q", s.Resume, s.Why)
				}
			}},
		{name: "ticks are not ticks while paused", s: with(busy, func(s *State) { s.Phase, s.Resume = Paused, CatchingUp }),
			ev: Clock{Now: at(50 * time.Minute)}, phase: Paused, acts: []string{}},
		{name: "a window that ends while paused moves the watermark, stays paused",
			s:  with(busy, func(s *State) { s.Phase, s.Resume = Paused, CatchingUp }),
			ev: WindowEnded{Seq: 2, Outcome: Ran, At: at(12 * time.Minute)}, phase: Paused, acts: []string{"record 2 ran"},
			check: func(t *testing.T, s State) {
				if s.Watermark != ms(10*time.Minute) || s.Resume != CatchingUp || s.Verifying {
					t.Errorf("watermark %d resume %s verifying %v", s.Watermark, s.Resume, s.Verifying)
				}
			}},
		{name: "the full copy ending while paused returns to catching up",
			s:  with(copying, func(s *State) { s.Phase, s.Resume = Paused, Copying }),
			ev: WindowEnded{Seq: 1, Outcome: Ran, At: at(7 * time.Minute)}, phase: Paused, acts: []string{"record 1 ran"},
			check: func(t *testing.T, s State) {
				if s.Resume != CatchingUp {
					t.Errorf("resume %s", s.Resume)
				}
			}},
		{name: "resume after long pause: one catch-up at once", s: with(caught, func(s *State) { s.Phase, s.Resume = Paused, CatchingUp }),
			ev: ResumeEvent{By: "op", Now: at(5 * time.Hour)}, phase: CatchingUp,
			acts: []string{fmt.Sprintf("submit 2 catch-up [%d,%d)", ms(-10*time.Minute), ms(5*time.Hour))}},
		{name: "resume resumes the paused window's jobs", s: with(busy, func(s *State) { s.Phase, s.Resume = Paused, CatchingUp }),
			ev: ResumeEvent{By: "op", Now: at(15 * time.Minute)}, phase: CatchingUp, acts: []string{"resume 2"}},
		{name: "resume of a relocation not paused is refused", s: caught, ev: ResumeEvent{Now: t0}, refused: "only a paused"},
		{name: "pause of a cut-over is refused", s: with(ready, func(s *State) { s.Phase = CuttingOver }), ev: Pause{}, refused: "can be paused"},
		{name: "cancel cancels the running jobs", s: busy, ev: Cancel{By: "op"}, phase: Cancelled, acts: []string{"cancel 2"}},
		{name: "cancel stops a verification", s: with(ready, func(s *State) { s.Verifying = true }), ev: Cancel{By: "op"}, phase: Cancelled, acts: []string{"cancel 0"}},
		{name: "cancel of an ended relocation is refused", s: State{Phase: Done}, ev: Cancel{}, refused: "ended"},
		{name: "a window of a cancelled relocation changes nothing", s: with(busy, func(s *State) { s.Phase = Cancelled }),
			ev: WindowEnded{Seq: 2, Outcome: Ran, At: at(12 * time.Minute)}, phase: Cancelled, acts: []string{}},
		{name: "cut-over when ready runs the final window", s: ready, ev: Cutover{By: "op", Now: at(14 * time.Minute)}, phase: CuttingOver,
			acts: []string{fmt.Sprintf("submit 3 final [%d,%d)", ms(0), ms(14*time.Minute))}},
		{name: "cut-over blocked by lag", s: with(ready, func(s *State) { s.Phase = CatchingUp; s.Last.FinishedAt = at(30 * time.Minute) }),
			ev: Cutover{Now: at(31 * time.Minute)}, refused: "gate lag: window 2 finished 20m0s after its snapshot time, not under max-lag 5m0s"},
		{name: "cut-over blocked by a missing verification", s: with(ready, func(s *State) { s.Phase, s.Verified = CatchingUp, nil }),
			ev: Cutover{Now: at(14 * time.Minute)}, refused: "gate verification: no verification has run yet"},
		{name: "cut-over blocked before any catch-up", s: caught, ev: Cutover{Now: at(8 * time.Minute)}, refused: "gate lag: no catch-up window"},
		{name: "forced cut-over passes lag and verification", s: caught, ev: Cutover{By: "op", Now: at(8 * time.Minute), Force: true}, phase: CuttingOver,
			acts: []string{fmt.Sprintf("submit 2 final [%d,%d)", ms(-10*time.Minute), ms(8*time.Minute))},
			check: func(t *testing.T, s State) {
				if !strings.Contains(s.Why, "forced") {
					t.Errorf("why %q", s.Why)
				}
			}},
		{name: "force does not pass the phase gate", s: copying, ev: Cutover{Now: t0, Force: true}, refused: "catching-up or ready"},
		{name: "cut-over while a window runs waits for it", s: with(busy, func(s *State) {}), ev: Cutover{Now: at(12 * time.Minute), Force: true},
			phase: CuttingOver, acts: []string{}},
		{name: "the window running at cut-over is followed by the final one",
			s:  with(busy, func(s *State) { s.Phase = CuttingOver }),
			ev: WindowEnded{Seq: 2, Outcome: Ran, At: at(13 * time.Minute)}, phase: CuttingOver,
			acts: []string{"record 2 ran", fmt.Sprintf("submit 3 final [%d,%d)", ms(0), ms(13*time.Minute))}},
		{name: "a failed window at cut-over is followed by the final one too",
			s:  with(busy, func(s *State) { s.Phase = CuttingOver }),
			ev: WindowEnded{Seq: 2, Outcome: WindowFailed, At: at(13 * time.Minute)}, phase: CuttingOver,
			acts: []string{"record 2 failed", fmt.Sprintf("submit 3 final [%d,%d)", ms(-10*time.Minute), ms(13*time.Minute))}},
		{name: "ticks do nothing while cutting over", s: with(ready, func(s *State) { s.Phase = CuttingOver }),
			ev: Clock{Now: at(time.Hour)}, phase: CuttingOver, acts: []string{}},
		{name: "the final window ran: final verification over [0, its snapshot)",
			s: with(ready, func(s *State) {
				s.Phase, s.Seq = CuttingOver, 3
				s.Running = &Window{Seq: 3, Kind: Final, SnapshotTime: ms(14 * time.Minute), Outcome: Running}
			}),
			ev: WindowEnded{Seq: 3, Outcome: Ran, At: at(15 * time.Minute)}, phase: CuttingOver,
			acts: []string{"record 3 ran", fmt.Sprintf("verify [0,%d) final=true", ms(14*time.Minute))}},
		{name: "a final window that failed fails the relocation",
			s: with(ready, func(s *State) {
				s.Phase, s.Seq = CuttingOver, 3
				s.Running = &Window{Seq: 3, Kind: Final, SnapshotTime: ms(14 * time.Minute), Outcome: Running}
			}),
			ev: WindowEnded{Seq: 3, Outcome: WindowFailed, At: at(15 * time.Minute), Why: "job x failed"}, phase: Failed,
			acts: []string{"record 3 failed"}},
		{name: "the final window waits for an earlier verification to end",
			s: with(ready, func(s *State) {
				s.Phase, s.Seq, s.Verifying = CuttingOver, 3, true
				s.Running = &Window{Seq: 3, Kind: Final, SnapshotTime: ms(14 * time.Minute), Outcome: Running}
			}),
			ev: WindowEnded{Seq: 3, Outcome: Ran, At: at(15 * time.Minute)}, phase: CuttingOver, acts: []string{"record 3 ran"},
			check: func(t *testing.T, s State) {
				_, acts, _ := Transition(cfg, s, VerificationEnded{Result: *passed})
				want := []string{fmt.Sprintf("verify [0,%d) final=true", ms(14*time.Minute))}
				if !reflect.DeepEqual(describe(acts), want) {
					t.Errorf("after the earlier verification: %v; want %v", describe(acts), want)
				}
			}},
		{name: "the final verification passed: done", s: with(ready, func(s *State) { s.Phase, s.Verifying = CuttingOver, true }),
			ev: VerificationEnded{Result: Verification{Until: 5, Passed: true, Final: true}}, phase: Done, acts: []string{}},
		{name: "differences left after repair: failed with why", s: with(ready, func(s *State) { s.Phase, s.Verifying = CuttingOver, true }),
			ev: VerificationEnded{Result: Verification{Until: 5, Final: true, Why: "2 cells differ in t"}}, phase: Failed, acts: []string{},
			check: func(t *testing.T, s State) {
				if !strings.Contains(s.Why, "2 cells differ in t") {
					t.Errorf("why %q", s.Why)
				}
			}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			before := c.s.clone()
			got, acts, err := Transition(cfg, c.s, c.ev)
			if !reflect.DeepEqual(c.s, before) {
				t.Errorf("Transition changed the state it was given")
			}
			if c.refused != "" {
				var re *RefusedError
				if !errors.As(err, &re) || !strings.Contains(err.Error(), c.refused) {
					t.Fatalf("err %v; want a refusal containing %q", err, c.refused)
				}
				if !reflect.DeepEqual(got, before) || len(acts) != 0 {
					t.Errorf("a refused event changed the state or acted: %+v %v", got, describe(acts))
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got.Phase != c.phase {
				t.Errorf("phase %s; want %s (why %q)", got.Phase, c.phase, got.Why)
			}
			if d := describe(acts); !reflect.DeepEqual(d, c.acts) {
				t.Errorf("actions %q; want %q", d, c.acts)
			}
			if c.check != nil {
				c.check(t, got)
			}
		})
	}
}

// TestLife walks a relocation from start to done with its windows.
func TestLife(t *testing.T) {
	s := State{}
	step := func(ev Event) []string {
		t.Helper()
		var acts []Action
		var err error
		s, acts, err = Transition(cfg, s, ev)
		if err != nil {
			t.Fatalf("%T: %v", ev, err)
		}
		return describe(acts)
	}
	step(Start{Now: t0})
	step(WindowEnded{Seq: 1, Outcome: Ran, At: at(7 * time.Minute)})
	step(Clock{Now: at(10 * time.Minute)})
	step(Clock{Now: at(20 * time.Minute)}) // window 2 still running: skipped
	step(WindowEnded{Seq: 2, Outcome: Ran, At: at(22 * time.Minute)})
	step(Clock{Now: at(30 * time.Minute)})
	if a := step(WindowEnded{Seq: 4, Outcome: Ran, At: at(31 * time.Minute)}); len(a) != 2 {
		t.Fatalf("window 4 under max-lag: %v; want the record and a verification", a)
	}
	step(VerificationEnded{Result: Verification{Until: ms(30 * time.Minute), At: at(33 * time.Minute), Passed: true}})
	if s.Phase != Ready {
		t.Fatalf("phase %s; want ready", s.Phase)
	}
	plan := PlanCutover(cfg, s, at(35*time.Minute), false)
	if plan.Blocked != "" || len(plan.Steps) != 4 {
		t.Fatalf("dry run: %+v", plan)
	}
	step(Cutover{By: "op", Now: at(35 * time.Minute)})
	step(WindowEnded{Seq: 5, Outcome: Ran, At: at(36 * time.Minute)})
	step(VerificationEnded{Result: Verification{Until: ms(35 * time.Minute), Passed: true, Final: true}})
	if s.Phase != Done || s.Seq != 5 || s.Watermark != ms(35*time.Minute) {
		t.Fatalf("end: %+v", s)
	}
}

func TestPlanCutover(t *testing.T) {
	cases := []struct {
		name    string
		s       State
		force   bool
		blocked string
		steps   int
	}{
		{"ready", ready, false, "", 4},
		{"no verification", with(ready, func(s *State) { s.Verified = nil }), false, GateVerification, 0},
		{"no verification, forced", with(ready, func(s *State) { s.Verified = nil }), true, "", 4},
		{"lag", with(ready, func(s *State) { s.Last.FinishedAt = at(time.Hour) }), false, GateLag, 0},
		{"window running", busy, true, "", 5},
		{"copying, forced", copying, true, GatePhase, 0},
		{"done", State{Phase: Done}, true, GatePhase, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := PlanCutover(cfg, c.s, at(14*time.Minute), c.force)
			if p.Blocked != c.blocked || len(p.Steps) != c.steps || len(p.Gates) != 3 {
				t.Errorf("plan %+v; want blocked %q and %d steps", p, c.blocked, c.steps)
			}
		})
	}
}

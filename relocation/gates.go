package relocation

import (
	"fmt"
	"time"

	"rangecopy/render"
)

// The gates of a cut-over, by name.
const (
	// GatePhase: the relocation is catching up or ready. Force does not pass it.
	GatePhase = "phase"
	// GateLag: the last catch-up window's lag is under max-lag.
	GateLag = "lag"
	// GateVerification: the last verification passed.
	GateVerification = "verification"
)

// Gate is one condition of a cut-over and whether it holds.
type Gate struct {
	// Name is one of GatePhase, GateLag, GateVerification.
	Name string
	// OK is true when it holds.
	OK bool
	// Detail says what was found, for people.
	Detail string
	// Forcible: force passes over it.
	Forcible bool
}

// Gates evaluates the cut-over's gates on s.
func Gates(cfg Config, s State) []Gate {
	phase := Gate{Name: GatePhase, OK: s.Phase == CatchingUp || s.Phase == Ready,
		Detail: fmt.Sprintf("the relocation is %s", s.Phase)}
	lag := Gate{Name: GateLag, Forcible: true}
	switch {
	case s.Last == nil || s.Last.Kind == Full:
		lag.Detail = "no catch-up window has run yet"
	default:
		l := s.Last.Lag()
		lag.OK = l < cfg.MaxLag
		cmp := "under"
		if !lag.OK {
			cmp = "not under"
		}
		lag.Detail = fmt.Sprintf("window %d finished %s after its snapshot time, %s max-lag %s",
			s.Last.Seq, l.Round(time.Millisecond), cmp, cfg.MaxLag)
	}
	ver := Gate{Name: GateVerification, Forcible: true}
	switch v := s.Verified; {
	case v == nil && s.Verifying:
		ver.Detail = "the first verification is running"
	case v == nil:
		ver.Detail = "no verification has run yet (one starts after the first window under max-lag)"
	case v.Passed:
		ver.OK = true
		ver.Detail = fmt.Sprintf("passed over the cells %s, at %s", render.Times(0, v.Until), render.Time(v.At))
	default:
		ver.Detail = fmt.Sprintf("failed over the cells %s, at %s: %s", render.Times(0, v.Until), render.Time(v.At), v.Why)
	}
	return []Gate{phase, lag, ver}
}

// Blocking returns the gates that keep a cut-over from starting: those that do not hold,
// less the forcible ones when force is set.
func Blocking(gates []Gate, force bool) []Gate {
	var out []Gate
	for _, g := range gates {
		if !g.OK && !(force && g.Forcible) {
			out = append(out, g)
		}
	}
	return out
}

// CutoverPlan is what a cut-over asked for now would do: a dry run.
type CutoverPlan struct {
	// Gates are the gates as they stand.
	Gates []Gate
	// Blocked names the first gate that blocks it, empty when it would start.
	Blocked string
	// Steps say what it would do, in order.
	Steps []string
}

// PlanCutover says what a cut-over asked for at now (with force or not) would do, and which
// gate blocks it, changing nothing.
func PlanCutover(cfg Config, s State, now time.Time, force bool) CutoverPlan {
	p := CutoverPlan{Gates: Gates(cfg, s)}
	if b := Blocking(p.Gates, force); len(b) > 0 {
		p.Blocked = b[0].Name
		return p
	}
	if s.Running != nil {
		p.Steps = append(p.Steps, fmt.Sprintf("wait for window %d (running) to end", s.Running.Seq))
	}
	start, end := s.span(cfg, now)
	if s.Running != nil {
		end = 0
	}
	final := fmt.Sprintf("run the final window over the cells from %s up to T of every table, T the time it starts", render.Millis(start))
	if end > 0 {
		final = fmt.Sprintf("run the final window over the cells %s of every table", render.Times(start, end))
	}
	p.Steps = append(p.Steps, final,
		"verify the whole scope, the cells before T, from both sides' HFiles",
		"re-copy the ranges that differ and verify them again",
		"store the report; done if no difference is left, failed otherwise")
	return p
}

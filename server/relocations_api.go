package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/danielgtaylor/huma/v2"

	"rangecopy/api"
	"rangecopy/catalog"
	"rangecopy/job"
	"rangecopy/relocate"
	"rangecopy/relocation"
	"rangecopy/units"
)

type relocationIDIn struct {
	ID string `path:"id" minLength:"1" maxLength:"64" doc:"the relocation's id"`
}

type relocationOutput struct {
	Body api.RelocationOut
}

func gatesOut(gs []relocation.Gate) []api.GateOut {
	out := make([]api.GateOut, 0, len(gs))
	for _, g := range gs {
		out = append(out, api.GateOut{Name: g.Name, OK: g.OK, Detail: g.Detail, Forcible: g.Forcible})
	}
	return out
}

// relocationView is the API's form of a relocation; with windows, its windows too.
func (s *Server) relocationView(ctx context.Context, r catalog.Relocation, windows bool) (api.RelocationOut, error) {
	out := api.RelocationOut{ID: r.ID, Source: r.SourceCluster, Target: r.TargetCluster, StartRow: r.StartRow, StopRow: r.StopRow,
		Families: r.Families, Bandwidth: r.Bandwidth, Schedule: r.Schedule,
		Margin: (time.Duration(r.MarginMs) * time.Millisecond).String(), MaxLag: (time.Duration(r.MaxLagMs) * time.Millisecond).String(),
		Phase: api.RelocationPhase(r.Phase), ResumePhase: api.RelocationPhase(r.ResumePhase), Why: r.Why, Watermark: r.Watermark, NextTick: r.NextTick,
		RunningWindow: r.RunningSeq, Verifying: r.Verifying, CreatedBy: r.CreatedBy, CreatedAt: r.CreatedAt, UpdatedAt: r.UpdatedAt,
		FinishedAt: r.FinishedAt}
	for _, t := range r.Tables {
		out.Tables = append(out.Tables, api.TableMap{Source: t.Source, Target: t.Target})
	}
	var st relocation.State
	cfg, _, cfgErr := relocate.ConfigOf(r)
	err := s.cat.ReadRelocation(ctx, r.ID, func(cur catalog.Relocation, tx catalog.RelocationTx) error {
		var err error
		st, err = relocate.StateOf(cur, tx)
		return err
	})
	if err != nil {
		return out, err
	}
	if st.Verified != nil {
		v := st.Verified
		out.Verification = &api.VerificationOut{Until: v.Until, At: v.At, Passed: v.Passed, Final: v.Final, Why: v.Why}
	}
	if st.Last != nil && st.Last.Kind != relocation.Full {
		l := st.Last.Lag().Milliseconds()
		out.LagMs = &l
	}
	out.Gates = []api.GateOut{}
	if cfgErr == nil {
		out.Gates = gatesOut(relocation.Gates(cfg, st))
	}
	if r.Report != "" {
		var rep api.RelocationReport
		if json.Unmarshal([]byte(r.Report), &rep) == nil {
			out.Report = &rep
		}
	}
	if windows {
		ws, err := s.cat.RelocationWindows(ctx, r.ID)
		if err != nil {
			return out, err
		}
		out.Windows = []api.WindowOut{}
		for _, w := range ws {
			out.Windows = append(out.Windows, api.WindowOut{Seq: w.Seq, Kind: api.WindowKind(w.Kind), StartTime: w.StartTime, EndTime: w.EndTime,
				SnapshotTime: w.SnapshotTime, JobIDs: append([]string{}, w.JobIDs...), Bytes: w.Bytes, FilesLoaded: w.FilesLoaded,
				FilesPruned: w.FilesPruned, StartedAt: w.StartedAt, FinishedAt: w.FinishedAt, DurationMs: w.DurationMs, LagMs: w.LagMs,
				Outcome: api.WindowOutcome(w.Outcome), Why: w.Why})
		}
	}
	return out, nil
}

// fieldErrs collects the fields of a body that are wrong.
type fieldErrs struct {
	details []*api.ProblemDetail
	msgs    []string
}

func (f *fieldErrs) add(field, msg string, value any) {
	f.details = append(f.details, &api.ProblemDetail{Location: "body." + field, Message: msg, Value: value})
	f.msgs = append(f.msgs, field+": "+msg)
}

func (f *fieldErrs) err() error {
	if len(f.msgs) == 0 {
		return nil
	}
	return api.NewProblem(http.StatusBadRequest, "the request body is not valid: "+strings.Join(f.msgs, "; "), f.details...)
}

// parseDuration reads a non-negative duration, def when empty.
func parseDuration(s string, def time.Duration) (time.Duration, error) {
	return relocation.ParseDuration(s, def)
}

// createRelocation checks a creation and records the relocation with its full copy.
func (a *rest) createRelocation(ctx context.Context, in api.RelocationCreate, by string) (catalog.Relocation, error) {
	var fe fieldErrs
	r := catalog.Relocation{ID: catalog.NewRelocationID(), SourceCluster: in.Source, TargetCluster: in.Target,
		StartRow: in.StartRow, StopRow: in.StopRow, Bandwidth: in.Bandwidth, Schedule: in.Schedule, CreatedBy: by}
	for _, c := range []struct{ field, name string }{{"source", in.Source}, {"target", in.Target}} {
		if _, _, err := a.clusterConfig(ctx, c.name, c.field); err != nil {
			var se huma.StatusError
			if errors.As(err, &se) && se.GetStatus() != http.StatusBadRequest {
				return r, err
			}
			fe.add(c.field, fmt.Sprintf("no cluster %q is registered (GET /api/v1/clusters lists them)", c.name), c.name)
		}
	}
	var sc relocation.Scope
	for i, t := range in.Tables {
		tm, err := relocation.ParseTableMap(t)
		if err != nil {
			fe.add(fmt.Sprintf("tables[%d]", i), err.Error(), t)
			continue
		}
		sc.Tables = append(sc.Tables, tm)
		r.Tables = append(r.Tables, catalog.RelocationTable{Source: tm.Source, Target: tm.Target})
	}
	// The rows, families and bandwidth are checked as a job's are.
	req := job.Request{Table: "t", StartRow: in.StartRow, StopRow: in.StopRow, Families: in.Families, Bandwidth: in.Bandwidth}
	if _, _, err := req.Resolve(); err != nil {
		for _, f := range job.FieldErrors(err) {
			fe.add(f.Field, f.Err.Error(), nil)
		}
	}
	for _, f := range in.Families {
		r.Families = append(r.Families, strings.TrimSpace(f))
	}
	sc.StartRow, sc.StopRow, sc.Families = in.StartRow, in.StopRow, r.Families
	sched, err := relocation.ParseSchedule(in.Schedule)
	if err != nil {
		fe.add("schedule", err.Error(), in.Schedule)
	}
	margin, err := parseDuration(in.Margin, relocate.DefaultMargin)
	if err != nil {
		fe.add("margin", err.Error(), in.Margin)
	}
	maxLag, err := parseDuration(in.MaxLag, relocate.DefaultMaxLag)
	if err == nil && maxLag == 0 {
		err = fmt.Errorf("must be more than 0")
	}
	if err != nil {
		fe.add("maxLag", err.Error(), in.MaxLag)
	}
	if err := fe.err(); err != nil {
		return r, err
	}
	// Every table given parsed: tables[i] is sc.Tables[i].
	if err := a.checkScopeTables(ctx, scopeCheck{source: in.Source, target: in.Target, raw: in.Tables,
		tables: sc.Tables, families: r.Families}, &fe); err != nil {
		return r, err
	}
	if err := fe.err(); err != nil {
		return r, err
	}
	_ = sched // parsed again from r.Schedule by relocate.Started
	r.MarginMs, r.MaxLagMs = margin.Milliseconds(), maxLag.Milliseconds()
	r, windows, err := relocate.Started(r, time.Now().UTC())
	if err != nil {
		return r, huma.Error500InternalServerError(err.Error())
	}
	overlap := func(open []catalog.Relocation) error {
		for _, o := range open {
			_, osc, err := relocate.ConfigOf(o)
			if err != nil {
				continue
			}
			if (o.SourceCluster == r.SourceCluster || o.TargetCluster == r.TargetCluster) && relocation.Overlaps(osc, sc) {
				return fieldProblem("tables", fmt.Sprintf("relocation %s (%s) moves an overlapping range of the same table: cancel it, or wait until it ends", o.ID, o.Phase), in.Tables)
			}
		}
		return nil
	}
	got, err := a.s.cat.CreateRelocation(ctx, r, overlap, windows...)
	if err != nil {
		return r, a.problem(err, "relocation")
	}
	return got, nil
}

func (a *rest) registerRelocations() {
	s := a.s
	list := op("list-relocations", http.MethodGet, "/relocations", "List relocations", catalog.RoleViewer, "relocations")
	list.Errors = append(list.Errors, http.StatusBadRequest)
	huma.Register(a.h, list, func(ctx context.Context, in *struct {
		Open bool `query:"open" doc:"keep those that have not ended"`
		api.PageQuery
	}) (*struct{ Body api.RelocationList }, error) {
		page, err := s.cat.ListRelocationsPage(ctx, catalog.RelocationFilter{Open: in.Open, Cursor: in.Cursor, Limit: in.Limit})
		if errors.Is(err, catalog.ErrInvalid) {
			return nil, cursorProblem(in.Cursor)
		}
		if err != nil {
			return nil, a.problem(err, "relocations")
		}
		out := &struct{ Body api.RelocationList }{Body: api.RelocationList{Relocations: []api.RelocationOut{}, Next: page.Next}}
		for _, r := range page.Relocations {
			v, err := s.relocationView(ctx, r, false)
			if err != nil {
				return nil, a.problem(err, "relocation "+r.ID)
			}
			out.Body.Relocations = append(out.Body.Relocations, v)
		}
		return out, nil
	})

	create := op("create-relocation", http.MethodPost, "/relocations", "Create a relocation: a full copy, then catch-up windows on a schedule", catalog.RoleOperator, "relocations")
	create.DefaultStatus = http.StatusCreated
	create.Description += " Each table must exist on the source, be named once, and not be copied onto itself (the same table on the same cluster); the source is reached to know (502 when it cannot be)."
	create.Errors = append(create.Errors, http.StatusBadRequest, http.StatusBadGateway)
	huma.Register(a.h, create, func(ctx context.Context, in *struct{ Body api.RelocationCreate }) (*relocationOutput, error) {
		if err := mayCreateRelocation(ctx, in.Body); err != nil {
			return nil, err
		}
		r, err := a.createRelocation(ctx, in.Body, callerOf(ctx).name)
		if err != nil {
			return nil, err
		}
		return a.relocationAnswer(ctx, r, true)
	})

	get := op("get-relocation", http.MethodGet, "/relocations/{id}", "Show a relocation with its windows and gates", catalog.RoleViewer, "relocations")
	get.Errors = append(get.Errors, http.StatusNotFound)
	huma.Register(a.h, get, func(ctx context.Context, in *relocationIDIn) (*relocationOutput, error) {
		r, err := s.cat.GetRelocation(ctx, in.ID)
		if err != nil {
			return nil, a.problem(err, "relocation "+in.ID)
		}
		return a.relocationAnswer(ctx, r, true)
	})

	patch := op("patch-relocation", http.MethodPatch, "/relocations/{id}", "Change a relocation's schedule, margin or bandwidth", catalog.RoleOperator, "relocations")
	patch.Errors = append(patch.Errors, http.StatusBadRequest, http.StatusNotFound, http.StatusConflict)
	huma.Register(a.h, patch, func(ctx context.Context, in *struct {
		ID   string `path:"id" minLength:"1" maxLength:"64" doc:"the relocation's id"`
		Body api.RelocationPatch
	}) (*relocationOutput, error) {
		if err := a.mayWriteRelocation(ctx, in.ID); err != nil {
			return nil, err
		}
		return a.patchRelocation(ctx, in.ID, in.Body)
	})

	acts := []struct{ name, summary string }{
		{"pause", "Pause a relocation: no new windows, the running window's jobs pause"},
		{"resume", "Resume a paused relocation; ticks missed make one catch-up at once"},
		{"cancel", "Cancel a relocation: its running jobs and verification stop; what was copied stays"},
	}
	for _, act := range acts {
		o := op(act.name+"-relocation", http.MethodPost, "/relocations/{id}/"+act.name, act.summary, catalog.RoleOperator, "relocations")
		o.Errors = append(o.Errors, http.StatusNotFound, http.StatusConflict)
		huma.Register(a.h, o, func(ctx context.Context, in *relocationIDIn) (*relocationOutput, error) {
			if err := a.mayWriteRelocation(ctx, in.ID); err != nil {
				return nil, err
			}
			r, err := s.relocs.Apply(ctx, in.ID, controlEvent(act.name, callerOf(ctx).name))
			if err != nil {
				return nil, a.problem(err, "relocation "+in.ID)
			}
			return a.relocationAnswer(ctx, r, false)
		})
	}

	cut := op("cutover-relocation", http.MethodPost, "/relocations/{id}/cutover", "Cut over: the final window, then verification of the whole scope with repair, and the report", catalog.RoleOperator, "relocations")
	cut.Description += " Gates: the last window's lag under maxLag and the last verification passed; force passes over both. dryRun says what it would do and which gate blocks, changing nothing."
	cut.Description += " A forced cut-over (force, not dryRun) also needs a token with the force-cutover right and a reason, which the audit log keeps."
	cut.Errors = append(cut.Errors, http.StatusNotFound, http.StatusConflict, http.StatusServiceUnavailable)
	huma.Register(a.h, cut, func(ctx context.Context, in *struct {
		ID   string `path:"id" minLength:"1" maxLength:"64" doc:"the relocation's id"`
		Body api.CutoverRequest
	}) (*struct{ Body api.CutoverOut }, error) {
		if err := a.mayWriteRelocation(ctx, in.ID); err != nil {
			return nil, err
		}
		if in.Body.Force && !in.Body.DryRun {
			if err := mayForceCutover(ctx, in.Body.Reason); err != nil {
				return nil, err
			}
			if _, err := s.cat.GetRelocation(ctx, in.ID); err != nil {
				return nil, a.problem(err, "relocation "+in.ID)
			}
			if err := a.auditForce(ctx, in.ID, in.Body.Reason); err != nil {
				return nil, err
			}
		}
		return a.cutover(ctx, in.ID, in.Body.Force, in.Body.DryRun)
	})
}

// controlEvent is the event of an operator's pause, resume or cancel of a relocation; nil
// for another name.
func controlEvent(name, by string) relocation.Event {
	switch name {
	case "pause":
		return relocation.Pause{By: by}
	case "resume":
		return relocation.ResumeEvent{By: by, Now: time.Now()}
	case "cancel":
		return relocation.Cancel{By: by}
	}
	return nil
}

// relocationAnswer is the answer showing a relocation.
func (a *rest) relocationAnswer(ctx context.Context, r catalog.Relocation, windows bool) (*relocationOutput, error) {
	v, err := a.s.relocationView(ctx, r, windows)
	if err != nil {
		return nil, a.problem(err, "relocation "+r.ID)
	}
	return &relocationOutput{Body: v}, nil
}

// patchRelocation changes the schedule, margin or bandwidth of a relocation.
func (a *rest) patchRelocation(ctx context.Context, id string, p api.RelocationPatch) (*relocationOutput, error) {
	var fe fieldErrs
	var sched relocation.Schedule
	if p.Schedule != nil {
		var err error
		if sched, err = relocation.ParseSchedule(*p.Schedule); err != nil {
			fe.add("schedule", err.Error(), *p.Schedule)
		}
	}
	var margin time.Duration
	if p.Margin != nil {
		var err error
		if margin, err = parseDuration(*p.Margin, relocate.DefaultMargin); err != nil {
			fe.add("margin", err.Error(), *p.Margin)
		}
	}
	var bps float64
	if p.Bandwidth != nil {
		var err error
		if *p.Bandwidth == "" {
			bps = 0
		} else if bps, err = units.ParseLimit(*p.Bandwidth); err != nil {
			fe.add("bandwidth", err.Error(), *p.Bandwidth)
		}
	}
	if err := fe.err(); err != nil {
		return nil, err
	}
	var running []string
	r, err := a.s.cat.UpdateRelocation(ctx, id, func(r *catalog.Relocation, tx catalog.RelocationTx) error {
		if relocation.Phase(r.Phase).Final() {
			return &relocation.RefusedError{Phase: relocation.Phase(r.Phase), Reason: "it has ended"}
		}
		if sched != nil {
			r.Schedule = *p.Schedule
			if r.NextTick != nil {
				n := sched.Next(time.Now()).UTC()
				r.NextTick = &n
			}
		}
		if p.Margin != nil {
			r.MarginMs = margin.Milliseconds()
		}
		if p.Bandwidth != nil {
			r.Bandwidth = *p.Bandwidth
			if bps == 0 {
				r.Bandwidth = ""
			}
			if r.RunningSeq > 0 {
				w, err := tx.Window(r.RunningSeq)
				if err != nil {
					return err
				}
				running = w.JobIDs
			}
		}
		return nil
	})
	if err != nil {
		return nil, a.problem(err, "relocation "+id)
	}
	for _, j := range running {
		if err := a.s.setBandwidth(ctx, j, bps); err != nil && !isStatus(err, http.StatusNotFound) && !isStatus(err, http.StatusConflict) {
			a.s.cfg.Logger.Warn("relocation: bandwidth of a running job", "relocation", id, "job", j, "err", err)
		}
	}
	return a.relocationAnswer(ctx, r, false)
}

// cutover starts (or dry-runs) a relocation's cut-over.
func (a *rest) cutover(ctx context.Context, id string, force, dryRun bool) (*struct{ Body api.CutoverOut }, error) {
	s := a.s
	r, err := s.cat.GetRelocation(ctx, id)
	if err != nil {
		return nil, a.problem(err, "relocation "+id)
	}
	out := &struct{ Body api.CutoverOut }{}
	out.Body.DryRun = dryRun
	if dryRun {
		var plan relocation.CutoverPlan
		err := s.cat.ReadRelocation(ctx, id, func(cur catalog.Relocation, tx catalog.RelocationTx) error {
			cfg, _, err := relocate.ConfigOf(cur)
			if err != nil {
				return err
			}
			st, err := relocate.StateOf(cur, tx)
			if err != nil {
				return err
			}
			plan = relocation.PlanCutover(cfg, st, time.Now(), force)
			return nil
		})
		if err != nil {
			return nil, a.problem(err, "relocation "+id)
		}
		out.Body.Blocked, out.Body.Gates, out.Body.Steps = plan.Blocked, gatesOut(plan.Gates), plan.Steps
		v, err := s.relocationView(ctx, r, false)
		if err != nil {
			return nil, a.problem(err, "relocation "+id)
		}
		out.Body.Relocation = v
		return out, nil
	}
	r, err = s.relocs.Apply(ctx, id, relocation.Cutover{By: callerOf(ctx).name, Now: time.Now(), Force: force})
	if err != nil {
		return nil, a.problem(err, "relocation "+id)
	}
	v, err := s.relocationView(ctx, r, false)
	if err != nil {
		return nil, a.problem(err, "relocation "+id)
	}
	out.Body.Started, out.Body.Gates, out.Body.Relocation = true, v.Gates, v
	out.Body.Steps = []string{"final window", "verification of the whole scope, the cells before T, with repair", "report"}
	return out, nil
}

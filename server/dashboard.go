package server

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"sort"
	"strconv"
	"time"

	"github.com/danielgtaylor/huma/v2"

	"rangecopy/api"
	"rangecopy/catalog"
	"rangecopy/dashboard"
	"rangecopy/job"
	"rangecopy/master"
	"rangecopy/registry"
	"rangecopy/render"
	"rangecopy/units"
)

// dashSource is the dashboard's view of the server: the same reads and actions as the API,
// through the same code, in the dashboard's types.
type dashSource struct{ a *rest }

var _ dashboard.Source = dashSource{}

// newDashboard builds the web dashboard over the server.
func newDashboard(s *Server) (*dashboard.Dashboard, error) {
	return dashboard.New(dashboard.Config{Source: dashSource{s.api}, InsecureNoAuth: s.cfg.InsecureNoAuth,
		Version: s.cfg.Version, Logger: s.cfg.Logger, Sampling: s.leads,
		Sessions: dashSessions{s}, SecureCookies: s.cfg.BehindTLSProxy})
}

// dashErr turns an API answer into the dashboard's errors: 404 ErrNotFound, another 4xx a
// UserError; what failed on our side passes as it is.
func dashErr(err error) error {
	var se huma.StatusError
	if !errors.As(err, &se) {
		return err
	}
	st := se.GetStatus()
	msg := err.Error()
	var em *api.Problem
	if errors.As(err, &em) && em.Detail != "" {
		msg = em.Detail
	}
	switch {
	case st == http.StatusNotFound:
		return fmt.Errorf("%s: %w", msg, dashboard.ErrNotFound)
	case st >= 400 && st < 500:
		return &dashboard.UserError{Status: st, Message: msg}
	}
	return errors.New(msg)
}

func (d dashSource) Authenticate(ctx context.Context, secret string) (dashboard.Principal, error) {
	t, err := d.a.s.cat.Authenticate(ctx, secret)
	if errors.Is(err, catalog.ErrUnauthenticated) {
		return dashboard.Principal{}, fmt.Errorf("%w: %v", dashboard.ErrUnauthenticated, err)
	}
	if err != nil {
		d.a.s.metrics.catalogErrors.Inc()
		return dashboard.Principal{}, fmt.Errorf("authenticate: %w", err)
	}
	return dashboard.Principal{TokenID: t.ID, Name: t.Name, Role: dashboard.Role(t.Role)}, nil
}

func (d dashSource) Jobs(ctx context.Context, f dashboard.JobFilter) (dashboard.JobPage, error) {
	cf := catalog.JobFilter{Cursor: f.Cursor, Limit: f.Limit}
	for _, s := range f.States {
		cf.States = append(cf.States, stateNamed(api.JobState(s)))
	}
	jobs, next, err := d.a.listJobs(ctx, cf)
	if err != nil {
		return dashboard.JobPage{}, dashErr(err)
	}
	out := dashboard.JobPage{Jobs: make([]dashboard.Job, 0, len(jobs)), Next: next}
	for _, j := range jobs {
		out.Jobs = append(out.Jobs, dashJob(j))
	}
	return out, nil
}

func (d dashSource) Job(ctx context.Context, id string) (dashboard.Job, error) {
	v, err := d.a.jobView(ctx, id)
	if err != nil {
		return dashboard.Job{}, dashErr(err)
	}
	return dashJob(v), nil
}

// dashJob is a job in the dashboard's terms.
func dashJob(v api.JobOut) dashboard.Job {
	p := v.Progress
	j := dashboard.Job{ID: v.ID, State: string(v.State), Message: v.Message, Final: v.State.Final(),
		Source: v.Source, Target: v.Target, Table: v.Table, TargetTable: v.TargetTable, SubmittedBy: v.SubmittedBy,
		SubmittedAt: v.SubmittedAt, UpdatedAt: v.UpdatedAt, BytesDone: p.BytesDone, BytesTotal: p.BytesTotal,
		Fraction: p.Fraction, BytesPerSecond: p.BytesPerSecond, Elapsed: time.Duration(p.ElapsedMs) * time.Millisecond,
		Tasks: dashboard.TaskCounts{Total: p.Tasks.Total, Pending: p.Tasks.Pending, Running: p.Tasks.Running,
			Done: p.Tasks.Done, Failed: p.Tasks.Failed},
		FilesLoaded: p.FilesLoaded, BytesLoaded: p.BytesLoaded, FilesPruned: p.FilesPruned, LoadRetries: p.LoadRetries,
		PinRetries: p.PinRetries, BandwidthLimit: p.BandwidthLimit, LastError: v.LastError}
	if p.EtaSeconds != nil {
		j.ETA = time.Duration(*p.EtaSeconds * float64(time.Second))
	}
	if r := v.Request; r != nil {
		add := func(name, value string) {
			if value != "" {
				j.Spec = append(j.Spec, dashboard.Field{Name: name, Value: value})
			}
		}
		add("Rows", render.Rows(r.StartRow, r.StopRow))
		add("Cell times", render.TimesPtr(r.StartTime, r.EndTime))
		fams := "(all)"
		if len(r.Families) > 0 {
			fams = fmt.Sprint(r.Families)
		}
		add("Families", fams)
		add("Bandwidth asked", orDefault(r.Bandwidth, "(none)"))
		add("Task size", orDefault(r.TaskSize, "(automatic)"))
		add("Create table", strconv.FormatBool(r.CreateTable))
		add("Keep snapshot", strconv.FormatBool(r.KeepSnapshot))
		add("Pin", orDefault(r.Pin, string(job.PinSnapshot)))
		if r.Retries > 0 {
			add("Retries", strconv.Itoa(r.Retries))
		}
	}
	return j
}

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

func (d dashSource) Tasks(ctx context.Context, id string, f dashboard.TaskFilter) (dashboard.TaskPage, error) {
	out, err := d.a.listTasks(ctx, &listTasksIn{ID: id, State: f.State, PageQuery: api.PageQuery{Cursor: f.Cursor, Limit: f.Limit}})
	if err != nil {
		return dashboard.TaskPage{}, dashErr(err)
	}
	var holders map[string]string
	if f.State == "" || f.State == "running" {
		if holders, err = d.a.s.reg.ClaimHolders(ctx, id); err != nil && !errors.Is(err, registry.ErrNotFound) {
			return dashboard.TaskPage{}, fmt.Errorf("job %s: claims: %w", id, err)
		}
	}
	page := dashboard.TaskPage{Tasks: make([]dashboard.Task, 0, len(out.Body.Tasks)), Next: out.Body.Next}
	for _, t := range out.Body.Tasks {
		w := t.Worker
		if t.State == "running" && holders[t.ID] != "" {
			w = holders[t.ID]
		}
		page.Tasks = append(page.Tasks, dashboard.Task{ID: t.ID, State: string(t.State), StartRow: t.StartRow, StopRow: t.StopRow,
			Bytes: t.Bytes, Worker: w, Error: t.Error})
	}
	return page, nil
}

func (d dashSource) Workers(ctx context.Context) ([]dashboard.Worker, error) {
	s := d.a.s
	ws, err := s.reg.Workers(ctx)
	if err != nil {
		return nil, fmt.Errorf("workers: %w", err)
	}
	runs, err := s.claimsByWorker(ctx)
	if err != nil {
		return nil, fmt.Errorf("workers: %w", err)
	}
	out := make([]dashboard.Worker, 0, len(ws))
	for _, w := range ws {
		out = append(out, dashboard.Worker{ID: w.ID, Capacity: w.Capacity, Info: w.Info, Running: runs[w.ID]})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out, nil
}

// claimsByWorker lists the tasks each worker holds, over every job that may have claims.
func (s *Server) claimsByWorker(ctx context.Context) (map[string][]dashboard.TaskRef, error) {
	ids, err := s.reg.Jobs(ctx)
	if err != nil {
		return nil, err
	}
	out := map[string][]dashboard.TaskRef{}
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
		for task, w := range holders {
			out[w] = append(out[w], dashboard.TaskRef{Job: id, Task: task})
		}
	}
	for _, refs := range out {
		sort.Slice(refs, func(i, j int) bool {
			if refs[i].Job != refs[j].Job {
				return refs[i].Job < refs[j].Job
			}
			return refs[i].Task < refs[j].Task
		})
	}
	return out, nil
}

// Act does an operator's action from the dashboard as the API's operations do it, noted in
// the job's history and the audit log.
func (d dashSource) Act(ctx context.Context, p dashboard.Principal, id string, act dashboard.Action, arg string) error {
	s := d.a.s
	by := p.Name + " (dashboard)"
	if err := d.a.dashMayWrite(ctx, p.TokenID, "job", id); err != nil {
		d.audit(ctx, p, "/jobs/"+id+"/"+string(act), "dashboard-"+string(act), err)
		return dashErr(err)
	}
	var err error
	switch act {
	case dashboard.ActionPause, dashboard.ActionResume, dashboard.ActionCancel:
		if err = s.jobs.Control(ctx, id, master.Action(act), by); err != nil {
			err = d.a.jobProblem(err, "job "+id, http.StatusServiceUnavailable)
		}
	case dashboard.ActionBandwidth:
		var bps float64
		if bps, err = units.ParseLimit(arg); err != nil {
			err = huma.Error400BadRequest("bandwidth: " + err.Error())
		} else if err = s.jobs.SetBandwidth(ctx, id, bps, by); err != nil {
			err = d.a.jobProblem(err, "job "+id, http.StatusServiceUnavailable)
		}
	default:
		err = huma.Error400BadRequest("unknown action " + string(act))
	}
	d.audit(ctx, p, "/jobs/"+id+"/"+string(act), "dashboard-"+string(act), err)
	if err != nil {
		return dashErr(err)
	}
	return nil
}

func (d dashSource) Relocations(ctx context.Context) ([]dashboard.Relocation, error) {
	s := d.a.s
	rs, err := s.cat.ListRelocations(ctx, false)
	if err != nil {
		return nil, dashErr(d.a.problem(err, "relocations"))
	}
	out := make([]dashboard.Relocation, 0, len(rs))
	for _, r := range slices.Backward(rs) { // newest first, as the API lists them
		v, err := s.relocationView(ctx, r, false)
		if err != nil {
			return nil, dashErr(d.a.problem(err, "relocation "+r.ID))
		}
		out = append(out, dashRelocation(v))
	}
	return out, nil
}

func (d dashSource) Relocation(ctx context.Context, id string) (dashboard.Relocation, error) {
	s := d.a.s
	r, err := s.cat.GetRelocation(ctx, id)
	if err != nil {
		return dashboard.Relocation{}, dashErr(d.a.problem(err, "relocation "+id))
	}
	v, err := s.relocationView(ctx, r, true)
	if err != nil {
		return dashboard.Relocation{}, dashErr(d.a.problem(err, "relocation "+id))
	}
	return dashRelocation(v), nil
}

// RelocationAction does an operator's action on a relocation from the dashboard as the
// API's operations do it, noted in the audit log.
func (d dashSource) RelocationAction(ctx context.Context, p dashboard.Principal, id string, act dashboard.RelocationAct) (dashboard.CutoverPlan, error) {
	var plan dashboard.CutoverPlan
	var err error
	path := "/relocations/" + id + "/" + string(act)
	if err := d.a.dashMayWrite(ctx, p.TokenID, "relocation", id); err != nil {
		d.audit(ctx, p, path, "dashboard-relocation-"+string(act), err)
		return plan, dashErr(err)
	}
	switch act {
	case dashboard.RelocationPause, dashboard.RelocationResume, dashboard.RelocationCancel:
		_, err = d.a.s.relocs.Apply(ctx, id, controlEvent(string(act), p.Name+" (dashboard)"))
		if err != nil {
			err = d.a.problem(err, "relocation "+id)
		}
	case dashboard.RelocationDryRun:
		path = "/relocations/" + id + "/cutover"
		var out *struct{ Body api.CutoverOut }
		if out, err = d.a.cutover(ctx, id, false, true); err == nil {
			plan = dashboard.CutoverPlan{Blocked: out.Body.Blocked, Gates: dashGates(out.Body.Gates), Steps: out.Body.Steps}
		}
	default:
		err = huma.Error400BadRequest("unknown action " + string(act))
	}
	d.audit(ctx, p, path, "dashboard-relocation-"+string(act), err)
	if err != nil {
		return plan, dashErr(err)
	}
	return plan, nil
}

// RecordSamples keeps the jobs' samples in the catalog, for the throughput charts of every
// server, across restarts.
func (d dashSource) RecordSamples(ctx context.Context, ss []dashboard.JobSample) error {
	rows := make([]catalog.JobSample, 0, len(ss))
	for _, s := range ss {
		rows = append(rows, catalog.JobSample{JobID: s.Job, Time: s.At, BytesDone: s.BytesDone})
	}
	if err := d.a.s.cat.AppendJobSamples(ctx, rows); err != nil {
		d.a.s.metrics.catalogErrors.Inc()
		return err
	}
	return nil
}

// Samples reads a job's samples from the catalog.
func (d dashSource) Samples(ctx context.Context, id string) ([]dashboard.Sample, error) {
	rows, err := d.a.s.cat.JobSamples(ctx, id)
	if err != nil {
		if !errors.Is(err, catalog.ErrNotFound) {
			d.a.s.metrics.catalogErrors.Inc()
		}
		return nil, err
	}
	out := make([]dashboard.Sample, 0, len(rows))
	for _, r := range rows {
		out = append(out, dashboard.Sample{At: r.Time, BytesDone: r.BytesDone})
	}
	return out, nil
}

// Refused records a request the dashboard refused in the audit log, as the API records its
// refusals (through the failed-authentication limiter): who (if anyone signed in), what,
// the status, and why after "dashboard: ".
func (d dashSource) Refused(ctx context.Context, r dashboard.Refusal) error {
	e := catalog.AuditEntry{TokenID: r.Who.TokenID, TokenName: r.Who.Name, Role: catalog.Role(r.Who.Role), Method: r.Method,
		Path: r.Path, RemoteAddr: clientOf(ctx, r.Who.Addr), Status: r.Status, Message: "dashboard: " + r.Why}
	d.a.refused(ctx, e)
	return nil
}

// audit records an action of the dashboard in the audit log, with the status its error
// means.
func (d dashSource) audit(ctx context.Context, p dashboard.Principal, path, msg string, err error) {
	s := d.a.s
	status := http.StatusOK
	var se huma.StatusError
	if errors.As(err, &se) {
		status = se.GetStatus()
	} else if err != nil {
		status = http.StatusInternalServerError
	}
	e := catalog.AuditEntry{TokenID: p.TokenID, TokenName: p.Name, Role: catalog.Role(p.Role), Method: http.MethodPost,
		Path: path, RemoteAddr: p.Addr, Status: status, Message: msg}
	actx, cancel := context.WithTimeout(context.WithoutCancel(ctx), catalogTimeout)
	defer cancel()
	if _, aerr := s.cat.AppendAudit(actx, e); aerr != nil {
		s.metrics.catalogErrors.Inc()
		s.cfg.Logger.Error("audit log: cannot record a dashboard action", "path", e.Path, "err", aerr)
	}
}

// msTime is a cell timestamp in ms as a time; 0 is the zero time.
func msTime(ms int64) time.Time {
	if ms == 0 {
		return time.Time{}
	}
	return time.UnixMilli(ms).UTC()
}

func timeOr(t *time.Time) time.Time {
	if t == nil {
		return time.Time{}
	}
	return *t
}

func dashGates(gs []api.GateOut) []dashboard.Gate {
	out := make([]dashboard.Gate, 0, len(gs))
	for _, g := range gs {
		out = append(out, dashboard.Gate{Name: g.Name, Detail: g.Detail, OK: g.OK, Forcible: g.Forcible})
	}
	return out
}

// dashRelocation is a relocation in the dashboard's terms.
func dashRelocation(v api.RelocationOut) dashboard.Relocation {
	r := dashboard.Relocation{ID: v.ID, Source: v.Source, Target: v.Target, StartRow: v.StartRow, StopRow: v.StopRow,
		Schedule: v.Schedule, Margin: v.Margin, MaxLag: v.MaxLag, Bandwidth: v.Bandwidth, Phase: string(v.Phase),
		ResumePhase: string(v.ResumePhase), Why: v.Why, Final: v.Phase.Final(), Watermark: msTime(v.Watermark),
		NextTick: timeOr(v.NextTick), RunningWindow: v.RunningWindow, Verifying: v.Verifying, Gates: dashGates(v.Gates),
		CreatedBy: v.CreatedBy, CreatedAt: v.CreatedAt, UpdatedAt: v.UpdatedAt, FinishedAt: timeOr(v.FinishedAt)}
	for _, t := range v.Tables {
		r.Tables = append(r.Tables, dashboard.TableMap{Source: t.Source, Target: orDefault(t.Target, t.Source)})
	}
	if v.LagMs != nil {
		r.Lag, r.HasLag = time.Duration(*v.LagMs)*time.Millisecond, true
	}
	if x := v.Verification; x != nil {
		r.Verification = &dashboard.Verification{Until: msTime(x.Until), At: x.At, Passed: x.Passed, Final: x.Final, Why: x.Why}
	}
	if x := v.Report; x != nil {
		rep := &dashboard.Report{Until: msTime(x.Until), CellsCompared: x.CellsCompared, Differences: x.Differences,
			Remaining: x.Remaining, RangesRecopied: x.RangesRecopied, BytesCopied: x.BytesCopied, BytesVerified: x.BytesVerified,
			Windows: x.Windows, Duration: time.Duration(x.DurationMs) * time.Millisecond, VerifyTime: time.Duration(x.VerifyMs) * time.Millisecond}
		for _, t := range x.Tables {
			rep.Tables = append(rep.Tables, dashboard.ReportTable{Source: t.Source, Target: t.Target, CellsCompared: t.CellsCompared,
				Differences: t.Differences, Remaining: t.Remaining, RangesRecopied: len(t.RangesRecopied)})
		}
		r.Report = rep
	}
	for _, w := range v.Windows {
		r.Windows = append(r.Windows, dashboard.Window{Seq: w.Seq, Kind: string(w.Kind), Outcome: string(w.Outcome), Why: w.Why,
			From: msTime(w.StartTime), Until: msTime(w.EndTime), Snapshot: msTime(w.SnapshotTime), JobIDs: w.JobIDs,
			Bytes: w.Bytes, FilesLoaded: w.FilesLoaded, FilesPruned: w.FilesPruned, StartedAt: w.StartedAt,
			FinishedAt: timeOr(w.FinishedAt), Duration: time.Duration(w.DurationMs) * time.Millisecond,
			Lag: time.Duration(w.LagMs) * time.Millisecond})
	}
	return r
}

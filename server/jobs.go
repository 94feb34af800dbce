package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"time"

	"github.com/danielgtaylor/huma/v2"

	"rangecopy/api"
	"rangecopy/catalog"
	"rangecopy/job"
	"rangecopy/jobs"
	"rangecopy/master"
	"rangecopy/registry"
	"rangecopy/units"
)

// jobIDIn is the input of the operations that take only a job id. Inputs with more repeat
// its field rather than embed it: huma reads no parameters from an embedded unexported
// struct.
type jobIDIn struct {
	ID string `path:"id" minLength:"1" maxLength:"128" pattern:"^[A-Za-z0-9._:-]+$" doc:"the job's id"`
}

type jobOutput struct {
	Body api.JobOut
}

// knownJobID is a 404 for an id the registry cannot hold (such as one with "-n_"), which so
// names no job, rather than the registry's refusal surfacing as a server error.
func knownJobID(id string) error {
	if registry.ValidateJobID(id) != nil {
		return huma.Error404NotFound("job " + id + ": no such job")
	}
	return nil
}

// stateOf is the catalog's name of a registry state.
func stateOf(s registry.JobState) catalog.JobState { return catalog.StateOf(s) }

// live is what the registry says of a job now.
type live struct {
	job    registry.Job
	rec    *job.Record
	counts registry.Counts
	report *api.JobReport
	limit  float64
}

// readLive reads a job's live state from the registry; registry.ErrNotFound when it has none.
func (a *rest) readLive(ctx context.Context, id string) (*live, error) {
	reg := a.s.reg
	j, err := reg.Job(ctx, id)
	if err != nil {
		return nil, err
	}
	l := &live{job: j}
	if rec, err := job.DecodeRecord(j.Spec); err == nil {
		l.rec = &rec
		l.limit = rec.Options.Bandwidth
	}
	if bw, ok, err := reg.Bandwidth(ctx, id); err == nil && ok {
		l.limit = bw
	}
	if l.counts, err = reg.Count(ctx, id); err != nil && !errors.Is(err, registry.ErrNotFound) {
		return nil, fmt.Errorf("job %s: count tasks: %w", id, err)
	}
	rep, ok, err := master.LoadReport(ctx, reg, id)
	if err != nil {
		return nil, err
	}
	if ok {
		r := reportOut(rep)
		l.report = &r
	}
	return l, nil
}

// view is the API's form of a job from its catalog row (nil if none) and live state (nil if
// none).
func view(row *catalog.Job, l *live, now time.Time) api.JobOut {
	var out api.JobOut
	if row != nil {
		out = api.JobOut{ID: row.ID, State: api.JobState(row.State.String()), Source: row.SourceCluster, Target: row.TargetCluster,
			Table: row.Table, TargetTable: row.TargetTable, SubmittedBy: row.SubmittedBy,
			SubmittedAt: row.SubmittedAt, UpdatedAt: row.UpdatedAt, LastError: row.LastError}
		var sub api.JobSubmission
		if json.Unmarshal([]byte(row.Spec), &sub) == nil && sub.Table != "" {
			out.Request = &sub
		}
		if row.FinalReport != "" {
			var rep api.JobReport
			if json.Unmarshal([]byte(row.FinalReport), &rep) == nil {
				out.Report = &rep
			}
		}
	}
	if l != nil {
		out.ID = l.job.ID
		out.State = api.JobState(stateOf(l.job.State).String())
		out.Message = l.job.Message
		if l.rec != nil {
			if out.Table == "" {
				out.Table, out.TargetTable = l.rec.Spec.Table, l.rec.Spec.Target()
			}
			if out.Source == "" {
				out.Source, out.Target = l.rec.Source.String(), l.rec.Target.String()
			}
		}
		out.Progress.Tasks = api.TaskCounts{Total: l.counts.Tasks, Pending: l.counts.Pending, Running: l.counts.Claimed,
			Done: l.counts.Done, Failed: l.counts.Failed}
		out.Progress.BandwidthLimit = l.limit
		if l.report != nil {
			out.Report = l.report
		}
		if out.State == api.JobFailed || out.State == api.JobPaused {
			if out.LastError == "" {
				out.LastError = l.job.Message
			}
		}
	}
	if out.State == api.JobLost && out.Message == "" {
		out.Message = "the registry holds no record of this job any more"
	}
	if r := out.Report; r != nil {
		p := &out.Progress
		p.BytesDone, p.BytesTotal = r.BytesRead, r.InputBytes
		p.BytesPerSecond, p.ElapsedMs = r.BytesPerSecond, r.ElapsedMs
		p.FilesLoaded, p.BytesLoaded, p.FilesPruned = r.FilesLoaded, r.BytesLoaded, r.FilesPruned
		p.LoadRetries, p.PinRetries = r.LoadRetries, r.PinRetries
		if l == nil {
			p.Tasks = api.TaskCounts{Total: int(r.Tasks), Done: int(r.TasksDone), Failed: int(r.TasksFailed)}
		}
		if r.Error != "" && out.LastError == "" && r.Status != job.ReportDone.String() {
			out.LastError = r.Error
		}
	}
	p := &out.Progress
	if p.BytesTotal > 0 {
		p.Fraction = min(1, float64(p.BytesDone)/float64(p.BytesTotal))
	}
	if out.State == api.JobDone {
		p.Fraction = 1
	}
	if p.BytesPerSecond > 0 && p.BytesTotal > p.BytesDone && !out.State.Final() {
		eta := float64(p.BytesTotal-p.BytesDone) / p.BytesPerSecond
		p.EtaSeconds = &eta
	}
	if out.SubmittedAt.IsZero() {
		out.SubmittedAt = now.UTC()
		out.UpdatedAt = now.UTC()
	}
	return out
}

// reportOut is the API's form of a job's report: the same JSON.
func reportOut(r job.Report) api.JobReport {
	var out api.JobReport
	if b, err := json.Marshal(r); err == nil {
		_ = json.Unmarshal(b, &out)
	}
	return out
}

// jobView reads one job from the catalog and the registry; 404 when neither knows it.
func (a *rest) jobView(ctx context.Context, id string) (api.JobOut, error) {
	if err := knownJobID(id); err != nil {
		return api.JobOut{}, err
	}
	var row *catalog.Job
	j, err := a.s.cat.GetJob(ctx, id)
	switch {
	case err == nil:
		row = &j
	case !errors.Is(err, catalog.ErrNotFound):
		a.s.metrics.catalogErrors.Inc()
		return api.JobOut{}, a.problem(err, "job "+id)
	}
	var l *live
	if row == nil || !row.State.Final() {
		l, err = a.readLive(ctx, id)
		if err != nil && !errors.Is(err, registry.ErrNotFound) {
			return api.JobOut{}, a.problem(err, "job "+id)
		}
	}
	if row == nil && l == nil {
		return api.JobOut{}, huma.Error404NotFound("job " + id + ": no such job")
	}
	return view(row, l, time.Now()), nil
}

type listJobsIn struct {
	State   []string `query:"state" enum:"pending,planning,running,paused,cancelling,done,failed,cancelled,lost" doc:"keep jobs in these states"`
	Table   string   `query:"table" maxLength:"512" doc:"keep jobs of this source table"`
	Cluster string   `query:"cluster" maxLength:"128" doc:"keep jobs whose source or target is this cluster"`
	api.PageQuery
}

type listJobsOutput struct {
	Body api.JobList
}

type submitIn struct {
	IdempotencyKey string `header:"Idempotency-Key" maxLength:"191" doc:"a key of the client's: a second submission with the same key returns the first job"`
	Body           api.JobSubmission
}

type submitOutput struct {
	Status int
	Body   api.JobOut
}

// patchJobIn declares its path parameter itself: huma left an embedded jobIDIn's id empty.
type patchJobIn struct {
	ID   string `path:"id" minLength:"1" maxLength:"128" pattern:"^[A-Za-z0-9._:-]+$" doc:"the job's id"`
	Body api.JobPatch
}

func (a *rest) registerJobs() {
	list := op("list-jobs", http.MethodGet, "/jobs", "List jobs", catalog.RoleViewer, "jobs")
	list.Errors = append(list.Errors, http.StatusBadRequest)
	huma.Register(a.h, list, func(ctx context.Context, in *listJobsIn) (*listJobsOutput, error) {
		f := catalog.JobFilter{Table: in.Table, Cluster: in.Cluster, Cursor: in.Cursor, Limit: in.Limit}
		for _, s := range in.State {
			f.States = append(f.States, stateNamed(api.JobState(s)))
		}
		jobs, next, err := a.listJobs(ctx, f)
		if err != nil {
			return nil, err
		}
		out := &listJobsOutput{}
		out.Body.Jobs, out.Body.Next = jobs, next
		return out, nil
	})

	submit := op("submit-job", http.MethodPost, "/jobs", "Submit a copy job", catalog.RoleOperator, "jobs")
	submit.Description += " The same copy submitted again while it runs returns that job (200); so does a second submission with the same Idempotency-Key. A new job answers 201. Concurrent identical submissions make one job. A copy whose target table is its source table on the same cluster (by HBase's cluster id, whatever the names) is refused (400)."
	submit.DefaultStatus = http.StatusCreated
	submit.Errors = append(submit.Errors, http.StatusBadRequest, http.StatusConflict, http.StatusBadGateway)
	huma.Register(a.h, submit, a.submit)
	// The same copy again answers 200 with the job it returns, as the 201 does.
	if pi := a.h.OpenAPI().Paths[api.APIPrefix+"/jobs"]; pi != nil && pi.Post != nil {
		if created := pi.Post.Responses["201"]; created != nil {
			same := *created
			same.Description = "The same copy is under way (or the Idempotency-Key was used for it): that job."
			pi.Post.Responses["200"] = &same
		}
	}

	get := op("get-job", http.MethodGet, "/jobs/{id}", "Show a job: spec, state and progress", catalog.RoleViewer, "jobs")
	get.Errors = append(get.Errors, http.StatusNotFound)
	huma.Register(a.h, get, func(ctx context.Context, in *jobIDIn) (*jobOutput, error) {
		v, err := a.jobView(ctx, in.ID)
		if err != nil {
			return nil, err
		}
		return &jobOutput{Body: v}, nil
	})

	for _, act := range []master.Action{master.ActionPause, master.ActionResume, master.ActionCancel} {
		o := op(string(act)+"-job", http.MethodPost, "/jobs/{id}/"+string(act), controlSummary(act), catalog.RoleOperator, "jobs")
		o.Errors = append(o.Errors, http.StatusNotFound, http.StatusConflict)
		huma.Register(a.h, o, func(ctx context.Context, in *jobIDIn) (*jobOutput, error) {
			if err := a.mayWriteJob(ctx, in.ID); err != nil {
				return nil, err
			}
			if err := a.s.jobs.Control(ctx, in.ID, act, callerOf(ctx).name); err != nil {
				return nil, a.jobProblem(err, "job "+in.ID, http.StatusServiceUnavailable)
			}
			v, err := a.jobView(ctx, in.ID)
			if err != nil {
				return nil, err
			}
			return &jobOutput{Body: v}, nil
		})
	}

	patch := op("patch-job", http.MethodPatch, "/jobs/{id}", "Change the bandwidth of a job", catalog.RoleOperator, "jobs")
	patch.Description += " Workers pick the new rate up within seconds."
	patch.Errors = append(patch.Errors, http.StatusBadRequest, http.StatusNotFound, http.StatusConflict)
	huma.Register(a.h, patch, a.patchJob)

	tasks := op("list-job-tasks", http.MethodGet, "/jobs/{id}/tasks", "List a job's tasks by id, with their state", catalog.RoleViewer, "jobs")
	tasks.Errors = append(tasks.Errors, http.StatusNotFound, http.StatusBadRequest)
	huma.Register(a.h, tasks, a.listTasks)

	a.registerEvents()
}

// listJobs reads a page of jobs from the catalog, each with its live state from the
// registry, and the cursor of the next page.
func (a *rest) listJobs(ctx context.Context, f catalog.JobFilter) ([]api.JobOut, string, error) {
	// The catalog follows the registry a reconcile behind: a job it still holds open may be
	// in a wanted state already (done, say), and one it holds in a wanted state may have
	// moved on. So the open ones are read too, and every job is kept by its state now.
	want := f.States
	if len(want) > 0 {
		f.States = slices.Clone(want)
		for _, s := range openJobStates() {
			if !slices.Contains(f.States, s) {
				f.States = append(f.States, s)
			}
		}
	}
	page, err := a.s.cat.ListJobs(ctx, f)
	if err != nil {
		if errors.Is(err, catalog.ErrInvalid) {
			return nil, "", huma.Error400BadRequest("cursor: not one this server gave out")
		}
		return nil, "", a.problem(err, "jobs")
	}
	jobs := make([]api.JobOut, 0, len(page.Jobs))
	now := time.Now()
	for i := range page.Jobs {
		row := &page.Jobs[i]
		var l *live
		if !row.State.Final() {
			if l, err = a.readLive(ctx, row.ID); err != nil && !errors.Is(err, registry.ErrNotFound) {
				return nil, "", a.problem(err, "job "+row.ID)
			}
		}
		v := view(row, l, now)
		if len(want) > 0 && !slices.Contains(want, stateNamed(v.State)) {
			continue
		}
		jobs = append(jobs, v)
	}
	return jobs, page.Next, nil
}

// openJobStates are the catalog's states of a job that has not ended.
func openJobStates() []catalog.JobState {
	var open []catalog.JobState
	for _, s := range catalog.JobStates() {
		if !s.Final() {
			open = append(open, s)
		}
	}
	return open
}

// controlSummary is the summary of an action's operation.
func controlSummary(act master.Action) string {
	switch act {
	case master.ActionPause:
		return "Pause a job: stop handing out its tasks; running ones stop at their checkpoint"
	case master.ActionResume:
		return "Resume a paused job, with a new round of retries"
	}
	return "Cancel a job: workers stop, the master removes its work folder and snapshot"
}

// submit answers POST /jobs.
func (a *rest) submit(ctx context.Context, in *submitIn) (*submitOutput, error) {
	req, err := jobs.NewRequest(in.Body.Source, in.Body.Target, job.Request(in.Body.CopyRequest))
	if err != nil {
		return nil, a.jobProblem(err, "job submission", http.StatusBadGateway)
	}
	if err := mayWrite(ctx, req.Target, req.Spec.Target()); err != nil {
		return nil, err
	}
	req.By, req.IdempotencyKey = callerOf(ctx).name, in.IdempotencyKey
	got, err := a.s.jobs.Submit(ctx, req)
	if err != nil {
		return nil, a.jobProblem(err, "job submission", http.StatusBadGateway)
	}
	status := http.StatusOK
	if got.Created {
		status = http.StatusCreated
	}
	return a.submitted(ctx, got.ID, status)
}

// Job returns a job as GET /api/v1/jobs/{id} shows it; a 404 (huma.StatusError) when
// neither the catalog nor the registry knows it.
func (s *Server) Job(ctx context.Context, id string) (api.JobOut, error) {
	return s.api.jobView(ctx, id)
}

func (a *rest) submitted(ctx context.Context, id string, status int) (*submitOutput, error) {
	v, err := a.jobView(ctx, id)
	if err != nil {
		return nil, err
	}
	return &submitOutput{Status: status, Body: v}, nil
}

// patchJob changes a job's bandwidth.
func (a *rest) patchJob(ctx context.Context, in *patchJobIn) (*jobOutput, error) {
	bps, err := units.ParseLimit(in.Body.Bandwidth)
	if err != nil {
		return nil, fieldProblem("bandwidth", err.Error(), in.Body.Bandwidth)
	}
	if err := a.mayWriteJob(ctx, in.ID); err != nil {
		return nil, err
	}
	if err := a.s.jobs.SetBandwidth(ctx, in.ID, bps, callerOf(ctx).name); err != nil {
		return nil, a.jobProblem(err, "job "+in.ID, http.StatusServiceUnavailable)
	}
	v, err := a.jobView(ctx, in.ID)
	if err != nil {
		return nil, err
	}
	return &jobOutput{Body: v}, nil
}

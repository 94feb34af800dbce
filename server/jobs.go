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

	"rangecopy/catalog"
	"rangecopy/job"
	"rangecopy/jobs"
	"rangecopy/master"
	"rangecopy/registry"
	"rangecopy/units"
)

// JobSubmission is the body of POST /jobs: the clusters by name and the copy, with the same
// fields and checks as rangecopy copy.
type JobSubmission struct {
	// Source and Target name registered clusters.
	Source string `json:"source" minLength:"1" maxLength:"128" doc:"name of the registered source cluster" example:"dc1"`
	Target string `json:"target" minLength:"1" maxLength:"128" doc:"name of the registered target cluster" example:"dc2"`
	job.Request
}

// TaskCounts are a job's tasks by state.
type TaskCounts struct {
	Total   int `json:"total" doc:"tasks the plan made"`
	Pending int `json:"pending" doc:"waiting for a worker"`
	Running int `json:"running" doc:"held by a worker"`
	Done    int `json:"done" doc:"finished"`
	Failed  int `json:"failed" doc:"failed (retried by the master up to the job's retries)"`
}

// Progress is how far a job is.
type Progress struct {
	BytesDone      int64      `json:"bytesDone" doc:"input bytes of the done tasks"`
	BytesTotal     int64      `json:"bytesTotal" doc:"input bytes the plan estimated"`
	Fraction       float64    `json:"fraction" doc:"bytesDone over bytesTotal, 0 to 1"`
	BytesPerSecond float64    `json:"bytesPerSecond" doc:"input bytes per second, over the job's run time"`
	EtaSeconds     *float64   `json:"etaSeconds,omitempty" doc:"seconds left at the present rate; absent when unknown"`
	Tasks          TaskCounts `json:"tasks"`
	FilesLoaded    int64      `json:"filesLoaded" doc:"files bulk loaded into the target"`
	BytesLoaded    int64      `json:"bytesLoaded" doc:"bytes bulk loaded into the target"`
	FilesPruned    int        `json:"filesPruned" doc:"input files left unread by the row or time range"`
	LoadRetries    int64      `json:"loadRetries" doc:"bulk load requests sent again"`
	PinRetries     int        `json:"pinRetries" doc:"source snapshots taken again after a failed one"`
	BandwidthLimit float64    `json:"bandwidthLimit" doc:"job-wide read cap in bytes per second; 0 means none"`
	ElapsedMs      int64      `json:"elapsedMs" doc:"how long the job has run"`
}

// JobOut is a job as the API shows it.
type JobOut struct {
	ID          string         `json:"id" doc:"the job's id"`
	State       string         `json:"state" enum:"pending,planning,running,paused,cancelling,done,failed,cancelled,lost" doc:"the job's state; lost: in the catalog, gone from the registry"`
	Message     string         `json:"message,omitempty" doc:"what the state means now"`
	Source      string         `json:"source" doc:"source cluster (its name, or how it is reached for a job submitted without the server)"`
	Target      string         `json:"target" doc:"target cluster"`
	Table       string         `json:"table" doc:"source table"`
	TargetTable string         `json:"targetTable" doc:"target table"`
	Request     *JobSubmission `json:"request,omitempty" doc:"the job as submitted"`
	SubmittedBy string         `json:"submittedBy,omitempty" doc:"token name of the submitter"`
	SubmittedAt time.Time      `json:"submittedAt" doc:"when it was submitted"`
	UpdatedAt   time.Time      `json:"updatedAt" doc:"when its catalog record last changed"`
	Progress    Progress       `json:"progress"`
	LastError   string         `json:"lastError,omitempty" doc:"the last error the job met"`
	Report      *job.Report    `json:"report,omitempty" doc:"the master's latest report: progress while it runs, the final report once it ended"`
}

// jobIDIn is the input of the operations that take only a job id. Inputs with more repeat
// its field rather than embed it: huma reads no parameters from an embedded unexported
// struct.
type jobIDIn struct {
	ID string `path:"id" minLength:"1" maxLength:"128" pattern:"^[A-Za-z0-9._:-]+$" doc:"the job's id"`
}

type jobOutput struct {
	Body JobOut
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
	report *job.Report
	limit  float64
}

// readLive reads a job's live state from the registry; registry.ErrNotFound when it has none.
func (a *api) readLive(ctx context.Context, id string) (*live, error) {
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
		l.report = &rep
	}
	return l, nil
}

// view is the API's form of a job from its catalog row (nil if none) and live state (nil if
// none).
func view(row *catalog.Job, l *live, now time.Time) JobOut {
	var out JobOut
	if row != nil {
		out = JobOut{ID: row.ID, State: row.State.String(), Source: row.SourceCluster, Target: row.TargetCluster,
			Table: row.Table, TargetTable: row.TargetTable, SubmittedBy: row.SubmittedBy,
			SubmittedAt: row.SubmittedAt, UpdatedAt: row.UpdatedAt, LastError: row.LastError}
		var sub JobSubmission
		if json.Unmarshal([]byte(row.Spec), &sub) == nil && sub.Table != "" {
			out.Request = &sub
		}
		if row.FinalReport != "" {
			var rep job.Report
			if json.Unmarshal([]byte(row.FinalReport), &rep) == nil {
				out.Report = &rep
			}
		}
	}
	if l != nil {
		out.ID = l.job.ID
		out.State = stateOf(l.job.State).String()
		out.Message = l.job.Message
		if l.rec != nil {
			if out.Table == "" {
				out.Table, out.TargetTable = l.rec.Spec.Table, l.rec.Spec.Target()
			}
			if out.Source == "" {
				out.Source, out.Target = l.rec.Source.String(), l.rec.Target.String()
			}
		}
		out.Progress.Tasks = TaskCounts{Total: l.counts.Tasks, Pending: l.counts.Pending, Running: l.counts.Claimed,
			Done: l.counts.Done, Failed: l.counts.Failed}
		out.Progress.BandwidthLimit = l.limit
		if l.report != nil {
			out.Report = l.report
		}
		if out.State == job.StateFailed.String() || out.State == job.StatePaused.String() {
			if out.LastError == "" {
				out.LastError = l.job.Message
			}
		}
	}
	if out.State == catalog.JobLost().String() && out.Message == "" {
		out.Message = "the registry holds no record of this job any more"
	}
	if r := out.Report; r != nil {
		p := &out.Progress
		p.BytesDone, p.BytesTotal = r.BytesRead, r.InputBytes
		p.BytesPerSecond, p.ElapsedMs = r.BytesPerSecond, r.ElapsedMs
		p.FilesLoaded, p.BytesLoaded, p.FilesPruned = r.FilesLoaded, r.BytesLoaded, r.FilesPruned
		p.LoadRetries, p.PinRetries = r.LoadRetries, r.PinRetries
		if l == nil {
			p.Tasks = TaskCounts{Total: int(r.Tasks), Done: int(r.TasksDone), Failed: int(r.TasksFailed)}
		}
		if r.Error != "" && out.LastError == "" && r.Status != job.ReportDone {
			out.LastError = r.Error
		}
	}
	p := &out.Progress
	if p.BytesTotal > 0 {
		p.Fraction = min(1, float64(p.BytesDone)/float64(p.BytesTotal))
	}
	if out.State == job.StateDone.String() {
		p.Fraction = 1
	}
	if p.BytesPerSecond > 0 && p.BytesTotal > p.BytesDone && !stateNamed(out.State).Final() {
		eta := float64(p.BytesTotal-p.BytesDone) / p.BytesPerSecond
		p.EtaSeconds = &eta
	}
	if out.SubmittedAt.IsZero() {
		out.SubmittedAt = now.UTC()
		out.UpdatedAt = now.UTC()
	}
	return out
}

// jobView reads one job from the catalog and the registry; 404 when neither knows it.
func (a *api) jobView(ctx context.Context, id string) (JobOut, error) {
	if err := knownJobID(id); err != nil {
		return JobOut{}, err
	}
	var row *catalog.Job
	j, err := a.s.cat.GetJob(ctx, id)
	switch {
	case err == nil:
		row = &j
	case !errors.Is(err, catalog.ErrNotFound):
		a.s.metrics.catalogErrors.Inc()
		return JobOut{}, a.problem(err, "job "+id)
	}
	var l *live
	if row == nil || !row.State.Final() {
		l, err = a.readLive(ctx, id)
		if err != nil && !errors.Is(err, registry.ErrNotFound) {
			return JobOut{}, a.problem(err, "job "+id)
		}
	}
	if row == nil && l == nil {
		return JobOut{}, huma.Error404NotFound("job " + id + ": no such job")
	}
	return view(row, l, time.Now()), nil
}

type listJobsIn struct {
	State   []string `query:"state" enum:"pending,planning,running,paused,cancelling,done,failed,cancelled,lost" doc:"keep jobs in these states"`
	Table   string   `query:"table" maxLength:"512" doc:"keep jobs of this source table"`
	Cluster string   `query:"cluster" maxLength:"128" doc:"keep jobs whose source or target is this cluster"`
	Cursor  string   `query:"cursor" maxLength:"1024" doc:"the next of the page before"`
	Limit   int      `query:"limit" minimum:"1" maximum:"1000" default:"100" doc:"page size"`
}

type listJobsOutput struct {
	Body struct {
		Jobs []JobOut `json:"jobs" doc:"oldest first"`
		Next string   `json:"next,omitempty" doc:"cursor of the next page; absent on the last"`
	}
}

type submitIn struct {
	IdempotencyKey string `header:"Idempotency-Key" maxLength:"191" doc:"a key of the client's: a second submission with the same key returns the first job"`
	Body           JobSubmission
}

type submitOutput struct {
	Status int
	Body   JobOut
}

// patchJobIn declares its path parameter itself: huma left an embedded jobIDIn's id empty.
type patchJobIn struct {
	ID   string `path:"id" minLength:"1" maxLength:"128" pattern:"^[A-Za-z0-9._:-]+$" doc:"the job's id"`
	Body struct {
		Bandwidth string `json:"bandwidth" maxLength:"64" doc:"new job-wide read cap, e.g. 200MB/s; \"0\" or \"none\" removes the cap" example:"200MB/s"`
	}
}

func (a *api) registerJobs() {
	list := op("list-jobs", http.MethodGet, "/jobs", "List jobs", catalog.RoleViewer, "jobs")
	list.Errors = append(list.Errors, http.StatusBadRequest)
	huma.Register(a.h, list, func(ctx context.Context, in *listJobsIn) (*listJobsOutput, error) {
		f := catalog.JobFilter{Table: in.Table, Cluster: in.Cluster, Cursor: in.Cursor, Limit: in.Limit}
		for _, s := range in.State {
			f.States = append(f.States, stateNamed(s))
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
	submit.Description += " The same copy submitted again while it runs returns that job (200); so does a second submission with the same Idempotency-Key. A new job answers 201."
	submit.DefaultStatus = http.StatusCreated
	submit.Errors = append(submit.Errors, http.StatusBadRequest, http.StatusConflict, http.StatusBadGateway)
	huma.Register(a.h, submit, a.submit)
	// The same copy again answers 200 with the job it returns, as the 201 does.
	if pi := a.h.OpenAPI().Paths[APIPrefix+"/jobs"]; pi != nil && pi.Post != nil {
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
func (a *api) listJobs(ctx context.Context, f catalog.JobFilter) ([]JobOut, string, error) {
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
	jobs := make([]JobOut, 0, len(page.Jobs))
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
func (a *api) submit(ctx context.Context, in *submitIn) (*submitOutput, error) {
	req, err := jobs.NewRequest(in.Body.Source, in.Body.Target, in.Body.Request)
	if err != nil {
		return nil, a.jobProblem(err, "job submission", http.StatusBadGateway)
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
func (s *Server) Job(ctx context.Context, id string) (JobOut, error) { return s.api.jobView(ctx, id) }

func (a *api) submitted(ctx context.Context, id string, status int) (*submitOutput, error) {
	v, err := a.jobView(ctx, id)
	if err != nil {
		return nil, err
	}
	return &submitOutput{Status: status, Body: v}, nil
}

// patchJob changes a job's bandwidth.
func (a *api) patchJob(ctx context.Context, in *patchJobIn) (*jobOutput, error) {
	bps, err := units.ParseLimit(in.Body.Bandwidth)
	if err != nil {
		return nil, fieldProblem("bandwidth", err.Error(), in.Body.Bandwidth)
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

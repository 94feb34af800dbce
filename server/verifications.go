package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"sync"
	"time"

	"github.com/danielgtaylor/huma/v2"

	"rangecopy/api"
	"rangecopy/catalog"
	"rangecopy/job"
	"rangecopy/jobs"
	"rangecopy/rowkey"
	"rangecopy/verify"
)

// A verification runs on the server that received it, in a goroutine, as a registry job
// (verify.Run with the server's registry: its units hashed by the embedded workers and any
// worker agent, their hashes checkpointed); it beats in the catalog every verifyHeartbeat. One whose heartbeat is
// older than verifyStale is taken for orphaned (its server stopped) and adopted by the
// leader, and a server that starts again adopts its own: either runs it again with the same
// options, so the registry job resumes with its snapshots and the units already hashed.
const (
	verifyHeartbeat = 10 * time.Second
	verifyStale     = 6 * verifyHeartbeat
)

// reportOf is the API's form of verify's report.
func reportOf(r verify.Report) (api.VerificationReport, error) {
	out := api.VerificationReport{SourceTable: r.SourceTable, TargetTable: r.TargetTable, Mode: r.Mode.String(),
		SourceSnapshot: r.SourceSnapshot, TargetSnapshot: r.TargetSnapshot, SourceCells: r.SourceCells, TargetCells: r.TargetCells,
		SourceRows: r.SourceRows, TargetRows: r.TargetRows, Batches: r.Batches, BatchesMatched: r.BatchesMatched,
		BatchesMismatched: r.BatchesMismatched, BatchesProven: r.BatchesProven, MismatchedRanges: rowRanges(r.MismatchedRanges),
		DifferenceCount: r.DifferenceCount, Differences: []api.CellDifference{}, BytesRead: r.BytesRead, ElapsedMs: r.ElapsedMs,
		Repaired: rowRanges(r.Repaired), Job: r.Job, Units: r.Units, UnitsResumed: r.UnitsResumed, UnitsHashed: r.UnitsHashed}
	for _, d := range r.Differences {
		// verify writes a difference's bytes in \xNN form; its JSON is the API's.
		b, err := json.Marshal(d)
		if err != nil {
			return out, fmt.Errorf("difference %s: %w", d, err)
		}
		var cd api.CellDifference
		if err := json.Unmarshal(b, &cd); err != nil {
			return out, fmt.Errorf("difference %s: %w", d, err)
		}
		out.Differences = append(out.Differences, cd)
	}
	return out, nil
}

// rowRanges is the API's form of verify's row ranges; never nil.
func rowRanges(rs []verify.Range) []api.RowRange {
	out := make([]api.RowRange, 0, len(rs))
	for _, r := range rs {
		out = append(out, api.RowRange(r))
	}
	return out
}

// verificationView is the API's form of a stored verification.
func verificationView(v catalog.Verification) (api.VerificationOutput, error) {
	out := api.VerificationOutput{ID: v.ID, State: api.VerificationState(v.State), Error: v.Error, Runner: v.Runner, CreatedBy: v.CreatedBy,
		CreatedAt: v.CreatedAt, FinishedAt: v.FinishedAt}
	if err := json.Unmarshal([]byte(v.Spec), &out.Request); err != nil {
		return out, fmt.Errorf("verification %s: stored spec: %w", v.ID, err)
	}
	if v.Report != "" {
		var rep api.VerificationReport
		if err := json.Unmarshal([]byte(v.Report), &rep); err != nil {
			return out, fmt.Errorf("verification %s: stored report: %w", v.ID, err)
		}
		out.Report = &rep
	}
	return out, nil
}

// verificationOptions checks a request as rangecopy verify checks its flags and turns it into
// verify's options (the clusters' configurations and the user are the caller's to add). Its
// error is a 400 naming every field that is wrong.
func verificationOptions(in api.VerificationRequest) (verify.Options, error) {
	var fe fieldErrs
	req := job.Request{Table: in.Table, TargetTable: in.TargetTable, StartRow: in.StartRow, StopRow: in.StopRow,
		StartTime: in.StartTime, EndTime: in.EndTime, Families: in.Families, Bandwidth: in.Bandwidth}
	spec, set, err := req.Resolve()
	for _, f := range job.FieldErrors(err) {
		fe.add(f.Field, f.Err.Error(), nil)
	}
	if err != nil && len(job.FieldErrors(err)) == 0 {
		fe.add("table", err.Error(), in.Table)
	}
	mode := in.Mode
	if mode == "" {
		mode = "visible"
	}
	m, err := verify.ParseMode(mode)
	if err != nil {
		fe.add("mode", err.Error(), in.Mode)
	}
	maxDiffs := in.MaxDiffs
	if maxDiffs == 0 {
		maxDiffs = verify.DefaultMaxDiffs
	}
	if maxDiffs < 1 {
		fe.add("maxDiffs", fmt.Sprintf("%d: at least 1", in.MaxDiffs), in.MaxDiffs)
	}
	if err := fe.err(); err != nil {
		return verify.Options{}, err
	}
	return verify.Options{Table: spec.Table, TargetTable: spec.TargetTable, Rows: spec.Rows, Time: spec.Time,
		Families: spec.Families, Mode: m, MaxDiffs: maxDiffs, Bandwidth: set.Bandwidth, ReadAll: in.ReadAll}, nil
}

// verifier is the verifications running on this server.
type verifier struct {
	mu  sync.Mutex
	ctx context.Context // the server's Run; nil before and after it
	wg  sync.WaitGroup
}

// begin lets verifications run under ctx, the server's Run, until wait.
func (v *verifier) begin(ctx context.Context) {
	v.mu.Lock()
	defer v.mu.Unlock()
	v.ctx = ctx
}

// wait stops taking verifications and waits for those running (their ctx has ended).
func (v *verifier) wait() {
	v.mu.Lock()
	v.ctx = nil
	v.mu.Unlock()
	v.wg.Wait()
}

// launch runs fn in a goroutine under the server's context, or returns false when the
// server does not run.
func (v *verifier) launch(fn func(ctx context.Context)) bool {
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.ctx == nil || v.ctx.Err() != nil {
		return false
	}
	ctx := v.ctx
	v.wg.Add(1)
	go func() {
		defer v.wg.Done()
		fn(ctx)
	}()
	return true
}

// adoptVerifications runs again the running verifications that no server runs: this
// server's own from before it started again (own), and every one whose heartbeat is stale.
// Each resumes its registry job; one whose request no longer resolves (its cluster was
// removed) ends in error saying why.
func (s *Server) adoptVerifications(ctx context.Context, own bool) {
	vs, err := s.cat.AdoptVerifications(ctx, s.cfg.ID, own, time.Now().Add(-verifyStale))
	if err != nil {
		if ctx.Err() == nil {
			s.cfg.Logger.Warn("adopt orphaned verifications", "err", err)
			s.metrics.catalogErrors.Inc()
		}
		return
	}
	for _, v := range vs {
		s.cfg.Logger.Warn("verification orphaned by a server's stop: running it again (its registry job resumes)", "verification", v.ID)
		var in api.VerificationRequest
		err := json.Unmarshal([]byte(v.Spec), &in)
		var o verify.Options
		if err == nil {
			o, err = s.verificationRun(ctx, in)
		}
		if err == nil {
			o.Logger = s.cfg.Logger.With("verification", v.ID)
			if s.verifs.launch(func(ctx context.Context) { s.runVerification(ctx, v.ID, in, o) }) {
				continue
			}
			err = errors.New("the server is stopping")
		}
		fctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), catalogTimeout)
		if _, ferr := s.cat.FinishVerification(fctx, v.ID, catalog.VerificationError, "", "interrupted, and not resumed: "+err.Error()); ferr != nil {
			s.cfg.Logger.Warn("record a verification that cannot resume", "verification", v.ID, "err", ferr)
		}
		cancel()
	}
}

// verificationRun turns a request into verify's options, the clusters looked up in the
// catalog; its errors are the API's answers.
func (s *Server) verificationRun(ctx context.Context, in api.VerificationRequest) (verify.Options, error) {
	a := s.api
	var fe fieldErrs
	o, optErr := verificationOptions(in)
	var users [2]string
	for i, c := range []struct{ field, name string }{{"source", in.Source}, {"target", in.Target}} {
		cfg, user, err := a.clusterConfig(ctx, c.name, c.field)
		if err != nil {
			if !isStatus(err, http.StatusBadRequest) {
				return verify.Options{}, err
			}
			fe.add(c.field, fmt.Sprintf("no cluster %q is registered (GET /api/v1/clusters lists them)", c.name), c.name)
			continue
		}
		if i == 0 {
			o.Source = cfg
		} else {
			o.Target = cfg
		}
		users[i] = user
	}
	if optErr != nil {
		var se *api.Problem
		if errors.As(optErr, &se) {
			for _, d := range se.Errors {
				fe.details = append(fe.details, d)
				fe.msgs = append(fe.msgs, d.Location[len("body."):]+": "+d.Message)
			}
		} else {
			return verify.Options{}, optErr
		}
	}
	if err := fe.err(); err != nil {
		return verify.Options{}, err
	}
	switch {
	case users[1] != "":
		o.User = users[1]
	case users[0] != "":
		o.User = users[0]
	default:
		o.User = s.cfg.User
	}
	return o, nil
}

// CreateVerification checks a verification as rangecopy verify checks its flags, records it
// (state running, created by by) and runs it in the background on this server, as POST
// /api/v1/verifications does. Its errors are the API's answers (huma.StatusError).
func (s *Server) CreateVerification(ctx context.Context, in api.VerificationRequest, by string) (api.VerificationOutput, error) {
	a := s.api
	o, err := s.verificationRun(ctx, in)
	if err != nil {
		return api.VerificationOutput{}, err
	}
	if in.Mode == "" {
		in.Mode = "visible"
	}
	if in.MaxDiffs == 0 {
		in.MaxDiffs = o.MaxDiffs
	}
	spec, err := json.Marshal(in)
	if err != nil {
		return api.VerificationOutput{}, huma.Error500InternalServerError("encode the request: " + err.Error())
	}
	v, err := s.cat.CreateVerification(ctx, catalog.Verification{ID: catalog.NewVerificationID(), Spec: catalog.JSONText(spec),
		Runner: s.cfg.ID, CreatedBy: by})
	if err != nil {
		return api.VerificationOutput{}, a.problem(err, "verification")
	}
	o.Logger = s.cfg.Logger.With("verification", v.ID)
	if !s.verifs.launch(func(ctx context.Context) { s.runVerification(ctx, v.ID, in, o) }) {
		why := "the server is stopping"
		fctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), catalogTimeout)
		_, _ = s.cat.FinishVerification(fctx, v.ID, catalog.VerificationError, "", why)
		cancel()
		return api.VerificationOutput{}, huma.Error503ServiceUnavailable(why)
	}
	return verificationView(v)
}

// runVerification compares (and repairs) and records the outcome; it beats in the catalog
// while it runs.
func (s *Server) runVerification(ctx context.Context, id string, in api.VerificationRequest, o verify.Options) {
	vctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() {
		t := time.NewTicker(verifyHeartbeat)
		defer t.Stop()
		for {
			select {
			case <-vctx.Done():
				return
			case <-t.C:
				if err := s.cat.HeartbeatVerification(vctx, id, s.cfg.ID); err != nil && vctx.Err() == nil {
					s.cfg.Logger.Warn("verification heartbeat", "verification", id, "err", err)
					if errors.Is(err, catalog.ErrNotFound) {
						cancel() // it ended or another server adopted it: nobody waits for this run
						return
					}
				}
			}
		}
	}()
	state, report, why := s.verifyOnce(vctx, in, o)
	if ctx.Err() != nil {
		// The server stops: the verification stays running in the catalog, for this
		// server (started again) or the leader to adopt and resume.
		s.cfg.Logger.Info("verification left to resume", "verification", id)
		return
	}
	if vctx.Err() != nil {
		s.cfg.Logger.Info("verification run by another server now", "verification", id)
		return
	}
	fctx, fcancel := context.WithTimeout(context.WithoutCancel(ctx), catalogTimeout)
	defer fcancel()
	if _, err := s.cat.FinishVerification(fctx, id, state, report, why); err != nil {
		s.cfg.Logger.Error("record a verification's outcome", "verification", id, "state", state, "err", err)
		s.metrics.catalogErrors.Inc()
		return
	}
	s.cfg.Logger.Info("verification ended", "verification", id, "state", state, "error", why)
}

// verifyOnce runs one verification, with its repair when asked: the state it ends in, its
// report (JSON) and, in state error, why.
func (s *Server) verifyOnce(ctx context.Context, in api.VerificationRequest, o verify.Options) (catalog.VerificationState, catalog.JSONText, string) {
	o.Registry = s.reg
	first, err := verify.Run(ctx, o)
	if err != nil {
		return catalog.VerificationError, "", "verify: " + err.Error()
	}
	last := first
	if in.Repair && !first.Equal() {
		base := api.JobSubmission{Source: in.Source, Target: in.Target, CopyRequest: api.CopyRequest{Table: o.Table, TargetTable: in.TargetTable,
			StartTime: in.StartTime, EndTime: in.EndTime, Families: o.Families, Bandwidth: in.Bandwidth}}
		if last, err = verify.Repair(ctx, o, first, s.rangeCopier(base, "verification repair")); err != nil {
			return catalog.VerificationError, "", "repair: " + err.Error()
		}
	}
	rep, err := reportOf(last)
	if err != nil {
		return catalog.VerificationError, "", "report: " + err.Error()
	}
	if in.Repair && !first.Equal() {
		before, err := reportOf(first)
		if err != nil {
			return catalog.VerificationError, "", "report: " + err.Error()
		}
		rep.Before = &before
	}
	b, err := json.Marshal(rep)
	if err != nil {
		return catalog.VerificationError, "", "report: " + err.Error()
	}
	if last.Equal() {
		return catalog.VerificationPassed, catalog.JSONText(b), ""
	}
	return catalog.VerificationFailed, catalog.JSONText(b), ""
}

// rangeCopier copies one row range of base's table again (base's rows replaced by the
// range), as a job submitted through the job service on behalf of by, and waits for it.
func (s *Server) rangeCopier(base api.JobSubmission, by string) verify.CopyFunc {
	return func(ctx context.Context, rng job.KeyRange) error {
		sub := base
		sub.Families = slices.Clone(base.Families)
		sub.StartRow, sub.StopRow = rowkey.Format(rng.Start), rowkey.Format(rng.End)
		req, err := jobs.NewRequest(sub.Source, sub.Target, job.Request(sub.CopyRequest))
		if err != nil {
			return err
		}
		req.By = by
		got, err := s.jobs.Submit(ctx, req)
		if err != nil {
			return err
		}
		id := got.ID
		t := time.NewTicker(s.cfg.Poll)
		defer t.Stop()
		for {
			o, err := s.jobs.Outcome(ctx, id)
			if err != nil {
				return err
			}
			switch {
			case !o.Lost && o.State == job.StateDone:
				return nil
			case o.Ended() || o.State == job.StatePaused:
				return fmt.Errorf("repair job %s %s: %s", id, o.StateText(), o.LastError)
			}
			select {
			case <-ctx.Done():
				return ctx.Err()
			case <-t.C:
			}
		}
	}
}

type verificationIDIn struct {
	ID string `path:"id" minLength:"1" maxLength:"64" doc:"the verification's id"`
}

type verificationOut struct {
	Body api.VerificationOutput
}

type createVerificationOut struct {
	Status int
	Body   api.VerificationOutput
}

type listVerificationsOut struct {
	Body api.VerificationList
}

func (a *rest) registerVerifications() {
	s := a.s
	create := op("create-verification", http.MethodPost, "/verifications", "Compare a range of a table on two clusters, from their HFiles", catalog.RoleOperator, "verifications")
	create.Description += " The verification runs in the background on the server that received it; poll GET /verifications/{id} until its state is passed, failed or error." +
		" A verification whose server stops resumes (its registry job, snapshots and hashed units kept) when that server starts again, or on the leader once its heartbeat is a minute old."
	create.DefaultStatus = http.StatusCreated
	create.Errors = append(create.Errors, http.StatusBadRequest, http.StatusConflict, http.StatusServiceUnavailable)
	huma.Register(a.h, create, func(ctx context.Context, in *struct {
		Body api.VerificationRequest
	}) (*createVerificationOut, error) {
		if in.Body.Table != "" {
			target := in.Body.TargetTable
			if target == "" {
				target = in.Body.Table
			}
			if err := mayWrite(ctx, in.Body.Target, target); err != nil {
				return nil, err
			}
		}
		v, err := s.CreateVerification(ctx, in.Body, callerOf(ctx).name)
		if err != nil {
			return nil, err
		}
		return &createVerificationOut{Status: http.StatusCreated, Body: v}, nil
	})

	list := op("list-verifications", http.MethodGet, "/verifications", "List verifications, newest first", catalog.RoleViewer, "verifications")
	list.Errors = append(list.Errors, http.StatusBadRequest)
	huma.Register(a.h, list, func(ctx context.Context, in *struct{ api.PageQuery }) (*listVerificationsOut, error) {
		page, err := s.cat.ListVerifications(ctx, catalog.VerificationFilter{Cursor: in.Cursor, Limit: in.Limit})
		if err != nil {
			if errors.Is(err, catalog.ErrInvalid) {
				return nil, huma.Error400BadRequest("cursor: not one this server gave out")
			}
			return nil, a.problem(err, "verifications")
		}
		out := &listVerificationsOut{}
		out.Body.Verifications = []api.VerificationOutput{}
		for _, v := range page.Verifications {
			vo, err := verificationView(v)
			if err != nil {
				return nil, huma.Error500InternalServerError(err.Error())
			}
			out.Body.Verifications = append(out.Body.Verifications, vo)
		}
		out.Body.Next = page.Next
		return out, nil
	})

	get := op("get-verification", http.MethodGet, "/verifications/{id}", "Show a verification: state and report", catalog.RoleViewer, "verifications")
	get.Errors = append(get.Errors, http.StatusNotFound)
	huma.Register(a.h, get, func(ctx context.Context, in *verificationIDIn) (*verificationOut, error) {
		v, err := s.cat.GetVerification(ctx, in.ID)
		if err != nil {
			return nil, a.problem(err, "verification "+in.ID)
		}
		vo, err := verificationView(v)
		if err != nil {
			return nil, huma.Error500InternalServerError(err.Error())
		}
		return &verificationOut{Body: vo}, nil
	})
}

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

	"rangecopy/catalog"
	"rangecopy/job"
	"rangecopy/relocate"
	"rangecopy/relocation"
	"rangecopy/units"
	"rangecopy/verify"
)

// RelocationCreate is the body of POST /relocations.
type RelocationCreate struct {
	Source    string   `json:"source" minLength:"1" maxLength:"128" doc:"name of the registered source cluster" example:"dc1"`
	Target    string   `json:"target" minLength:"1" maxLength:"128" doc:"name of the registered target cluster" example:"dc2"`
	Tables    []string `json:"tables" minItems:"1" maxItems:"1000" doc:"tables in scope, ns:t, or ns:t→ns2:t (also ns:t=ns2:t) to rename on the target" example:"[\"ns:t\"]"`
	StartRow  string   `json:"startRow,omitempty" maxLength:"4096" doc:"first row (inclusive), HBase shell escapes; empty: the start of each table"`
	StopRow   string   `json:"stopRow,omitempty" maxLength:"4096" doc:"row to stop before (exclusive); empty: the end of each table"`
	Families  []string `json:"families,omitempty" doc:"column families to move; empty: all"`
	Bandwidth string   `json:"bandwidth,omitempty" maxLength:"64" doc:"each job's read cap, e.g. 200MB/s; empty: none" example:"200MB/s"`
	Schedule  string   `json:"schedule" minLength:"1" maxLength:"255" doc:"cron expression of the catch-up windows: 5 fields, or 6 with seconds first, or @every 10m; CRON_TZ=Area/City prefix for a time zone (UTC otherwise)" example:"*/10 * * * *"`
	Margin    string   `json:"margin,omitempty" maxLength:"32" doc:"how far before the watermark a window starts, a Go duration (default 10m)" example:"10m"`
	MaxLag    string   `json:"maxLag,omitempty" maxLength:"32" doc:"cut-over gate: the last window's lag must be under it, a Go duration (default 5m)" example:"5m"`
}

// RelocationPatch is the body of PATCH /relocations/{id}: what may change while it runs.
type RelocationPatch struct {
	Schedule  *string `json:"schedule,omitempty" maxLength:"255" doc:"new cron expression; the next tick is computed from now"`
	Margin    *string `json:"margin,omitempty" maxLength:"32" doc:"new margin, a Go duration"`
	Bandwidth *string `json:"bandwidth,omitempty" maxLength:"64" doc:"new read cap of each job, also applied to the running window's jobs; \"\", \"0\" or \"none\" removes it"`
}

// GateOut is one cut-over gate.
type GateOut struct {
	Name     string `json:"name" enum:"phase,lag,verification" doc:"the gate"`
	OK       bool   `json:"ok" doc:"it holds"`
	Detail   string `json:"detail" doc:"what was found"`
	Forcible bool   `json:"forcible" doc:"force passes over it"`
}

// VerificationOut is the last verification of a relocation.
type VerificationOut struct {
	Until  int64     `json:"until" doc:"the time range verified was [0, until), ms"`
	At     time.Time `json:"at" doc:"when it ended"`
	Passed bool      `json:"passed" doc:"source and target were equal (after the repair)"`
	Final  bool      `json:"final" doc:"it was the cut-over's"`
	Why    string    `json:"why,omitempty" doc:"what differed or failed"`
}

// WindowOut is one window of a relocation.
type WindowOut struct {
	Seq          int        `json:"seq" doc:"number of the window, from 1"`
	Kind         string     `json:"kind" enum:"full,catch-up,final" doc:"what it is for"`
	StartTime    int64      `json:"startTime" doc:"cells copied from this timestamp (inclusive, ms); 0 with endTime 0 for the full copy"`
	EndTime      int64      `json:"endTime" doc:"to this timestamp (exclusive, ms)"`
	SnapshotTime int64      `json:"snapshotTime" doc:"the time it copies up to: the watermark once it ran"`
	JobIDs       []string   `json:"jobIds" doc:"its jobs, one per table"`
	Bytes        int64      `json:"bytes" doc:"input bytes its jobs read"`
	FilesLoaded  int64      `json:"filesLoaded" doc:"files bulk loaded into the target"`
	FilesPruned  int64      `json:"filesPruned" doc:"source files left unread by the time or row range"`
	StartedAt    time.Time  `json:"startedAt" doc:"when it was submitted (or its tick skipped)"`
	FinishedAt   *time.Time `json:"finishedAt,omitempty" doc:"when its jobs ended"`
	DurationMs   int64      `json:"durationMs" doc:"how long it ran"`
	LagMs        int64      `json:"lagMs" doc:"finishedAt minus snapshotTime, for a window that ran"`
	Outcome      string     `json:"outcome" enum:"running,ran,skipped,failed" doc:"how it ended"`
	Why          string     `json:"why,omitempty" doc:"why it failed or was skipped"`
}

// RelocationReport is what a verification of a relocation's scope found and repaired; the
// cut-over's is stored as the relocation's report (written by relocate, as relocate.Report).
type RelocationReport struct {
	Tables []TableVerification `json:"tables" doc:"per table"`
	// Until is the end of the time range verified, [0, until).
	Until int64 `json:"until" doc:"the time range verified is [0, until), ms"`
	// CellsCompared counts the source cells compared over every table.
	CellsCompared int64 `json:"cellsCompared" doc:"source cells compared, every table"`
	// BatchesProven counts the batches matched unread, by file checksums.
	BatchesProven int `json:"batchesProven" doc:"batches matched without reading them, every table: their store files the same on both sides by HDFS checksums (their cells are not in cellsCompared)"`
	// Differences counts the cells that differed before the repair; Remaining after it.
	Differences int64 `json:"differences" doc:"differing cells found, before the repair"`
	Remaining   int64 `json:"remaining" doc:"differing cells left after the repair"`
	// RangesRecopied counts the row ranges the repair copied again.
	RangesRecopied int `json:"rangesRecopied" doc:"row ranges re-copied by the repair"`
	// BytesCopied sums the input bytes of every window; BytesVerified the HFile bytes the
	// verification read.
	BytesCopied   int64 `json:"bytesCopied" doc:"input bytes of every window's jobs"`
	BytesVerified int64 `json:"bytesVerified" doc:"HFile bytes read by the verification, both sides"`
	// Windows counts the windows by outcome.
	Windows map[string]int `json:"windows" doc:"windows by outcome (ran, skipped, failed)"`
	// DurationMs is how long the relocation took, creation to report; VerifyMs the
	// verification's part.
	DurationMs int64 `json:"durationMs" doc:"from the relocation's creation to this report"`
	VerifyMs   int64 `json:"verifyMs" doc:"how long the verification and repair took"`
}

// TableVerification is one table's part of a RelocationReport.
type TableVerification struct {
	Source         string         `json:"source" doc:"source table"`
	Target         string         `json:"target" doc:"target table"`
	CellsCompared  int64          `json:"cellsCompared" doc:"source cells compared"`
	BatchesProven  int            `json:"batchesProven" doc:"batches matched unread, by file checksums"`
	Differences    int64          `json:"differences" doc:"differing cells before the repair"`
	Remaining      int64          `json:"remaining" doc:"differing cells after the repair"`
	RangesRecopied []verify.Range `json:"rangesRecopied,omitempty" doc:"row ranges copied again"`
}

// RelocationOut is a relocation as the API shows it.
type RelocationOut struct {
	ID            string                `json:"id" doc:"the relocation's id"`
	Source        string                `json:"source" doc:"source cluster"`
	Target        string                `json:"target" doc:"target cluster"`
	Tables        []relocation.TableMap `json:"tables" doc:"tables in scope"`
	StartRow      string                `json:"startRow,omitempty" doc:"first row"`
	StopRow       string                `json:"stopRow,omitempty" doc:"row to stop before"`
	Families      []string              `json:"families,omitempty" doc:"families moved; absent: all"`
	Bandwidth     string                `json:"bandwidth,omitempty" doc:"each job's read cap"`
	Schedule      string                `json:"schedule" doc:"cron expression of the windows"`
	Margin        string                `json:"margin" doc:"window margin"`
	MaxLag        string                `json:"maxLag" doc:"cut-over lag bound"`
	Phase         string                `json:"phase" enum:"copying,catching-up,ready,cutting-over,done,paused,failed,cancelled" doc:"where it is"`
	ResumePhase   string                `json:"resumePhase,omitempty" doc:"the phase a paused relocation returns to"`
	Why           string                `json:"why,omitempty" doc:"why it failed, or who paused, cancelled or cut it over"`
	Watermark     int64                 `json:"watermark" doc:"snapshot time of the last window that ran (ms); 0 before the full copy ran"`
	NextTick      *time.Time            `json:"nextTick,omitempty" doc:"when the next catch-up is due"`
	RunningWindow int                   `json:"runningWindow,omitempty" doc:"seq of the window running"`
	LagMs         *int64                `json:"lagMs,omitempty" doc:"lag of the last window that ran (not of the full copy)"`
	Verifying     bool                  `json:"verifying" doc:"a verification runs"`
	Verification  *VerificationOut      `json:"verification,omitempty" doc:"the last verification"`
	Gates         []GateOut             `json:"gates" doc:"the cut-over gates as they stand"`
	Report        *RelocationReport     `json:"report,omitempty" doc:"the cut-over's report"`
	CreatedBy     string                `json:"createdBy" doc:"token name of its creator"`
	CreatedAt     time.Time             `json:"createdAt" doc:"when it was created"`
	UpdatedAt     time.Time             `json:"updatedAt" doc:"when it last changed"`
	FinishedAt    *time.Time            `json:"finishedAt,omitempty" doc:"when it ended"`
	Windows       []WindowOut           `json:"windows,omitempty" doc:"its windows, oldest first (GET of one relocation only)"`
}

type relocationIDIn struct {
	ID string `path:"id" minLength:"1" maxLength:"64" doc:"the relocation's id"`
}

type relocationOutput struct {
	Body RelocationOut
}

// CutoverOut is the answer of POST /relocations/{id}/cutover.
type CutoverOut struct {
	DryRun     bool          `json:"dryRun" doc:"nothing was changed"`
	Started    bool          `json:"started" doc:"the cut-over began"`
	Blocked    string        `json:"blocked,omitempty" doc:"the gate that blocks it (dry run)"`
	Gates      []GateOut     `json:"gates" doc:"the gates as they stood"`
	Steps      []string      `json:"steps,omitempty" doc:"what it does (or would do), in order"`
	Relocation RelocationOut `json:"relocation"`
}

func gatesOut(gs []relocation.Gate) []GateOut {
	out := make([]GateOut, 0, len(gs))
	for _, g := range gs {
		out = append(out, GateOut{Name: g.Name, OK: g.OK, Detail: g.Detail, Forcible: g.Forcible})
	}
	return out
}

// relocationView is the API's form of a relocation; with windows, its windows too.
func (s *Server) relocationView(ctx context.Context, r catalog.Relocation, windows bool) (RelocationOut, error) {
	out := RelocationOut{ID: r.ID, Source: r.SourceCluster, Target: r.TargetCluster, StartRow: r.StartRow, StopRow: r.StopRow,
		Families: r.Families, Bandwidth: r.Bandwidth, Schedule: r.Schedule,
		Margin: (time.Duration(r.MarginMs) * time.Millisecond).String(), MaxLag: (time.Duration(r.MaxLagMs) * time.Millisecond).String(),
		Phase: r.Phase, ResumePhase: r.ResumePhase, Why: r.Why, Watermark: r.Watermark, NextTick: r.NextTick,
		RunningWindow: r.RunningSeq, Verifying: r.Verifying, CreatedBy: r.CreatedBy, CreatedAt: r.CreatedAt, UpdatedAt: r.UpdatedAt,
		FinishedAt: r.FinishedAt}
	for _, t := range r.Tables {
		out.Tables = append(out.Tables, relocation.TableMap{Source: t.Source, Target: t.Target})
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
		out.Verification = &VerificationOut{Until: v.Until, At: v.At, Passed: v.Passed, Final: v.Final, Why: v.Why}
	}
	if st.Last != nil && st.Last.Kind != relocation.Full {
		l := st.Last.Lag().Milliseconds()
		out.LagMs = &l
	}
	out.Gates = []GateOut{}
	if cfgErr == nil {
		out.Gates = gatesOut(relocation.Gates(cfg, st))
	}
	if r.Report != "" {
		var rep RelocationReport
		if json.Unmarshal([]byte(r.Report), &rep) == nil {
			out.Report = &rep
		}
	}
	if windows {
		ws, err := s.cat.RelocationWindows(ctx, r.ID)
		if err != nil {
			return out, err
		}
		out.Windows = []WindowOut{}
		for _, w := range ws {
			out.Windows = append(out.Windows, WindowOut{Seq: w.Seq, Kind: w.Kind, StartTime: w.StartTime, EndTime: w.EndTime,
				SnapshotTime: w.SnapshotTime, JobIDs: append([]string{}, w.JobIDs...), Bytes: w.Bytes, FilesLoaded: w.FilesLoaded,
				FilesPruned: w.FilesPruned, StartedAt: w.StartedAt, FinishedAt: w.FinishedAt, DurationMs: w.DurationMs, LagMs: w.LagMs,
				Outcome: w.Outcome, Why: w.Why})
		}
	}
	return out, nil
}

// fieldErrs collects the fields of a body that are wrong.
type fieldErrs struct {
	details []error
	msgs    []string
}

func (f *fieldErrs) add(field, msg string, value any) {
	f.details = append(f.details, &huma.ErrorDetail{Location: "body." + field, Message: msg, Value: value})
	f.msgs = append(f.msgs, field+": "+msg)
}

func (f *fieldErrs) err() error {
	if len(f.msgs) == 0 {
		return nil
	}
	return huma.Error400BadRequest("the request body is not valid: "+strings.Join(f.msgs, "; "), f.details...)
}

// parseDuration reads a non-negative duration, def when empty.
func parseDuration(s string, def time.Duration) (time.Duration, error) {
	if s == "" {
		return def, nil
	}
	d, err := time.ParseDuration(s)
	if err != nil {
		return 0, fmt.Errorf("%q is not a duration such as 10m or 90s", s)
	}
	if d < 0 {
		return 0, fmt.Errorf("%s is negative", s)
	}
	return d, nil
}

// createRelocation checks a creation and records the relocation with its full copy.
func (a *api) createRelocation(ctx context.Context, in RelocationCreate, by string) (catalog.Relocation, error) {
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

func (a *api) registerRelocations() {
	s := a.s
	list := op("list-relocations", http.MethodGet, "/relocations", "List relocations", catalog.RoleViewer, "relocations")
	huma.Register(a.h, list, func(ctx context.Context, in *struct {
		Open bool `query:"open" doc:"keep those that have not ended"`
	}) (*struct {
		Body struct {
			Relocations []RelocationOut `json:"relocations" doc:"oldest first"`
		}
	}, error) {
		rs, err := s.cat.ListRelocations(ctx, in.Open)
		if err != nil {
			return nil, a.problem(err, "relocations")
		}
		out := &struct {
			Body struct {
				Relocations []RelocationOut `json:"relocations" doc:"oldest first"`
			}
		}{}
		out.Body.Relocations = []RelocationOut{}
		for _, r := range rs {
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
	create.Errors = append(create.Errors, http.StatusBadRequest)
	huma.Register(a.h, create, func(ctx context.Context, in *struct{ Body RelocationCreate }) (*relocationOutput, error) {
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
		Body RelocationPatch
	}) (*relocationOutput, error) {
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
			r, err := s.relocs.Apply(ctx, in.ID, controlEvent(act.name, callerOf(ctx).name))
			if err != nil {
				return nil, a.relocationProblem(err, in.ID)
			}
			return a.relocationAnswer(ctx, r, false)
		})
	}

	cut := op("cutover-relocation", http.MethodPost, "/relocations/{id}/cutover", "Cut over: the final window, then verification of the whole scope with repair, and the report", catalog.RoleOperator, "relocations")
	cut.Description += " Gates: the last window's lag under maxLag and the last verification passed; force passes over both. dryRun says what it would do and which gate blocks, changing nothing."
	cut.Errors = append(cut.Errors, http.StatusNotFound, http.StatusConflict)
	huma.Register(a.h, cut, func(ctx context.Context, in *struct {
		ID   string `path:"id" minLength:"1" maxLength:"64" doc:"the relocation's id"`
		Body struct {
			Force  bool `json:"force,omitempty" doc:"pass over the lag and verification gates"`
			DryRun bool `json:"dryRun,omitempty" doc:"say what it would do, change nothing"`
		}
	}) (*struct{ Body CutoverOut }, error) {
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
func (a *api) relocationAnswer(ctx context.Context, r catalog.Relocation, windows bool) (*relocationOutput, error) {
	v, err := a.s.relocationView(ctx, r, windows)
	if err != nil {
		return nil, a.problem(err, "relocation "+r.ID)
	}
	return &relocationOutput{Body: v}, nil
}

// relocationProblem is the API's answer to an error of a relocation event.
func (a *api) relocationProblem(err error, id string) error {
	var re *relocation.RefusedError
	if errors.As(err, &re) {
		return huma.Error409Conflict(re.Error())
	}
	return a.problem(err, "relocation "+id)
}

// patchRelocation changes the schedule, margin or bandwidth of a relocation.
func (a *api) patchRelocation(ctx context.Context, id string, p RelocationPatch) (*relocationOutput, error) {
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
		return nil, a.relocationProblem(err, id)
	}
	for _, j := range running {
		if err := a.s.setBandwidth(ctx, j, bps); err != nil && !isStatus(err, http.StatusNotFound) && !isStatus(err, http.StatusConflict) {
			a.s.cfg.Logger.Warn("relocation: bandwidth of a running job", "relocation", id, "job", j, "err", err)
		}
	}
	return a.relocationAnswer(ctx, r, false)
}

// cutover starts (or dry-runs) a relocation's cut-over.
func (a *api) cutover(ctx context.Context, id string, force, dryRun bool) (*struct{ Body CutoverOut }, error) {
	s := a.s
	r, err := s.cat.GetRelocation(ctx, id)
	if err != nil {
		return nil, a.problem(err, "relocation "+id)
	}
	out := &struct{ Body CutoverOut }{}
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
		return nil, a.relocationProblem(err, id)
	}
	v, err := s.relocationView(ctx, r, false)
	if err != nil {
		return nil, a.problem(err, "relocation "+id)
	}
	out.Body.Started, out.Body.Gates, out.Body.Relocation = true, v.Gates, v
	out.Body.Steps = []string{"final window", "verification of the whole scope over [0, T) with repair", "report"}
	return out, nil
}

// Package jobs is the job service: it submits a copy job (checked, registered for the
// masters and workers, recorded in the catalog, once per idempotency key), controls it
// (pause, resume, cancel, bandwidth) and reads its outcome as a typed record. It answers
// with typed errors (*NotFoundError, *ConflictError, *InvalidError naming the fields,
// *UnavailableError) that callers match with errors.As or errors.Is: the REST handlers
// turn them into HTTP problems, the relocation driver into a window's outcome.
package jobs

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"slices"

	"rangecopy/catalog"
	"rangecopy/cluster"
	"rangecopy/cluster/dial"
	"rangecopy/job"
	"rangecopy/master"
	"rangecopy/progress"
	"rangecopy/registry"
	"rangecopy/units"
)

// AdoptedBy is the submitter the catalog gives a job it learnt of from the registry (a job
// submitted without the server, or whose submitter died before it wrote its row).
const AdoptedBy = "registry (submitted without the server)"

// Clusters resolves a registered cluster by name: how to reach it and the user its jobs run
// as (empty for the service's). An unknown name is an error matching catalog.ErrNotFound; a
// registered cluster that cannot be used is a *ConflictError.
type Clusters interface {
	Cluster(ctx context.Context, name string) (cluster.Config, string, error)
}

// Config is what a Service works with.
type Config struct {
	// Catalog records the jobs; Registry holds them live.
	Catalog  *catalog.Catalog
	Registry *registry.Registry
	// Clusters resolves the clusters a request names.
	Clusters Clusters
	// ZK and ZKRoot are the registry's servers and root, WorkRoot the parent of the jobs'
	// work folders and User the user of jobs whose clusters name none, as in
	// master.Options.
	ZK       []string
	ZKRoot   string
	WorkRoot string
	User     string
	// Pool, when set, lends the connections to the clusters.
	Pool *dial.Pool
	// Logger receives the service's log; nil discards.
	Logger *slog.Logger
	// CatalogErrors, when set, counts the catalog writes that failed.
	CatalogErrors interface{ Inc() }
}

// Service submits, controls and reads copy jobs.
type Service struct {
	cfg Config
}

// New returns the service of cfg.
func New(cfg Config) *Service {
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	return &Service{cfg: cfg}
}

// Request is a copy job to submit: what it copies and how, between two registered clusters.
type Request struct {
	// Source and Target name registered clusters.
	Source, Target string
	// Spec is what to copy; Settings how.
	Spec     job.Spec
	Settings job.Settings
	// Asked is the request in the operator's words, kept in the catalog as the job's spec.
	Asked job.Request
	// By names the submitter (a token's name, "relocation x").
	By string
	// Relocation is the id of the relocation the job is a window of (job.RunOptions);
	// empty for none.
	Relocation string
	// IdempotencyKey, when set, is the client's key: a second submission with it returns
	// the first job.
	IdempotencyKey string
}

// NewRequest checks a request in the operator's words between the clusters named source and
// target; its error is an *InvalidError naming every field that is wrong.
func NewRequest(source, target string, r job.Request) (Request, error) {
	spec, set, err := r.Resolve()
	if err != nil {
		return Request{}, invalidRequest(err)
	}
	spec.Families = slices.Clone(spec.Families)
	return Request{Source: source, Target: target, Spec: spec, Settings: set, Asked: r}, nil
}

// invalidRequest is the *InvalidError of job.Request.Resolve's error.
func invalidRequest(err error) error {
	fes := job.FieldErrors(err)
	if len(fes) == 0 {
		return &InvalidError{Err: err}
	}
	ie := &InvalidError{Err: err}
	for _, fe := range fes {
		ie.Fields = append(ie.Fields, FieldError{Field: fe.Field, Message: fe.Err.Error()})
	}
	return ie
}

// submission is the job as the catalog keeps it (its spec column): the clusters by name
// and the request, as POST /jobs takes it.
type submission struct {
	Source string `json:"source"`
	Target string `json:"target"`
	job.Request
}

// Submitted is what Submit did.
type Submitted struct {
	// ID is the job's id.
	ID string
	// Created is false when the same copy was under way, or the idempotency key was used
	// for it before: ID is then that job's.
	Created bool
}

// Submit checks a job as rangecopy copy does, registers it for the masters and workers and
// records it in the catalog. The same copy under way, or an idempotency key used for it
// before, returns that job with Created false; the same copy that ended is run again.
func (s *Service) Submit(ctx context.Context, req Request) (Submitted, error) {
	src, srcUser, err := s.cluster(ctx, req.Source, "source")
	if err != nil {
		return Submitted{}, err
	}
	tgt, tgtUser, err := s.cluster(ctx, req.Target, "target")
	if err != nil {
		return Submitted{}, err
	}
	spec := req.Spec
	spec.Families = slices.Clone(spec.Families)
	// The same table on the same cluster by address is refused here; by HBase's cluster id
	// (two names, two spellings of one cluster) when master.Submit reaches both.
	if err := cluster.CheckNotSelf(cluster.Identity{Config: src}, cluster.Identity{Config: tgt},
		req.Source, req.Target, spec.Table, spec.Target()); err != nil {
		return Submitted{}, selfError(err, req.Target)
	}
	id := master.JobID(src, tgt, spec)
	var key *string
	if k := req.IdempotencyKey; k != "" {
		key = &k
		held, err := s.cfg.Catalog.JobByIdempotencyKey(ctx, k)
		switch {
		case err == nil && held.ID == id:
			return Submitted{ID: id}, nil
		case err == nil:
			return Submitted{}, &ConflictError{Err: fmt.Errorf("Idempotency-Key %q was used for job %s, another copy", k, held.ID)}
		case !errors.Is(err, catalog.ErrNotFound):
			return Submitted{}, fmt.Errorf("idempotency key: %w", err)
		}
	}
	user := cmpOr(tgtUser, srcUser, s.cfg.User)
	o := master.Options{Source: src, Target: tgt, Spec: spec, ZK: s.cfg.ZK, ZKRoot: s.cfg.ZKRoot, Pool: s.cfg.Pool,
		Logger: s.cfg.Logger.With("job", id)}
	o.RunOptions = job.RunOptions{Settings: req.Settings, WorkRoot: s.cfg.WorkRoot, User: user,
		Relocation: req.Relocation}
	gotID, existing, err := master.Submit(ctx, o)
	if err != nil {
		var self *cluster.SameTableError
		if errors.As(err, &self) {
			return Submitted{}, selfError(err, req.Target)
		}
		if errors.Is(err, master.ErrInvalidRequest) {
			return Submitted{}, &InvalidError{Err: err}
		}
		s.cfg.Logger.Warn("submit failed", "job", id, "err", err)
		return Submitted{}, &UnavailableError{Err: fmt.Errorf("cannot submit the job: %w", err)}
	}
	if gotID != id {
		return Submitted{}, fmt.Errorf("job id %s from the engine, %s expected", gotID, id)
	}
	b, err := json.Marshal(submission{Source: req.Source, Target: req.Target, Request: req.Asked})
	if err != nil {
		return Submitted{}, fmt.Errorf("job %s: its spec: %w", id, err)
	}
	row := catalog.Job{ID: id, Spec: catalog.JSONText(b), Table: spec.Table, TargetTable: spec.Target(),
		SourceCluster: req.Source, TargetCluster: req.Target, SubmittedBy: req.By, IdempotencyKey: key}
	got, created, err := s.cfg.Catalog.CreateJob(ctx, row)
	if err != nil {
		return Submitted{}, catalogError(err, id)
	}
	if !created && got.SubmittedBy == AdoptedBy {
		// The leader's reconcile saw the registry's record first and adopted it: give the
		// row what was submitted (who, the clusters, the key).
		if got, err = s.cfg.Catalog.AttachSubmission(ctx, row, AdoptedBy); err != nil {
			return Submitted{}, catalogError(err, id)
		}
		if !existing {
			created = true
		}
	}
	switch {
	case existing:
		return Submitted{ID: id}, nil
	case !created && got.State.Final():
		// The same copy ran before and ended: this is a new run of it.
		if _, err := s.cfg.Catalog.UpdateJob(ctx, id, catalog.JobUpdate{State: catalog.StateOf(job.StatePending),
			LastError: new(string), FinalReport: new(catalog.JSONText),
			Message: "submitted again by " + req.By}); err != nil {
			return Submitted{}, catalogError(err, id)
		}
	}
	return Submitted{ID: id, Created: true}, nil
}

// selfError is the *InvalidError of a copy whose target table is its source table on the
// same cluster (a *cluster.SameTableError), naming the target field.
func selfError(err error, target string) error {
	return &InvalidError{Fields: []FieldError{{Field: "target", Message: err.Error(), Value: target}}, Err: err}
}

// cluster resolves the cluster a request's field names.
func (s *Service) cluster(ctx context.Context, name, field string) (cluster.Config, string, error) {
	cfg, user, err := s.cfg.Clusters.Cluster(ctx, name)
	switch {
	case err == nil:
		return cfg, user, nil
	case errors.Is(err, catalog.ErrNotFound):
		return cluster.Config{}, "", &InvalidError{Fields: []FieldError{{Field: field,
			Message: fmt.Sprintf("no cluster %q is registered (GET /api/v1/clusters lists them)", name), Value: name}}}
	case errors.Is(err, ErrConflict):
		return cluster.Config{}, "", err
	}
	return cluster.Config{}, "", fmt.Errorf("cluster %s: %w", name, err)
}

// catalogError gives an error of the catalog about job id the service's kind.
func catalogError(err error, id string) error {
	switch {
	case errors.Is(err, catalog.ErrNotFound):
		return &NotFoundError{What: "job " + id, Why: "not found"}
	case errors.Is(err, catalog.ErrConflict), errors.Is(err, catalog.ErrInUse):
		return &ConflictError{Err: err}
	case errors.Is(err, catalog.ErrInvalid):
		return &InvalidError{Err: err}
	}
	return fmt.Errorf("job %s: %w", id, err)
}

// cmpOr is the first of vs that is not empty.
func cmpOr(vs ...string) string {
	for _, v := range vs {
		if v != "" {
			return v
		}
	}
	return ""
}

// knownID is a *NotFoundError for an id the registry cannot hold (such as one with "-n_"),
// which so names no job.
func knownID(id string) error {
	if registry.ValidateJobID(id) != nil {
		return &NotFoundError{What: "job " + id, Why: "no such job"}
	}
	return nil
}

// Action is what Control asks of a job: master.ActionPause, ActionResume or ActionCancel.
type Action = master.Action

// Control pauses, resumes or cancels a job and, when by is set, notes it in the job's
// history ("paused by by"). An action already done is no error; one the job's state
// forbids is a *ConflictError; a job the registry does not hold a *NotFoundError.
func (s *Service) Control(ctx context.Context, id string, act Action, by string) error {
	if err := knownID(id); err != nil {
		return err
	}
	if _, err := master.Control(ctx, s.cfg.Registry, id, act); err != nil {
		var se *master.StateError
		switch {
		case errors.Is(err, registry.ErrNotFound):
			return &NotFoundError{What: "job " + id, Why: "no such job in the registry"}
		case errors.As(err, &se):
			return &ConflictError{Err: err}
		}
		return err
	}
	if by != "" {
		s.note(ctx, id, fmt.Sprintf("%s by %s", act.Past(), by))
	}
	return nil
}

// SetBandwidth changes the job-wide read cap of a job that has not ended, in bytes per
// second (0 removes it; more than units.MaxRate is an *InvalidError), and, when by is set, notes it in the job's history. A job that
// ended is a *ConflictError; one the registry does not hold a *NotFoundError.
func (s *Service) SetBandwidth(ctx context.Context, id string, bps float64, by string) error {
	if err := knownID(id); err != nil {
		return err
	}
	if bps < 0 || bps > units.MaxRate || math.IsNaN(bps) {
		return &InvalidError{Fields: []FieldError{{Field: "bandwidth",
			Message: fmt.Sprintf("%g B/s: want 0 (no limit) up to 1TB/s, the largest rate taken", bps)}}}
	}
	reg := s.cfg.Registry
	j, err := reg.Job(ctx, id)
	if errors.Is(err, registry.ErrNotFound) {
		return &NotFoundError{What: "job " + id, Why: "no such job in the registry"}
	}
	if err != nil {
		return &UnavailableError{Err: fmt.Errorf("job %s: %w", id, err)}
	}
	if j.State.Final() {
		return &ConflictError{Err: fmt.Errorf("job %s is %s: it has ended, its bandwidth cannot change", id, j.State)}
	}
	if err := reg.SetBandwidth(ctx, id, bps); err != nil {
		return &UnavailableError{Err: fmt.Errorf("job %s: set its bandwidth: %w", id, err)}
	}
	if by != "" {
		s.note(ctx, id, fmt.Sprintf("bandwidth set to %s by %s", RateText(bps), by))
	}
	return nil
}

// RateText writes a bandwidth for people; 0 is no cap.
func RateText(bps float64) string {
	if bps <= 0 {
		return "no limit"
	}
	return progress.Bytes(int64(bps)) + "/s"
}

// note adds an entry to a job's history in the catalog (a job the catalog does not know yet
// gets it at its next reconcile instead).
func (s *Service) note(ctx context.Context, id, msg string) {
	_, err := s.cfg.Catalog.UpdateJob(ctx, id, catalog.JobUpdate{Message: msg})
	if err != nil && !errors.Is(err, catalog.ErrNotFound) {
		if s.cfg.CatalogErrors != nil {
			s.cfg.CatalogErrors.Inc()
		}
		s.cfg.Logger.Warn("catalog: cannot record an event", "job", id, "event", msg, "err", err)
	}
}

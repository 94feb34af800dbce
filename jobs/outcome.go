package jobs

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"rangecopy/catalog"
	"rangecopy/job"
	"rangecopy/master"
	"rangecopy/registry"
)

// Outcome is where a job is and what it came to, from the registry while it holds the job
// and from the catalog once it ended.
type Outcome struct {
	// ID is the job's id; Table its source table.
	ID    string
	Table string
	// State is the job's state: the registry's now, else the catalog's last record of it.
	// It is zero when Lost.
	State job.State
	// Lost says the catalog holds the job but the registry no longer does: it will not
	// change again.
	Lost bool
	// Message says what the state means now; LastError is the last error the job met.
	Message   string
	LastError string
	// Report is the master's latest report (the final one once the job ended); nil if none.
	Report *job.Report
}

// Ended reports whether the job will change no more.
func (o Outcome) Ended() bool { return o.Lost || o.State.Final() }

// Why says why a job that did not end done ended: its last error, else its message.
func (o Outcome) Why() string {
	if o.LastError != "" {
		return o.LastError
	}
	return o.Message
}

// StateText is the state's name, "lost" when Lost.
func (o Outcome) StateText() string {
	return catalog.JobState{State: o.State, Lost: o.Lost}.String()
}

// Outcome reads a job's outcome. A job neither the catalog nor the registry knows is a
// *NotFoundError.
func (s *Service) Outcome(ctx context.Context, id string) (Outcome, error) {
	if err := knownID(id); err != nil {
		return Outcome{}, err
	}
	out := Outcome{ID: id}
	row, err := s.cfg.Catalog.GetJob(ctx, id)
	known := err == nil
	switch {
	case err == nil:
		out.Table, out.LastError = row.Table, row.LastError
		out.State, out.Lost = row.State.State, row.State.Lost
		if out.Lost {
			out.Message = "the registry holds no record of this job any more"
		}
		if row.FinalReport != "" {
			var rep job.Report
			if json.Unmarshal([]byte(row.FinalReport), &rep) == nil {
				out.Report = &rep
			}
		}
	case !errors.Is(err, catalog.ErrNotFound):
		return Outcome{}, fmt.Errorf("job %s: %w", id, err)
	}
	if known && (out.Lost || out.State.Final()) {
		return out, nil
	}
	j, err := s.cfg.Registry.Job(ctx, id)
	switch {
	case errors.Is(err, registry.ErrNotFound) && known:
		return out, nil
	case errors.Is(err, registry.ErrNotFound):
		return Outcome{}, &NotFoundError{What: "job " + id, Why: "no such job"}
	case err != nil:
		return Outcome{}, &UnavailableError{Err: fmt.Errorf("job %s: %w", id, err)}
	}
	out.State, out.Message = j.State, j.Message
	if out.Table == "" {
		if rec, err := job.DecodeRecord(j.Spec); err == nil {
			out.Table = rec.Spec.Table
		}
	}
	if (j.State == job.StateFailed || j.State == job.StatePaused) && out.LastError == "" {
		out.LastError = j.Message
	}
	rep, ok, err := master.LoadReport(ctx, s.cfg.Registry, id)
	if err != nil {
		return Outcome{}, &UnavailableError{Err: err}
	}
	if ok {
		out.Report = &rep
	}
	if r := out.Report; r != nil && r.Error != "" && out.LastError == "" && out.State != job.StateDone {
		out.LastError = r.Error
	}
	return out, nil
}

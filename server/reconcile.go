package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"time"

	"rangecopy/catalog"
	"rangecopy/job"
	"rangecopy/jobs"
	"rangecopy/master"
	"rangecopy/registry"
)

// adoptedBy is the submitter of a job the catalog learnt of from the registry.
const adoptedBy = jobs.AdoptedBy

// regState is what the registry holds of a job, for reconciling.
type regState struct {
	state   catalog.JobState
	message string
	rec     *job.Record
}

// changeKind is what a reconciling write does.
type changeKind int

const (
	// adopt records a registry job the catalog does not know (copy --detach, or a submit
	// whose server died before it wrote its row).
	adopt changeKind = iota + 1
	// follow moves a catalog job to its registry state.
	follow
	// lose marks a catalog job whose registry record is gone.
	lose
)

// change is one write that brings the catalog in line with the registry.
type change struct {
	kind    changeKind
	id      string
	state   catalog.JobState
	message string
}

// reconcilePlan decides the writes that make the catalog agree with the registry. rows are
// the catalog's rows of every job that is in the registry or not final in the catalog; reg
// is every job of the registry. It is pure: the executor reads and writes.
func reconcilePlan(rows map[string]catalog.Job, reg map[string]regState) []change {
	var out []change
	for id, r := range reg {
		row, ok := rows[id]
		switch {
		case !ok:
			out = append(out, change{kind: adopt, id: id, state: r.state, message: r.message})
		case row.State != r.state:
			out = append(out, change{kind: follow, id: id, state: r.state, message: r.message})
		}
	}
	for id, row := range rows {
		if _, ok := reg[id]; ok || row.State.Final() {
			continue
		}
		out = append(out, change{kind: lose, id: id, state: catalog.JobLost(),
			message: fmt.Sprintf("lost: the registry holds no record of the job (it was %s)", row.State)})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].id < out[j].id })
	return out
}

// reconcile reads both sides and applies reconcilePlan.
func (s *Server) reconcile(ctx context.Context) error {
	ids, err := s.reg.Jobs(ctx)
	if err != nil {
		return fmt.Errorf("list registry jobs: %w", err)
	}
	reg := make(map[string]regState, len(ids))
	for _, id := range ids {
		j, err := s.reg.Job(ctx, id)
		if errors.Is(err, registry.ErrNotFound) {
			continue
		}
		if err != nil {
			return fmt.Errorf("registry job %s: %w", id, err)
		}
		r := regState{state: stateOf(j.State), message: j.Message}
		if rec, err := job.DecodeRecord(j.Spec); err == nil {
			if !rec.IsCopy() {
				continue // a verification's job: not a copy job of the catalog
			}
			r.rec = &rec
		}
		reg[id] = r
	}
	rows, err := s.cat.JobsByID(ctx, ids)
	if err != nil {
		return err
	}
	open, err := s.cat.OpenJobs(ctx)
	if err != nil {
		return err
	}
	for _, j := range open {
		rows[j.ID] = j
	}
	for _, c := range reconcilePlan(rows, reg) {
		if err := s.apply(ctx, c, reg[c.id]); err != nil {
			return err
		}
	}
	for _, id := range prunePlan(rows, reg, time.Now().Add(-s.cfg.Retention), prunePerPass) {
		if err := s.reg.DeleteJob(ctx, id); err != nil && !errors.Is(err, registry.ErrNotFound) {
			return fmt.Errorf("drop ended job %s from the registry: %w", id, err)
		}
		s.cfg.Logger.Debug("dropped an ended job from the registry; the catalog keeps it", "job", id)
	}
	return nil
}

// prunePerPass bounds the jobs one reconcile drops from the registry: each is a thousand
// ZooKeeper nodes or more, and the rest wait for the next pass.
const prunePerPass = 20

// prunePlan returns the registry jobs to drop, oldest row first, at most max: those that
// ended in the registry and whose catalog row has held that same end since before the
// retention (with the final report it took from the registry). A registry keeps every job it
// is given, a thousand ZooKeeper nodes each, and every look of the masters and workers reads
// every job: a relocation makes a job per table every window. It is pure.
func prunePlan(rows map[string]catalog.Job, reg map[string]regState, before time.Time, max int) []string {
	var out []catalog.Job
	for id, r := range reg {
		row, ok := rows[id]
		if ok && r.state.Final() && row.State == r.state && row.UpdatedAt.Before(before) {
			out = append(out, row)
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if !out[i].UpdatedAt.Equal(out[j].UpdatedAt) {
			return out[i].UpdatedAt.Before(out[j].UpdatedAt)
		}
		return out[i].ID < out[j].ID
	})
	ids := make([]string, 0, min(len(out), max))
	for _, row := range out[:min(len(out), max)] {
		ids = append(ids, row.ID)
	}
	return ids
}

// apply makes one reconciling write.
func (s *Server) apply(ctx context.Context, c change, r regState) error {
	log := s.cfg.Logger.With("job", c.id)
	var report *catalog.JSONText
	var lastErr *string
	if c.state.Final() && c.kind != lose {
		rep, ok, err := master.LoadReport(ctx, s.reg, c.id)
		if err != nil {
			return err
		}
		if ok {
			b, err := json.Marshal(rep)
			if err != nil {
				return fmt.Errorf("job %s: report: %w", c.id, err)
			}
			t := catalog.JSONText(b)
			report = &t
		}
	}
	if c.state == catalog.StateOf(job.StateFailed) || c.state == catalog.JobLost() || c.state == catalog.StateOf(job.StatePaused) {
		m := c.message
		lastErr = &m
	}
	switch c.kind {
	case adopt:
		row := catalog.Job{ID: c.id, State: c.state, Spec: catalog.JSONText("{}"),
			SubmittedBy: adoptedBy}
		if r.rec != nil {
			row.Table, row.TargetTable = r.rec.Spec.Table, r.rec.Spec.Target()
			b, _ := json.Marshal(struct {
				Source, Target string
				Spec           job.Spec
			}{r.rec.Source.String(), r.rec.Target.String(), r.rec.Spec})
			row.Spec = catalog.JSONText(b)
		}
		if _, _, err := s.cat.CreateJob(ctx, row); err != nil {
			return err
		}
		log.Info("catalog: adopted a job of the registry", "state", c.state)
		if report == nil && lastErr == nil {
			return nil
		}
		_, err := s.cat.UpdateJob(ctx, c.id, catalog.JobUpdate{FinalReport: report, LastError: lastErr, Message: c.message})
		return err
	case follow, lose:
		if _, err := s.cat.UpdateJob(ctx, c.id, catalog.JobUpdate{State: c.state, FinalReport: report,
			LastError: lastErr, Message: c.message}); err != nil {
			return err
		}
		if c.kind == lose {
			log.Warn("catalog: job lost from the registry")
		}
	}
	return nil
}

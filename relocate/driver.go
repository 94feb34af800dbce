// Package relocate drives relocations: it is the executor of the pure state machine in
// relocation. While its server leads, Driver.Run looks at every open relocation (each
// poll, at once when a job changes, and at the next tick of a schedule), feeds the state
// machine what happened (a window's jobs ended, a verification ended, the clock) in one
// catalog transaction a step, and does what it decides: submit a window's jobs, pause,
// resume or cancel them, verify the scope.
//
// It reaches the rest of the system only through the interfaces it owns: Catalog (its own
// rows), Jobs (submit, control and read copy jobs, with typed outcomes and errors) and
// Verifier (compare and repair a table). The state persisted is the catalog's relocation
// row and windows (StateOf reads it back), so a new leader carries on where the last
// stopped.
package relocate

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"reflect"
	"sync"
	"time"

	"rangecopy/catalog"
	"rangecopy/registry"
	"rangecopy/relocation"
)

// Config is what a Driver works with.
type Config struct {
	// Catalog holds the relocations and their windows.
	Catalog Catalog
	// Jobs submits and controls the windows' copy jobs.
	Jobs Jobs
	// Verifier verifies (and repairs) the scope's tables.
	Verifier Verifier
	// Poll is the longest time between two looks at the relocations.
	Poll time.Duration
	// Logger receives what the driver does; nil discards.
	Logger *slog.Logger
	// CatalogError, when set, is called when a look cannot list the relocations.
	CatalogError func(error)
}

// Driver drives the relocations of a catalog.
type Driver struct {
	cfg Config

	mu   sync.Mutex
	term context.Context       // Run's, while it runs: verifications run under it
	runs map[string]*verifyRun // the verifications running, by relocation
}

// New returns a driver; Run drives.
func New(cfg Config) *Driver {
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	if cfg.Poll <= 0 {
		cfg.Poll = time.Second
	}
	return &Driver{cfg: cfg}
}

// minLook is the shortest time between two looks at the relocations: a running window's
// jobs change with every task, and are taken together (registry.Pacer).
const minLook = 50 * time.Millisecond

// Run drives every open relocation until ctx ends: call it while this server leads (one
// server at a time drives). It stops the verifications it started before it returns.
func (d *Driver) Run(ctx context.Context) {
	d.setTerm(ctx)
	defer d.setTerm(nil)
	defer d.stopAll()
	pace := &registry.Pacer{Period: d.cfg.Poll, MinGap: minLook}
	if ch, err := d.cfg.Jobs.Changes(ctx); err == nil {
		pace.Changes = ch
	} else if ctx.Err() == nil {
		d.cfg.Logger.Warn("relocations: cannot watch the jobs; looking every poll only", "err", err)
	}
	for {
		rs, err := d.cfg.Catalog.ListRelocations(ctx, true)
		if err != nil && ctx.Err() == nil {
			d.cfg.Logger.Warn("relocations: list", "err", err)
			if d.cfg.CatalogError != nil {
				d.cfg.CatalogError(err)
			}
		}
		open := map[string]bool{}
		var next time.Time // the earliest tick to come
		for _, r := range rs {
			open[r.ID] = true
			after, err := d.step(ctx, r)
			if err != nil && ctx.Err() == nil {
				d.cfg.Logger.Warn("relocation step", "relocation", r.ID, "err", err)
			}
			if t := after.NextTick; t != nil && (next.IsZero() || t.Before(next)) {
				next = *t
			}
		}
		d.stopExcept(open)
		if ctx.Err() != nil {
			return
		}
		pace.Period = d.cfg.Poll
		if !next.IsZero() {
			pace.Period = min(d.cfg.Poll, max(time.Until(next), minLook))
		}
		pace.Wait(ctx)
	}
}

func (d *Driver) setTerm(ctx context.Context) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.term = ctx
}

// leads returns Run's context while it runs, else nil.
func (d *Driver) leads() context.Context {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.term
}

// Apply runs an operator's event (pause, resume, cancel, cut-over) through the relocation's
// state machine and does what it decides; it returns the relocation as written. A
// *relocation.RefusedError says the event does not apply in the relocation's phase; nothing
// changed then. A verification it starts runs on the driver that leads (this one, or the
// leader at its next look).
func (d *Driver) Apply(ctx context.Context, id string, ev relocation.Event) (catalog.Relocation, error) {
	return d.event(ctx, id, ev, nil, nil)
}

// step looks at one relocation: the jobs of its running window, its verification and the
// clock, and acts on what the state machine decides. A window the clock starts has its jobs
// submitted in the same step. It returns the relocation as it left it.
//
// Each step watches the running window once (its jobs all submitted: did they end?) before
// the clock, and submits once after it (what the running window lacks: every job of a
// window the clock just began, or those a stop cut short).
func (d *Driver) step(ctx context.Context, r catalog.Relocation) (catalog.Relocation, error) {
	_, sc, err := ConfigOf(r)
	if err != nil {
		return r, err
	}
	if relocation.Phase(r.Phase) == "" {
		if r, err = d.event(ctx, r.ID, relocation.Start{Now: time.Now()}, nil, nil); err != nil {
			return r, err
		}
	}
	if r.RunningSeq > 0 {
		ended, err := d.watchWindow(ctx, r, sc)
		if err != nil {
			return r, err
		}
		if r, err = d.windowEnded(ctx, r, ended); err != nil {
			return r, err
		}
	}
	if r.Verifying {
		if r, err = d.checkVerification(ctx, r); err != nil {
			return r, err
		}
	}
	if r, err = d.event(ctx, r.ID, relocation.Clock{Now: time.Now()}, nil, nil); err != nil {
		return r, err
	}
	if r.RunningSeq > 0 {
		ended, err := d.submitWindow(ctx, r, sc)
		if err != nil {
			return r, err
		}
		if r, err = d.windowEnded(ctx, r, ended); err != nil {
			return r, err
		}
	}
	return r, nil
}

// windowEnded records the end of r's running window, if end is one.
func (d *Driver) windowEnded(ctx context.Context, r catalog.Relocation, end *windowEnd) (catalog.Relocation, error) {
	if end == nil {
		return r, nil
	}
	r, err := d.event(ctx, r.ID, end.event, &end.stats, nil)
	if err != nil {
		return r, err
	}
	d.cfg.Logger.Info("relocation: window ended", "relocation", r.ID, "window", end.event.Seq,
		"outcome", end.event.Outcome, "bytes", end.stats.bytes, "files_loaded", end.stats.filesLoaded)
	return r, nil
}

// event applies ev and performs the actions it leaves.
func (d *Driver) event(ctx context.Context, id string, ev relocation.Event, stats *windowStats, rep *Report) (catalog.Relocation, error) {
	r, acts, err := d.apply(ctx, id, ev, stats, rep)
	if err != nil {
		return r, err
	}
	d.perform(ctx, r, acts)
	return r, nil
}

// errUnchanged rolls back a step that changed nothing.
var errUnchanged = errors.New("relocation unchanged")

// apply runs ev through the state machine in one catalog transaction and records the
// windows it makes or ends (with stats, the figures of the window that ended); with rep, it
// stores the relocation's report. It returns the relocation as written and the actions left
// for the caller (pausing, resuming or cancelling jobs, starting a verification). A
// *relocation.RefusedError is returned as it is, with nothing changed.
func (d *Driver) apply(ctx context.Context, id string, ev relocation.Event, stats *windowStats, rep *Report) (catalog.Relocation, []relocation.Action, error) {
	var acts []relocation.Action
	var same catalog.Relocation
	row, err := d.cfg.Catalog.UpdateRelocation(ctx, id, func(r *catalog.Relocation, tx catalog.RelocationTx) error {
		acts = nil
		cfg, _, err := ConfigOf(*r)
		if err != nil {
			return err
		}
		st, err := StateOf(*r, tx)
		if err != nil {
			return err
		}
		next, out, err := relocation.Transition(cfg, st, ev)
		if err != nil {
			return err
		}
		if len(out) == 0 && rep == nil && reflect.DeepEqual(next, st) {
			same = *r
			return errUnchanged // most clock events: nothing to write
		}
		now := time.Now().UTC()
		for _, a := range out {
			switch a := a.(type) {
			case relocation.SubmitWindow:
				if err := tx.PutWindow(windowRow(a.Window, nil)); err != nil {
					return err
				}
			case relocation.RecordSkipped:
				if err := tx.PutWindow(windowRow(a.Window, nil)); err != nil {
					return err
				}
			case relocation.RecordWindow:
				old, err := tx.Window(a.Window.Seq)
				if err != nil {
					return err
				}
				w := windowRow(a.Window, old.JobIDs)
				if stats != nil {
					w.Bytes, w.FilesLoaded, w.FilesPruned = stats.bytes, stats.filesLoaded, stats.filesPruned
				}
				if err := tx.PutWindow(w); err != nil {
					return err
				}
			default:
				acts = append(acts, a)
			}
		}
		putState(r, next, now)
		if rep != nil {
			b, _ := json.Marshal(rep)
			r.Report = catalog.JSONText(b)
		}
		return nil
	})
	if errors.Is(err, errUnchanged) {
		return same, nil, nil
	}
	return row, acts, err
}

// perform does what the state machine asked beside the catalog: job control and
// verifications (the latter only while this driver leads).
func (d *Driver) perform(ctx context.Context, r catalog.Relocation, acts []relocation.Action) {
	for _, a := range acts {
		switch a := a.(type) {
		case relocation.PauseJobs:
			d.control(ctx, r.ID, a.Seq, Pause)
		case relocation.ResumeJobs:
			d.control(ctx, r.ID, a.Seq, Resume)
		case relocation.CancelJobs:
			d.control(ctx, r.ID, a.Seq, Cancel)
			d.stop(r.ID)
		case relocation.StartVerification:
			// It runs for the term, not for the caller (an operator's request, say).
			if term := d.leads(); term != nil {
				d.startVerification(term, r, a.Until, a.Final)
			} // else the leader starts it at its next step: r.Verifying is set
		}
	}
}

// control pauses, resumes or cancels the jobs of window seq of relocation id.
func (d *Driver) control(ctx context.Context, id string, seq int, c Control) {
	if seq == 0 {
		return
	}
	w, err := d.cfg.Catalog.RelocationWindow(ctx, id, seq)
	if err != nil {
		d.cfg.Logger.Warn("relocation: window", "relocation", id, "window", seq, "err", err)
		return
	}
	for _, j := range w.JobIDs {
		// A job that ended already has nothing to pause or cancel.
		if err := d.cfg.Jobs.Control(ctx, j, c); err != nil && !errors.Is(err, ErrConflict) {
			d.cfg.Logger.Warn("relocation: job control", "relocation", id, "job", j, "action", c.String(), "err", err)
		}
	}
}

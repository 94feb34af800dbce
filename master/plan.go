package master

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"runtime"
	"strings"
	"sync"
	"time"

	"rangecopy/job"
	"rangecopy/registry"
	"rangecopy/snapshot"
)

// MsgTakingSnapshot is logged as a snapshot of the source is asked for,
// MsgPinned once it is taken and read.
const (
	MsgTakingSnapshot = "taking a snapshot of the source table"
	MsgPinned         = "pinned the source table"
)

// pin returns the job's pinned inputs: the snapshot if it exists (a resumed
// planning), else a new one.
func (p *Planner) pin(ctx context.Context, name string) (*snapshot.Pinned, error) {
	opts := p.snapshotOptions()
	pd, err := snapshot.Read(ctx, p.srcFS, p.o.Source.RootDir, name, opts)
	if err == nil {
		p.log.Info("reusing the job's snapshot", "snapshot", name)
		return pd, nil
	}
	if !errors.Is(err, snapshot.ErrNotFound) && !errors.Is(err, snapshot.ErrInProgress) {
		return nil, fmt.Errorf("read snapshot %s: %w", name, err)
	}
	if errors.Is(err, snapshot.ErrInProgress) {
		// A half-taken snapshot of a crashed run: drop it and take it again.
		_ = snapshot.Release(ctx, p.src, name)
	}
	p.log.Info(MsgTakingSnapshot, "snapshot", name, "table", p.o.Spec.Table)
	start := time.Now()
	pd, err = snapshot.Pin(ctx, p.src, p.srcFS, p.o.Source.RootDir, p.o.Spec.Table, name, opts)
	if err != nil {
		return nil, fmt.Errorf("pin source table %s with snapshot %s: %w", p.o.Spec.Table, name, err)
	}
	p.log.Info(MsgPinned, "snapshot", name, "regions", len(pd.Regions), "files", len(pd.Files), "took", time.Since(start))
	return pd, nil
}

// snapshotOptions are the options of the planner's pins: its log, and the
// process's facts cache (Options.Facts) scoped to the source's NameNodes.
func (p *Planner) snapshotOptions() snapshot.Options {
	return snapshot.Options{Logger: p.log.With("part", "snapshot"), Facts: p.o.Facts, FactsScope: strings.Join(p.o.Source.NameNodes, ",")}
}

// MsgPinnedLive is logged once the source's regions are flushed and their
// store files read, for a job that pins live (job.PinLive).
const MsgPinnedLive = "pinned the live source table"

// pinLive pins the job's inputs without a snapshot (snapshot.PinLive).
func (p *Planner) pinLive(ctx context.Context) (*snapshot.Pinned, error) {
	start := time.Now()
	pd, err := snapshot.PinLive(ctx, p.src, p.srcFS, p.o.Source.RootDir, p.o.Spec.Table, p.snapshotOptions())
	if err != nil {
		return nil, fmt.Errorf("pin source table %s live: %w", p.o.Spec.Table, err)
	}
	p.log.Info(MsgPinnedLive, "table", p.o.Spec.Table, "regions", len(pd.Regions), "files", len(pd.Files), "took", time.Since(start))
	return pd, nil
}

// TaskSpecs encodes a plan's tasks with their resolved inputs, as Plan
// registers them (bench/cmd/scale encodes a synthetic plan with it). The
// tasks are encoded in parallel, one contiguous share of them per processor
// (runtime.GOMAXPROCS): a table of 100,000 regions has 100,000 specs to
// encode. The result is in the plan's order; an error is that of the first
// task in that order that fails.
func TaskSpecs(pd *snapshot.Pinned, plan job.Plan) ([]registry.Task, error) {
	tasks := make([]registry.Task, len(plan.Tasks))
	width := min(runtime.GOMAXPROCS(0), max(len(plan.Tasks)/specsPerShare, 1))
	errs := make([]error, width)
	var wg sync.WaitGroup
	for w := range width {
		from, to := w*len(tasks)/width, (w+1)*len(tasks)/width
		wg.Add(1)
		go func() {
			defer wg.Done()
			var scratch []job.TaskInput
			for i := from; i < to; i++ {
				b, err := taskSpec(pd, plan.Tasks[i], &scratch)
				if err != nil {
					errs[w] = err
					return
				}
				tasks[i] = registry.Task{ID: plan.Tasks[i].ID, Spec: b}
			}
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	return tasks, nil
}

// specsPerShare is the fewest tasks TaskSpecs gives a goroutine of its own.
const specsPerShare = 256

// taskSpec encodes one task with its resolved inputs, gathered in scratch
// (EncodeTaskSpec keeps none of them).
func taskSpec(pd *snapshot.Pinned, t job.Task, scratch *[]job.TaskInput) ([]byte, error) {
	ts := job.TaskSpec{Task: t, Inputs: (*scratch)[:0]}
	defer func() { *scratch = ts.Inputs[:0] }()
	for _, f := range t.Files {
		in, ok := pd.Input(f)
		if !ok {
			return nil, fmt.Errorf("task %s: input %s/%s/%s was not resolved", t.ID, f.Region, f.Family, f.Name)
		}
		ti := job.TaskInput{File: f, Path: in.Path}
		if in.Reference != nil {
			ti.Reference = in.Reference.Marshal()
		}
		ts.Inputs = append(ts.Inputs, ti)
	}
	return job.EncodeTaskSpec(ts)
}

// MaxOrder bounds the tasks in a job's claim order (registry.NodeOrder):
// with more, the tail a late costly task could make is a small part of the
// job anyway.
const MaxOrder = 2000

// slots is how many tasks will run at once: this process's workers, or for a
// detached job the capacity of the live workers (4 when none is up yet).
func (p *Planner) slots(ctx context.Context) int {
	if !p.detached {
		return p.o.Workers
	}
	ws, err := p.reg.Workers(ctx)
	n := 0
	for _, w := range ws {
		n += max(w.Capacity, 1)
	}
	if err != nil || n == 0 {
		return 4
	}
	return n
}

// Plan pins, plans and registers the tasks, stores the claim order and the
// plan's totals (registry.NodePlan), then sets the job running with the
// totals as its message. It may be repeated (a planner died part way): the
// job's snapshot is reused and tasks registered before are kept.
func (p *Planner) Plan(ctx context.Context, j registry.Job, rec job.Record, rep *job.Report) (registry.Job, error) {
	var err error
	if j.State == registry.JobPending {
		if j, err = p.reg.SetJobState(ctx, j, registry.JobPlanning, "pinning and planning"); err != nil {
			return j, fmt.Errorf("job %s: %w", j.ID, err)
		}
	}
	// The target table is created while the snapshot is taken: both take
	// seconds (a flush of every region, a table's regions coming online).
	tableErr := make(chan error, 1)
	go func() { tableErr <- p.EnsureTable(ctx) }()
	var pd *snapshot.Pinned
	var pinned PinState
	rep.Pinned = job.PinSnapshot
	if rec.Options.Pin.Live() {
		if pd, err = p.pinLive(ctx); err == nil {
			rep.Pinned = job.PinLive
		} else if ctx.Err() == nil {
			rep.LiveFallback = err.Error()
			p.log.Warn("the live pin failed; taking a snapshot instead", "job", j.ID, "err", err)
		}
	}
	if pd == nil && ctx.Err() == nil {
		pd, pinned, err = p.pinJob(ctx, j.ID, rec.Snapshot)
	}
	if terr := <-tableErr; err == nil && terr != nil {
		err = terr
	}
	rep.PinRetries = pinned.Retries()
	rep.CreatedNamespace = p.createdNamespace
	if err == nil {
		err = ctx.Err()
	}
	if err != nil {
		return j, err
	}
	slots := p.slots(ctx)
	plan, err := job.Make(rec.Spec, pd.Regions, pd.Files, job.PlanOptions{TaskBytes: rec.Options.TaskBytes, Slots: slots, SkipEmpty: true})
	if max := p.o.LiveMaxBytes; err == nil && rep.Pinned.Live() && plan.Bytes > max {
		// More than copies within the cleaner's TTL: pin for as long as it takes.
		rep.Pinned, rep.LiveFallback = job.PinSnapshot, fmt.Sprintf("the plan reads %d bytes, more than the %d a live pin is kept for", plan.Bytes, max)
		p.log.Info("the live pin's plan is large; taking a snapshot instead", "job", j.ID, "bytes", plan.Bytes, "max", max)
		if pd, pinned, err = p.pinJob(ctx, j.ID, rec.Snapshot); err != nil {
			rep.PinRetries = pinned.Retries()
			return j, err
		}
		rep.PinRetries = pinned.Retries()
		plan, err = job.Make(rec.Spec, pd.Regions, pd.Files, job.PlanOptions{TaskBytes: rec.Options.TaskBytes, Slots: slots, SkipEmpty: true})
	}
	if err != nil {
		return j, fmt.Errorf("plan job %s: %w", j.ID, err)
	}
	rep.FilesPruned = len(plan.Pruned)
	tasks, err := TaskSpecs(pd, plan)
	if err != nil {
		return j, fmt.Errorf("plan job %s: %w", j.ID, err)
	}
	if err := p.reg.AddTasks(ctx, j.ID, tasks); err != nil {
		return j, fmt.Errorf("register the tasks of job %s: %w", j.ID, err)
	}
	// Workers take the costliest tasks first, so that none of them starts
	// last and holds the job up (longest processing time first).
	order, err := json.Marshal(plan.CostOrder(rec.Spec.Times(), MaxOrder))
	if err == nil {
		err = p.reg.PutJobData(ctx, j.ID, registry.NodeOrder, order)
	}
	if err != nil {
		return j, fmt.Errorf("job %s: claim order: %w", j.ID, err)
	}
	totals := job.TotalsOf(plan, time.Now())
	if err := p.storeTotals(ctx, j.ID, totals); err != nil {
		return j, err
	}
	rep.Tasks, rep.InputBytes = int64(totals.Tasks), totals.InputBytes
	p.log.Info("planned", "job", j.ID, "tasks", len(plan.Tasks), "bytes", plan.Bytes, "pruned", len(plan.Pruned))
	if j, err = p.reg.SetJobState(ctx, j, registry.JobRunning, totals.Message()); err != nil {
		return j, fmt.Errorf("job %s: %w", j.ID, err)
	}
	return j, nil
}

// storeTotals writes the plan's totals into the job's plan side node.
func (p *Planner) storeTotals(ctx context.Context, id string, t job.PlanTotals) error {
	return storeTotals(ctx, p.reg, id, t)
}

func storeTotals(ctx context.Context, reg *registry.Registry, id string, t job.PlanTotals) error {
	b, err := job.EncodePlanTotals(t)
	if err == nil {
		err = reg.PutJobData(ctx, id, registry.NodePlan, b)
	}
	if err != nil {
		return fmt.Errorf("job %s: store the plan's totals: %w", id, err)
	}
	return nil
}

// Totals reads the plan's totals of a running job. A job planned by a
// release that kept them only in its message has them summed from its task
// specs (files pruned not known) and stored for the next reader.
func (p *Planner) Totals(ctx context.Context, id string) (job.PlanTotals, error) {
	return planTotals(ctx, p.reg, p.log, id)
}

func planTotals(ctx context.Context, reg *registry.Registry, log *slog.Logger, id string) (job.PlanTotals, error) {
	b, err := reg.JobData(ctx, id, registry.NodePlan)
	if err != nil {
		return job.PlanTotals{}, fmt.Errorf("job %s: read the plan's totals: %w", id, err)
	}
	if len(b) > 0 {
		t, err := job.DecodePlanTotals(b)
		if err != nil {
			return job.PlanTotals{}, fmt.Errorf("job %s: %w", id, err)
		}
		return t, nil
	}
	ids, err := reg.Tasks(ctx, id)
	if err != nil {
		return job.PlanTotals{}, fmt.Errorf("job %s: list tasks: %w", id, err)
	}
	t := job.PlanTotals{Version: job.PlanTotalsVersion, Tasks: len(ids), FromTaskSpecs: true}
	for _, task := range ids {
		b, err := reg.TaskSpec(ctx, id, task)
		if err != nil {
			return job.PlanTotals{}, fmt.Errorf("job %s: task %s: %w", id, task, err)
		}
		ts, err := job.DecodeTaskSpec(b)
		if err != nil {
			return job.PlanTotals{}, fmt.Errorf("job %s: task %s: %w", id, task, err)
		}
		t.InputBytes += ts.Task.Bytes
	}
	log.Info("the plan's totals summed from the task specs (job planned by an earlier release)", "job", id,
		"tasks", t.Tasks, "bytes", t.InputBytes)
	return t, storeTotals(ctx, reg, id, t)
}

package verify

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"rangecopy/cluster"
	"rangecopy/hbase"
	"rangecopy/hfile"
	"rangecopy/job"
	"rangecopy/jobkind"
	"rangecopy/progress"
	"rangecopy/registry"
	"rangecopy/snapshot"
)

// unitAttempts bounds the runs of one claimed unit before it is failed; each
// run goes on from the previous one's checkpoint.
const unitAttempts = 3

// Record is the registry record of the verification o describes, pinned by
// the snapshots names (source, target), with TTLs applied at now.
func Record(o Options, names [2]string, now time.Time) job.Record {
	o.defaults()
	return job.Record{Kind: job.KindVerify, Snapshot: names[0], Source: o.Source, Target: o.Target,
		Spec:    job.Spec{Table: o.Table, TargetTable: o.TargetTable, Rows: o.Rows, Time: o.Time, Families: o.Families},
		Options: job.RunOptions{Settings: job.Settings{Bandwidth: o.Bandwidth, KeepSnapshot: o.KeepSnapshots}, User: o.User},
		Verify: &job.Verification{TargetSnapshot: names[1], Mode: o.Mode.String(), NowMs: now.UnixMilli(), BatchBytes: o.BatchBytes,
			MaxDiffs: o.MaxDiffs, Only: o.Only, KeepSnapshots: o.KeepSnapshots, ReadAll: o.ReadAll}}
}

// optionsOf are the options of a verification record, for a process that
// serves it (logger, parallelism and dial timeout are the caller's).
func optionsOf(rec job.Record) (Options, error) {
	if rec.Kind != job.KindVerify || rec.Verify == nil {
		return Options{}, fmt.Errorf("verify: job of kind %q is not a verification", rec.Kind)
	}
	m, err := ParseMode(rec.Verify.Mode)
	if err != nil {
		return Options{}, fmt.Errorf("verify: job record: %w", err)
	}
	o := Options{Source: rec.Source, Target: rec.Target, User: rec.Options.User, Table: rec.Spec.Table, TargetTable: rec.Spec.TargetTable,
		Rows: rec.Spec.Rows, Time: rec.Spec.Time, Families: rec.Spec.Families, Mode: m, MaxDiffs: rec.Verify.MaxDiffs,
		Bandwidth: rec.Options.Bandwidth, BatchBytes: rec.Verify.BatchBytes, KeepSnapshots: rec.Verify.KeepSnapshots,
		Only: rec.Verify.Only, ReadAll: rec.Verify.ReadAll, Now: time.UnixMilli(rec.Verify.NowMs)}
	return o, nil
}

// runJob is Run through the registry o.Registry, as a job that survives
// this process: its record names both snapshots, each unit (a side's run of
// batches in one region) is a task whose checkpoint holds the hashes of its
// batches hashed so far. The units run in this process, o.Parallelism at a
// time, and on any worker agent (rangecopy worker, with UnitServer) that
// serves the registry. Once every unit is done, this process compares the
// hashes, lists the differences of the mismatched batches, stores the
// report in the job (registry.NodeVerification), ends the job and releases
// the snapshots.
//
// Run again with the same o (JobID) after it stopped part way, it resumes:
// the same snapshots, the hashes of the units done kept, the others hashed
// from their checkpoints. A job of the same verification that ended is
// replaced by a new one (new snapshots).
func runJob(ctx context.Context, o Options, start time.Time) (Report, error) {
	reg := o.Registry
	id := JobID(o)
	log := o.Logger.With("job", id)
	j, err := findJob(ctx, reg, id, o, log)
	if err != nil {
		return Report{}, err
	}
	rec, ro, err := jobOptions(j, o)
	if err != nil {
		return Report{}, err
	}
	limiter, err := newLimiter(ro.Bandwidth)
	if err != nil {
		return Report{}, err
	}
	var read atomic.Int64
	names := [2]string{rec.Snapshot, rec.Verify.TargetSnapshot}
	sides, families, closeSides, err := openSides(ctx, ro, names, true, limiter, &read)
	defer closeSides()
	if err != nil {
		return Report{}, fmt.Errorf("verify: job %s: %w", id, err)
	}
	if j.State == registry.JobPending || j.State == registry.JobPlanning {
		if j, err = planJob(ctx, reg, j, sides, families, ro); err != nil {
			return Report{}, err
		}
	}
	if j.State != registry.JobRunning {
		return Report{}, fmt.Errorf("verify: job %s is %s (resume it, or cancel it and run again)", id, j.State)
	}
	tasks, doneBefore, err := jobUnits(ctx, reg, id)
	if err != nil {
		return Report{}, err
	}
	rep := newReport(ro, families, names)
	rep.Job, rep.Units, rep.UnitsResumed = id, len(tasks), len(doneBefore)
	log.Info("verify: units", "units", len(tasks), "done_before", len(doneBefore), "to_hash", len(tasks)-len(doneBefore))
	if pc := o.Progress; pc != nil {
		pc.TasksTotal.Store(int64(len(tasks)))
		pc.TasksDone.Store(int64(len(doneBefore)))
	}

	ue := &unitEnv{reg: reg, sides: sides, families: families, o: ro, log: log, progress: o.Progress}
	width := ro.Parallelism
	if o.LeaveUnits {
		width = 0
		err = waitUnits(ctx, reg, id)
	}
	hashed, rerr := runUnits(ctx, ue, id, len(tasks), width)
	if err == nil {
		err = rerr
	}
	rep.UnitsHashed = hashed
	if err != nil {
		return Report{}, err
	}
	batches, hashes, unitBytes, err := collectHashes(ctx, reg, id, tasks)
	if err != nil {
		return Report{}, err
	}
	// The bytes read are the units', wherever they ran, and the narrowing's here.
	if err := finish(ctx, sides, families, batches, hashes, ro, &rep, unitBytes+read.Load(), start); err != nil {
		return Report{}, err
	}
	endJob(context.WithoutCancel(ctx), reg, rep, log)
	if !ro.KeepSnapshots {
		releaseSides(context.WithoutCancel(ctx), ro, sides)
	}
	log.Info("verify: done", "units", rep.Units, "units_resumed", rep.UnitsResumed, "units_hashed", rep.UnitsHashed, "elapsed", time.Since(start))
	return rep, nil
}

// findJob returns the registry job id of o's verification: found to resume, or created
// (pending) when there is none, or in place of one that ended.
func findJob(ctx context.Context, reg *registry.Registry, id string, o Options, log *slog.Logger) (registry.Job, error) {
	j, err := reg.Job(ctx, id)
	switch {
	case errors.Is(err, registry.ErrNotFound):
		return createJob(ctx, reg, id, o)
	case err != nil:
		return j, fmt.Errorf("verify: job %s: %w", id, err)
	case j.State.Final():
		log.Info("verify: the same verification ended before; starting a new one", "state", j.State.String())
		if err := dropJob(ctx, reg, j, o); err != nil {
			return j, err
		}
		return createJob(ctx, reg, id, o)
	}
	log.Info("verify: resuming the verification", "state", j.State.String())
	return j, nil
}

// jobOptions are the record of job j and the options it runs with: the record's (what it
// compares, on which snapshots), with o's logger, parallelism and dial timeout.
func jobOptions(j registry.Job, o Options) (job.Record, Options, error) {
	rec, err := job.DecodeRecord(j.Spec)
	if err != nil {
		return rec, Options{}, fmt.Errorf("verify: job %s: %w", j.ID, err)
	}
	ro, err := optionsOf(rec)
	if err != nil {
		return rec, Options{}, fmt.Errorf("verify: job %s: %w", j.ID, err)
	}
	ro.Logger, ro.Parallelism, ro.DialTimeout = o.Logger, o.Parallelism, o.DialTimeout
	ro.defaults()
	return rec, ro, nil
}

// jobUnits returns the units (tasks) of job id and those done already, the failed ones (of
// a run that stopped on them) set to be tried again.
func jobUnits(ctx context.Context, reg *registry.Registry, id string) (tasks, done []string, err error) {
	failed, err := reg.TasksWith(ctx, id, registry.StatusFailed)
	if err != nil {
		return nil, nil, fmt.Errorf("verify: job %s: %w", id, err)
	}
	for _, t := range failed {
		if err := reg.ResetTask(ctx, id, t); err != nil {
			return nil, nil, fmt.Errorf("verify: job %s: retry unit %s: %w", id, t, err)
		}
	}
	if tasks, err = reg.Tasks(ctx, id); err != nil {
		return nil, nil, fmt.Errorf("verify: job %s: %w", id, err)
	}
	if done, err = reg.TasksWith(ctx, id, registry.StatusDone); err != nil {
		return nil, nil, fmt.Errorf("verify: job %s: %w", id, err)
	}
	return tasks, done, nil
}

// collectHashes reads the hashes of every unit of job id from their checkpoints, wherever
// they ran, and returns the batches, both sides' hashes of them and the bytes the units read.
func collectHashes(ctx context.Context, reg *registry.Registry, id string, tasks []string) ([]job.KeyRange, [][]BatchHash, int64, error) {
	specs := make([]UnitSpec, len(tasks))
	done := make([][]BatchHash, len(tasks))
	var unitBytes int64
	for i, t := range tasks {
		b, err := reg.TaskSpec(ctx, id, t)
		if err == nil {
			specs[i], err = DecodeUnitSpec(b)
		}
		if err == nil {
			b, err = reg.TaskCheckpoint(ctx, id, t)
		}
		var cp UnitCheckpoint
		if err == nil {
			cp, err = DecodeUnitCheckpoint(b)
		}
		done[i], unitBytes = cp.Hashes, unitBytes+cp.BytesRead
		if err != nil {
			return nil, nil, 0, fmt.Errorf("verify: job %s: unit %s: %w", id, t, err)
		}
	}
	batches, hashes, err := assemble(specs, done)
	if err != nil {
		return nil, nil, 0, fmt.Errorf("verify: job %s: %w", id, err)
	}
	return batches, hashes, unitBytes, nil
}

// endJob stores rep in its job (registry.NodeVerification, when it fits) and marks the
// job done; what fails is logged: the report is returned all the same.
func endJob(ctx context.Context, reg *registry.Registry, rep Report, log *slog.Logger) {
	if b, err := json.Marshal(rep); err == nil && len(b) <= registry.MaxSpec {
		if err := reg.PutJobData(ctx, rep.Job, registry.NodeVerification, b); err != nil {
			log.Warn("verify: report not stored in the job", "err", err)
		}
	}
	if _, err := reg.UpdateJob(ctx, rep.Job, func(registry.Job) (registry.JobState, string, error) {
		return registry.JobDone, fmt.Sprintf("verified: %d of %d batches matched, %d cells differ", rep.BatchesMatched, rep.Batches, rep.DifferenceCount), nil
	}); err != nil {
		log.Warn("verify: job not marked done", "err", err)
	}
}

// createJob registers a new verification job, pending: the snapshots it
// names are taken by the planning that follows (planJob), so a process that
// stops before leaves nothing unnamed behind.
func createJob(ctx context.Context, reg *registry.Registry, id string, o Options) (registry.Job, error) {
	stamp := time.Now()
	names := [2]string{SnapshotName(o.Table, "source", stamp.UnixMilli()), SnapshotName(o.TargetTable, "target", stamp.UnixMilli())}
	now := o.Now
	if now.IsZero() {
		now = stamp
	}
	b, err := job.EncodeRecord(Record(o, names, now))
	if err != nil {
		return registry.Job{}, fmt.Errorf("verify: job %s: %w", id, err)
	}
	j, err := reg.CreateJob(ctx, id, b)
	if err != nil {
		return registry.Job{}, fmt.Errorf("verify: register job %s: %w", id, err)
	}
	o.Logger.Info("verify: job registered", "job", id, "source_snapshot", names[0], "target_snapshot", names[1])
	return j, nil
}

// dropJob removes an ended verification job, releasing the snapshots it
// kept (none, unless it failed or kept them on purpose: those stay).
func dropJob(ctx context.Context, reg *registry.Registry, j registry.Job, o Options) error {
	if rec, err := job.DecodeRecord(j.Spec); err == nil && rec.Kind == job.KindVerify && rec.Verify != nil && !rec.Verify.KeepSnapshots {
		for i, c := range [2]struct {
			cfg  cluster.Config
			name string
		}{{rec.Source, rec.Snapshot}, {rec.Target, rec.Verify.TargetSnapshot}} {
			cn, closeFn, err := open(ctx, sideNames[i], c.cfg, o)
			if err != nil {
				o.Logger.Warn("verify: the ended run's snapshot not released", "snapshot", c.name, "err", err)
				continue
			}
			if list, err := cn.hb.ListSnapshots(ctx); err == nil && slices.ContainsFunc(list, func(s hbase.SnapshotInfo) bool { return s.Name == c.name }) {
				if err := snapshot.Release(ctx, cn.hb, c.name); err != nil {
					o.Logger.Warn("verify: the ended run's snapshot not released", "snapshot", c.name, "err", err)
				}
			}
			closeFn()
		}
	}
	if err := reg.DeleteJob(ctx, j.ID); err != nil {
		return fmt.Errorf("verify: job %s: remove the ended run: %w", j.ID, err)
	}
	return nil
}

// planJob cuts the pinned sides into batches and units, registers a task
// per unit and sets the job running. Planning again the same snapshots
// gives the same tasks, so a planning cut short is simply done again.
func planJob(ctx context.Context, reg *registry.Registry, j registry.Job, sides []*side, families []string, o Options) (registry.Job, error) {
	if j.State == registry.JobPending {
		var err error
		if j, err = reg.SetJobState(ctx, j, registry.JobPlanning, "planning the batches"); err != nil {
			return j, fmt.Errorf("verify: job %s: plan: %w", j.ID, err)
		}
	}
	batches, units, err := planUnits(ctx, sides, families, o)
	if err != nil {
		return j, err
	}
	ids, specs := unitTasks(units, batches, MaxUnitBatches, maxUnitSpec)
	tasks := make([]registry.Task, len(ids))
	for i := range ids {
		b, err := EncodeUnitSpec(specs[i])
		if err != nil {
			return j, fmt.Errorf("verify: job %s: unit %s: %w", j.ID, ids[i], err)
		}
		tasks[i] = registry.Task{ID: ids[i], Spec: b}
	}
	if err := reg.AddTasks(ctx, j.ID, tasks); err != nil {
		return j, fmt.Errorf("verify: job %s: register the units: %w", j.ID, err)
	}
	o.Logger.Info("verify: planned", "job", j.ID, "batches", len(batches), "units", len(tasks))
	running, err := reg.SetJobState(ctx, j, registry.JobRunning, fmt.Sprintf("verifying: %d batches in %d units", len(batches), len(tasks)))
	if err != nil {
		return j, fmt.Errorf("verify: job %s: start: %w", j.ID, err)
	}
	return running, nil
}

// unitEnv is what a process needs to hash the units of one verification.
type unitEnv struct {
	reg      *registry.Registry
	sides    []*side
	families []string
	o        Options
	log      *slog.Logger
	progress *progress.Counters // nil: none
}

// runUnits hashes the job's units in this process, width at a time, until
// every unit is done (some may be done by worker agents), and returns how
// many it hashed. A failed unit fails the job.
func runUnits(ctx context.Context, ue *unitEnv, id string, total, width int) (int, error) {
	workerID := registry.ProcessID("verify")
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	var hashed atomic.Int64
	var wg sync.WaitGroup
	for n := 0; n < width; n++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for ctx.Err() == nil {
				c, err := ue.reg.ClaimAny(ctx, id, fmt.Sprintf("%s.%d", workerID, n), registry.Bucket(workerID)+n*37)
				if errors.Is(err, registry.ErrNotFound) {
					counts, err := ue.reg.Count(ctx, id)
					if err != nil {
						cancel(fmt.Errorf("verify: job %s: %w", id, err))
						return
					}
					if counts.Failed > 0 {
						cancel(fmt.Errorf("verify: job %s: %d units failed (rangecopy job status %s lists them)", id, counts.Failed, id))
						return
					}
					if ue.progress != nil {
						ue.progress.TasksDone.Store(int64(counts.Done))
					}
					if counts.Pending == 0 && counts.Claimed == 0 {
						return
					}
					// Units held by workers elsewhere (or by a dead holder
					// whose session has yet to expire).
					select {
					case <-ctx.Done():
					case <-time.After(500 * time.Millisecond):
					}
					continue
				}
				if err != nil {
					if ctx.Err() == nil {
						cancel(fmt.Errorf("verify: job %s: claim a unit: %w", id, err))
					}
					return
				}
				if err := ue.serve(ctx, c); err != nil {
					cancel(err)
					return
				}
				hashed.Add(1)
				if counts, err := ue.reg.Count(ctx, id); err == nil {
					if ue.progress != nil {
						ue.progress.TasksDone.Store(int64(counts.Done))
					}
					ue.log.Info("verify: unit hashed", "unit", c.Task(), "units_done", counts.Done, "units", total)
				}
			}
		}()
	}
	wg.Wait()
	if err := context.Cause(ctx); err != nil {
		return int(hashed.Load()), err
	}
	return int(hashed.Load()), nil
}

// waitUnits waits until every unit of the job is done, by whoever.
func waitUnits(ctx context.Context, reg *registry.Registry, id string) error {
	for {
		c, err := reg.Count(ctx, id)
		if err != nil {
			return fmt.Errorf("verify: job %s: %w", id, err)
		}
		if c.Failed > 0 {
			return fmt.Errorf("verify: job %s: %d units failed", id, c.Failed)
		}
		if c.Pending == 0 && c.Claimed == 0 {
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(500 * time.Millisecond):
		}
	}
}

// serve runs one claimed unit to its end: done, failed after unitAttempts
// runs, or released (checkpoint kept) when ctx ends or the claim is lost,
// which is the error returned.
func (ue *unitEnv) serve(ctx context.Context, c *registry.Claim) error {
	taskCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() {
		select {
		case <-c.Lost():
			cancel()
		case <-taskCtx.Done():
		}
	}()
	log := ue.log.With("unit", c.Task())
	var err error
	for attempt := 1; attempt <= unitAttempts; attempt++ {
		if err = ue.hashUnit(taskCtx, c); err == nil || taskCtx.Err() != nil || registry.Classify(err) == registry.ActionStop {
			break
		}
		log.Warn("verify: unit failed; trying again from its checkpoint", "attempt", attempt, "err", err)
	}
	endCtx, endCancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
	defer endCancel()
	switch {
	case err == nil:
		if err := c.Done(endCtx); err != nil {
			return fmt.Errorf("verify: unit %s hashed, but not recorded done: %w", c.Task(), err)
		}
		return nil
	case taskCtx.Err() != nil || registry.Classify(err) == registry.ActionStop:
		if rerr := c.Release(endCtx); rerr != nil && registry.Classify(rerr) != registry.ActionStop {
			log.Warn("verify: unit not released", "err", rerr)
		}
		if ctx.Err() != nil {
			return context.Cause(ctx)
		}
		return fmt.Errorf("verify: unit %s stopped: %w", c.Task(), err)
	default:
		if ferr := c.Fail(endCtx, err); ferr != nil {
			log.Warn("verify: unit failure not recorded", "err", ferr)
		}
		return fmt.Errorf("verify: unit %s: %w", c.Task(), err)
	}
}

// hashUnit hashes the batches of a claimed unit that its checkpoint does
// not hold yet, saving the checkpoint (fenced by the claim) after each batch.
func (ue *unitEnv) hashUnit(ctx context.Context, c *registry.Claim) error {
	u, err := DecodeUnitSpec(c.Spec())
	if err != nil {
		return err
	}
	if u.Proven {
		return nil // matched by checksums when planned: nothing to read
	}
	b, err := ue.reg.TaskCheckpoint(ctx, c.Job(), c.Task())
	if err != nil {
		return err
	}
	cp, err := DecodeUnitCheckpoint(b)
	if err != nil {
		return err
	}
	have := cp.Hashes
	if len(have) > len(u.Batches) {
		return fmt.Errorf("%w: checkpoint holds %d hashes of %d batches", ErrUnit, len(have), len(u.Batches))
	}
	if len(have) == len(u.Batches) {
		return nil // hashed; only its result was not written
	}
	// The unit counts its own bytes, into its checkpoint: the report adds
	// up the units', wherever they ran.
	s := *ue.sides[u.Side]
	var read atomic.Int64
	s.read = &read
	rest := u.Batches[len(have):]
	rng := job.KeyRange{Start: rest[0].Start, End: rest[len(rest)-1].End}
	h := NewHasher(rest)
	saved := 0
	var saveErr error
	var shown int64 // of read, added to the progress counters
	save := func(sealed []BatchHash) {
		if ue.progress != nil {
			n := read.Load()
			ue.progress.BytesRead.Add(n - shown)
			shown = n
		}
		if saveErr == nil {
			saveErr = c.SaveCheckpoint(ctx, EncodeUnitCheckpoint(UnitCheckpoint{Hashes: append(have[:len(have):len(have)], sealed...), BytesRead: cp.BytesRead + read.Load()}))
			saved = len(sealed)
		}
	}
	err = readRange(ctx, &s, u.Region, ue.families, rng, ue.o, func(cell *hfile.Cell) {
		h.Add(cell)
		if sealed := h.Sealed(); len(sealed) > saved {
			save(sealed)
		}
	})
	if err == nil {
		err = saveErr
	}
	if err != nil {
		return fmt.Errorf("%s region %s rows %s: %w", s.name, u.Region.EncodedName, rng, err)
	}
	saveErr = nil
	save(h.Finish())
	if saveErr != nil {
		return fmt.Errorf("%s region %s: checkpoint: %w", s.name, u.Region.EncodedName, saveErr)
	}
	return nil
}

// sideUnits returns the units of both sides over batches, checking that each
// batch is in a unit of each side.
func sideUnits(sides []*side, batches []job.KeyRange) ([]unit, error) {
	var units []unit
	for si, s := range sides {
		seen := make([]bool, len(batches))
		for _, u := range regionUnits(s.pinned.Regions, batches) {
			u.side = si
			units = append(units, u)
			for i := u.lo; i < u.hi; i++ {
				seen[i] = true
			}
		}
		for i, ok := range seen {
			if !ok {
				return nil, fmt.Errorf("verify: no %s region holds rows %s", s.name, batches[i])
			}
		}
	}
	return units, nil
}

// UnitServer serves the units of verification jobs on a worker agent
// (worker.AgentConfig.Kinds[job.KindVerify]): it reads both snapshots the
// job's record names (it never takes or releases one) and hashes the units
// it claims, with the agent's share of the job's bandwidth.
type UnitServer struct{}

// Open reads the job's snapshots for its units.
func (UnitServer) Open(ctx context.Context, env jobkind.Env) (jobkind.Job, error) {
	o, err := optionsOf(env.Record)
	if err != nil {
		return nil, err
	}
	o.Logger, o.DialTimeout = env.Logger, env.DialTimeout
	o.defaults()
	read := env.BytesRead
	if read == nil {
		read = new(atomic.Int64)
	}
	names := [2]string{env.Record.Snapshot, env.Record.Verify.TargetSnapshot}
	sides, families, closeFn, err := openSides(ctx, o, names, false, env.Limiter, read)
	if err != nil {
		closeFn()
		return nil, err
	}
	return &unitJob{ue: &unitEnv{reg: env.Registry, sides: sides, families: families, o: o, log: o.Logger}, close: closeFn}, nil
}

type unitJob struct {
	ue    *unitEnv
	close func()
}

func (uj *unitJob) Serve(ctx context.Context, c *registry.Claim) {
	if err := uj.ue.serve(ctx, c); err != nil && ctx.Err() == nil {
		uj.ue.log.Warn("verify: unit not hashed", "unit", c.Task(), "err", err)
		return
	}
	if ctx.Err() == nil {
		uj.ue.log.Info("verify: unit hashed", "unit", c.Task())
	}
}

func (uj *unitJob) Close() { uj.close() }

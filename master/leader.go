package master

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"golang.org/x/sync/errgroup"

	"rangecopy/checkpoint"
	"rangecopy/cluster/dial"
	"rangecopy/job"
	"rangecopy/metrics"
	"rangecopy/registry"
	"rangecopy/snapshot"
)

// LeadConfig is a master process.
type LeadConfig struct {
	// Registry is the registry the workers use. Required.
	Registry *registry.Registry
	// ID names this master in the election (registry.ValidateID).
	ID string
	// Poll is how often the leader looks at every job; 0 means 2 s.
	Poll time.Duration
	// ReportEvery is how often a running job's progress report is stored;
	// 0 means 5 s.
	ReportEvery time.Duration
	// DialTimeout bounds reaching a job's clusters; 0 means DefaultDialTimeout.
	DialTimeout time.Duration
	// PlanAttempts bounds the failed attempts to plan a job before it is
	// marked failed; 0 means 5.
	PlanAttempts int
	// Logger receives the master's log; nil discards.
	Logger *slog.Logger
	// Pool, when set, lends the connections to the jobs' clusters (rangecopy
	// server keeps them warm across jobs); nil dials each job's anew.
	Pool *dial.Pool
	// WhileLeading, when set, runs in a goroutine of its own for each term of leadership,
	// with a context that ends when the term does (rangecopy server reconciles its catalog
	// with the registry there). Lead waits for it to return before it campaigns again.
	WhileLeading func(ctx context.Context)
	// Metrics, if set, receives the master's metrics.
	Metrics *metrics.Master
}

// Lead runs a master until ctx ends: it campaigns in the registry's
// election and, while it leads, serves every detached job (job.RunOptions.
// Detached): it pins and plans pending jobs, resets failed tasks after a
// backoff up to the job's retry limit (then pauses the job for an operator),
// stores each running job's progress, and finishes jobs whose tasks are all
// done (final report stored, marked done, then snapshot released and work
// folder removed; a done job whose clean-up a dead leader left pending is
// cleaned up once a term) and jobs being cancelled once no task is held. A master that loses the lead
// (its session expired) stops acting at once and campaigns again; the
// standby next in line takes over as soon as the leader's session ends. The
// store files' facts it reads to plan are kept for its later plans
// (snapshot.FactsCache, at most 64 MiB of them).
func Lead(ctx context.Context, cfg LeadConfig) error {
	if cfg.Registry == nil {
		return errors.New("master: LeadConfig needs a Registry")
	}
	if err := registry.ValidateID(cfg.ID); err != nil {
		return fmt.Errorf("master id: %w", err)
	}
	if cfg.Poll <= 0 {
		cfg.Poll = 2 * time.Second
	}
	if cfg.ReportEvery <= 0 {
		cfg.ReportEvery = 5 * time.Second
	}
	facts := snapshot.NewFactsCache(0) // for every term of this process
	if cfg.DialTimeout <= 0 {
		cfg.DialTimeout = DefaultDialTimeout
	}
	if cfg.PlanAttempts <= 0 {
		cfg.PlanAttempts = 5
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	log := cfg.Logger.With("master", cfg.ID)
	for ctx.Err() == nil {
		log.Info("campaigning")
		l, err := cfg.Registry.Campaign(ctx, cfg.ID)
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			return fmt.Errorf("master %s: campaign: %w", cfg.ID, err)
		}
		log.Info("leading", "id", cfg.ID)
		cfg.Metrics.SetLeading(true)
		lctx, cancel := context.WithCancel(ctx)
		go func() {
			select {
			case <-l.Done():
				cancel()
			case <-lctx.Done():
			}
		}()
		hookDone := make(chan struct{})
		go func() {
			defer close(hookDone)
			if cfg.WhileLeading != nil {
				cfg.WhileLeading(lctx)
			}
		}()
		ld := &leader{cfg: cfg, log: log, jobs: map[string]*leadJob{}, swept: map[string]bool{}, facts: facts}
		ld.serve(lctx)
		ld.closeAll()
		cfg.Metrics.SetLeading(false)
		cancel()
		<-hookDone
		if ctx.Err() != nil {
			rctx, rcancel := context.WithTimeout(context.Background(), 10*time.Second)
			_ = l.Resign(rctx)
			rcancel()
			log.Info("master stopped")
			return nil
		}
		log.Warn("leadership lost; campaigning again")
	}
	return nil
}

// leader is one term of leadership.
type leader struct {
	cfg  LeadConfig
	log  *slog.Logger
	jobs map[string]*leadJob
	// swept are the done jobs this term looked at for a pending clean-up (NodeCleanup).
	swept map[string]bool
	// facts keeps the sources' store files' facts across the jobs the process plans
	// (Options.Facts): a relocation's next window reads only the new files.
	facts *snapshot.FactsCache
}

// leadJob is what the leader keeps of one job between looks.
type leadJob struct {
	rec          job.Record
	p            *Planner // open connections, when a step needed them
	seen         map[string]time.Time
	counted      map[string]bool
	done         job.Report      // the sum over counted (done) tasks
	totals       *job.PlanTotals // the plan's, once read
	buckets      []int           // the registry buckets of its tasks, for a job of few tasks
	base         time.Duration   // run under earlier leaders
	since        time.Time       // when this leader first saw it running
	lastReport   time.Time
	planFailures int
	thr          *jobThrottle  // with protect-source, while the job runs
	idle         time.Duration // the source's idle p99 learned before (protect-source)
}

// close stops what the leader runs for the job and closes its connections.
func (lj *leadJob) close() {
	lj.stopThrottle()
	if lj.p != nil {
		lj.p.Close()
		lj.p = nil
	}
}

// stopThrottle stops the job's throttle, keeping the idle p99 it learned.
func (lj *leadJob) stopThrottle() {
	if lj.thr == nil {
		return
	}
	lj.thr.stop()
	if st, ok := lj.thr.status(); ok && st.Idle > 0 {
		lj.idle = st.Idle
	}
	lj.thr = nil
}

func (ld *leader) closeAll() {
	for id, lj := range ld.jobs {
		lj.close()
		delete(ld.jobs, id)
	}
}

// serve looks at every job every Poll until ctx ends.
func (ld *leader) serve(ctx context.Context) {
	// A change in any job (submitted, paused, a task finished) wakes the leader at once; the
	// poll covers what no watch tells (a claim gone with its session, a backoff ending).
	pace := &registry.Pacer{Period: ld.cfg.Poll, MinGap: minLook}
	if ch, err := ld.cfg.Registry.WatchAllJobs(ctx); err == nil {
		pace.Changes = ch
	} else if ctx.Err() == nil {
		ld.log.Warn("cannot watch the jobs; looking every poll only", "err", err)
	}
	for ctx.Err() == nil {
		ids, err := ld.cfg.Registry.Jobs(ctx)
		if err != nil && ctx.Err() == nil {
			ld.log.Warn("list jobs", "err", err)
		}
		live := map[string]bool{}
		for _, id := range ids {
			if ctx.Err() != nil {
				return
			}
			live[id] = true
			if err := ld.look(ctx, id); err != nil && ctx.Err() == nil {
				ld.log.Warn("job step failed; trying again", "job", id, "err", err)
			}
		}
		for id := range ld.swept {
			if !live[id] {
				delete(ld.swept, id)
			}
		}
		for id, lj := range ld.jobs {
			if !live[id] {
				lj.close()
				delete(ld.jobs, id)
				ld.cfg.Metrics.ForgetJob(id)
			}
		}
		pace.Wait(ctx)
	}
}

// minLook is the shortest time between two looks at every job: changes of a busy job come
// with every claim and result, and are taken together.
const minLook = 50 * time.Millisecond

// metricsJob names job id in the metrics: by its relocation when it is a window's.
func (lj *leadJob) metricsJob(id string) metrics.Job {
	return metrics.Job{ID: id, Relocation: lj.rec.Options.Relocation}
}

// forget drops what the leader keeps of a job.
func (ld *leader) forget(id string) {
	ld.cfg.Metrics.ForgetJob(id)
	if lj, ok := ld.jobs[id]; ok {
		lj.close()
		delete(ld.jobs, id)
	}
}

// look takes the next step of one job.
func (ld *leader) look(ctx context.Context, id string) error {
	reg := ld.cfg.Registry
	j, err := reg.Job(ctx, id)
	if errors.Is(err, registry.ErrNotFound) {
		ld.forget(id)
		return nil
	}
	if err != nil {
		return err
	}
	if j.State.Final() {
		if ld.jobs[id] != nil {
			ld.cfg.Metrics.JobEnded(j.State.String()) // a job this term served
		}
		ld.forget(id)
		if j.State == registry.JobDone && !ld.swept[id] {
			ld.swept[id] = true
			return ld.sweep(ctx, j)
		}
		return nil
	}
	lj := ld.jobs[id]
	if lj == nil {
		rec, err := job.DecodeRecord(j.Spec)
		if err != nil || !rec.Options.Detached || !rec.IsCopy() {
			return nil // not a job for the masters (a rangecopy copy or verify process runs it)
		}
		if err := rec.Servable(); err != nil {
			_, serr := reg.SetJobState(ctx, j, registry.JobFailed, err.Error())
			if serr == nil {
				ld.cfg.Metrics.JobEnded(metrics.JobFailed)
			}
			return serr
		}
		lj = &leadJob{rec: rec, seen: map[string]time.Time{}, counted: map[string]bool{}}
		if rep, ok, err := LoadReport(ctx, reg, id); err == nil && ok {
			lj.base = rep.Elapsed()
			lj.idle = time.Duration(rep.ProbeIdleP99Ms * float64(time.Millisecond))
		}
		ld.jobs[id] = lj
	}
	var counts registry.Counts
	var failures []Failure
	if j.State == registry.JobRunning || j.State == registry.JobCancelling {
		ld.loadTotals(ctx, j.ID, lj)
		// A job planned into no tasks has none to count: counting lists every bucket of
		// the job (a thousand ZooKeeper calls), the most of a catch-up window's finish.
		if !lj.noTasks() {
			if counts, err = ld.count(ctx, id, lj); err != nil {
				return err
			}
		}
		ld.cfg.Metrics.SetTasks(lj.metricsJob(id), metrics.TaskCounts{Pending: counts.Pending, Claimed: counts.Claimed, Done: counts.Done, Failed: counts.Failed})
		if failures, err = ld.failures(ctx, id, lj, counts); err != nil {
			return err
		}
	}
	d := NextStep(View{State: j.State, Counts: counts, Failures: failures, RetryLimit: lj.rec.Options.RetryLimit(), Now: time.Now()})
	if !lj.rec.Options.ProtectSource.IsZero() {
		switch {
		case j.State == registry.JobRunning && lj.thr == nil && d.Step != StepFinish:
			ld.log.Info("protecting the source: probing its read latency", "job", id, "target", lj.rec.Options.ProtectSource.String())
			lj.thr = startThrottle(ctx, reg, id, lj.rec, lj.idle, ld.cfg.DialTimeout, ld.log)
		case j.State != registry.JobRunning:
			lj.stopThrottle()
		}
	}
	switch d.Step {
	case StepPlan:
		if err := ld.plan(ctx, j, lj); err != nil {
			return err
		}
		// Look again at once: a job planned into no tasks (a catch-up window with nothing
		// new) is finished now rather than at the next look.
		return ld.look(ctx, id)
	case StepRetry:
		return ld.retry(ctx, id, lj, d.Retry)
	case StepPause:
		if _, err := reg.SetJobState(ctx, j, registry.JobPaused, d.Message); err != nil {
			return err
		}
		ld.log.Warn("job paused: failed tasks used their retries", "job", id, "message", d.Message)
		return nil
	case StepFinish:
		p, err := ld.open(ctx, lj)
		if err != nil {
			return err
		}
		rep := ld.report(ctx, j, lj, counts)
		lj.stopThrottle()
		return p.Finish(ctx, j, lj.rec, &rep)
	case StepCancel:
		return ld.cancel(ctx, j, lj, counts)
	}
	if j.State == registry.JobRunning && time.Since(lj.lastReport) >= ld.cfg.ReportEvery {
		rep := ld.report(ctx, j, lj, counts)
		if err := storeReport(ctx, reg, rep); err != nil {
			return err
		}
		lj.lastReport = time.Now()
	}
	return nil
}

// sweep cleans up a done job whose clean-up the master that finished it did not get to
// (it died between marking the job done and cleaning up), once a term.
func (ld *leader) sweep(ctx context.Context, j registry.Job) error {
	b, err := ld.cfg.Registry.JobData(ctx, j.ID, registry.NodeCleanup)
	if err != nil || len(b) == 0 {
		return err
	}
	rec, err := job.DecodeRecord(j.Spec)
	if err != nil || !rec.Options.Detached {
		return nil
	}
	p, err := attach(ctx, ld.cfg.Registry, rec, ld.cfg.DialTimeout, ld.cfg.Pool, ld.facts, ld.log)
	if err != nil {
		delete(ld.swept, j.ID) // try again at the next look
		return fmt.Errorf("job %s: clean up after it was done: %w", j.ID, err)
	}
	defer p.Close()
	_, err = p.SweepCleanup(ctx, j)
	return err
}

// sumCheckpoints adds the tasks' checkpoints to rep: done tasks once (kept in lj), the others
// each time.
func (ld *leader) sumCheckpoints(ctx context.Context, j registry.Job, lj *leadJob, rep *job.Report, add func(*job.Report, string) bool) {
	reg := ld.cfg.Registry
	// lj.buckets, when known, hold every task: a few listings, not 512.
	if done, err := reg.TasksWithIn(ctx, j.ID, registry.StatusDone, lj.buckets); err == nil {
		var fresh []string
		for _, t := range done {
			if !lj.counted[t] {
				fresh = append(fresh, t)
			}
		}
		// Each task is two reads (its checkpoint, its spec): a job's last look reads
		// those of the tasks that ended since the last report, at once.
		type sums struct {
			rep   job.Report
			bytes int64
			ok    bool
		}
		got := make([]sums, len(fresh))
		var g errgroup.Group
		g.SetLimit(reportReads)
		for i := range fresh {
			g.Go(func() error {
				if !add(&got[i].rep, fresh[i]) {
					return nil
				}
				got[i].ok = true
				if b, err := reg.TaskSpec(ctx, j.ID, fresh[i]); err == nil {
					if ts, err := job.DecodeTaskSpec(b); err == nil {
						got[i].bytes = ts.Task.Bytes
					}
				}
				return nil // a read that fails leaves its task for the next report
			})
		}
		_ = g.Wait()
		for i, t := range fresh {
			if !got[i].ok {
				continue
			}
			lj.done.FilesLoaded += got[i].rep.FilesLoaded
			lj.done.BytesLoaded += got[i].rep.BytesLoaded
			lj.done.Cells += got[i].rep.Cells
			lj.done.BytesRead += got[i].bytes
			lj.counted[t] = true
		}
	}
	rep.FilesLoaded, rep.BytesLoaded, rep.Cells, rep.BytesRead = lj.done.FilesLoaded, lj.done.BytesLoaded, lj.done.Cells, lj.done.BytesRead
	if part, err := reg.CheckpointedTasksIn(ctx, j.ID, lj.buckets); err == nil {
		for _, t := range part {
			if !lj.counted[t] {
				add(rep, t)
			}
		}
	}
}

// reportReads bounds the registry reads a report makes at once.
const reportReads = 16

// loadTotals reads the plan's totals of a planned job, once.
func (ld *leader) loadTotals(ctx context.Context, id string, lj *leadJob) {
	if lj.totals != nil {
		return
	}
	if t, err := planTotals(ctx, ld.cfg.Registry, ld.log, id); err == nil {
		lj.totals = &t
	}
}

// count counts a running job's tasks by status. A job of few tasks (a
// catch-up window's) is counted from the buckets its tasks lie in, found by
// listing its tasks once; a count that then finds other than the plan's
// number of tasks drops them and counts every bucket.
func (ld *leader) count(ctx context.Context, id string, lj *leadJob) (registry.Counts, error) {
	reg := ld.cfg.Registry
	if lj.buckets == nil && lj.totals != nil && lj.totals.Tasks <= fewTasks {
		if ids, err := reg.Tasks(ctx, id); err == nil && len(ids) == lj.totals.Tasks {
			lj.buckets = registry.TaskBuckets(ids)
		}
	}
	if lj.buckets != nil {
		c, err := reg.CountBuckets(ctx, id, lj.buckets)
		if err != nil || c.Tasks == lj.totals.Tasks {
			return c, err
		}
		lj.buckets = nil
	}
	return reg.Count(ctx, id)
}

// fewTasks is the most tasks a job may have for the leader to count it from
// its tasks' buckets only: at most a quarter of the calls of a whole count.
const fewTasks = registry.Buckets / 4

// noTasks says the job was planned into no tasks (its plan's totals say so).
func (lj *leadJob) noTasks() bool { return lj.totals != nil && lj.totals.Tasks == 0 }

// open returns the job's connections, opening them the first time.
func (ld *leader) open(ctx context.Context, lj *leadJob) (*Planner, error) {
	if lj.p != nil {
		return lj.p, nil
	}
	p, err := attach(ctx, ld.cfg.Registry, lj.rec, ld.cfg.DialTimeout, ld.cfg.Pool, ld.facts, ld.log)
	if err != nil {
		return nil, err
	}
	lj.p = p
	return p, nil
}

// plan pins and plans a pending job. A job that cannot be planned
// PlanAttempts times in a row is marked failed with the error.
func (ld *leader) plan(ctx context.Context, j registry.Job, lj *leadJob) error {
	p, err := ld.open(ctx, lj)
	if err == nil {
		rep := job.NewReport(j.ID, lj.rec.Spec)
		_, err = p.Plan(ctx, j, lj.rec, &rep)
	}
	if err == nil {
		lj.planFailures = 0
		ld.log.Info("job planned", "job", j.ID)
		return nil
	}
	if ctx.Err() != nil {
		return err
	}
	lj.planFailures++
	if lj.p != nil {
		lj.p.Close()
		lj.p = nil
	}
	if lj.planFailures < ld.cfg.PlanAttempts {
		return err
	}
	j2, rerr := ld.cfg.Registry.Job(ctx, j.ID)
	if rerr != nil {
		return rerr
	}
	if _, serr := ld.cfg.Registry.SetJobState(ctx, j2, registry.JobFailed, "planning failed: "+err.Error()); serr != nil {
		return serr
	}
	ld.log.Error("job failed: cannot plan it", "job", j.ID, "attempts", lj.planFailures, "err", err)
	return nil
}

// failures lists a job's failed tasks with their retry counts.
func (ld *leader) failures(ctx context.Context, id string, lj *leadJob, c registry.Counts) ([]Failure, error) {
	if c.Failed == 0 {
		clear(lj.seen)
		return nil, nil
	}
	reg := ld.cfg.Registry
	failed, err := reg.TasksWithIn(ctx, id, registry.StatusFailed, lj.buckets)
	if err != nil {
		return nil, err
	}
	retries, err := loadRetries(ctx, reg, id)
	if err != nil {
		return nil, err
	}
	now := time.Now()
	out := make([]Failure, 0, len(failed))
	for _, t := range failed {
		seen, ok := lj.seen[t]
		if !ok {
			seen = now
			lj.seen[t] = now
		}
		out = append(out, Failure{Task: t, Retries: retries[t], Seen: seen})
	}
	return out, nil
}

func loadRetries(ctx context.Context, reg *registry.Registry, id string) (map[string]int, error) {
	m := map[string]int{}
	b, err := reg.JobData(ctx, id, registry.NodeRetries)
	if err != nil || len(b) == 0 {
		return m, err
	}
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, fmt.Errorf("job %s: retries: %w", id, err)
	}
	return m, nil
}

// retry resets failed tasks, counting the retry of each first.
func (ld *leader) retry(ctx context.Context, id string, lj *leadJob, tasks []string) error {
	reg := ld.cfg.Registry
	retries, err := loadRetries(ctx, reg, id)
	if err != nil {
		return err
	}
	for _, t := range tasks {
		retries[t]++
	}
	b, err := json.Marshal(retries)
	if err != nil {
		return err
	}
	if err := reg.PutJobData(ctx, id, registry.NodeRetries, b); err != nil {
		return err
	}
	for _, t := range tasks {
		res, _ := reg.TaskResult(ctx, id, t)
		if err := reg.ResetTask(ctx, id, t); err != nil {
			return err
		}
		delete(lj.seen, t)
		ld.log.Warn("retrying a failed task", "job", id, "task", t, "retry", retries[t], "error", res.Message)
	}
	return nil
}

// cancel ends a cancelled job once no task is held: snapshot and work folder
// cleaned up, a report of what was copied stored, the job cancelled.
func (ld *leader) cancel(ctx context.Context, j registry.Job, lj *leadJob, c registry.Counts) error {
	p, err := ld.open(ctx, lj)
	if err != nil {
		return err
	}
	rep := ld.report(ctx, j, lj, c)
	_ = p.cleanup(ctx, j.ID, lj.rec) // logged
	rep.Status = job.ReportCancelled
	rep.Error = fmt.Sprintf("cancelled: %d of %d tasks done, %d files (%d bytes) loaded; the target keeps every file loaded, each whole",
		rep.TasksDone, rep.Tasks, rep.FilesLoaded, rep.BytesLoaded)
	if err := storeReport(ctx, ld.cfg.Registry, rep); err != nil {
		return err
	}
	if _, err := ld.cfg.Registry.SetJobState(ctx, j, registry.JobCancelled, rep.Error); err != nil {
		return err
	}
	ld.log.Info("job cancelled", "job", j.ID, "tasks_done", rep.TasksDone, "files", rep.FilesLoaded)
	return nil
}

// report sums the job's progress from its tasks' checkpoints: done tasks
// once (kept), the others (held, or released part way: paused, cancelled,
// a worker died) each time.
func (ld *leader) report(ctx context.Context, j registry.Job, lj *leadJob, c registry.Counts) job.Report {
	reg := ld.cfg.Registry
	if lj.since.IsZero() {
		lj.since = time.Now()
	}
	rep := job.NewReport(j.ID, lj.rec.Spec)
	rep.Status, rep.UpdatedAt = job.ReportStatusOf(j.State), time.Now().UTC()
	rep.Tasks, rep.TasksDone, rep.TasksFailed = int64(c.Tasks), int64(c.Done), int64(c.Failed)
	rep.BandwidthLimit = lj.rec.Options.Bandwidth
	if bw, ok, err := reg.Bandwidth(ctx, j.ID); err == nil && ok {
		rep.BandwidthLimit = bw
	}
	ld.loadTotals(ctx, j.ID, lj)
	if lj.totals != nil {
		rep.InputBytes, rep.FilesPruned = lj.totals.InputBytes, lj.totals.FilesPruned
	}
	add := func(into *job.Report, task string) bool {
		b, err := reg.TaskCheckpoint(ctx, j.ID, task)
		if err != nil {
			return false
		}
		cp, err := checkpoint.Decode(task, b)
		if err != nil {
			return false
		}
		into.FilesLoaded += cp.Files
		into.BytesLoaded += cp.Bytes
		into.Cells += cp.Cells
		return true
	}
	// A job of no tasks has no checkpoints to sum (and listing them lists every bucket).
	if !lj.noTasks() {
		ld.sumCheckpoints(ctx, j, lj, &rep, add)
	}
	rep.SetElapsed(lj.base + time.Since(lj.since))
	if !lj.rec.Options.ProtectSource.IsZero() {
		rep.ProtectSource = lj.rec.Options.ProtectSource.String()
		rep.ProbeIdleP99Ms = float64(lj.idle) / float64(time.Millisecond)
		if st, ok := lj.thr.status(); ok {
			st.Fill(&rep, lj.rec.Options.ProtectSource)
			ld.cfg.Metrics.SetThrottle(lj.metricsJob(j.ID), st.Rate, st.P99.Seconds())
		}
		if lj.thr != nil {
			lj.thr.loaded.Store(rep.BytesLoaded)
		}
	}
	return rep
}

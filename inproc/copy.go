// Package inproc runs a copy job in one process (rangecopy copy): it prepares
// the job with master's Planner (validate, connect, register, pin, plan),
// runs workers of its own (worker.Serve) on the job's tasks, shows progress,
// and finishes the job, stepping through master.NextStep as the leading master
// does. Tasks, claims and checkpoints still go through the registry in
// ZooKeeper, so the job can be resumed by running the same copy again.
package inproc

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"rangecopy/bulkload"
	"rangecopy/fsys"
	"rangecopy/job"
	"rangecopy/master"
	"rangecopy/memory"
	"rangecopy/progress"
	"rangecopy/registry"
	"rangecopy/throttle"
	"rangecopy/worker"
)

// Options are a copy run in this process: the request, and how its progress
// is shown.
type Options struct {
	master.Options
	// Progress, if set, shows progress every ProgressInterval (0: 1 s).
	Progress         progress.Printer
	ProgressInterval time.Duration
	// Memory is the memory budget of the process's workers in bytes, shared
	// by the Workers tasks that run at once; 0 means memory.Default.
	Memory int64
	// Budget, if set, is the budget itself (Memory is then not read): tests
	// read its high-water mark.
	Budget *memory.Budget
}

// ErrTasksFailed reports a job that ended with failed tasks: the target holds
// what was loaded, nothing is marked done, and the job can be resumed.
var ErrTasksFailed = errors.New("tasks failed")

// Copy runs a copy job to its end and returns its report. On an error the
// report says how far it got (its Status is "failed" or "interrupted"), and
// the job, when one was registered, can be resumed with Options.Resume.
func Copy(ctx context.Context, o Options) (job.Report, error) {
	rep := job.NewReport("", o.Spec)
	p, err := master.Open(ctx, o.Options)
	if err != nil {
		rep.Error = err.Error()
		return rep, err
	}
	defer p.Close()
	if o.ProgressInterval <= 0 {
		o.ProgressInterval = time.Second
	}
	c := &copyRun{p: p, o: p.Options(), display: o, log: p.Logger(), reg: p.Registry()}
	// The memory budget first: a copy that cannot run one task makes no snapshot and no
	// target table.
	if err := c.fitWorkers(1); err != nil {
		rep.Error = err.Error()
		return rep, err
	}
	rep, err = c.run(ctx)
	if err != nil {
		rep.Error = err.Error()
	}
	return rep, err
}

// copyRun is one run of a copy job in this process.
type copyRun struct {
	p       *master.Planner
	o       master.Options // with defaults, and the spec of a resumed job
	display Options
	log     *slog.Logger
	reg     *registry.Registry
}

// run registers (or finds) the job and takes its steps to its end.
func (c *copyRun) run(ctx context.Context) (job.Report, error) {
	if c.o.DryRun {
		rep := job.NewReport(master.JobID(c.o.Source, c.o.Target, c.o.Spec), c.o.Spec)
		return rep, c.p.DryRun(ctx)
	}
	j, rec, rep, done, err := c.p.Register(ctx)
	if err != nil || done {
		return rep, err
	}
	for {
		v, err := c.view(ctx, j, true)
		if err != nil {
			return rep, err
		}
		d := master.NextStep(v)
		switch d.Step {
		case master.StepPlan:
			if j, err = c.p.Plan(ctx, j, rec, &rep); err != nil {
				return rep, err
			}
		case master.StepRetry:
			for _, t := range d.Retry {
				c.log.Info("retrying a task that failed in an earlier run", "task", t)
				if err := c.reg.ResetTask(ctx, j.ID, t); err != nil {
					return rep, fmt.Errorf("job %s: reset failed task %s: %w", j.ID, t, err)
				}
			}
		case master.StepRefuse:
			return rep, fmt.Errorf("job %s is %s; %s", j.ID, j.State, d.Message)
		default: // StepRun, StepFinish
			return c.execute(ctx, j, rec, rep)
		}
	}
}

// view is what NextStep needs of the job: its counts and failed tasks.
func (c *copyRun) view(ctx context.Context, j registry.Job, starting bool) (master.View, error) {
	v := master.View{Runner: master.RunnerInProc, Starting: starting, State: j.State, Now: time.Now()}
	if j.State != registry.JobRunning {
		return v, nil
	}
	var err error
	if v.Counts, err = c.reg.Count(ctx, j.ID); err != nil {
		return v, fmt.Errorf("job %s: count tasks: %w", j.ID, err)
	}
	if starting && v.Counts.Failed > 0 {
		failed, err := c.reg.TasksWith(ctx, j.ID, registry.StatusFailed)
		if err != nil {
			return v, fmt.Errorf("job %s: failed tasks: %w", j.ID, err)
		}
		for _, t := range failed {
			v.Failures = append(v.Failures, master.Failure{Task: t})
		}
	}
	return v, nil
}

// execute runs the workers and watches the job to its end.
func (c *copyRun) execute(ctx context.Context, j registry.Job, rec job.Record, rep job.Report) (job.Report, error) {
	o := c.o
	id := j.ID
	start := time.Now()
	totals, err := c.p.Totals(ctx, id)
	if err != nil {
		return rep, err
	}
	rep.FilesPruned = totals.FilesPruned
	var counters progress.Counters
	counters.TasksTotal.Store(int64(totals.Tasks))
	counters.BytesTotal.Store(totals.InputBytes)

	var limiter fsys.Limiter
	var live *fsys.BandwidthLimit // the throttle's, with --protect-source
	switch {
	case !o.ProtectSource.IsZero():
		live = &fsys.BandwidthLimit{}
		limiter = live
	case o.Bandwidth > 0:
		tb, err := fsys.NewRateLimit(o.Bandwidth)
		if err != nil {
			return rep, fmt.Errorf("bandwidth %.0f B/s: %w", o.Bandwidth, err)
		}
		limiter = tb
	}
	if err := c.fitPlanned(ctx, id); err != nil {
		return rep, err
	}
	o.Workers = c.o.Workers
	budget := c.display.Budget
	if budget == nil {
		budget = memory.New(c.display.Memory)
	}
	var wcounters worker.Counters
	var bcounters bulkload.Counters
	src, tgt, srcFS, tgtFS := c.p.Clusters()
	env, err := worker.OpenJob(ctx, worker.JobConfig{Registry: c.reg, Job: id, Record: rec,
		Source: src, Target: tgt, SourceFS: srcFS, TargetFS: tgtFS,
		Limiter: limiter, Memory: budget, MemorySlots: o.Workers, Counters: &wcounters, LoaderCounters: &bcounters,
		Loaded: func(f worker.OutputFile) {
			counters.FilesLoaded.Add(1)
			counters.BytesLoaded.Add(f.Bytes)
			counters.Cells.Add(f.Cells)
		},
		DialTimeout: o.DialTimeout, LoadRetryFor: o.LoadRetryFor, Logger: c.p.Logger().With("part", "worker")})
	if err != nil {
		return rep, err
	}
	defer env.Close(context.WithoutCancel(ctx))

	var thr *throttle.Throttle
	if live != nil {
		tctx, stopThrottle := context.WithCancel(ctx)
		defer stopThrottle()
		thr, err = throttle.Start(tctx, throttle.RunConfig{
			Prober:     &throttle.Prober{Client: src, Table: o.Spec.Table, Logger: c.log},
			Controller: throttle.Config{Target: o.ProtectSource, Ceiling: o.Bandwidth},
			Read:       wcounters.BytesRead.Load,
			Apply:      func(_ context.Context, rate float64) error { return live.Set(rate) },
			Logger:     c.log.With("part", "throttle"),
		})
		if err != nil {
			return rep, fmt.Errorf("job %s: --protect-source: %w", id, err)
		}
		c.log.Info("learning the source's idle read latency before the copy", "target", o.ProtectSource.String())
		if err := thr.WaitWarm(ctx); err != nil {
			return rep, fmt.Errorf("job %s: --protect-source: %w", id, err)
		}
	}

	wctx, stopWorkers := context.WithCancel(ctx)
	defer stopWorkers()
	host := registry.ProcessID("copy")
	var wg sync.WaitGroup
	errs := make(chan error, o.Workers)
	for i := 0; i < o.Workers; i++ {
		wid := fmt.Sprintf("%s-w%d", host, i)
		if err := c.reg.RegisterWorker(ctx, registry.Worker{ID: wid, Capacity: 1, Info: "rangecopy copy, job " + id}); err != nil {
			c.log.Warn("register worker", "worker", wid, "err", err)
		}
		cfg := env.ServeConfig(wid)
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := worker.Serve(wctx, cfg); err != nil {
				errs <- err
			}
		}()
	}

	pctx, stopProgress := context.WithCancel(context.WithoutCancel(ctx))
	var final progress.Sample
	var pwg sync.WaitGroup
	if c.display.Progress != nil {
		pwg.Add(1)
		go func() {
			defer pwg.Done()
			final = progress.Run(pctx, &counters, start, c.display.ProgressInterval, c.display.Progress)
		}()
	}
	d, counts, werr := c.watch(ctx, j, &counters, &wcounters, &bcounters, errs)
	stopWorkers()
	wg.Wait()
	syncCounters(&counters, &wcounters, &bcounters)
	stopProgress()
	pwg.Wait()
	if c.display.Progress == nil {
		final = counters.Take(time.Now(), start)
	}
	final.TasksDone, final.TasksFailed = int64(counts.Done), int64(counts.Failed)
	progress.Fill(&rep, final)
	if thr != nil {
		thr.Status().Fill(&rep, o.ProtectSource)
		rep.BandwidthLimit = live.Rate()
	}
	rep.UpdatedAt = time.Now().UTC()
	switch {
	case werr != nil:
		rep.Status = job.ReportInterrupted
		return rep, fmt.Errorf("job %s stopped (resume with --resume %s): %w", id, id, werr)
	case d.Step == master.StepStop:
		return rep, fmt.Errorf("job %s: %w: %s (%s); the target keeps what was loaded; resume with --resume %s",
			id, ErrTasksFailed, d.Message, c.firstFailure(ctx, id), id)
	}
	if err := c.p.Finish(ctx, j, rec, &rep); err != nil {
		return rep, err
	}
	return rep, nil
}

// syncCounters copies the workers' and loader's counters into the job's.
func syncCounters(c *progress.Counters, w *worker.Counters, b *bulkload.Counters) {
	c.BytesRead.Store(w.BytesRead.Load())
	c.Retries.Store(b.Retries.Load())
}

// watch keeps the counters current and decides, whenever the tasks' counts
// change, until the decision is to finish or stop. It returns early with an
// error when ctx ends or a worker gives up.
func (c *copyRun) watch(ctx context.Context, j registry.Job, pc *progress.Counters, w *worker.Counters, b *bulkload.Counters, errs <-chan error) (master.Decision, registry.Counts, error) {
	id := j.ID
	changes, err := c.reg.WatchJob(ctx, id)
	if err != nil {
		return master.Decision{}, registry.Counts{}, fmt.Errorf("watch job %s: %w", id, err)
	}
	tick := time.NewTicker(500 * time.Millisecond)
	defer tick.Stop()
	var v master.View
	lastCount := time.Time{}
	for {
		syncCounters(pc, w, b)
		if time.Since(lastCount) >= 2*time.Second {
			var err error
			v, err = c.view(ctx, j, false)
			if err == nil {
				lastCount = time.Now()
				pc.TasksDone.Store(int64(v.Counts.Done))
				pc.TasksFailed.Store(int64(v.Counts.Failed))
				if d := master.NextStep(v); d.Step == master.StepFinish || d.Step == master.StepStop {
					return d, v.Counts, nil
				}
			} else if registry.Classify(err) == registry.ActionGiveUp {
				return master.Decision{}, v.Counts, err
			}
		}
		select {
		case <-ctx.Done():
			return master.Decision{}, v.Counts, ctx.Err()
		case err := <-errs:
			return master.Decision{}, v.Counts, err
		case <-changes:
			lastCount = time.Time{}
		case <-tick.C:
		}
	}
}

// firstFailure describes the first failed task found.
func (c *copyRun) firstFailure(ctx context.Context, id string) string {
	tasks, err := c.reg.TasksWith(ctx, id, registry.StatusFailed)
	if err != nil {
		return "failed tasks not listed: " + err.Error()
	}
	sorted := slices.Clone(tasks)
	sort.Strings(sorted)
	var unread []string
	for _, t := range sorted {
		res, err := c.reg.TaskResult(ctx, id, t)
		if err == nil && res.Status == registry.StatusFailed {
			return fmt.Sprintf("first: task %s: %s", t, res.Message)
		}
		if err != nil && !errors.Is(err, registry.ErrNotFound) {
			unread = append(unread, err.Error())
		}
	}
	if len(unread) > 0 {
		return "no failed task found; results not read: " + strings.Join(unread, "; ")
	}
	return "no failed task found"
}

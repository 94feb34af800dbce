package worker

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"sync"
	"time"

	"rangecopy/bulkload"
	"rangecopy/cluster/dial"
	"rangecopy/fsys"
	"rangecopy/job"
	"rangecopy/jobkind"
	"rangecopy/memory"
	"rangecopy/metrics"
	"rangecopy/registry"
)

// AgentConfig is a worker process: one registration in the registry that
// serves the tasks of every running job, up to Capacity at once.
type AgentConfig struct {
	// Registry is the registry the masters use. Required.
	Registry *registry.Registry
	// ID is the worker's id (registry.ValidateID), unique among live
	// workers. Required.
	ID string
	// Capacity is how many tasks run at once; 0 means 4.
	Capacity int
	// Memory is the worker's memory budget in bytes, shared by its
	// Capacity tasks; 0 means memory.Default.
	Memory int64
	// Info is free-form text shown with the registration.
	Info string
	// Refresh is how often the jobs are looked at again (new jobs, paused,
	// cancelled, resumed) and an idle worker looks for tasks; 0 means 2 s.
	Refresh time.Duration
	// DialTimeout bounds reaching a job's clusters; 0 means 30 s.
	// Pool, when set, lends the connections to the jobs' clusters (rangecopy server keeps
	// them warm across jobs); nil dials each job's anew.
	Pool        *dial.Pool
	DialTimeout time.Duration
	// Logger receives the worker's log; nil discards.
	Logger *slog.Logger
	// Metrics, if set, receives the worker's metrics.
	Metrics *metrics.Worker
	// Kinds serve the tasks of jobs of other kinds than a copy, by
	// job.Record.Kind (rangecopy worker serves job.KindVerify with
	// verify.UnitServer); a job of a kind not here is left alone.
	Kinds map[string]jobkind.Server
}

// agent is a running worker process.
type agent struct {
	cfg AgentConfig
	log *slog.Logger
	mem *memory.Budget // shared by every job's tasks

	mu    sync.Mutex
	jobs  map[string]*agentJob
	wake  chan struct{} // closed and replaced to wake idle slots
	share float64       // this worker's share of the live capacity
	// openFailed remembers jobs whose environment could not be opened, and
	// when to try again.
	openFailed map[string]time.Time
	wg         sync.WaitGroup // job environments closing
}

// agentJob is one running job as this worker serves it.
type agentJob struct {
	id      string
	rec     job.Record
	env     *JobEnv              // a copy's; nil for a job of another kind
	kind    jobkind.Job          // a job of another kind's; nil for a copy
	limiter *fsys.BandwidthLimit // this worker's share of the job's limit
	// counters and loaded count what the job's tasks do here; untrack ends
	// their metrics. read and readAt are the bytes read at the last refresh.
	counters *Counters
	loaded   *bulkload.Counters
	untrack  func()
	read     int64
	readAt   time.Time
	ctx      context.Context // ends when the job stops running or the worker stops
	cancel   context.CancelFunc

	claimer *claimer

	mu      sync.Mutex
	stopped bool
	tasks   sync.WaitGroup
}

// RunAgent registers the worker and serves tasks until ctx ends. Jobs are
// found in the registry: each running detached job (job.RunOptions.Detached)
// is served with its own connections, work folder and
// share of the job's bandwidth (the job's Bandwidth, or the override an
// operator set with registry.SetBandwidth, times this worker's Capacity over
// the capacity of all live workers), taken again at every Refresh. When a job leaves the
// running state (paused, cancelled, done) its tasks here stop at once and are
// released with their checkpoints. A task whose claim is lost (the session
// expired) stops at once and writes nothing more; the registry registers the
// worker again in its next session. On return every task has stopped and
// every claim was released.
func RunAgent(ctx context.Context, cfg AgentConfig) error {
	if cfg.Registry == nil {
		return errors.New("worker: AgentConfig needs a Registry")
	}
	if err := registry.ValidateID(cfg.ID); err != nil {
		return fmt.Errorf("worker id: %w", err)
	}
	if cfg.Capacity <= 0 {
		cfg.Capacity = 4
	}
	if cfg.Refresh <= 0 {
		cfg.Refresh = 2 * time.Second
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	a := &agent{cfg: cfg, mem: memory.New(cfg.Memory), log: cfg.Logger.With("worker", cfg.ID), jobs: map[string]*agentJob{},
		wake: make(chan struct{}), share: 1, openFailed: map[string]time.Time{}}
	if err := cfg.Registry.RegisterWorker(ctx, registry.Worker{ID: cfg.ID, Capacity: cfg.Capacity, Info: cfg.Info}); err != nil {
		return fmt.Errorf("worker %s: register: %w", cfg.ID, err)
	}
	a.log.Info("worker registered", "capacity", cfg.Capacity)
	var slots sync.WaitGroup
	for i := 0; i < cfg.Capacity; i++ {
		slots.Add(1)
		go func() {
			defer slots.Done()
			a.slot(ctx, i)
		}()
	}
	// A change in any job (one starting to run, tasks reset) wakes the worker at once; the
	// refresh period covers the rest (bandwidth overrides, the live workers' capacity).
	// At most 5 looks a second: a worker reads every job each look, the watch fires with every
	// claim and result, and a job that starts running is seen soon enough (its planning is
	// the gap before).
	pace := &registry.Pacer{Period: cfg.Refresh, MinGap: 200 * time.Millisecond}
	if ch, err := cfg.Registry.WatchAllJobs(ctx); err == nil {
		pace.Changes = ch
	} else if ctx.Err() == nil {
		a.log.Warn("cannot watch the jobs; looking every refresh only", "err", err)
	}
	for ctx.Err() == nil {
		if err := a.refresh(ctx); err != nil && ctx.Err() == nil {
			if registry.Classify(err) == registry.ActionGiveUp {
				a.log.Error("registry refuses the worker", "err", err)
			} else {
				a.log.Warn("looking at jobs failed; trying again", "err", err)
			}
		}
		if pace.Wait(ctx) {
			a.wakeSlots() // tasks may have become claimable
		}
	}
	slots.Wait()
	a.mu.Lock()
	for id, aj := range a.jobs {
		a.stopJob(aj)
		delete(a.jobs, id)
	}
	a.mu.Unlock()
	a.wg.Wait()
	endCtx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := cfg.Registry.UnregisterWorker(endCtx, cfg.ID); err != nil {
		a.log.Warn("unregister", "err", err)
	}
	a.log.Info("worker stopped")
	return nil
}

// refresh looks at every job: opens the ones newly running, stops the ones
// no longer running and sets the bandwidth shares.
func (a *agent) refresh(ctx context.Context) error {
	reg := a.cfg.Registry
	ids, err := reg.Jobs(ctx)
	if err != nil {
		return err
	}
	running := map[string]registry.Job{}
	overrides := map[string]float64{}
	for _, id := range ids {
		j, err := reg.Job(ctx, id)
		if errors.Is(err, registry.ErrNotFound) {
			continue
		}
		if err != nil {
			return err
		}
		if j.State == registry.JobRunning && a.serves(j) {
			running[id] = j
			bw, ok, err := reg.Bandwidth(ctx, id)
			if err != nil && !errors.Is(err, registry.ErrNotFound) {
				return err
			}
			if ok {
				overrides[id] = bw
			}
		}
	}
	// The share of the job-wide bandwidth: capacity over live capacity.
	if ws, err := reg.Workers(ctx); err == nil {
		total := 0
		for _, w := range ws {
			total += max(w.Capacity, 1)
		}
		a.mu.Lock()
		a.share = shareOf(a.cfg.Capacity, total)
		a.mu.Unlock()
	}
	a.mu.Lock()
	for id, aj := range a.jobs {
		if _, ok := running[id]; !ok {
			a.log.Info("job no longer running; stopping its tasks here", "job", id)
			a.stopJob(aj)
			delete(a.jobs, id)
		}
	}
	share := a.share
	var toOpen []registry.Job
	for id, j := range running {
		if aj, ok := a.jobs[id]; ok {
			a.setBandwidth(aj, overrides, share)
			continue
		}
		if t, ok := a.openFailed[id]; ok && time.Now().Before(t) {
			continue
		}
		toOpen = append(toOpen, j)
	}
	a.mu.Unlock()
	opened := false
	for _, j := range toOpen {
		aj, err := a.open(ctx, j)
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			a.log.Warn("cannot serve job; trying again later", "job", j.ID, "err", err)
			a.mu.Lock()
			a.openFailed[j.ID] = time.Now().Add(30 * time.Second)
			a.mu.Unlock()
			continue
		}
		a.mu.Lock()
		delete(a.openFailed, j.ID)
		a.jobs[j.ID] = aj
		a.setBandwidth(aj, overrides, a.share)
		a.mu.Unlock()
		a.log.Info("serving job", "job", j.ID)
		opened = true
	}
	if opened {
		a.wakeSlots()
	}
	return nil
}

// setBandwidth sets this worker's share of a job's read limit: the
// operator's override if there is one, else the record's; 0 is no limit. It
// shows the limit and the rate read since the last call in the metrics.
// a.mu is held.
func (a *agent) setBandwidth(aj *agentJob, overrides map[string]float64, share float64) {
	bw, ok := overrides[aj.id]
	if !ok {
		bw = aj.rec.Options.Bandwidth
	}
	limit := 0.0
	if bw > 0 {
		limit = max(bw*share, 1)
	}
	if old := aj.limiter.Rate(); old != limit {
		if err := aj.limiter.Set(limit); err != nil {
			a.log.Warn("cannot change the job's bandwidth", "job", aj.id, "bytes_per_second", limit, "err", err)
		} else if !aj.readAt.IsZero() {
			a.log.Info("job bandwidth changed", "job", aj.id, "bytes_per_second", limit, "was", old)
		}
	}
	now, read := time.Now(), aj.counters.BytesRead.Load()
	rate := 0.0
	if s := now.Sub(aj.readAt).Seconds(); !aj.readAt.IsZero() && s > 0 {
		rate = float64(read-aj.read) / s
	}
	aj.read, aj.readAt = read, now
	a.cfg.Metrics.SetBandwidth(aj.id, aj.limiter.Rate(), rate)
}

// serves reports whether the worker serves a job (servedBy).
func (a *agent) serves(j registry.Job) bool {
	rec, err := job.DecodeRecord(j.Spec)
	ok, _ := servedBy(rec, err, a.cfg.Kinds)
	return ok
}

// shareOf is a worker's share of a job's bandwidth.
func shareOf(capacity, total int) float64 {
	if total < capacity || total <= 0 {
		return 1
	}
	return float64(capacity) / float64(total)
}

// open sets up serving one job, with no read limit until setBandwidth.
func (a *agent) open(ctx context.Context, j registry.Job) (*agentJob, error) {
	rec, err := job.DecodeRecord(j.Spec)
	if err != nil {
		return nil, err
	}
	if err := rec.Servable(); err != nil {
		return nil, err
	}
	aj := &agentJob{id: j.ID, rec: rec, limiter: new(fsys.BandwidthLimit), counters: new(Counters), loaded: new(bulkload.Counters)}
	if _, ks := servedBy(rec, nil, a.cfg.Kinds); ks != nil {
		aj.kind, err = ks.Open(ctx, jobkind.Env{Registry: a.cfg.Registry, Job: j.ID, Record: rec, Worker: a.cfg.ID, Limiter: aj.limiter,
			BytesRead: &aj.counters.BytesRead, DialTimeout: a.cfg.DialTimeout, Logger: a.log.With("job", j.ID)})
		if err != nil {
			return nil, err
		}
		aj.untrack = a.cfg.Metrics.Track(metrics.Job{ID: j.ID, Relocation: rec.Options.Relocation}, aj.counts)
		aj.ctx, aj.cancel = context.WithCancel(ctx)
		aj.claimer = newClaimer(a.cfg.Registry, j.ID, registry.Bucket(a.cfg.ID))
		return aj, nil
	}
	aj.env, err = OpenJob(ctx, JobConfig{Registry: a.cfg.Registry, Job: j.ID, Record: rec, Limiter: aj.limiter,
		Counters: aj.counters, LoaderCounters: aj.loaded, Memory: a.mem, MemorySlots: a.cfg.Capacity,
		Pool: a.cfg.Pool, DialTimeout: a.cfg.DialTimeout, Logger: a.log})
	if err != nil {
		return nil, err
	}
	aj.untrack = a.cfg.Metrics.Track(metrics.Job{ID: j.ID, Relocation: rec.Options.Relocation}, aj.counts)
	aj.ctx, aj.cancel = context.WithCancel(ctx)
	aj.claimer = newClaimer(a.cfg.Registry, j.ID, registry.Bucket(a.cfg.ID))
	return aj, nil
}

// stopJob ends a job's tasks here (they release their claims) and closes its
// environment once they have. a.mu is held.
func (a *agent) stopJob(aj *agentJob) {
	aj.mu.Lock()
	aj.stopped = true
	aj.mu.Unlock()
	aj.cancel()
	a.wg.Add(1)
	go func() {
		defer a.wg.Done()
		aj.tasks.Wait()
		if aj.kind != nil {
			aj.kind.Close()
		} else {
			aj.env.Close(context.Background())
		}
		aj.untrack()
	}()
}

// counts are the job's counts here, for the metrics.
func (aj *agentJob) counts() metrics.JobCounts {
	c, l := aj.counters, aj.loaded.Values()
	// Files before fast ones: a file is counted written before it is
	// counted fast, so the difference never runs ahead of the rewritten.
	files := c.FilesWritten.Load()
	fast := c.FastFiles.Load()
	return metrics.JobCounts{BytesRead: c.BytesRead.Load(), BytesWritten: c.BytesWritten.Load(), BytesLoaded: l.Bytes,
		FastFiles: fast, RewrittenFiles: max(files-fast, 0), LoadRetries: l.Retries}
}

func (a *agent) wakeSlots() {
	a.mu.Lock()
	close(a.wake)
	a.wake = make(chan struct{})
	a.mu.Unlock()
}

// TinyPerSlot is how many tiny tasks (of at most TogetherTaskBytes of
// input, such as a catch-up window's) a slot runs at once: such a task is a
// few small files and round trips (a claim, a bulk load, a checkpoint), bound
// by latency rather than by bandwidth or memory, so a slot claims the next
// task while it runs, up to this many.
const TinyPerSlot = 4

// slot runs one task at a time, from any job, until ctx ends; tiny tasks
// (TinyPerSlot) run beside each other.
func (a *agent) slot(ctx context.Context, n int) {
	tiny := make(chan struct{}, TinyPerSlot)
	var tinyRunning sync.WaitGroup
	defer tinyRunning.Wait()
	for ctx.Err() == nil {
		a.mu.Lock()
		jobs := make([]*agentJob, 0, len(a.jobs))
		for _, aj := range a.jobs {
			jobs = append(jobs, aj)
		}
		wake := a.wake
		a.mu.Unlock()
		slices.SortFunc(jobs, func(x, y *agentJob) int { return compareStrings(x.id, y.id) })
		ran := false
		for i := range jobs {
			aj := jobs[(i+n)%len(jobs)]
			claim, err := aj.claimer.next(aj.ctx, a.cfg.ID, a.cfg.Refresh)
			if err != nil {
				if aj.ctx.Err() == nil {
					a.log.Warn("looking for a task failed", "job", aj.id, "err", err)
				}
				continue
			}
			if claim == nil {
				continue
			}
			if !aj.begin() {
				// The job stopped between the claim and now.
				rctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
				_ = claim.Release(rctx)
				cancel()
				continue
			}
			if aj.kind != nil {
				a.serveKind(aj, claim)
				aj.tasks.Done()
				ran = true
				break
			}
			cfg := aj.env.ServeConfig(a.cfg.ID)
			if a.cfg.Metrics != nil {
				cfg.Observer = a.cfg.Metrics
			}
			ran = true
			if tinyConfig(&cfg, claim.Spec()) {
				tiny <- struct{}{} // waits while TinyPerSlot run
				tinyRunning.Add(1)
				go func() {
					defer tinyRunning.Done()
					defer func() { <-tiny }()
					serveClaim(aj.ctx, &cfg, claim)
					aj.tasks.Done()
				}()
				break
			}
			// A whole slot's share of the memory: once its tiny tasks, which
			// share it, are done.
			tinyRunning.Wait()
			serveClaim(aj.ctx, &cfg, claim)
			aj.tasks.Done()
			break
		}
		if ran {
			continue
		}
		t := time.NewTimer(a.cfg.Refresh)
		select {
		case <-ctx.Done():
		case <-wake:
		case <-t.C:
		}
		t.Stop()
	}
}

// tinyConfig reports whether a claimed copy task runs in its slot's tiny
// lane, setting cfg up for it: a task of at most TogetherTaskBytes of
// estimated input whose buffers fit in a TinyPerSlot-th of the slot's
// memory share, which it then plans in. The slot's tiny tasks together hold
// no more of the budget than one task of the slot.
func tinyConfig(cfg *ServeConfig, taskSpec []byte) bool {
	spec, err := job.DecodeTaskSpec(taskSpec)
	if err != nil || spec.Task.Bytes > TogetherTaskBytes || cfg.Options.Memory == nil {
		return false
	}
	slots := max(cfg.Options.MemorySlots, 1) * TinyPerSlot
	share := cfg.Options.Memory.Share(slots)
	inputs := map[string]int{}
	for _, in := range spec.Inputs {
		inputs[in.File.Family]++
	}
	for fam, n := range inputs {
		block := 0
		if s, ok := cfg.Families[fam]; ok {
			block = s.BlockSize
		}
		if _, err := memory.PlanTask(share, n, 0, block); err != nil {
			return false
		}
	}
	cfg.Options.MemorySlots = slots
	return true
}

func compareStrings(a, b string) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// begin counts a task in, unless the job stopped.
func (aj *agentJob) begin() bool {
	aj.mu.Lock()
	defer aj.mu.Unlock()
	if aj.stopped {
		return false
	}
	aj.tasks.Add(1)
	return true
}

// serveKind runs one claimed task of a job of another kind, stopping it at
// once when its claim is lost.
func (a *agent) serveKind(aj *agentJob, claim *registry.Claim) {
	ctx, cancel := context.WithCancel(aj.ctx)
	defer cancel()
	go func() {
		select {
		case <-claim.Lost():
			cancel()
		case <-ctx.Done():
		}
	}()
	aj.kind.Serve(ctx, claim)
}

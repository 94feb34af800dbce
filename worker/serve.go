package worker

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"rangecopy/bulkload"
	"rangecopy/hbase"
	"rangecopy/job"
	"rangecopy/metrics"
	"rangecopy/registry"
)

// RegionLister lists a table's regions in key order: the target cluster's
// hbase.Client. A task takes them fresh each time it starts.
type RegionLister interface {
	Regions(ctx context.Context, table string) ([]*hbase.Region, error)
}

// FileLoader bulk loads finished files: a bulkload.Loader.
type FileLoader interface {
	// Load loads one file.
	Load(ctx context.Context, f bulkload.File) error
	// LoadTogether loads files, those of one region in one request.
	LoadTogether(ctx context.Context, files []bulkload.File) error
}

// ServeConfig is how a worker serves the tasks of one job.
type ServeConfig struct {
	// Registry holds the job's tasks, claims and checkpoints. Required.
	Registry *registry.Registry
	// Job is the job's id; Worker this worker's id (registry.ValidateID).
	Job, Worker string
	// TargetTable is the table the files are loaded into.
	TargetTable string
	// Regions lists the target table's regions; Loader loads files into it.
	Regions RegionLister
	Loader  FileLoader
	// Time is the job's time range.
	Time job.TimeRange
	// Families are the families copied, with the target's settings.
	Families map[string]FamilySettings
	// OutputDir returns the folder on the target that receives a task's
	// files (one subfolder per family), creating it as needed.
	OutputDir func(ctx context.Context, task string, families []string) (string, error)
	// RemoveOutput, if set, removes a task's folder once the task is done.
	RemoveOutput func(ctx context.Context, task string) error
	// Options are the pipeline's options (Source, Target, Limiter, Counters).
	Options Options
	// Loaded, if set, is called after each file is loaded and checkpointed.
	Loaded func(f OutputFile)
	// Attempts bounds the runs of one claimed task before it is failed;
	// 0 means 3. A run resumes from the checkpoint of the previous one.
	Attempts int
	// Idle is how long a worker with nothing to claim waits before it looks
	// again when no change of the job is heard; 0 means 5 s.
	Idle time.Duration
	// Observer, if set, is told of each task's start and end, each file's
	// load and each retry (a *metrics.Worker).
	Observer TaskObserver
	// Logger receives a line per task, with the worker's and the task's ids
	// added; nil discards.
	Logger *slog.Logger
}

// TaskObserver is told what the tasks of a job do, for metrics.
type TaskObserver interface {
	TaskStarted(job string)
	TaskEnded(job, outcome string, d time.Duration)
	FileLoaded(job string, d time.Duration)
	Retried(job, cause string)
}

// Serve claims the job's tasks one at a time and runs them until ctx ends:
// first those of the job's claim order (registry.NodeOrder, costliest
// first), then any it finds unclaimed. For each task it reads the spec and checkpoint from the registry, takes the
// target's regions fresh, runs the pipeline, and for every output file checks
// that the claim still holds (a server round trip), bulk loads the file,
// advances the checkpoint and saves it fenced by the claim. A task whose claim
// is lost stops at once and writes nothing more. A task that fails Attempts
// times is recorded as failed with its error; a task interrupted by ctx is
// released, its checkpoint kept for the next claim. Serve returns nil when ctx
// ends, and an error only when the registry cannot serve the job at all.
func Serve(ctx context.Context, cfg ServeConfig) error {
	if cfg.Registry == nil || cfg.Regions == nil || cfg.Loader == nil || cfg.OutputDir == nil {
		return errors.New("worker: ServeConfig needs Registry, Regions, Loader and OutputDir")
	}
	cfg.defaults()
	cfg.Logger = cfg.Logger.With("worker", cfg.Worker)
	watch, err := cfg.Registry.WatchJob(ctx, cfg.Job)
	if err != nil {
		if ctx.Err() != nil {
			return nil
		}
		return fmt.Errorf("worker %s: watch job %s: %w", cfg.Worker, cfg.Job, err)
	}
	cl := newClaimer(cfg.Registry, cfg.Job, registry.Bucket(cfg.Worker))
	for ctx.Err() == nil {
		claim, err := cl.next(ctx, cfg.Worker, cfg.Idle)
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			if registry.Classify(err) == registry.ActionGiveUp {
				return fmt.Errorf("worker %s: job %s: %w", cfg.Worker, cfg.Job, err)
			}
			cfg.Logger.Warn("registry call failed; trying again", "err", err)
		}
		if claim != nil {
			serveClaim(ctx, &cfg, claim)
			continue
		}
		t := time.NewTimer(cfg.Idle)
		select {
		case <-ctx.Done():
		case _, ok := <-watch:
			if !ok && ctx.Err() == nil {
				t.Stop()
				return fmt.Errorf("worker %s: job %s is gone", cfg.Worker, cfg.Job)
			}
			cl.wake()
		case <-t.C:
		}
		t.Stop()
	}
	return nil
}

func (cfg *ServeConfig) defaults() {
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	if cfg.Options.Logger == nil {
		cfg.Options.Logger = cfg.Logger
	}
	if cfg.Attempts <= 0 {
		cfg.Attempts = 3
	}
	if cfg.Idle <= 0 {
		cfg.Idle = 5 * time.Second
	}
}

// serveClaim runs one claimed task and records how it ended. cfg.Logger
// names the job and the worker.
func serveClaim(ctx context.Context, scfg *ServeConfig, claim *Claim) {
	log := scfg.Logger.With("task", claim.Task())
	c := *scfg
	c.Logger, c.Options.Logger = log, log
	cfg := &c
	taskCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() {
		select {
		case <-claim.Lost():
			cancel()
		case <-taskCtx.Done():
		}
	}()
	start := time.Now()
	outcome := metrics.OutcomeFailed
	if cfg.Observer != nil {
		cfg.Observer.TaskStarted(cfg.Job)
		defer func() { cfg.Observer.TaskEnded(cfg.Job, outcome, time.Since(start)) }()
	}
	err := runClaimed(taskCtx, cfg, claim, log)
	// Record the end with a context of its own: ctx may be ending.
	endCtx, endCancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
	defer endCancel()
	switch {
	case err == nil:
		outcome = metrics.OutcomeLost // unless the result is written
		if err := claim.Done(endCtx); err != nil {
			log.Warn("task done, but its result could not be written", "err", err)
			return
		}
		if cfg.RemoveOutput != nil {
			if err := cfg.RemoveOutput(endCtx, claim.Task()); err != nil {
				log.Warn("remove the task's work folder", "err", err)
			}
		}
		var bytes int64
		var fast bool
		if spec, err := job.DecodeTaskSpec(claim.Spec()); err == nil {
			bytes = spec.Task.Bytes
			fast = len(spec.Task.Files) == 1
		}
		outcome = metrics.OutcomeDone
		log.Info("task done", "seconds", time.Since(start).Seconds(), "input_bytes", bytes, "one_input", fast)
	case ctx.Err() != nil && !isLost(claim):
		// Stopped from outside (the job paused or cancelled, the worker
		// stopping): give the task back. If the claim was lost meanwhile
		// the release is refused, which is all right.
		if err := claim.Release(endCtx); err != nil && !errors.Is(err, registry.ErrLostClaim) {
			log.Warn("release the task", "err", err)
		}
		outcome = metrics.OutcomeReleased
		log.Info("task interrupted; released with its checkpoint")
	case lost(claim, err):
		outcome = metrics.OutcomeLost
		log.Warn("claim lost; task stopped without writing more", "err", err)
	default:
		log.Error("task failed", "err", err)
		if err := claim.Fail(endCtx, err); err != nil {
			log.Warn("record the task's failure", "err", err)
		}
	}
}

// Claim is the registry's claim; the alias keeps signatures short.
type Claim = registry.Claim

// isLost reports whether the registry has said the claim is gone.
func isLost(c *Claim) bool {
	select {
	case <-c.Lost():
		return true
	default:
		return false
	}
}

// lost reports whether err (or the claim's state) says the claim is gone.
func lost(c *Claim, err error) bool {
	return errors.Is(err, registry.ErrLostClaim) || isLost(c)
}

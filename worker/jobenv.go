package worker

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"rangecopy/bulkload"
	"rangecopy/cluster"
	"rangecopy/cluster/dial"
	"rangecopy/fsys"
	"rangecopy/hbase"
	"rangecopy/job"
	"rangecopy/memory"
	"rangecopy/registry"
	"rangecopy/storeread"
)

// JobConfig says how to serve one job: the job's record and what the serving
// process already has open.
type JobConfig struct {
	// Registry holds the job. Required.
	Registry *registry.Registry
	// Job is the job's id; Record its registry record.
	Job    string
	Record job.Record
	// Source, Target, SourceFS and TargetFS are connections to use; the nil
	// ones are opened from the record's clusters (and closed by Close).
	Source, Target *hbase.Client
	SourceFS       fsys.Reader
	TargetFS       fsys.FS
	// Limiter, if set, limits the bytes read.
	Limiter fsys.Limiter
	// Memory is the worker's memory budget and MemorySlots how many tasks
	// share it at once (Options.Memory, Options.MemorySlots).
	Memory      *memory.Budget
	MemorySlots int
	// Counters and LoaderCounters receive the pipeline's and the loader's
	// counts; nil means fresh ones.
	Counters       *Counters
	LoaderCounters *bulkload.Counters
	// Loaded, if set, is called after each file is loaded and checkpointed.
	Loaded func(OutputFile)
	// Pool, when set, lends the connections opened from the record's clusters (and takes
	// them back at Close) instead of dialling them for this job alone.
	Pool *dial.Pool
	// DialTimeout bounds reaching each cluster; 0 means 30 s.
	DialTimeout time.Duration
	// LoadRetryFor bounds how long the loads of one file may keep failing
	// (bulkload.LoaderConfig.RetryFor); 0 means bulkload.DefaultRetryFor.
	LoadRetryFor time.Duration
	// Logger receives the job's log, with the job's id added; nil discards.
	Logger *slog.Logger
}

// JobEnv is what serving one job needs, open: both clusters, the target
// table's family settings, the job's work folder and a bulk loader.
type JobEnv struct {
	serve  ServeConfig
	wd     *bulkload.WorkDir
	loader *bulkload.Loader
	closes []func()
}

// OpenJob connects to the job's clusters (those not given), reads the
// target table's families and opens the work folder and the loader.
func OpenJob(ctx context.Context, c JobConfig) (e *JobEnv, err error) {
	if c.Registry == nil {
		return nil, errors.New("worker: JobConfig needs a Registry")
	}
	if c.Logger == nil {
		c.Logger = slog.New(slog.DiscardHandler)
	}
	c.Logger = c.Logger.With("job", c.Job)
	if c.DialTimeout <= 0 {
		c.DialTimeout = 30 * time.Second
	}
	if c.Counters == nil {
		c.Counters = new(Counters)
	}
	rec := c.Record
	user := rec.Options.User
	if user == "" {
		user = hbase.DefaultUser()
	}
	// env, not e: a return of (nil, err) sets e to nil before this deferred close runs.
	env := &JobEnv{}
	e = env
	defer func() {
		if err != nil {
			env.Close(context.WithoutCancel(ctx))
		}
	}()
	if c.Source == nil || c.Target == nil || c.SourceFS == nil || c.TargetFS == nil {
		if err := rec.Servable(); err != nil {
			return nil, fmt.Errorf("job %s: %w", c.Job, err)
		}
	}
	hbaseOf := func(cc cluster.Config, side string) (*hbase.Client, error) {
		log := c.Logger.With("cluster", side)
		if c.Pool == nil {
			cl, err := dial.HBase(ctx, cc, user, c.DialTimeout, log)
			if err == nil {
				e.closes = append(e.closes, func() { cl.Close() })
			}
			return cl, err
		}
		cl, release, err := c.Pool.HBase(ctx, cc, user, c.DialTimeout, log)
		if err == nil {
			e.closes = append(e.closes, release)
		}
		return cl, err
	}
	hdfsOf := func(cc cluster.Config) (*fsys.HDFS, error) {
		if c.Pool == nil {
			fs, err := dial.HDFS(ctx, cc, user)
			if err == nil {
				e.closes = append(e.closes, func() { fs.Close() })
			}
			return fs, err
		}
		fs, release, err := c.Pool.HDFS(ctx, cc, user)
		if err == nil {
			e.closes = append(e.closes, release)
		}
		return fs, err
	}
	if c.Source == nil {
		if c.Source, err = hbaseOf(rec.Source, "source"); err != nil {
			return nil, err
		}
	}
	if c.Target == nil {
		if c.Target, err = hbaseOf(rec.Target, "target"); err != nil {
			return nil, err
		}
	}
	if c.SourceFS == nil {
		sfs, err := hdfsOf(rec.Source)
		if err != nil {
			return nil, err
		}
		c.SourceFS = sfs
	}
	if c.TargetFS == nil {
		tfs, err := hdfsOf(rec.Target)
		if err != nil {
			return nil, err
		}
		c.TargetFS = tfs
	}
	target := rec.Spec.Target()
	copied := rec.Spec.Families
	if len(copied) == 0 {
		sd, err := c.Source.TableDescriptor(ctx, rec.Spec.Table)
		if err != nil {
			return nil, fmt.Errorf("job %s: source table %s: %w", c.Job, rec.Spec.Table, err)
		}
		for _, f := range sd.Families {
			copied = append(copied, f.Name)
		}
	}
	td, err := c.Target.TableDescriptor(ctx, target)
	if err != nil {
		return nil, fmt.Errorf("job %s: target table %s: %w", c.Job, target, err)
	}
	families := map[string]FamilySettings{}
	for _, f := range copied {
		fd := td.Family(f)
		if fd == nil {
			return nil, fmt.Errorf("job %s: %w", c.Job, &bulkload.MissingFamiliesError{Table: target, Families: []string{f}})
		}
		if families[f], err = bulkload.SettingsFor(*fd, rec.Target.ZstdCodec); err != nil {
			return nil, fmt.Errorf("job %s: target table %s: %w", c.Job, target, err)
		}
	}
	if e.wd, err = bulkload.OpenWorkDir(ctx, c.TargetFS, c.Job, bulkload.WorkDirOptions{Root: rec.Options.WorkRoot, User: user}); err != nil {
		return nil, fmt.Errorf("job %s: work folder: %w", c.Job, err)
	}
	if e.loader, err = bulkload.NewLoader(ctx, bulkload.LoaderConfig{Client: c.Target, FS: c.TargetFS, Table: target, ZstdCodec: rec.Target.ZstdCodec,
		RetryFor: c.LoadRetryFor, Logger: c.Logger.With("part", "bulkload"), Counters: c.LoaderCounters}); err != nil {
		return nil, fmt.Errorf("job %s: %w", c.Job, err)
	}
	wd := e.wd
	e.serve = ServeConfig{Registry: c.Registry, Job: c.Job, TargetTable: target,
		Regions: c.Target, Loader: e.loader, Time: rec.Spec.Times(), Families: families,
		OutputDir: func(ctx context.Context, task string, fams []string) (string, error) {
			for _, f := range fams {
				if _, err := wd.FamilyDir(ctx, task, f); err != nil {
					return "", err
				}
			}
			return wd.TaskDir(task), nil
		},
		RemoveOutput: wd.RemoveTask,
		Options: Options{Source: storeread.ArchiveFallback{Reader: c.SourceFS, RootDir: rec.Source.RootDir},
			Target: c.TargetFS, Limiter: c.Limiter, Counters: c.Counters, Memory: c.Memory, MemorySlots: c.MemorySlots},
		Loaded: c.Loaded,
		Logger: c.Logger,
	}
	return e, nil
}

// ServeConfig returns the ServeConfig of one worker of the job.
func (e *JobEnv) ServeConfig(worker string) ServeConfig {
	cfg := e.serve
	cfg.Worker = worker
	cfg.defaults()
	return cfg
}

// WorkDir is the job's work folder on the target HDFS.
func (e *JobEnv) WorkDir() *bulkload.WorkDir { return e.wd }

// Close closes the loader and the connections OpenJob opened.
func (e *JobEnv) Close(ctx context.Context) {
	if e.loader != nil {
		e.loader.Close(ctx)
		e.loader = nil
	}
	for i := len(e.closes) - 1; i >= 0; i-- {
		e.closes[i]()
	}
	e.closes = nil
}

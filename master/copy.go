package master

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"rangecopy/bulkload"
	"rangecopy/cluster"
	"rangecopy/cluster/dial"
	"rangecopy/fsys"
	"rangecopy/hbase"
	"rangecopy/job"
	"rangecopy/progress"
	"rangecopy/registry"
	"rangecopy/snapshot"
	"rangecopy/worker"
)

// DefaultDialTimeout bounds reaching a cluster (or the registry) the first
// time, so an unreachable one is reported rather than waited for.
const DefaultDialTimeout = 30 * time.Second

// Options are a copy as an operator asks for it.
type Options struct {
	// Source and Target say how to reach the clusters; both need their
	// HDFS (NameNodes and RootDir).
	Source, Target cluster.Config
	// Spec is what to copy.
	Spec job.Spec
	// Workers is how many tasks run at once; 0 means 4.
	Workers int
	// Bandwidth caps the bytes read per second, job-wide; 0 means no cap.
	Bandwidth float64
	// CreateTable creates a missing target table, pre-split at the source's
	// region boundaries inside the range.
	CreateTable bool
	// KeepSnapshot keeps the source snapshot when the job is done.
	KeepSnapshot bool
	// DryRun plans the job and prints the plan to Out; nothing is registered,
	// created or loaded (the snapshot taken to plan is deleted).
	DryRun bool
	// Resume names the job to go on with; empty means the job derived from
	// the request (JobID), resumed when unfinished.
	Resume string
	// ZK lists the registry's ZooKeeper servers; empty means the target's
	// quorum. ZKRoot is the registry root; empty means registry.DefaultRoot.
	ZK     []string
	ZKRoot string
	// WorkRoot is the parent of job work folders on the target HDFS; empty
	// means bulkload.DefaultRoot(User).
	WorkRoot string
	// User is the HBase effective user and the HDFS user; empty means
	// hbase.DefaultUser.
	User string
	// TaskBytes is the input size a task aims at; 0 means job.DefaultTaskBytes.
	TaskBytes int64
	// Retries bounds how often a leading master resets a failed task of a
	// detached job (Submit); 0 means job.DefaultRetries.
	Retries int
	// DialTimeout bounds reaching each cluster; 0 means DefaultDialTimeout.
	DialTimeout time.Duration
	// LoadRetryFor bounds how long the loads of one file may keep failing
	// before its task's attempt fails; 0 means bulkload.DefaultRetryFor.
	LoadRetryFor time.Duration
	// Logger receives the job's log; nil discards.
	Logger *slog.Logger
	// Progress, if set, shows progress every ProgressInterval (0: 1 s).
	Progress         progress.Printer
	ProgressInterval time.Duration
	// Out receives the dry run's plan; nil discards.
	Out io.Writer
}

// ErrTasksFailed reports a job that ended with failed tasks: the target holds
// what was loaded, nothing is marked done, and the job can be resumed.
var ErrTasksFailed = errors.New("tasks failed")

// Copy runs a copy job to its end and returns its report. On an error the
// report says how far it got (its Status is "failed" or "interrupted"), and
// the job, when one was registered, can be resumed with Options.Resume.
func Copy(ctx context.Context, o Options) (progress.Report, error) {
	o.defaults()
	rep := progress.Report{Table: o.Spec.Table, TargetTable: o.Spec.Target(), Rows: o.Spec.Rows.String(),
		Time: o.Spec.Times().String(), Status: "failed"}
	r, err := newRun(ctx, &o)
	if err != nil {
		rep.Error = err.Error()
		return rep, err
	}
	defer r.close()
	rep, err = r.run(ctx)
	if err != nil {
		rep.Error = err.Error()
	}
	return rep, err
}

func (o *Options) defaults() {
	if o.Workers <= 0 {
		o.Workers = 4
	}
	if o.DialTimeout <= 0 {
		o.DialTimeout = DefaultDialTimeout
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.Out == nil {
		o.Out = io.Discard
	}
	if o.ProgressInterval <= 0 {
		o.ProgressInterval = time.Second
	}
	if o.User == "" {
		o.User = hbase.DefaultUser()
	}
	if len(o.ZK) == 0 {
		o.ZK = o.Target.ZKQuorum
	}
	if o.ZKRoot == "" {
		o.ZKRoot = registry.DefaultRoot
	}
	if o.WorkRoot == "" {
		o.WorkRoot = bulkload.DefaultRoot(o.User)
	}
}

// run is one copy in progress: its connections and what it learned.
type run struct {
	o          *Options
	log        *slog.Logger
	src, tgt   *hbase.Client
	srcFS      *fsys.HDFS
	tgtFS      *fsys.HDFS
	reg        *registry.Registry
	srcDesc    *hbase.TableDescriptor // restricted to the copied families
	families   []string
	tgtExists  bool
	srcRegions []*hbase.Region
	detached   bool // the job is submitted for the masters (Submit)
	// createdNamespace is the target namespace this run created for the
	// target table, if any.
	createdNamespace string
	sharedReg        bool // reg belongs to the caller (a leading master)
}

func (r *run) close() {
	if r.reg != nil && !r.sharedReg {
		r.reg.Close()
	}
	for _, c := range []*hbase.Client{r.src, r.tgt} {
		if c != nil {
			c.Close()
		}
	}
	for _, c := range []*fsys.HDFS{r.srcFS, r.tgtFS} {
		if c != nil {
			c.Close()
		}
	}
}

// newRun validates the request and connects to everything it needs, failing
// with an error that names the thing before anything is changed.
func newRun(ctx context.Context, o *Options) (*run, error) {
	r := &run{o: o, log: o.Logger}
	ok := false
	defer func() {
		if !ok {
			r.close()
		}
	}()
	if o.Resume == "" {
		if err := o.Spec.Validate(); err != nil {
			return nil, err
		}
	} else if err := registry.ValidateJobID(o.Resume); err != nil {
		return nil, fmt.Errorf("--resume: %w", err)
	}
	for _, c := range []cluster.Config{o.Source, o.Target} {
		if !c.HasHDFS() {
			return nil, fmt.Errorf("%s: its HDFS is not known (give --%s-hdfs hdfs://namenode:port/hbase-root)", c, c.Name)
		}
	}
	var err error
	// The registry first: a resumed job brings its own spec. A dry run
	// does not touch it (opening it creates its root).
	if !o.DryRun || o.Resume != "" {
		rctx, cancel := context.WithTimeout(ctx, o.DialTimeout)
		r.reg, err = registry.Open(rctx, registry.Config{Servers: o.ZK, Root: o.ZKRoot, Logger: o.Logger.With("part", "registry")})
		cancel()
		if err != nil {
			return nil, fmt.Errorf("registry ZooKeeper %s: unreachable within %s: %w", strings.Join(o.ZK, ","), o.DialTimeout, err)
		}
	}
	if o.Resume != "" {
		j, err := r.reg.Job(ctx, o.Resume)
		if errors.Is(err, registry.ErrNotFound) {
			return nil, fmt.Errorf("--resume %s: no such job in the registry %s%s", o.Resume, strings.Join(o.ZK, ","), o.ZKRoot)
		}
		if err != nil {
			return nil, fmt.Errorf("--resume %s: %w", o.Resume, err)
		}
		rec, err := job.DecodeRecord(j.Spec)
		if err != nil {
			return nil, fmt.Errorf("--resume %s: %w", o.Resume, err)
		}
		if o.Spec.Table != "" && o.Spec.Table != rec.Spec.Table {
			return nil, fmt.Errorf("--resume %s: the job copies table %s, not %s", o.Resume, rec.Spec.Table, o.Spec.Table)
		}
		o.Spec = rec.Spec
	}
	if err := r.connect(ctx); err != nil {
		return nil, err
	}
	ok = true
	return r, nil
}

// connect reaches both clusters and their HDFS and checks the source and
// target tables.
func (r *run) connect(ctx context.Context) error {
	o := r.o
	var err error
	if r.src, err = dial.HBase(ctx, o.Source, o.User, o.DialTimeout, o.Logger.With("cluster", o.Source.Name)); err != nil {
		return err
	}
	if r.tgt, err = dial.HBase(ctx, o.Target, o.User, o.DialTimeout, o.Logger.With("cluster", o.Target.Name)); err != nil {
		return err
	}
	if err := r.checkSource(ctx); err != nil {
		return err
	}
	if err := r.checkTarget(ctx); err != nil {
		return err
	}
	if r.srcFS, err = dial.HDFS(ctx, o.Source, o.User); err != nil {
		return err
	}
	if r.tgtFS, err = dial.HDFS(ctx, o.Target, o.User); err != nil {
		return err
	}
	return nil
}

// checkSource reads the source table's schema and regions and checks the
// families asked for.
func (r *run) checkSource(ctx context.Context) error {
	o := r.o
	cctx, cancel := context.WithTimeout(ctx, o.DialTimeout)
	defer cancel()
	d, err := r.src.TableDescriptor(cctx, o.Spec.Table)
	if errors.Is(err, hbase.ErrTableNotFound) {
		return fmt.Errorf("source table %s does not exist on the %s: %w", o.Spec.Table, o.Source, err)
	}
	if err != nil {
		return fmt.Errorf("source table %s on %s: %w", o.Spec.Table, o.Source, err)
	}
	var have []string
	for _, f := range d.Families {
		have = append(have, f.Name)
	}
	var missing []string
	for _, f := range o.Spec.Families {
		if d.Family(f) == nil {
			missing = append(missing, f)
		}
	}
	if len(missing) > 0 {
		return fmt.Errorf("source table %s has no column family %s (it has %s)", o.Spec.Table,
			strings.Join(missing, ", "), strings.Join(have, ", "))
	}
	keep := *d
	keep.Families = nil
	for _, f := range d.Families {
		if o.Spec.WantsFamily(f.Name) {
			keep.Families = append(keep.Families, f)
			r.families = append(r.families, f.Name)
		}
	}
	r.srcDesc = &keep
	if r.srcRegions, err = r.src.Regions(cctx, o.Spec.Table); err != nil {
		return fmt.Errorf("source table %s: regions: %w", o.Spec.Table, err)
	}
	return nil
}

// checkTarget checks an existing target table has the families, or that a
// missing one may be created.
func (r *run) checkTarget(ctx context.Context) error {
	o := r.o
	target := o.Spec.Target()
	cctx, cancel := context.WithTimeout(ctx, o.DialTimeout)
	defer cancel()
	have, err := r.tgt.TableDescriptor(cctx, target)
	switch {
	case err == nil:
		if missing := bulkload.MissingFamilies(r.srcDesc, have); len(missing) > 0 {
			return fmt.Errorf("on the %s: %w", o.Target, &bulkload.MissingFamiliesError{Table: target, Families: missing})
		}
		r.tgtExists = true
		return nil
	case !errors.Is(err, hbase.ErrTableNotFound):
		return fmt.Errorf("target table %s on %s: %w", target, o.Target, err)
	case !o.CreateTable:
		return &bulkload.NoTargetTableError{Table: target, Cluster: o.Target.String()}
	}
	return nil
}

// run plans (or finds) the job and runs it to its end.
func (r *run) run(ctx context.Context) (progress.Report, error) {
	o := r.o
	id := o.Resume
	if id == "" {
		id = JobID(o.Source, o.Target, o.Spec)
	}
	rep := progress.Report{Job: id, Table: o.Spec.Table, TargetTable: o.Spec.Target(), Rows: o.Spec.Rows.String(),
		Time: o.Spec.Times().String(), Status: "failed"}
	if o.DryRun {
		return rep, r.dryRun(ctx, id)
	}
	j, err := r.reg.Job(ctx, id)
	switch {
	case errors.Is(err, registry.ErrNotFound):
		j, err = r.create(ctx, id)
		if err != nil {
			return rep, err
		}
	case err != nil:
		return rep, fmt.Errorf("job %s: %w", id, err)
	case j.State == registry.JobDone && o.Resume != "":
		rep.Status = "done"
		r.log.Info("job is already done", "job", id)
		return rep, nil
	case j.State.Final():
		r.log.Info("job of the same copy ended before; starting it anew", "job", id, "state", j.State.String())
		if err := r.reg.DeleteJob(ctx, id); err != nil {
			return rep, fmt.Errorf("job %s: remove the ended run: %w", id, err)
		}
		if j, err = r.create(ctx, id); err != nil {
			return rep, err
		}
	default:
		r.log.Info("resuming job", "job", id, "state", j.State.String())
	}
	rec, err := job.DecodeRecord(j.Spec)
	if err != nil {
		return rep, fmt.Errorf("job %s: %w", id, err)
	}
	if len(rec.Source.ZKQuorum) == 0 {
		// A record of the first format names no clusters and options:
		// this run's serve it.
		rec.Source, rec.Target, rec.Options = o.Source, o.Target, r.record(rec.Snapshot).Options
	}
	if j.State == registry.JobPending || j.State == registry.JobPlanning {
		if j, err = r.plan(ctx, j, rec, &rep); err != nil {
			return rep, err
		}
	}
	if j.State != registry.JobRunning {
		return rep, fmt.Errorf("job %s is %s; only a running job is served here", id, j.State)
	}
	return r.execute(ctx, j, rec, rep)
}

// ensureTable makes sure of the target table: there, or created pre-split
// at the source's region boundaries in the range when the job may create it.
func (r *run) ensureTable(ctx context.Context) error {
	o := r.o
	var starts [][]byte
	for _, reg := range r.srcRegions {
		starts = append(starts, reg.StartKey)
	}
	splits := bulkload.SplitKeys(starts, o.Spec.Rows.Start, o.Spec.Rows.End)
	if o.CreateTable {
		ns, err := bulkload.EnsureNamespace(ctx, r.tgt, o.Spec.Target())
		if err != nil {
			return err
		}
		if ns != "" {
			r.createdNamespace = ns
			r.log.Info("created the target namespace", "namespace", ns, "table", o.Spec.Target())
		}
	}
	created, err := bulkload.EnsureTable(ctx, r.tgt, *r.srcDesc, o.Spec.Target(), splits, o.CreateTable)
	if err != nil {
		return err
	}
	if created {
		r.log.Info("created the target table", "table", o.Spec.Target(), "regions", len(splits)+1)
	}
	return nil
}

// create registers the job; the target table is made sure of while the
// source is pinned (plan), or by Submit before.
func (r *run) create(ctx context.Context, id string) (registry.Job, error) {
	// A new name for every run of the job, so that a snapshot kept from an
	// earlier run of the same copy is never taken for this one's.
	snap := fmt.Sprintf("%s-%d", SnapshotName(id), time.Now().UnixMilli())
	b, err := job.EncodeRecord(r.record(snap))
	if err != nil {
		return registry.Job{}, err
	}
	j, err := r.reg.CreateJob(ctx, id, b)
	if err != nil {
		return registry.Job{}, fmt.Errorf("register job %s: %w", id, err)
	}
	r.log.Info("registered job", "job", id)
	return j, nil
}

// record is the job's registry record.
func (r *run) record(snapshot string) job.Record {
	o := r.o
	return job.Record{Spec: o.Spec, Snapshot: snapshot, Source: o.Source, Target: o.Target,
		Options: job.RunOptions{Bandwidth: o.Bandwidth, CreateTable: o.CreateTable, KeepSnapshot: o.KeepSnapshot,
			TaskBytes: o.TaskBytes, WorkRoot: o.WorkRoot, User: o.User, Retries: o.Retries, Detached: r.detached}}
}

// msgTakingSnapshot is logged as a snapshot of the source is asked for,
// msgPinned once it is taken and read.
const (
	msgTakingSnapshot = "taking a snapshot of the source table"
	msgPinned         = "pinned the source table"
)

// pin returns the job's pinned inputs: the snapshot if it exists (a resumed
// planning), else a new one.
func (r *run) pin(ctx context.Context, name string) (*snapshot.Pinned, error) {
	opts := snapshot.Options{Logger: r.log.With("part", "snapshot")}
	p, err := snapshot.Read(ctx, r.srcFS, r.o.Source.RootDir, name, opts)
	if err == nil {
		r.log.Info("reusing the job's snapshot", "snapshot", name)
		return p, nil
	}
	if !errors.Is(err, snapshot.ErrNotFound) && !errors.Is(err, snapshot.ErrInProgress) {
		return nil, fmt.Errorf("read snapshot %s: %w", name, err)
	}
	if errors.Is(err, snapshot.ErrInProgress) {
		// A half-taken snapshot of a crashed run: drop it and take it again.
		_ = snapshot.Release(ctx, r.src, name)
	}
	r.log.Info(msgTakingSnapshot, "snapshot", name, "table", r.o.Spec.Table)
	p, err = snapshot.Pin(ctx, r.src, r.srcFS, r.o.Source.RootDir, r.o.Spec.Table, name, opts)
	if err != nil {
		return nil, fmt.Errorf("pin source table %s with snapshot %s: %w", r.o.Spec.Table, name, err)
	}
	r.log.Info(msgPinned, "snapshot", name, "regions", len(p.Regions), "files", len(p.Files))
	return p, nil
}

// taskSpecs encodes a plan's tasks with their resolved inputs.
func taskSpecs(p *snapshot.Pinned, plan job.Plan) ([]registry.Task, error) {
	tasks := make([]registry.Task, 0, len(plan.Tasks))
	for _, t := range plan.Tasks {
		ts := job.TaskSpec{Task: t}
		for _, f := range t.Files {
			in, ok := p.Input(f)
			if !ok {
				return nil, fmt.Errorf("task %s: input %s/%s/%s was not resolved", t.ID, f.Region, f.Family, f.Name)
			}
			ti := job.TaskInput{File: f, Path: in.Path}
			if in.Reference != nil {
				ti.Reference = in.Reference.Marshal()
			}
			ts.Inputs = append(ts.Inputs, ti)
		}
		b, err := job.EncodeTaskSpec(ts)
		if err != nil {
			return nil, err
		}
		tasks = append(tasks, registry.Task{ID: t.ID, Spec: b})
	}
	return tasks, nil
}

// MaxOrder bounds the tasks in a job's claim order (registry.NodeOrder):
// with more, the tail a late costly task could make is a small part of the
// job anyway.
const MaxOrder = 2000

// planMessage is the running job's message: the plan's totals (tasks, input
// bytes, files pruned), read back when the job is resumed.
const planMessage = "planned: %d tasks, %d bytes, %d files pruned"

// slots is how many tasks will run at once: this process's workers, or for a
// detached job the capacity of the live workers (4 when none is up yet).
func (r *run) slots(ctx context.Context) int {
	if !r.detached {
		return r.o.Workers
	}
	ws, err := r.reg.Workers(ctx)
	n := 0
	for _, w := range ws {
		n += max(w.Capacity, 1)
	}
	if err != nil || n == 0 {
		return 4
	}
	return n
}

// plan pins, plans and registers the tasks, then sets the job running.
func (r *run) plan(ctx context.Context, j registry.Job, rec job.Record, rep *progress.Report) (registry.Job, error) {
	var err error
	if j.State == registry.JobPending {
		if j, err = r.reg.SetJobState(ctx, j, registry.JobPlanning, "pinning and planning"); err != nil {
			return j, fmt.Errorf("job %s: %w", j.ID, err)
		}
	}
	// The target table is created while the snapshot is taken: both take
	// seconds (a flush of every region, a table's regions coming online).
	tableErr := make(chan error, 1)
	go func() { tableErr <- r.ensureTable(ctx) }()
	p, pinned, err := r.pinJob(ctx, j.ID, rec.Snapshot)
	if terr := <-tableErr; err == nil && terr != nil {
		err = terr
	}
	rep.PinRetries = pinned.Retries()
	rep.CreatedNamespace = r.createdNamespace
	if err != nil {
		return j, err
	}
	plan, err := job.Make(rec.Spec, p.Regions, p.Files, job.PlanOptions{TaskBytes: rec.Options.TaskBytes, Slots: r.slots(ctx)})
	if err != nil {
		return j, fmt.Errorf("plan job %s: %w", j.ID, err)
	}
	rep.FilesPruned = len(plan.Pruned)
	tasks, err := taskSpecs(p, plan)
	if err != nil {
		return j, fmt.Errorf("plan job %s: %w", j.ID, err)
	}
	if err := r.reg.AddTasks(ctx, j.ID, tasks); err != nil {
		return j, fmt.Errorf("register the tasks of job %s: %w", j.ID, err)
	}
	// Workers take the costliest tasks first, so that none of them starts
	// last and holds the job up (longest processing time first).
	order, err := json.Marshal(plan.CostOrder(rec.Spec.Times(), MaxOrder))
	if err == nil {
		err = r.reg.PutJobData(ctx, j.ID, registry.NodeOrder, order)
	}
	if err != nil {
		return j, fmt.Errorf("job %s: claim order: %w", j.ID, err)
	}
	r.log.Info("planned", "job", j.ID, "tasks", len(plan.Tasks), "bytes", plan.Bytes, "pruned", len(plan.Pruned))
	msg := fmt.Sprintf(planMessage, len(plan.Tasks), plan.Bytes, len(plan.Pruned))
	if j, err = r.reg.SetJobState(ctx, j, registry.JobRunning, msg); err != nil {
		return j, fmt.Errorf("job %s: %w", j.ID, err)
	}
	return j, nil
}

// execute runs the workers and watches the job to its end.
func (r *run) execute(ctx context.Context, j registry.Job, rec job.Record, rep progress.Report) (progress.Report, error) {
	o := r.o
	id := j.ID
	start := time.Now()
	// The plan's totals are in the job's message (see plan); a job whose
	// message says otherwise has them read from its tasks.
	var planned int
	var total int64
	var pruned int
	haveTotals := false
	if n, _ := fmt.Sscanf(j.Message, planMessage, &planned, &total, &pruned); n == 3 {
		haveTotals = true
		rep.FilesPruned = pruned
	}
	taskIDs, err := r.reg.Tasks(ctx, id)
	if err != nil {
		return rep, fmt.Errorf("job %s: list tasks: %w", id, err)
	}
	var counters progress.Counters
	counters.TasksTotal.Store(int64(len(taskIDs)))
	if !haveTotals {
		total = 0
		for _, t := range taskIDs {
			b, err := r.reg.TaskSpec(ctx, id, t)
			if err != nil {
				return rep, fmt.Errorf("job %s: task %s: %w", id, t, err)
			}
			ts, err := job.DecodeTaskSpec(b)
			if err != nil {
				return rep, fmt.Errorf("job %s: task %s: %w", id, t, err)
			}
			total += ts.Task.Bytes
		}
	}
	counters.BytesTotal.Store(total)
	// Tasks that failed in an earlier run are tried again.
	counts, err := r.reg.Count(ctx, id)
	if err != nil {
		return rep, fmt.Errorf("job %s: count tasks: %w", id, err)
	}
	for i := 0; counts.Failed > 0 && i < len(taskIDs); i++ {
		t := taskIDs[i]
		st, err := r.reg.TaskStatus(ctx, id, t)
		if err != nil {
			return rep, fmt.Errorf("job %s: task %s: %w", id, t, err)
		}
		if st == registry.StatusFailed {
			r.log.Info("retrying a task that failed in an earlier run", "task", t)
			if err := r.reg.ResetTask(ctx, id, t); err != nil {
				return rep, fmt.Errorf("job %s: reset failed task %s: %w", id, t, err)
			}
			counts.Failed--
		}
	}

	var limiter fsys.Limiter
	if o.Bandwidth > 0 {
		tb, err := worker.NewRateLimit(o.Bandwidth)
		if err != nil {
			return rep, fmt.Errorf("bandwidth %.0f B/s: %w", o.Bandwidth, err)
		}
		limiter = tb
	}
	var wcounters worker.Counters
	var bcounters bulkload.Counters
	env, err := worker.OpenJob(ctx, worker.JobConfig{Registry: r.reg, Job: id, Record: rec,
		Source: r.src, Target: r.tgt, SourceFS: r.srcFS, TargetFS: r.tgtFS,
		Limiter: limiter, Counters: &wcounters, LoaderCounters: &bcounters,
		Loaded: func(f worker.OutputFile) {
			counters.FilesLoaded.Add(1)
			counters.BytesLoaded.Add(f.Bytes)
			counters.Cells.Add(f.Cells)
		},
		DialTimeout: o.DialTimeout, LoadRetryFor: o.LoadRetryFor, Logger: r.log.With("part", "worker")})
	if err != nil {
		return rep, err
	}
	defer env.Close(context.WithoutCancel(ctx))

	wctx, stopWorkers := context.WithCancel(ctx)
	defer stopWorkers()
	host := registry.ProcessID("copy")
	var wg sync.WaitGroup
	errs := make(chan error, o.Workers)
	for i := 0; i < o.Workers; i++ {
		wid := fmt.Sprintf("%s-w%d", host, i)
		if err := r.reg.RegisterWorker(ctx, registry.Worker{ID: wid, Capacity: 1, Info: "rangecopy copy, job " + id}); err != nil {
			r.log.Warn("register worker", "worker", wid, "err", err)
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
	if o.Progress != nil {
		pwg.Add(1)
		go func() {
			defer pwg.Done()
			final = progress.Run(pctx, &counters, start, o.ProgressInterval, o.Progress)
		}()
	}
	counts, werr := r.watch(ctx, id, &counters, &wcounters, &bcounters, errs)
	stopWorkers()
	wg.Wait()
	r.sync(&counters, &wcounters, &bcounters)
	stopProgress()
	pwg.Wait()
	if o.Progress == nil {
		final = counters.Take(time.Now(), start)
	}
	final.TasksDone, final.TasksFailed = int64(counts.Done), int64(counts.Failed)
	rep.Fill(final)
	rep.Seconds = time.Since(start).Seconds()
	if rep.Seconds > 0 {
		rep.BytesPerSecond = float64(rep.BytesRead) / rep.Seconds
	}
	switch {
	case werr != nil:
		rep.Status = "interrupted"
		return rep, fmt.Errorf("job %s stopped (resume with --resume %s): %w", id, id, werr)
	case counts.Failed > 0:
		return rep, fmt.Errorf("job %s: %w: %d of %d (%s); the target keeps what was loaded; resume with --resume %s",
			id, ErrTasksFailed, counts.Failed, counts.Tasks, r.firstFailure(ctx, id, taskIDs), id)
	}
	if err := r.finish(ctx, j, rec, &rep); err != nil {
		return rep, err
	}
	return rep, nil
}

// sync copies the workers' and loader's counters into the job's.
func (r *run) sync(c *progress.Counters, w *worker.Counters, b *bulkload.Counters) {
	c.BytesRead.Store(w.BytesRead.Load())
	c.Retries.Store(b.Retries.Load())
}

// watch waits until every task has a result, keeping the counters current.
// It returns early with an error when ctx ends or a worker gives up.
func (r *run) watch(ctx context.Context, id string, c *progress.Counters, w *worker.Counters, b *bulkload.Counters, errs <-chan error) (registry.Counts, error) {
	changes, err := r.reg.WatchJob(ctx, id)
	if err != nil {
		return registry.Counts{}, fmt.Errorf("watch job %s: %w", id, err)
	}
	tick := time.NewTicker(500 * time.Millisecond)
	defer tick.Stop()
	var counts registry.Counts
	lastCount := time.Time{}
	for {
		r.sync(c, w, b)
		if time.Since(lastCount) >= 2*time.Second {
			counts, err = r.reg.Count(ctx, id)
			if err == nil {
				lastCount = time.Now()
				c.TasksDone.Store(int64(counts.Done))
				c.TasksFailed.Store(int64(counts.Failed))
				if counts.Done+counts.Failed >= counts.Tasks {
					return counts, nil
				}
			} else if registry.Classify(err) == registry.ActionGiveUp {
				return counts, fmt.Errorf("count tasks of job %s: %w", id, err)
			}
		}
		select {
		case <-ctx.Done():
			return counts, ctx.Err()
		case err := <-errs:
			return counts, err
		case <-changes:
			lastCount = time.Time{}
		case <-tick.C:
		}
	}
}

// firstFailure describes the first failed task found.
func (r *run) firstFailure(ctx context.Context, id string, tasks []string) string {
	sorted := slices.Clone(tasks)
	sort.Strings(sorted)
	var unread []string
	for _, t := range sorted {
		res, err := r.reg.TaskResult(ctx, id, t)
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

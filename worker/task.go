package worker

import (
	"context"
	"fmt"
	"log/slog"
	"sort"
	"sync"
	"time"

	"rangecopy/bulkload"
	"rangecopy/checkpoint"
	"rangecopy/hbase"
	"rangecopy/hfile"
	"rangecopy/job"
	"rangecopy/metrics"
	"rangecopy/registry"
	"rangecopy/retry"
)

// The data path of one task, from claim to loaded file, is these steps in
// this order, each a function of this file unless named otherwise:
//
//	serveClaim    (serve.go) a task Serve or RunAgent claimed: run it, record its end
//	readClaimed   the task's spec, inputs and checkpoint, from the registry
//	planOutputs   the target's regions, fresh, and the task's work folder
//	Run           (run.go) per family: open the inputs, read and merge them,
//	              write the output files (output.go), each handed to written
//	written       a written file: load it now, or hold it (a tiny task)
//	load          bulk load one file, fenced by the claim (loadHeld: all held)
//	checkpoint    advance the checkpoint past the loaded files, save it fenced
//
// runClaimed runs the steps after readClaimed (runAttempt) again after a
// failure, up to cfg.Attempts times, each attempt from the checkpoint the
// last one saved.

// claimedTask is a claimed task as the registry holds it: what to copy and
// how far the copy got.
type claimedTask struct {
	spec   job.TaskSpec
	inputs []Input
	// families are the job's families in name order.
	families []string
	// cp is the task's checkpoint; an attempt advances it as files load.
	cp checkpoint.Checkpoint
	// resumed says the registry held a checkpoint.
	resumed bool
}

// runClaimed runs a claimed task to its end, up to cfg.Attempts times
// (runAgain, attemptBackoff).
func runClaimed(ctx context.Context, cfg *ServeConfig, claim *Claim, log *slog.Logger) error {
	ct, err := readClaimed(ctx, cfg, claim)
	if err != nil {
		return err
	}
	if ct.cp.Done(ct.families) {
		log.Info("task already complete by its checkpoint")
		return nil
	}
	if ct.resumed {
		log.Info("resuming task", "checkpoint", ct.cp.String())
	}
	backoff := attemptBackoff()
	for attempt := 1; ; attempt++ {
		err := runAttempt(ctx, cfg, claim, ct)
		if !runAgain(err, attempt, cfg.Attempts, ctx.Err() != nil, isLost(claim)) {
			return err
		}
		wait := backoff.Delay(attempt - 1)
		if cfg.Observer != nil {
			cfg.Observer.Retried(cfg.Job, metrics.CauseTaskAttempt)
		}
		log.Warn("task attempt failed; running it again from its checkpoint", "attempt", attempt, "err", err, "wait", wait)
		if err := retry.Sleep(ctx, wait); err != nil {
			return err
		}
	}
}

// readClaimed reads the claimed task's spec and checkpoint.
func readClaimed(ctx context.Context, cfg *ServeConfig, claim *Claim) (*claimedTask, error) {
	spec, err := job.DecodeTaskSpec(claim.Spec())
	if err != nil {
		return nil, fmt.Errorf("task %s: %w", claim.Task(), err)
	}
	if spec.Task.ID != claim.Task() {
		return nil, fmt.Errorf("task %s: spec names task %s", claim.Task(), spec.Task.ID)
	}
	ct := &claimedTask{spec: spec, families: make([]string, 0, len(cfg.Families)), inputs: make([]Input, 0, len(spec.Inputs))}
	for f := range cfg.Families {
		ct.families = append(ct.families, f)
	}
	sort.Strings(ct.families)
	for _, in := range spec.Inputs {
		wi := Input{File: in.File, Path: in.Path}
		if len(in.Reference) > 0 {
			ref, err := hfile.ParseReference(in.Reference)
			if err != nil {
				return nil, fmt.Errorf("task %s: reference of input %s: %w", spec.Task.ID, in.File.Name, err)
			}
			wi.Reference = ref
		}
		ct.inputs = append(ct.inputs, wi)
	}
	b, err := cfg.Registry.TaskCheckpoint(ctx, cfg.Job, spec.Task.ID)
	if err != nil {
		return nil, fmt.Errorf("task %s: read checkpoint: %w", spec.Task.ID, err)
	}
	if ct.cp, err = checkpoint.Decode(spec.Task.ID, b); err != nil {
		return nil, fmt.Errorf("task %s: %w", spec.Task.ID, err)
	}
	ct.resumed = len(b) > 0
	return ct, nil
}

// attempt is one run of a claimed task from its checkpoint.
type attempt struct {
	cfg   *ServeConfig
	claim *Claim
	ct    *claimedTask
	id    string
	// together says the task is tiny (TogetherTaskBytes): its files (a
	// catch-up window's are a few small files a region) are held until
	// every family is written, then loaded together, the files of one
	// region in one request (bulkload.Loader.LoadTogether), with one
	// checkpoint save for all. Rewriting them, if the run stops first,
	// costs about what one bulk load round trip does.
	together bool

	// mu guards ct.cp and held: the families of a small task run at once
	// (Options.ParallelFamilies), each calling written.
	mu   sync.Mutex
	held []OutputFile
}

// runAttempt runs the task's steps once from ct.cp, advancing ct.cp as
// files load.
func runAttempt(ctx context.Context, cfg *ServeConfig, claim *Claim, ct *claimedTask) error {
	a := &attempt{cfg: cfg, claim: claim, ct: ct, id: ct.spec.Task.ID, together: ct.spec.Task.Bytes <= TogetherTaskBytes}
	t, err := a.planOutputs(ctx)
	if err != nil {
		return err
	}
	opts := cfg.Options
	opts.ParallelFamilies = true // written is safe for it
	if err := Run(ctx, t, opts, a.written); err != nil {
		return err
	}
	return a.loadHeld(ctx)
}

// planOutputs is the task as Run takes it: the target's regions, listed
// fresh (primary replicas), and the task's work folder on the target.
func (a *attempt) planOutputs(ctx context.Context) (Task, error) {
	cfg := a.cfg
	hregions, err := cfg.Regions.Regions(ctx, cfg.TargetTable)
	if err != nil {
		return Task{}, fmt.Errorf("task %s: regions of target table %s: %w", a.id, cfg.TargetTable, err)
	}
	regions := make([]job.Region, 0, len(hregions))
	for _, r := range hregions {
		if r.ReplicaID != 0 {
			continue
		}
		regions = append(regions, job.Region{EncodedName: r.EncodedName, Rows: job.KeyRange{Start: r.StartKey, End: r.EndKey}})
	}
	dir, err := cfg.OutputDir(ctx, a.id, a.ct.families)
	if err != nil {
		return Task{}, fmt.Errorf("task %s: work folder: %w", a.id, err)
	}
	return Task{Task: a.ct.spec.Task, Inputs: a.ct.inputs, Time: cfg.Time, Regions: regions,
		Families: cfg.Families, Checkpoint: a.ct.cp, OutputDir: dir}, nil
}

// written takes each file Run writes, and each family's end: a tiny task
// holds them for loadHeld; any other loads the file and checkpoints it.
func (a *attempt) written(ctx context.Context, f OutputFile) error {
	if a.together {
		a.mu.Lock()
		a.held = append(a.held, f)
		a.mu.Unlock()
		return nil
	}
	l := checkpoint.Loaded{Family: f.Family, Last: f.Last}
	if !f.Last {
		var err error
		if l, err = a.load(ctx, f); err != nil {
			return err
		}
	}
	return a.checkpoint(ctx, []OutputFile{f}, []checkpoint.Loaded{l})
}

// load bulk loads one file, fenced by the claim, and returns what it adds
// to the checkpoint.
func (a *attempt) load(ctx context.Context, f OutputFile) (checkpoint.Loaded, error) {
	var sent time.Time
	began := time.Now()
	if err := a.cfg.Loader.Load(ctx, a.fenced(f, &sent)); err != nil {
		return checkpoint.Loaded{}, fmt.Errorf("task %s: load %s: %w", a.id, f.Path, err)
	}
	return a.loaded(f, time.Since(began), sent), nil
}

// loadHeld loads the files a tiny task held, together, and checkpoints them
// with the ends of their families in one save.
func (a *attempt) loadHeld(ctx context.Context) error {
	if len(a.held) == 0 {
		return nil
	}
	var files []bulkload.File
	var sent time.Time
	for _, f := range a.held {
		if f.Last {
			continue
		}
		files = append(files, a.fenced(f, &sent))
	}
	began := time.Now()
	if err := a.cfg.Loader.LoadTogether(ctx, files); err != nil {
		return fmt.Errorf("task %s: load %d files: %w", a.id, len(files), err)
	}
	took := time.Since(began)
	ls := make([]checkpoint.Loaded, len(a.held))
	for i, f := range a.held {
		if f.Last {
			ls[i] = checkpoint.Loaded{Family: f.Family, Last: true}
		} else {
			ls[i] = a.loaded(f, took, sent)
		}
	}
	return a.checkpoint(ctx, a.held, ls)
}

// fenced is f for the loader, its request let out only while the claim
// holds (fenceLoad); *sent is set when its (last) load request is let out.
func (a *attempt) fenced(f OutputFile, sent *time.Time) bulkload.File {
	return bulkload.File{Family: f.Family, Path: f.Path, FirstRow: f.FirstRow, LastRow: f.LastRow, Size: f.Bytes,
		Fence: func(ctx context.Context) (context.Context, error) {
			fctx, err := fenceLoad(ctx, a.claim, a.cfg.Registry.SessionTimeout(), f.Path)
			*sent = time.Now()
			return fctx, err
		}}
}

// loaded observes and logs a file's load and returns what it adds to the
// checkpoint.
func (a *attempt) loaded(f OutputFile, took time.Duration, sent time.Time) checkpoint.Loaded {
	if a.cfg.Observer != nil {
		a.cfg.Observer.FileLoaded(a.cfg.Job, took)
	}
	a.cfg.Logger.Info("file loaded", "family", f.Family,
		"first", job.FormatKey(f.FirstRow), "path", f.Path, "bytes", f.Bytes,
		"sent", sent.UTC().Format(time.RFC3339Nano))
	return checkpoint.Loaded{Family: f.Family, Mark: f.NextRow, Files: 1, Cells: f.Cells, Bytes: f.Bytes}
}

// checkpoint advances the checkpoint past the files of fs (loaded, or the
// end of a family), ls[i] what fs[i] adds, saves it once fenced by the
// claim and tells cfg.Loaded of the files.
func (a *attempt) checkpoint(ctx context.Context, fs []OutputFile, ls []checkpoint.Loaded) error {
	// The families of a small task run at once (Options.ParallelFamilies):
	// one checkpoint, advanced and saved by one family at a time.
	a.mu.Lock()
	defer a.mu.Unlock()
	next := a.ct.cp
	for i, l := range ls {
		var err error
		if next, err = next.Advance(a.ct.spec.Task.Rows.End, l); err != nil {
			return fmt.Errorf("task %s: advance checkpoint after %s: %w", a.id, describe(fs[i]), err)
		}
	}
	// A file that was loaded is recorded even if the task is being
	// stopped (the job paused or cancelled): the claim still fences it.
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
	err := saveCheckpoint(sctx, a.claim, next, func() {
		if a.cfg.Observer != nil {
			a.cfg.Observer.Retried(a.cfg.Job, metrics.CauseCheckpointSave)
		}
	})
	cancel()
	if err != nil {
		return fmt.Errorf("task %s: save checkpoint after %s: %w", a.id, describe(fs[len(fs)-1]), err)
	}
	a.ct.cp = next
	if a.cfg.Loaded != nil {
		for _, f := range fs {
			if !f.Last {
				a.cfg.Loaded(f)
			}
		}
	}
	return nil
}

// fenceLoad checks with ZooKeeper that the claim still holds, right before a
// bulk load request, and returns a context that lets the request go out only
// within half a session timeout of the check. The claim cannot pass to
// another worker before this worker's session expires, which is at least a
// session timeout after the check reached the server; so a worker frozen (GC,
// SIGSTOP) between the check and the send, whose session expired meanwhile,
// does not send the request when it thaws.
func fenceLoad(ctx context.Context, claim *Claim, session time.Duration, path string) (context.Context, error) {
	checked := time.Now()
	ok, err := claim.Valid(ctx)
	if ctx.Err() != nil {
		return nil, ctx.Err() // stopped, not lost: the caller releases the task
	}
	if err != nil || !ok {
		return nil, fmt.Errorf("%w: before loading %s (valid=%v, err=%v)", registry.ErrLostClaim, path, ok, err)
	}
	return hbase.WithSendBy(ctx, checked.Add(session/2)), nil
}

func describe(f OutputFile) string {
	if f.Last {
		return "the end of family " + f.Family
	}
	return f.Path
}

// saveCheckpoint stores cp fenced by the claim, retrying passing failures
// a few times (saveAgain, checkpointBackoff); retried is called before each
// retry.
func saveCheckpoint(ctx context.Context, claim *Claim, cp checkpoint.Checkpoint, retried func()) error {
	b, err := cp.Encode()
	if err != nil {
		return err
	}
	backoff := checkpointBackoff()
	for try := 1; ; try++ {
		err = claim.SaveCheckpoint(ctx, b)
		if !saveAgain(err, try) {
			return err
		}
		retried()
		if retry.Sleep(ctx, backoff.Delay(try-1)) != nil {
			return err
		}
	}
}

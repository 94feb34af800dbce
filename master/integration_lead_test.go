package master

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"rangecopy/internal/testsupport"
	"rangecopy/job"
	"rangecopy/registry"
	"rangecopy/testenv"
	"rangecopy/worker"
)

// fleet runs masters and workers in this process, each with a ZooKeeper
// session of its own, as separate processes would.
type fleet struct {
	t    *testing.T
	env  *testenv.Env
	root string
	log  *slog.Logger
	wg   sync.WaitGroup
}

func newFleet(t *testing.T, env *testenv.Env, root string) *fleet {
	f := &fleet{t: t, env: env, root: root,
		log: slog.New(slog.NewTextHandler(testWriter{T: t}, &slog.HandlerOptions{Level: slog.LevelWarn}))}
	t.Cleanup(f.wg.Wait)
	return f
}

// session opens a registry session of its own, closed when stop runs.
func (f *fleet) session(ctx context.Context) *registry.Registry {
	f.t.Helper()
	octx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	reg, err := registry.Open(octx, registry.Config{Servers: []string{f.env.Target.ZKQuorum}, Root: f.root, SessionTimeout: 4 * time.Second})
	if err != nil {
		f.t.Fatal(err)
	}
	return reg
}

// master starts a master; the returned func stops it and ends its session.
func (f *fleet) master(id string) (stop func()) {
	ctx, cancel := context.WithCancel(f.t.Context())
	reg := f.session(ctx)
	f.wg.Add(1)
	go func() {
		defer f.wg.Done()
		defer reg.Close()
		if err := Lead(ctx, LeadConfig{Registry: reg, ID: id, Poll: 500 * time.Millisecond, ReportEvery: time.Second, Logger: f.log.With("m", id)}); err != nil {
			f.t.Errorf("master %s: %v", id, err)
		}
	}()
	f.t.Cleanup(cancel)
	return cancel
}

// worker starts a worker of the given capacity.
func (f *fleet) worker(id string, capacity int) (stop func()) {
	ctx, cancel := context.WithCancel(f.t.Context())
	reg := f.session(ctx)
	f.wg.Add(1)
	go func() {
		defer f.wg.Done()
		defer reg.Close()
		if err := worker.RunAgent(ctx, worker.AgentConfig{Registry: reg, ID: id, Capacity: capacity,
			Refresh: 500 * time.Millisecond, Logger: f.log.With("w", id)}); err != nil {
			f.t.Errorf("worker %s: %v", id, err)
		}
	}()
	f.t.Cleanup(cancel)
	return cancel
}

// waitState waits until the job is in one of the states.
func waitState(t *testing.T, reg *registry.Registry, id string, limit time.Duration, states ...registry.JobState) registry.Job {
	t.Helper()
	deadline := time.Now().Add(limit)
	var j registry.Job
	var err error
	for time.Now().Before(deadline) {
		j, err = reg.Job(t.Context(), id)
		if err == nil {
			for _, s := range states {
				if j.State == s {
					return j
				}
			}
		}
		time.Sleep(300 * time.Millisecond)
	}
	t.Fatalf("job %s: still %v (%q, err %v) after %s; want %v", id, j.State, j.Message, err, limit, states)
	return j
}

// TestDetachedJob submits a job for two masters and two workers: the first
// master leads and is stopped after planning, the standby finishes the job;
// the job is paused and resumed on the way; the target equals the source and
// the stored report says what was copied.
func TestDetachedJob(t *testing.T) {
	env := testenv.Get(t)
	table := createSource(t, env, "detached")
	writeRounds(t, env.Source, table, binaryRows(200), 3, time.Now().UnixMilli()-100_000, true)
	o := testOptions(t, env, job.Spec{Table: table})
	o.CreateTable = true
	dropTargetLater(t, env, table)
	reg := openRegistry(t, env, o.ZKRoot)

	id, existing, err := Submit(t.Context(), o)
	if err != nil || existing {
		t.Fatalf("submit: %s, %v, %v", id, existing, err)
	}
	if id2, existing, err := Submit(t.Context(), o); err != nil || !existing || id2 != id {
		t.Fatalf("submitting the same copy again: %s, %v, %v; want %s, existing", id2, existing, err, id)
	}
	j, err := reg.Job(t.Context(), id)
	if err != nil || j.State != registry.JobPending {
		t.Fatalf("submitted job: %+v, %v", j, err)
	}

	f := newFleet(t, env, o.ZKRoot)
	stopFirst := f.master("m1")
	waitLeader(t, reg, "m1")
	f.master("m2")
	j = waitState(t, reg, id, 60*time.Second, registry.JobRunning)
	// Pause before any worker runs: nothing is claimed while paused.
	if _, err := reg.SetJobState(t.Context(), j, registry.JobPaused, "test pause"); err != nil {
		t.Fatal(err)
	}
	f.worker("w1", 2)
	f.worker("w2", 2)
	// A worker looks at the jobs as it registers and every refresh (500 ms) after; one that
	// served a paused job would claim a task at its first look. Once both are registered,
	// watch for such a claim over several looks.
	waitWorkers(t, reg, "w1", "w2")
	for looks := time.Now().Add(6 * 500 * time.Millisecond); time.Now().Before(looks); time.Sleep(250 * time.Millisecond) {
		if c, err := reg.Count(t.Context(), id); err != nil || c.Claimed+c.Done != 0 {
			t.Fatalf("paused job: %+v, %v; want nothing claimed or done", c, err)
		}
	}
	// The leader goes away; the standby takes over.
	stopFirst()
	waitLeader(t, reg, "m2")
	if _, err := reg.UpdateJob(t.Context(), id, func(registry.Job) (registry.JobState, string, error) {
		return registry.JobRunning, "test resume", nil
	}); err != nil {
		t.Fatal(err)
	}
	waitState(t, reg, id, 3*time.Minute, registry.JobDone)
	n := testsupport.Compare(t, env, testsupport.CompareSpec{SourceTable: table, TargetTable: table, Mode: testsupport.Raw}).Cells
	rep, ok, err := LoadReport(t.Context(), reg, id)
	if err != nil || !ok {
		t.Fatalf("report: %v, %v", ok, err)
	}
	assertFinished(t, env, o, rep)
	if rep.Cells != int64(n) || rep.FilesLoaded < 8 || rep.Tasks != 4 {
		t.Errorf("report: %d cells, %d files, %d tasks; want %d cells, at least 8 files, 4 tasks", rep.Cells, rep.FilesLoaded, rep.Tasks, n)
	}
	t.Logf("detached job: %d cells, %d files in %.1f s", rep.Cells, rep.FilesLoaded, rep.Seconds())
}

// waitWorkers waits until the workers named are registered.
func waitWorkers(t *testing.T, reg *registry.Registry, ids ...string) {
	t.Helper()
	var ws []registry.Worker
	var err error
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		ws, err = reg.Workers(t.Context())
		registered := map[string]bool{}
		for _, w := range ws {
			registered[w.ID] = true
		}
		missing := false
		for _, id := range ids {
			missing = missing || !registered[id]
		}
		if err == nil && !missing {
			return
		}
	}
	t.Fatalf("workers registered: %+v (%v); want %v", ws, err, ids)
}

// waitLeader waits until the named master leads.
func waitLeader(t *testing.T, reg *registry.Registry, id string) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		if l, err := reg.Leader(t.Context()); err == nil && l == id {
			return
		}
		time.Sleep(200 * time.Millisecond)
	}
	l, err := reg.Leader(t.Context())
	t.Fatalf("leader is %q (%v); want %s", l, err, id)
}

// TestDetachedJobCancel cancels a detached job that cannot finish (its
// workers are stopped): the master cleans up and says what was copied.
func TestDetachedJobCancel(t *testing.T) {
	env := testenv.Get(t)
	table := createSource(t, env, "dcancel")
	writeRounds(t, env.Source, table, binaryRows(80), 1, time.Now().UnixMilli()-100_000, false)
	o := testOptions(t, env, job.Spec{Table: table})
	o.CreateTable = true
	dropTargetLater(t, env, table)
	reg := openRegistry(t, env, o.ZKRoot)
	id, _, err := Submit(t.Context(), o)
	if err != nil {
		t.Fatal(err)
	}
	f := newFleet(t, env, o.ZKRoot)
	f.master("m1")
	waitState(t, reg, id, 60*time.Second, registry.JobRunning)
	if _, err := reg.UpdateJob(t.Context(), id, func(registry.Job) (registry.JobState, string, error) {
		return registry.JobCancelling, "test cancel", nil
	}); err != nil {
		t.Fatal(err)
	}
	j := waitState(t, reg, id, 60*time.Second, registry.JobCancelled)
	rep, ok, err := LoadReport(t.Context(), reg, id)
	if err != nil || !ok || rep.Status != job.ReportCancelled || rep.TasksDone != 0 || rep.Tasks != 4 {
		t.Fatalf("report of the cancelled job: %+v, %v, %v", rep, ok, err)
	}
	if want := "cancelled: 0 of 4 tasks done"; len(j.Message) < len(want) || j.Message[:len(want)] != want {
		t.Errorf("message %q", j.Message)
	}
	snaps, err := testsupport.Dial(t, env.Source).ListSnapshots(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range snaps {
		if len(s.Name) >= len(SnapshotName(id)) && s.Name[:len(SnapshotName(id))] == SnapshotName(id) {
			t.Errorf("snapshot %s of the cancelled job is still there", s.Name)
		}
	}
	if _, err := env.Target.HDFS(t, env.Target.User).Stat(o.WorkRoot + "/" + id); err == nil {
		t.Errorf("work folder %s/%s is still there", o.WorkRoot, id)
	}
}

// failAll claims every claimable task of the job and fails it, as a worker
// whose tasks all break would; it returns how many it failed.
func failAll(t *testing.T, reg *registry.Registry, id string) int {
	t.Helper()
	n := 0
	for {
		c, err := reg.ClaimAny(t.Context(), id, "breaker", 0)
		if errors.Is(err, registry.ErrNotFound) {
			return n
		}
		if err != nil {
			t.Fatal(err)
		}
		if err := c.Fail(t.Context(), errors.New("test: the task breaks")); err != nil {
			t.Fatal(err)
		}
		n++
	}
}

// TestDetachedJobRetriesThenPauses fails every task of a detached job: the
// master resets them after its backoff up to the retry limit, then pauses the
// job saying why; resumed, the tasks get a new round, and real workers
// finish the job.
func TestDetachedJobRetriesThenPauses(t *testing.T) {
	env := testenv.Get(t)
	table := createSource(t, env, "dretry")
	writeRounds(t, env.Source, table, binaryRows(60), 1, time.Now().UnixMilli()-100_000, false)
	o := testOptions(t, env, job.Spec{Table: table})
	o.CreateTable = true
	o.Retries = 1
	dropTargetLater(t, env, table)
	reg := openRegistry(t, env, o.ZKRoot)
	id, _, err := Submit(t.Context(), o)
	if err != nil {
		t.Fatal(err)
	}
	f := newFleet(t, env, o.ZKRoot)
	f.master("m1")
	waitState(t, reg, id, 60*time.Second, registry.JobRunning)
	if n := failAll(t, reg, id); n != 4 {
		t.Fatalf("failed %d tasks, want the 4 of the plan", n)
	}
	// The master resets them after its backoff (5 s for a first retry).
	deadline := time.Now().Add(60 * time.Second)
	for {
		c, err := reg.Count(t.Context(), id)
		if err != nil {
			t.Fatal(err)
		}
		if c.Pending == 4 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("failed tasks not reset: %+v", c)
		}
		time.Sleep(300 * time.Millisecond)
	}
	b, err := reg.JobData(t.Context(), id, registry.NodeRetries)
	if err != nil || !strings.Contains(string(b), ":1") {
		t.Fatalf("retries recorded: %s, %v", b, err)
	}
	if n := failAll(t, reg, id); n != 4 {
		t.Fatalf("second round: failed %d tasks, want 4", n)
	}
	j := waitState(t, reg, id, 60*time.Second, registry.JobPaused)
	if !strings.Contains(j.Message, "4 of 4 tasks failed 2 times") || !strings.Contains(j.Message, "job resume") {
		t.Errorf("paused with %q", j.Message)
	}
	// An operator resumes it (what rangecopy job resume does) with
	// workers that can do the work.
	if _, err := reg.UpdateJob(t.Context(), id, func(registry.Job) (registry.JobState, string, error) {
		return registry.JobRunning, "resumed", nil
	}); err != nil {
		t.Fatal(err)
	}
	if err := reg.PutJobData(t.Context(), id, registry.NodeRetries, []byte("{}")); err != nil {
		t.Fatal(err)
	}
	f.worker("w1", 2)
	waitState(t, reg, id, 2*time.Minute, registry.JobDone)
	testsupport.Compare(t, env, testsupport.CompareSpec{SourceTable: table, TargetTable: table, Mode: testsupport.Raw})
}

// TestDetachedJobCleanupSwept: a master that marked a job done and died before its
// clean-up (NodeCleanup still set, the snapshot and the work folder still there) leaves it
// to the next leader, which releases the snapshot, removes the folder and clears the node.
func TestDetachedJobCleanupSwept(t *testing.T) {
	env := testenv.Get(t)
	table := createSource(t, env, "dswept")
	writeRounds(t, env.Source, table, binaryRows(40), 1, time.Now().UnixMilli()-100_000, false)
	o := testOptions(t, env, job.Spec{Table: table})
	o.CreateTable = true
	dropTargetLater(t, env, table)
	reg := openRegistry(t, env, o.ZKRoot)
	id, _, err := Submit(t.Context(), o)
	if err != nil {
		t.Fatal(err)
	}
	f := newFleet(t, env, o.ZKRoot)
	stopFirst := f.master("m1")
	f.worker("w1", 2)
	j := waitState(t, reg, id, 3*time.Minute, registry.JobDone)
	rep, ok, err := LoadReport(t.Context(), reg, id)
	if err != nil || !ok {
		t.Fatalf("report: %v, %v", ok, err)
	}
	assertFinished(t, env, o, rep)

	// What a master that died right after marking the job done leaves.
	stopFirst()
	rec, err := job.DecodeRecord(j.Spec)
	if err != nil {
		t.Fatal(err)
	}
	src := testsupport.Dial(t, env.Source)
	if err := src.CreateSnapshot(t.Context(), table, rec.Snapshot); err != nil {
		t.Fatal(err)
	}
	dir := o.WorkRoot + "/" + id
	fs := env.Target.HDFS(t, env.Target.User)
	if err := fs.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := reg.PutJobData(t.Context(), id, registry.NodeCleanup, []byte(cleanupPending)); err != nil {
		t.Fatal(err)
	}

	f.master("m2")
	deadline := time.Now().Add(90 * time.Second)
	for {
		var left []string
		snaps, err := src.ListSnapshots(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range snaps {
			if s.Name == rec.Snapshot {
				left = append(left, "snapshot "+s.Name)
			}
		}
		if _, err := fs.Stat(dir); err == nil {
			left = append(left, "work folder "+dir)
		}
		if b, err := reg.JobData(t.Context(), id, registry.NodeCleanup); err != nil || len(b) > 0 {
			left = append(left, fmt.Sprintf("clean-up node %q (%v)", b, err))
		}
		if len(left) == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the next leader did not clean up the done job %s: %v left", id, left)
		}
		time.Sleep(300 * time.Millisecond)
	}
	if j2, err := reg.Job(t.Context(), id); err != nil || j2.State != registry.JobDone {
		t.Errorf("job after the sweep: %+v, %v; want done", j2, err)
	}
}

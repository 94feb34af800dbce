package faults

import (
	"context"
	"fmt"
	"strings"
	"syscall"
	"testing"
	"time"

	"rangecopy/internal/testsupport"
	"rangecopy/job"
	"rangecopy/progress"
	"rangecopy/testenv"
)

// copyFlags are the job flags of every test: small tasks (two per source
// region, each writing and loading a file for each of two target regions)
// and a bandwidth cap, so a fault lands in the middle of the copy.
var copyFlags = []string{"--task-size", "4MiB", "--bandwidth", "6MiB/s"}

// started is a test's sample tables and its rig, before any process runs.
func started(t *testing.T) (*testenv.Env, *rig, string, string) {
	t.Helper()
	env := testenv.Get(t)
	src := writeSample(t, env)
	dst := newTarget(t, env)
	return env, newRig(t, env), src, dst
}

// finish waits for the job, checks it was done exactly once and compares
// the tables (every version of every visible cell), and returns the job's
// status and the number of files loaded twice.
func finish(t *testing.T, env *testenv.Env, r *rig, src, dst string) (jobStatus, int) {
	t.Helper()
	if err := r.wait(); err != nil {
		t.Fatalf("job %s did not finish: %v", r.job, err)
	}
	s := r.assertDoneOnce()
	n := testsupport.Compare(t, env, testsupport.CompareSpec{SourceTable: src, TargetTable: dst, Mode: testsupport.Visible}).Cells
	dup := r.logLoads(s)
	t.Logf("source and target equal: %d cells (every version of every visible cell)", n)
	return s, dup
}

// TestKillWorkerMidTask kills a worker (SIGKILL) right after it loaded a
// file of a task it has not finished. Its claim dies with its ZooKeeper
// session; another worker claims the task, resumes it from the checkpoint
// and finishes it. At most the one file the killed worker had in flight is
// loaded twice (the killed worker runs one task at a time).
func TestKillWorkerMidTask(t *testing.T) {
	t.Parallel()
	env, r, src, dst := started(t)
	r.startMaster("master-1", longSession)
	victim := r.startWorker("worker-victim", 1, shortSession)
	r.startWorker("worker-b", 2, longSession)
	r.submit(src, dst, copyFlags...)

	task, _ := r.stopMidTask(victim)
	victim.kill(t, syscall.SIGKILL)
	killed := time.Now()
	before := len(loadsOf(t, victim, r.job))
	t.Logf("killed worker-victim in task %s after %d files it loaded", task, before)

	_, dup := finish(t, env, r, src, dst)
	other := r.workers[1]
	if len(other.find(t, "task done", "task", task)) != 1 {
		t.Errorf("worker-b did not log task %s done once", task)
	}
	// The killed worker logs a load before it saves the checkpoint that
	// counts it: killed in between, the task's checkpoint lacks that file and
	// the new owner loads it again. Every other file of the task it loaded is
	// in the checkpoint, which the new owner resumes from.
	var victimFiles, again int
	for _, l := range loadsOf(t, victim, r.job) {
		if l.task != task {
			continue
		}
		victimFiles++
		for _, o := range loadsOf(t, other, r.job) {
			if o.key() == l.key() {
				again++
				break
			}
		}
	}
	resumed := other.find(t, "resuming task", "task", task)
	switch {
	case len(resumed) > 0:
		t.Logf("worker-b resumed task %s %.1f s after the kill, from checkpoint %s", task, resumed[0].Time.Sub(killed).Seconds(), resumed[0].attr("checkpoint"))
	case victimFiles > again:
		t.Errorf("worker-victim loaded %d files of task %s that worker-b did not load again, but worker-b did not resume the task from a checkpoint", victimFiles-again, task)
	default:
		t.Logf("worker-victim died before the checkpoint of its only file of task %s; worker-b ran the task from its start", task)
	}
	t.Logf("worker-victim loaded %d files of task %s; worker-b loaded %d of them again", victimFiles, task, again)
	if dup > 1 {
		t.Errorf("%d files loaded twice; at most the one in flight when worker-victim died may be", dup)
	}
}

// TestKillLeadingMaster kills the leading master (SIGKILL) while the job
// runs; the standby becomes the leader and the job finishes, done once.
func TestKillLeadingMaster(t *testing.T) {
	t.Parallel()
	env, r, src, dst := started(t)
	start := time.Now()
	r.startMaster("master-1", shortSession)
	r.startMaster("master-2", shortSession)
	r.startWorker("worker-a", 2, longSession)
	r.startWorker("worker-b", 2, longSession)
	lead := r.leader(start)
	r.submit(src, dst, copyFlags...)
	r.waitLoads(1)
	lead.kill(t, syscall.SIGKILL)
	killed := time.Now()
	next := r.leader(killed)
	leading := next.find(t, "leading")
	t.Logf("%s led; killed; %s leads %.1f s later", lead.name, next.name, leading[len(leading)-1].Time.Sub(killed).Seconds())
	finish(t, env, r, src, dst)
	if n := len(next.find(t, "job done", "job", r.job)); n != 1 {
		t.Errorf("%s, the new leader, logged %q %d times, want once", next.name, "job done", n)
	}
}

// TestTargetRegionServerStops moves every region of the target table to a
// region server of the test's own, stops that server while files load and
// starts a new one: the loads retry against the regions' new servers and
// the job finishes. Not parallel: it changes the shared target cluster.
func TestTargetRegionServerStops(t *testing.T) {
	env, r, src, dst := started(t)
	ctx := t.Context()
	rs, err := env.Target.StartRegionServer(ctx)
	if err != nil {
		t.Fatalf("start a target region server: %v", err)
	}
	stopped := false
	t.Cleanup(func() {
		if !stopped {
			if err := env.Target.StopRegionServer(context.Background(), rs); err != nil {
				t.Logf("stop region server %s: %v", rs, err)
			}
		}
	})
	regions, err := env.Target.Regions(ctx, dst)
	if err != nil {
		t.Fatal(err)
	}
	moveAll(t, env.Target, regions, rs)
	t.Logf("moved the %d regions of %s to region server %s", len(regions), dst, rs)

	r.startMaster("master-1", longSession)
	r.startWorker("worker-a", 2, longSession)
	r.startWorker("worker-b", 2, longSession)
	r.submit(src, dst, copyFlags...)
	first := len(r.waitLoads(1))
	if err := env.Target.StopRegionServerNoWait(ctx, rs); err != nil {
		t.Fatalf("stop region server %s: %v", rs, err)
	}
	stopped = true
	t.Logf("stopped region server %s (holding every region of %s) after %d files loaded", rs, dst, first)
	again, err := env.Target.StartRegionServer(ctx)
	if err != nil {
		t.Fatalf("start a target region server again: %v", err)
	}
	t.Cleanup(func() {
		if err := env.Target.StopRegionServer(context.Background(), again); err != nil {
			t.Logf("stop region server %s: %v", again, err)
		}
	})
	t.Logf("started region server %s", again)
	s, _ := finish(t, env, r, src, dst)
	after := len(r.loads()) - first
	// The fault reached the loads: some load was sent to the stopped server
	// and retried elsewhere.
	dead := strings.Replace(strings.SplitN(rs, ",", 3)[0]+":"+strings.SplitN(rs, ",", 3)[1], ",", ":", 1)
	retried := 0
	for _, l := range r.workerLines("hbase: retrying", "op", "bulk load") {
		if strings.Contains(l.attr("err"), dead) {
			retried++
		}
	}
	if retried == 0 {
		t.Errorf("no bulk load was retried after failing on the stopped server %s: the test tested nothing", dead)
	}
	t.Logf("%d files loaded after the stop; %d bulk load attempts failed on %s and were retried; %d task retries in the report",
		after, retried, dead, s.Report.LoadRetries)
}

// moveAll moves regions to server, four at a time.
func moveAll(t *testing.T, c *testenv.Cluster, regions []testenv.Region, server string) {
	t.Helper()
	errs := make(chan error, len(regions))
	sem := make(chan struct{}, 4)
	for _, reg := range regions {
		sem <- struct{}{}
		go func() {
			defer func() { <-sem }()
			if _, err := c.Move(t.Context(), reg.EncodedName, server); err != nil {
				errs <- fmt.Errorf("move region %s to %s: %w", reg.EncodedName, server, err)
				return
			}
			errs <- nil
		}()
	}
	for range regions {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
}

// TestSourceDataNodeStops stops one of the source's three DataNodes while
// workers read the source's files (replication 2): reads fail over to the
// other replica and the job finishes. The DataNode starts again when the
// job is done. Not parallel: it changes the shared source cluster.
func TestSourceDataNodeStops(t *testing.T) {
	env, r, src, dst := started(t)
	ctx := t.Context()
	r.startMaster("master-1", longSession)
	r.startWorker("worker-a", 2, longSession)
	r.startWorker("worker-b", 2, longSession)
	r.submit(src, dst, copyFlags...)
	first := len(r.waitLoads(1))
	dn := env.Source.DataNodes[0]
	if err := env.Source.StopDataNode(ctx, dn); err != nil {
		t.Fatalf("stop source DataNode %s: %v", dn, err)
	}
	restarted := false
	restart := func() {
		if restarted {
			return
		}
		restarted = true
		rctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
		defer cancel()
		if err := env.Source.StartDataNode(rctx, dn); err != nil {
			t.Errorf("start source DataNode %s again: %v", dn, err)
		}
	}
	t.Cleanup(restart)
	t.Logf("stopped source DataNode %s after %d files loaded", dn, first)
	if err := r.wait(); err != nil {
		t.Fatalf("job %s did not finish: %v", r.job, err)
	}
	restart()
	s := r.assertDoneOnce()
	n := testsupport.Compare(t, env, testsupport.CompareSpec{SourceTable: src, TargetTable: dst, Mode: testsupport.Visible}).Cells
	r.logLoads(s)
	after := len(r.loads()) - first
	if after == 0 {
		t.Errorf("no file loaded after the DataNode stopped: the test tested nothing")
	}
	t.Logf("source and target equal: %d cells; %d files loaded after the stop", n, after)
}

// TestTargetRegionsSplitAndMove splits target regions and moves others to
// another region server while the job loads files: loads that meet a
// changed region re-split the file at the new boundaries or follow the
// region, and the target ends up the same as the source.
func TestTargetRegionsSplitAndMove(t *testing.T) {
	t.Parallel()
	env, r, src, dst := started(t)
	ctx := t.Context()
	r.startMaster("master-1", longSession)
	r.startWorker("worker-a", 2, longSession)
	r.startWorker("worker-b", 2, longSession)
	// A slower copy than the others': the splits and moves below take a
	// while (over 20 s on a loaded machine), and files must still be loading
	// when they are done. The limit is on bytes read: since tasks read only
	// the blocks they need (about the 48 MiB of input, not 2.3 times it),
	// 2MiB/s ended the copy in 24 s, before the splits did.
	r.submit(src, dst, "--task-size", "4MiB", "--bandwidth", "1MiB/s")
	first := len(r.waitLoads(1))
	splits, moves := 0, 0
	for v := 0x0c; v < 0x100; v += 0x20 {
		key := []byte(fmt.Sprintf("%02x", v))
		if err := env.Target.Split(ctx, dst, key); err != nil {
			t.Fatalf("split %s at %q: %v", dst, key, err)
		}
		splits++
		regions, err := env.Target.Regions(ctx, dst)
		if err != nil {
			t.Fatal(err)
		}
		for _, reg := range regions {
			if string(reg.StartKey) == string(key) {
				if _, err := env.Target.Move(ctx, reg.EncodedName, ""); err != nil {
					t.Fatalf("move region %s of %s: %v", reg.EncodedName, dst, err)
				}
				moves++
			}
		}
	}
	changed := len(r.loads())
	t.Logf("split %d target regions and moved %d while the job ran (%d files loaded before, %d by the end of the changes)", splits, moves, first, changed)
	finish(t, env, r, src, dst)
	// The changes reached the loads: files written for regions that split
	// meanwhile were re-split at the new boundaries.
	resplit := len(r.workerLines("bulkload: re-split file at new region boundaries"))
	relocated := len(r.workerLines("hbase: retrying", "op", "bulk load"))
	t.Logf("%d files re-split at new region boundaries, %d bulk load attempts retried elsewhere", resplit, relocated)
	if resplit == 0 {
		t.Errorf("no file was re-split at new region boundaries: the regions changed too late to test anything")
	}
}

// TestFrozenWorker stops a worker (SIGSTOP) in the middle of a task for
// longer than its session timeout, then lets it go on (SIGCONT). Its
// session expires meanwhile, its claim with it; another worker owns the
// task and finishes it. Thawed, the frozen worker finds its claim lost and
// drops the task: no file of that task loaded by it after the thaw.
func TestFrozenWorker(t *testing.T) {
	t.Parallel()
	env, r, src, dst := started(t)
	r.startMaster("master-1", longSession)
	frozen := r.startWorker("worker-frozen", 1, shortSession)
	other := r.startWorker("worker-b", 2, longSession)
	r.submit(src, dst, copyFlags...)

	task, frozenAt := r.stopMidTask(frozen)
	waitFor(t, stepDeadline, "another worker owning task "+task, func() bool {
		return len(other.find(t, "resuming task", "task", task)) > 0 || len(other.find(t, "task done", "task", task)) > 0
	})
	t.Logf("worker-b took task %s over %.1f s after the freeze", task, time.Since(frozenAt).Seconds())
	if rest := freezeTime - time.Since(frozenAt); rest > 0 {
		// The freeze's length is the fault itself, not a wait for a condition.
		select {
		case <-time.After(rest):
		case <-t.Context().Done():
		}
	}
	frozen.kill(t, syscall.SIGCONT)
	thawed := time.Now()
	t.Logf("thawed worker-frozen after %.1f s", thawed.Sub(frozenAt).Seconds())

	_, dup := finish(t, env, r, src, dst)
	waitFor(t, stepDeadline, "worker-frozen dropping task "+task, func() bool {
		return len(frozen.find(t, "claim lost; task stopped without writing more", "task", task)) > 0
	})
	// A load whose request was written before the freeze may answer after
	// the thaw, and be logged then: at most one, the load in flight. No
	// request can be written after the thaw: each is fenced by a send-by
	// time of half a session after its claim check, long past. When the
	// "file loaded" line says when its request was sent ("sent"), that must
	// be before the freeze.
	var late []fileLoad
	for _, l := range loadsOf(t, frozen, r.job) {
		if l.task == task && !l.at.Before(thawed) {
			late = append(late, l)
		}
	}
	for _, l := range late {
		if l.sent.IsZero() {
			t.Logf("worker-frozen logged loading %s of task %s at %v, %v after the thaw: the answer to a load sent before the freeze",
				l.path, task, l.at.Format(time.RFC3339Nano), l.at.Sub(thawed))
			continue
		}
		if !l.sent.Before(frozenAt) {
			t.Errorf("worker-frozen sent the load of %s of task %s at %v, after the freeze at %v", l.path, task, l.sent, frozenAt)
		}
	}
	if len(late) > 1 {
		t.Errorf("worker-frozen logged %d loads of task %s after the thaw; at most the one in flight at the freeze may be", len(late), task)
	}
	var others []string
	for _, l := range loadsOf(t, frozen, r.job) {
		if l.task != task && !l.at.Before(thawed) {
			others = append(others, l.task)
		}
	}
	t.Logf("after the thaw worker-frozen loaded %d files of tasks it claimed anew %v", len(others), others)
	if len(others) > 0 {
		for _, l := range frozen.find(t, "claimed task") {
			t.Logf("worker-frozen: %s", l.Raw)
		}
	}
	if dup > 1 {
		t.Errorf("%d files loaded twice; at most the one in flight when worker-frozen stopped may be", dup)
	}
}

// TestCancelJob cancels a running job: the workers stop its tasks, the
// job's work folder and snapshot are removed, the target holds only cells
// of the source in whole rows, and the job's report accounts for every
// file the workers loaded.
func TestCancelJob(t *testing.T) {
	t.Parallel()
	env, r, src, dst := started(t)
	ctx := t.Context()
	r.startMaster("master-1", longSession)
	r.startWorker("worker-a", 2, longSession)
	r.startWorker("worker-b", 2, longSession)
	r.submit(src, dst, copyFlags...)
	// Cancel while a task is half done. (A task's loads come in a burst once
	// its inputs are read, and workers see the cancel at their next look at
	// the jobs, so the task often finishes first: the log says how many
	// tasks stopped half-way.)
	w, task := r.waitMidTask()
	first := len(r.loads())
	cctx, cancel := context.WithTimeout(ctx, cmdDeadline)
	defer cancel()
	if out, err := r.jobCmd(cctx, "cancel"); err != nil {
		t.Fatalf("job cancel: %v (%s)", err, out)
	}
	t.Logf("cancelled job %s after %d files loaded, %s in the middle of task %s", r.job, first, w.name, task)
	// A cancel ends once no task is held: the workers stop at once, so
	// stepDeadline is plenty.
	err := r.waitUpTo(stepDeadline)
	if err == nil || !strings.Contains(err.Error(), "cancelled") {
		if s := r.status(); s.State == "cancelling" {
			t.Fatalf("job %s still cancelling after %v: %d tasks claimed (%+v), %s", r.job, stepDeadline, s.Tasks.Claimed, s.Tasks, s.Message)
		}
		t.Fatalf("job wait after cancel: %v, want an error that says cancelled", err)
	}
	for _, w := range r.workers {
		if len(w.find(t, "job no longer running; stopping its tasks here", "job", r.job)) == 0 {
			t.Errorf("%s did not log stopping the job's tasks", w.name)
		}
	}
	var s jobStatus
	waitFor(t, stepDeadline, "every claim of the cancelled job given up", func() bool {
		s = r.status()
		return s.Tasks.Claimed == 0
	})
	if s.State != "cancelled" || s.Report.Status != job.ReportCancelled {
		t.Errorf("job %s: state %q, report status %q, want cancelled", r.job, s.State, s.Report.Status)
	}
	waitFor(t, stepDeadline, "the cancelled job's snapshot and work folder removed", func() bool {
		return r.cleanedUp()
	})
	cells, rows := assertSubset(t, env, src, dst)
	loads := r.loads()
	if int64(len(loads)) != s.Report.FilesLoaded {
		t.Errorf("the workers logged %d files loaded, the report says %d", len(loads), s.Report.FilesLoaded)
	}
	if s.Report.FilesLoaded == 0 || s.Report.Cells == 0 {
		t.Errorf("report of the cancelled job says nothing was copied: %+v", s.Report)
	}
	half := map[string]bool{}
	for _, p := range r.workers {
		for _, t := range inFlight(t, p, r.job) {
			half[t] = true
		}
	}
	t.Logf("cancelled: %d/%d tasks done, %d stopped half-way; report %d files (%s, %d cells); target holds %d cells in %d rows, all of the source",
		s.Tasks.Done, s.Tasks.Total, len(half), s.Report.FilesLoaded, progress.Bytes(s.Report.BytesLoaded), s.Report.Cells, cells, rows)
}

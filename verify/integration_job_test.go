package verify_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"rangecopy/job"
	"rangecopy/jobkind"
	"rangecopy/progress"
	"rangecopy/registry"
	"rangecopy/testenv"
	"rangecopy/verify"
	"rangecopy/worker"
)

// jobRegistry opens a registry root of the test's own on the target's quorum.
func jobRegistry(t *testing.T, env *testenv.Env) *registry.Registry {
	t.Helper()
	_, tgt := clusters(t, env)
	reg, err := registry.Open(t.Context(), registry.Config{Servers: tgt.ZKQuorum, Root: "/rangecopy-test/" + testenv.UniqueName(t, "vj"), Logger: logger(t)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(reg.Close)
	return reg
}

// sameReport fails unless got found what want found: the same batches,
// counts, mismatched ranges and differences.
func sameReport(t *testing.T, got, want verify.Report) {
	t.Helper()
	if got.Batches != want.Batches || got.BatchesMatched != want.BatchesMatched || got.SourceCells != want.SourceCells ||
		got.TargetCells != want.TargetCells || got.SourceRows != want.SourceRows || got.TargetRows != want.TargetRows ||
		got.DifferenceCount != want.DifferenceCount || !slices.Equal(got.MismatchedRanges, want.MismatchedRanges) ||
		strings.Join(diffKeys(got), "\n") != strings.Join(diffKeys(want), "\n") || got.Equal() != want.Equal() {
		t.Fatalf("report differs from an uninterrupted run's:\n got %+v\nwant %+v", got, want)
	}
}

// differ writes one difference into the target so the reports have
// something to find.
func differ(t *testing.T, env *testenv.Env, dstTable string, row []byte) {
	t.Helper()
	if err := env.Target.Mutate(t.Context(), dstTable, []testenv.Cell{
		{Row: row, Family: []byte("cf1"), Qualifier: []byte("q1"), Timestamp: ts0 + 1000, Type: "Put", Value: []byte("overwritten")},
	}); err != nil {
		t.Fatal(err)
	}
}

func TestVerifyJobResumesAfterKill(t *testing.T) {
	env := testenv.Get(t)
	srcTable, dstTable, rows := setup(t, env, "verk", testenv.TableOptions{})
	differ(t, env, dstTable, rows[6])
	o := options(t, env, srcTable, dstTable, verify.ModeVisible)
	want := run(t, o)
	if want.Equal() {
		t.Fatal("the edit made no difference")
	}

	reg := jobRegistry(t, env)
	o.Registry = reg
	o.Parallelism = 1
	o.Bandwidth = 24 << 10 // slow enough to stop part way
	id := verify.JobID(o)
	ctx, cancel := context.WithCancel(t.Context())
	killed := make(chan struct{})
	go func() {
		defer close(killed)
		for ctx.Err() == nil {
			if c, err := reg.Count(ctx, id); err == nil && c.Done >= 2 {
				cancel()
				return
			}
			time.Sleep(20 * time.Millisecond)
		}
	}()
	start := time.Now()
	_, err := verify.Run(ctx, o)
	cancel()
	<-killed
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("killed run: %v, want context canceled", err)
	}
	first := time.Since(start)
	j, err := reg.Job(t.Context(), id)
	if err != nil {
		t.Fatal(err)
	}
	rec, err := job.DecodeRecord(j.Spec)
	if err != nil || rec.Kind != job.KindVerify || j.State != registry.JobRunning {
		t.Fatalf("job after the kill: %v kind %q state %v", err, rec.Kind, j.State)
	}
	counts, err := reg.Count(t.Context(), id)
	if err != nil {
		t.Fatal(err)
	}
	checkpointed, err := reg.CheckpointedTasks(t.Context(), id)
	if err != nil {
		t.Fatal(err)
	}
	total := counts.Pending + counts.Claimed + counts.Done + counts.Failed
	if counts.Done < 2 || counts.Done >= total {
		t.Fatalf("killed with %d of %d units done: not part way", counts.Done, total)
	}
	t.Logf("killed after %s: %d of %d units done, %d checkpointed", first.Round(time.Millisecond), counts.Done, total, len(checkpointed))

	o.Bandwidth = 0
	start = time.Now()
	var shown progress.Counters
	o.Progress = &shown
	got, err := verify.Run(t.Context(), o)
	if err != nil {
		t.Fatal(err)
	}
	// The progress counters follow the units: every one done at the end,
	// and the bytes this run read for them (the resumed units read none
	// here), within the report's total.
	if tt, td, br := shown.TasksTotal.Load(), shown.TasksDone.Load(), shown.BytesRead.Load(); tt != int64(total) || td != int64(total) || br <= 0 || br > got.BytesRead {
		t.Errorf("progress: %d of %d units done, %d bytes read; want %d of %d, bytes in (0, %d]", td, tt, br, total, total, got.BytesRead)
	}
	o.Progress = nil
	t.Logf("resumed in %s: %d units, %d resumed, %d hashed", time.Since(start).Round(time.Millisecond), got.Units, got.UnitsResumed, got.UnitsHashed)
	if got.Units != total || got.UnitsResumed != counts.Done || got.UnitsHashed != total-counts.Done || got.Job != id {
		t.Errorf("resumed run: %d units, %d resumed, %d hashed; want %d, %d, %d", got.Units, got.UnitsResumed, got.UnitsHashed, total, counts.Done, total-counts.Done)
	}
	if got.SourceSnapshot != rec.Snapshot || got.TargetSnapshot != rec.Verify.TargetSnapshot {
		t.Errorf("resumed run read snapshots %s, %s; the job pinned %s, %s", got.SourceSnapshot, got.TargetSnapshot, rec.Snapshot, rec.Verify.TargetSnapshot)
	}
	sameReport(t, got, want)
	j, err = reg.Job(t.Context(), id)
	if err != nil || j.State != registry.JobDone {
		t.Fatalf("job after the resumed run: %v, state %v", err, j.State)
	}
	if b, err := reg.JobData(t.Context(), id, registry.NodeVerification); err != nil || len(b) == 0 {
		t.Errorf("stored report: %d bytes, %v", len(b), err)
	}

	// Run again once ended: a new verification, every unit hashed anew.
	again, err := verify.Run(t.Context(), o)
	if err != nil {
		t.Fatal(err)
	}
	if again.UnitsResumed != 0 || again.UnitsHashed != total || again.SourceSnapshot == rec.Snapshot {
		t.Errorf("run after the end: %d resumed, %d hashed, snapshot %s (was %s)", again.UnitsResumed, again.UnitsHashed, again.SourceSnapshot, rec.Snapshot)
	}
	sameReport(t, again, want)
}

func TestVerifyJobOnWorkerAgent(t *testing.T) {
	env := testenv.Get(t)
	srcTable, dstTable, rows := setup(t, env, "vera", testenv.TableOptions{})
	differ(t, env, dstTable, rows[9])
	o := options(t, env, srcTable, dstTable, verify.ModeRaw)
	want := run(t, o)

	reg := jobRegistry(t, env)
	o.Registry = reg
	actx, stop := context.WithCancel(t.Context())
	agentDone := make(chan error, 1)
	go func() {
		agentDone <- worker.RunAgent(actx, worker.AgentConfig{Registry: reg, ID: "agent-1", Capacity: 2, Refresh: 200 * time.Millisecond,
			Logger: logger(t), Kinds: map[string]jobkind.Server{job.KindVerify: verify.UnitServer{}}})
	}()
	defer func() {
		stop()
		if err := <-agentDone; err != nil {
			t.Errorf("agent: %v", err)
		}
	}()
	o.LeaveUnits = true
	start := time.Now()
	got, err := verify.Run(t.Context(), o)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("verified by the agent in %s: %d units", time.Since(start).Round(time.Millisecond), got.Units)
	if got.Units == 0 || got.UnitsHashed != 0 || got.UnitsResumed != 0 {
		t.Errorf("%d units, %d hashed here, %d resumed; want all hashed by the agent", got.Units, got.UnitsHashed, got.UnitsResumed)
	}
	done, err := reg.TasksWith(t.Context(), got.Job, registry.StatusDone)
	if err != nil || len(done) != got.Units {
		t.Fatalf("%d units done of %d: %v", len(done), got.Units, err)
	}
	for _, u := range done {
		res, err := reg.TaskResult(t.Context(), got.Job, u)
		if err != nil || res.Worker != "agent-1" {
			t.Errorf("unit %s done by %q (%v), want agent-1", u, res.Worker, err)
		}
	}
	sameReport(t, got, want)
}

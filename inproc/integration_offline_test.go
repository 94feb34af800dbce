package inproc

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"rangecopy/internal/testsupport"
	"rangecopy/job"
	"rangecopy/testenv"
)

// TestCopyTargetRegionOffline copies into a target table one of whose
// regions is offline (closed, as a region stuck in transition is): the copy
// must not sit retrying for ever. Each file's loads give up after
// LoadRetryFor, the task's attempts after that, and the copy ends with the
// failed task named and resumable; once the region is open again, a resume
// finishes the job and the target equals the source.
func TestCopyTargetRegionOffline(t *testing.T) {
	env := testenv.Get(t)
	ctx := t.Context()
	table := createSource(t, env, "offline")
	writeRounds(t, env.Source, table, binaryRows(80), 2, time.Now().UnixMilli()-100_000, true)
	if err := env.Target.CreateTable(ctx, table, sampleFamilies, sampleSplits); err != nil {
		t.Fatal(err)
	}
	dropTargetLater(t, env, table)
	regions, err := env.Target.Regions(ctx, table)
	if err != nil || len(regions) != 4 {
		t.Fatalf("target regions %v, %v; want 4", regions, err)
	}
	offline := regions[2]
	if err := env.Target.Unassign(ctx, offline.EncodedName); err != nil {
		t.Fatal(err)
	}
	assigned := false
	t.Cleanup(func() {
		if !assigned {
			env.Target.Assign(context.Background(), offline.EncodedName)
		}
	})

	o := testOptions(t, env, job.Spec{Table: table})
	o.LoadRetryFor = 10 * time.Second
	// Bounded by the test: a copy that retries for ever fails here.
	cctx, cancel := context.WithTimeout(ctx, 5*time.Minute)
	defer cancel()
	start := time.Now()
	rep, err := Copy(cctx, o)
	took := time.Since(start)
	if cctx.Err() != nil {
		t.Fatalf("the copy into a table with an offline region was still running after %s", took.Round(time.Second))
	}
	if !errors.Is(err, ErrTasksFailed) || rep.TasksFailed != 1 || rep.TasksDone != 3 {
		t.Fatalf("copy with a target region offline: %v (report %+v); want 1 task failed, 3 done", err, rep)
	}
	if !strings.Contains(err.Error(), "giving up after") {
		t.Errorf("the error does not say the loads gave up: %v", err)
	}
	t.Logf("with region %s offline the copy ended after %.1f s: %v", offline.EncodedName, took.Seconds(), err)

	if err := env.Target.Assign(ctx, offline.EncodedName); err != nil {
		t.Fatal(err)
	}
	assigned = true
	o.Resume = rep.Job
	rep, err = Copy(ctx, o)
	if err != nil {
		t.Fatalf("resume once the region is open: %v", err)
	}
	n := testsupport.Compare(t, env, testsupport.CompareSpec{SourceTable: table, TargetTable: table, Mode: testsupport.Raw}).Cells
	assertFinished(t, env, o, rep)
	t.Logf("resumed: %d cells equal", n)
}

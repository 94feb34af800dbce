package registry

import (
	"errors"
	"testing"
)

func TestJobs(t *testing.T) {
	server, root := testZK(t)
	r := open(t, server, root)
	ctx := testCtx(t)

	_, err := r.CreateJob(ctx, "job-1", []byte("spec-1"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.CreateJob(ctx, "job-1", nil); !errors.Is(err, ErrExists) {
		t.Fatalf("second create: %v, want ErrExists", err)
	}
	if _, err := r.CreateJob(ctx, "job/2", nil); err == nil {
		t.Fatal("created a job with a bad id")
	}
	if _, err := r.CreateJob(ctx, "job-2", make([]byte, MaxSpec+1)); !errors.Is(err, ErrTooLarge) {
		t.Fatalf("oversized spec: %v", err)
	}
	if _, err := r.CreateJob(ctx, "job-0", nil); err != nil {
		t.Fatal(err)
	}
	ids, err := r.Jobs(ctx)
	if err != nil || len(ids) != 2 || ids[0] != "job-0" || ids[1] != "job-1" {
		t.Fatalf("Jobs = %v, %v", ids, err)
	}
	got, err := r.Job(ctx, "job-1")
	if err != nil || got.State != JobPending || string(got.Spec) != "spec-1" || got.Version != 0 {
		t.Fatalf("Job = %+v, %v", got, err)
	}
	if _, err := r.Job(ctx, "nope"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("missing job: %v", err)
	}

	// Two masters read the job; the first to write wins, the other loses
	// with ErrConflict and must read again.
	a, _ := r.Job(ctx, "job-1")
	b, _ := r.Job(ctx, "job-1")
	a2, err := r.SetJobState(ctx, a, JobPlanning, "")
	if err != nil || a2.State != JobPlanning || a2.Version != 1 {
		t.Fatalf("SetJobState = %+v, %v", a2, err)
	}
	if _, err := r.SetJobState(ctx, b, JobCancelled, "operator"); !errors.Is(err, ErrConflict) || Classify(err) != ActionRetry {
		t.Fatalf("stale write: %v, want ErrConflict", err)
	}
	if _, err := r.SetJobState(ctx, a2, JobDone, ""); !errors.Is(err, ErrTransition) {
		t.Fatalf("planning to done: %v, want ErrTransition", err)
	}
	for _, to := range []JobState{JobRunning, JobPaused, JobRunning, JobCancelling, JobCancelled} {
		if a2, err = r.SetJobState(ctx, a2, to, "to "+to.String()); err != nil {
			t.Fatalf("to %v: %v", to, err)
		}
	}
	got, err = r.Job(ctx, "job-1")
	if err != nil || got.State != JobCancelled || got.Message != "to cancelled" || string(got.Spec) != "spec-1" || got.Version != a2.Version {
		t.Fatalf("after transitions: %+v, %v", got, err)
	}
	if _, err := r.SetJobState(ctx, got, JobRunning, ""); !errors.Is(err, ErrTransition) {
		t.Fatalf("out of a final state: %v", err)
	}
	if err := r.DeleteJob(ctx, "job-1"); err != nil {
		t.Fatal(err)
	}
	if _, err := r.Job(ctx, "job-1"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("deleted job: %v", err)
	}
	if err := r.DeleteJob(ctx, "job-1"); err != nil {
		t.Fatalf("deleting twice: %v", err)
	}
}

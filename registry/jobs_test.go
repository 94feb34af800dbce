package registry

import (
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
)

func TestJobs(t *testing.T) {
	server, root := testZK(t)
	r := open(t, server, root)
	ctx := t.Context()

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

// Concurrent read-decide-write loops: every decision lands exactly once.
func TestUpdateJobRaces(t *testing.T) {
	server, root := testZK(t)
	r := open(t, server, root)
	ctx := t.Context()
	if _, err := r.CreateJob(ctx, "j", []byte("spec")); err != nil {
		t.Fatal(err)
	}
	const n = 8
	var wg sync.WaitGroup
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, err := r.UpdateJob(ctx, "j", func(j Job) (JobState, string, error) {
				// Each updater appends its mark to the message.
				return JobPending, j.Message + fmt.Sprintf("[%d]", i), nil
			})
			if err != nil {
				t.Errorf("updater %d: %v", i, err)
			}
		}()
	}
	wg.Wait()
	j, err := r.Job(ctx, "j")
	if err != nil || j.Version != n || string(j.Spec) != "spec" {
		t.Fatalf("job after %d updates: %+v, %v", n, j, err)
	}
	for i := 0; i < n; i++ {
		if !strings.Contains(j.Message, fmt.Sprintf("[%d]", i)) {
			t.Errorf("update %d lost: message %q", i, j.Message)
		}
	}
	refused := errors.New("no")
	if _, err := r.UpdateJob(ctx, "j", func(Job) (JobState, string, error) { return 0, "", refused }); err != refused {
		t.Fatalf("decide's error: %v", err)
	}
	if _, err := r.UpdateJob(ctx, "j", func(Job) (JobState, string, error) { return JobDone, "", nil }); !errors.Is(err, ErrTransition) {
		t.Fatalf("pending to done: %v", err)
	}
}

// The longest root and job id still create a job, all bucket folders in one
// transaction, under the 1 MB packet limit.
func TestLongestJobPaths(t *testing.T) {
	server, root := testZK(t)
	long := root + "/" + strings.Repeat("r", MaxRootLen-len(root)-1)
	r := open(t, server, long)
	ctx := t.Context()
	id := strings.Repeat("j", MaxJobIDLen)
	if _, err := r.CreateJob(ctx, id, make([]byte, 1000)); err != nil {
		t.Fatal(err)
	}
	if err := r.AddTasks(ctx, id, []Task{{ID: strings.Repeat("t", MaxIDLen), Spec: []byte("s")}}); err != nil {
		t.Fatal(err)
	}
	if err := r.DeleteJob(ctx, id); err != nil {
		t.Fatal(err)
	}
	if _, err := r.CreateJob(ctx, id+"j", nil); err == nil {
		t.Fatal("job id over MaxJobIDLen accepted")
	}
}

package registry

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// setupJob creates job "j" with the given task ids.
func setupJob(t *testing.T, r *Registry, ids ...string) {
	t.Helper()
	ctx := t.Context()
	if _, err := r.CreateJob(ctx, "j", nil); err != nil {
		t.Fatal(err)
	}
	var tasks []Task
	for _, id := range ids {
		tasks = append(tasks, Task{ID: id, Spec: []byte("spec " + id)})
	}
	if err := r.AddTasks(ctx, "j", tasks); err != nil {
		t.Fatal(err)
	}
}

func TestClaimLifecycle(t *testing.T) {
	server, root := testZK(t)
	r := open(t, server, root)
	ctx := t.Context()
	setupJob(t, r, "t-000", "t-001", "t-002")

	c, err := r.ClaimTask(ctx, "j", "t-000", "w1")
	if err != nil {
		t.Fatal(err)
	}
	if c.Session() != r.SessionID() || string(c.Spec()) != "spec t-000" || c.Epoch() != 1 {
		t.Fatalf("claim: session %#x (registry %#x), spec %q, epoch %d", c.Session(), r.SessionID(), c.Spec(), c.Epoch())
	}
	if _, err := r.ClaimTask(ctx, "j", "t-000", "w2"); !errors.Is(err, ErrClaimed) || !strings.Contains(err.Error(), "w1") {
		t.Fatalf("second claim: %v, want ErrClaimed naming w1", err)
	}
	if _, err := r.ClaimTask(ctx, "j", "t-999", "w1"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("claim of a missing task: %v", err)
	}
	if b, err := r.TaskCheckpoint(ctx, "j", "t-000"); err != nil || b != nil {
		t.Fatalf("checkpoint before any save: %q, %v", b, err)
	}
	for _, cp := range []string{"cp1", "cp2"} {
		if err := c.SaveCheckpoint(ctx, []byte(cp)); err != nil {
			t.Fatalf("save %s: %v", cp, err)
		}
		if b, err := r.TaskCheckpoint(ctx, "j", "t-000"); err != nil || string(b) != cp {
			t.Fatalf("checkpoint = %q, %v, want %s", b, err, cp)
		}
	}
	if err := c.SaveCheckpoint(ctx, make([]byte, MaxCheckpoint+1)); !errors.Is(err, ErrTooLarge) {
		t.Fatalf("oversized checkpoint: %v", err)
	}
	if ok, err := c.Valid(ctx); !ok || err != nil {
		t.Fatalf("Valid = %v, %v", ok, err)
	}
	if s, _ := r.TaskStatus(ctx, "j", "t-000"); s != StatusClaimed {
		t.Fatalf("status %v, want claimed", s)
	}

	// Release, then claim again: the epoch moves and the old claim is dead.
	if err := c.Release(ctx); err != nil {
		t.Fatal(err)
	}
	if ok, _ := c.Valid(ctx); ok {
		t.Fatal("released claim still valid")
	}
	if err := c.SaveCheckpoint(ctx, []byte("late")); !errors.Is(err, ErrLostClaim) {
		t.Fatalf("save after release: %v, want ErrLostClaim", err)
	}
	c2, err := r.ClaimTask(ctx, "j", "t-000", "w2")
	if err != nil || c2.Epoch() != 2 {
		t.Fatalf("claim again: epoch %v, %v", c2, err)
	}
	if b, _ := r.TaskCheckpoint(ctx, "j", "t-000"); string(b) != "cp2" {
		t.Fatalf("checkpoint kept for the next holder: %q", b)
	}
	if err := c2.Done(ctx); err != nil {
		t.Fatal(err)
	}
	if err := c2.Done(ctx); !errors.Is(err, ErrLostClaim) {
		t.Fatalf("done twice: %v", err)
	}
	// A retry after an answer lost in transit (the claim does not know it
	// ended) finds its own result and succeeds.
	c2.mu.Lock()
	c2.ended = false
	c2.mu.Unlock()
	if err := c2.Done(ctx); err != nil {
		t.Fatalf("retried done: %v", err)
	}
	if _, err := r.ClaimTask(ctx, "j", "t-000", "w3"); !errors.Is(err, ErrFinished) {
		t.Fatalf("claim of a done task: %v, want ErrFinished", err)
	}
	if res, err := r.TaskResult(ctx, "j", "t-000"); err != nil || res != (Result{Status: StatusDone, Worker: "w2"}) {
		t.Fatalf("result = %+v, %v", res, err)
	}
	if err := r.ResetTask(ctx, "j", "t-000"); !errors.Is(err, ErrFinished) {
		t.Fatalf("reset of a done task: %v", err)
	}

	// A failed task keeps its error, is not claimed again until reset.
	c3, err := r.ClaimTask(ctx, "j", "t-001", "w1")
	if err != nil {
		t.Fatal(err)
	}
	long := strings.Repeat("x", 2*MaxMessage)
	if err := c3.Fail(ctx, fmt.Errorf("hfile corrupt: %s", long)); err != nil {
		t.Fatal(err)
	}
	res, err := r.TaskResult(ctx, "j", "t-001")
	if err != nil || res.Status != StatusFailed || len(res.Message) > MaxMessage || !strings.HasPrefix(res.Message, "hfile corrupt") {
		t.Fatalf("failed result: %v, %d bytes, %v", res.Status, len(res.Message), err)
	}
	if _, err := r.ClaimTask(ctx, "j", "t-001", "w1"); !errors.Is(err, ErrFinished) {
		t.Fatalf("claim of a failed task: %v", err)
	}
	if err := r.ResetTask(ctx, "j", "t-001"); err != nil {
		t.Fatal(err)
	}
	if _, err := r.TaskResult(ctx, "j", "t-001"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("result after reset: %v", err)
	}
	if _, err := r.ClaimTask(ctx, "j", "t-001", "w1"); err != nil {
		t.Fatalf("claim after reset: %v", err)
	}
	cl, err := r.Claimable(ctx, "j", Bucket("t-002"))
	if err != nil || len(cl) != 1 || cl[0] != "t-002" {
		t.Fatalf("Claimable = %v, %v", cl, err)
	}
	counts, err := r.Count(ctx, "j")
	if err != nil || counts != (Counts{Tasks: 3, Pending: 1, Claimed: 1, Done: 1}) {
		t.Fatalf("Count = %+v, %v", counts, err)
	}
	// The buckets of the job's tasks alone count the same; one of them
	// alone counts its task.
	ids, err := r.Tasks(ctx, "j")
	if err != nil {
		t.Fatal(err)
	}
	buckets := TaskBuckets(ids)
	if len(buckets) == 0 || len(buckets) > 3 || !slices.IsSorted(buckets) {
		t.Fatalf("TaskBuckets(%v) = %v", ids, buckets)
	}
	if c, err := r.CountBuckets(ctx, "j", buckets); err != nil || c != counts {
		t.Fatalf("CountBuckets(%v) = %+v, %v; Count %+v", buckets, c, err, counts)
	}
	if c, err := r.CountBuckets(ctx, "j", []int{Bucket("t-002")}); err != nil || c.Pending < 1 || c.Tasks >= 3 && len(buckets) > 1 {
		t.Fatalf("CountBuckets of t-002's bucket = %+v, %v", c, err)
	}
	for _, s := range []Status{StatusDone, StatusClaimed} {
		all, err1 := r.TasksWith(ctx, "j", s)
		in, err2 := r.TasksWithIn(ctx, "j", s, buckets)
		if err1 != nil || err2 != nil || len(all) != 1 || !slices.Equal(all, in) {
			t.Fatalf("tasks %v: %v, %v in every bucket; %v, %v in the tasks' buckets", s, all, err1, in, err2)
		}
	}
	if all, err := r.CheckpointedTasks(ctx, "j"); err != nil {
		t.Fatal(err)
	} else if in, err := r.CheckpointedTasksIn(ctx, "j", buckets); err != nil || !slices.Equal(all, in) {
		t.Fatalf("checkpointed: %v in every bucket; %v, %v in the tasks' buckets", all, in, err)
	}
	if _, err := r.CountBuckets(ctx, "j", []int{Buckets}); err == nil {
		t.Fatal("CountBuckets of a bucket out of range: no error")
	}
}

// Many workers, each in its own session, race for one task: one wins.
func TestClaimExclusive(t *testing.T) {
	server, root := testZK(t)
	const n = 8
	regs := make([]*Registry, n)
	for i := range regs {
		regs[i] = open(t, server, root)
	}
	setupJob(t, regs[0], "hot-000")
	ctx := t.Context()
	for round := 0; round < 3; round++ {
		var (
			wg      sync.WaitGroup
			mu      sync.Mutex
			winners []*Claim
			errs    []error
		)
		for i, r := range regs {
			wg.Add(1)
			go func() {
				defer wg.Done()
				c, err := r.ClaimTask(ctx, "j", "hot-000", fmt.Sprintf("w%d", i))
				mu.Lock()
				defer mu.Unlock()
				if err == nil {
					winners = append(winners, c)
				} else {
					errs = append(errs, err)
				}
			}()
		}
		wg.Wait()
		if len(winners) != 1 {
			t.Fatalf("round %d: %d winners", round, len(winners))
		}
		for _, err := range errs {
			if !errors.Is(err, ErrClaimed) {
				t.Errorf("round %d: loser's error %v, want ErrClaimed", round, err)
			}
		}
		if err := winners[0].Release(ctx); err != nil {
			t.Fatal(err)
		}
	}
}

// A claim vanishes with its session; another worker then claims the task and
// resumes from its checkpoint.
func TestClaimVanishesWithSession(t *testing.T) {
	server, root := testZK(t)
	r1 := open(t, server, root)
	r2 := open(t, server, root)
	setupJob(t, r1, "t-000")
	ctx := t.Context()
	c1, err := r1.ClaimTask(ctx, "j", "t-000", "w1")
	if err != nil {
		t.Fatal(err)
	}
	if err := c1.SaveCheckpoint(ctx, []byte("half")); err != nil {
		t.Fatal(err)
	}
	if _, err := r2.ClaimTask(ctx, "j", "t-000", "w2"); !errors.Is(err, ErrClaimed) {
		t.Fatalf("claim while held: %v", err)
	}
	r1.Close()
	closedWithin(t, c1.Lost(), 10*time.Second, "the closed registry's claim to be lost")
	var c2 *Claim
	waitFor(t, 30*time.Second, "the claim to vanish with the session", func() bool {
		c2, err = r2.ClaimTask(ctx, "j", "t-000", "w2")
		if err != nil && !errors.Is(err, ErrClaimed) {
			t.Fatalf("claim: %v", err)
		}
		return err == nil
	})
	if b, err := r2.TaskCheckpoint(ctx, "j", "t-000"); err != nil || string(b) != "half" {
		t.Fatalf("checkpoint for the next holder: %q, %v", b, err)
	}
	if err := c2.Done(ctx); err != nil {
		t.Fatal(err)
	}
}

// A claim whose node an operator deletes is lost at once: Lost closes, Valid
// is false and writes are refused.
func TestClaimNodeDeleted(t *testing.T) {
	server, root := testZK(t)
	r := open(t, server, root)
	admin := open(t, server, root)
	setupJob(t, r, "t-000", "t-001")
	ctx := t.Context()
	c, err := r.ClaimTask(ctx, "j", "t-000", "w1")
	if err != nil {
		t.Fatal(err)
	}
	select {
	case <-c.Lost():
		t.Fatal("new claim already lost")
	default:
	}
	if err := admin.conn.Delete(admin.p.claim("j", "t-000"), -1); err != nil {
		t.Fatal(err)
	}
	closedWithin(t, c.Lost(), 30*time.Second, "Lost after the claim node was deleted")
	if ok, err := c.Valid(ctx); ok || err != nil {
		t.Fatalf("Valid = %v, %v", ok, err)
	}
	if err := c.SaveCheckpoint(ctx, []byte("x")); !errors.Is(err, ErrLostClaim) {
		t.Fatalf("save: %v, want ErrLostClaim", err)
	}
	// Lost also closes when the claim ends normally.
	c2, err := r.ClaimTask(ctx, "j", "t-001", "w1")
	if err != nil {
		t.Fatal(err)
	}
	if err := c2.Done(ctx); err != nil {
		t.Fatal(err)
	}
	closedWithin(t, c2.Lost(), 30*time.Second, "Lost after Done")
}

// Workers drain a job with ClaimAny: every task is done exactly once.
func TestClaimAnyDrainsJob(t *testing.T) {
	server, root := testZK(t)
	const tasks, workers = 60, 4
	regs := make([]*Registry, workers)
	for i := range regs {
		regs[i] = open(t, server, root)
	}
	var ids []string
	for i := 0; i < tasks; i++ {
		ids = append(ids, fmt.Sprintf("r%02d-000", i))
	}
	setupJob(t, regs[0], ids...)
	ctx := t.Context()
	var (
		wg   sync.WaitGroup
		mu   sync.Mutex
		done = map[string]string{}
	)
	for i, r := range regs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			w := fmt.Sprintf("w%d", i)
			for {
				c, err := r.ClaimAny(ctx, "j", w, i*Buckets/workers)
				if errors.Is(err, ErrNotFound) {
					return
				}
				if err != nil {
					t.Errorf("%s: %v", w, err)
					return
				}
				mu.Lock()
				if prev, ok := done[c.Task()]; ok {
					t.Errorf("task %s claimed by %s after %s finished it", c.Task(), w, prev)
				}
				done[c.Task()] = w
				mu.Unlock()
				if err := c.Done(ctx); err != nil {
					t.Errorf("%s: done %s: %v", w, c.Task(), err)
					return
				}
			}
		}()
	}
	wg.Wait()
	if len(done) != tasks {
		t.Fatalf("%d tasks done, want %d", len(done), tasks)
	}
	c, err := regs[0].Count(ctx, "j")
	if err != nil || c != (Counts{Tasks: tasks, Done: tasks}) {
		t.Fatalf("Count = %+v, %v", c, err)
	}
}

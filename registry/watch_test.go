package registry

import (
	"context"
	"testing"
	"time"
)

func TestWatchJob(t *testing.T) {
	server, root := testZK(t)
	ctx := t.Context()
	master := open(t, server, root)
	worker := open(t, server, root)
	setupJob(t, master, "t-000", "t-001")
	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	changes, err := worker.WatchJob(wctx, "j")
	if err != nil {
		t.Fatal(err)
	}
	step := func(what string, do func()) {
		t.Helper()
		drain(changes)
		do()
		closedWithin(t, changes, 30*time.Second, "an event after "+what)
	}
	j, _ := master.Job(ctx, "j")
	step("a state change", func() {
		if j, err = master.SetJobState(ctx, j, JobPlanning, ""); err != nil {
			t.Fatal(err)
		}
	})
	step("tasks added", func() {
		if err := master.AddTasks(ctx, "j", []Task{{ID: "t-002"}}); err != nil {
			t.Fatal(err)
		}
	})
	var c *Claim
	step("a claim", func() {
		if c, err = worker.ClaimTask(ctx, "j", "t-000", "w"); err != nil {
			t.Fatal(err)
		}
	})
	step("a result", func() {
		if err := c.Done(ctx); err != nil {
			t.Fatal(err)
		}
	})
	other := open(t, server, root)
	if _, err := other.ClaimTask(ctx, "j", "t-001", "w2"); err != nil {
		t.Fatal(err)
	}
	step("a claim vanishing with its session", other.Close)
	step("a pause", func() {
		if j, err = master.SetJobState(ctx, j, JobPaused, "operator"); err != nil {
			t.Fatal(err)
		}
	})
	// Deleting the job closes the channel.
	if err := master.DeleteJob(ctx, "j"); err != nil {
		t.Fatal(err)
	}
	deadline := time.After(30 * time.Second)
	for open := true; open; {
		select {
		case _, open = <-changes:
		case <-deadline:
			t.Fatal("watch channel not closed after the job was deleted")
		}
	}
	if _, err := worker.WatchJob(ctx, "j"); err == nil {
		t.Fatal("watching a missing job")
	}
}

func TestWatchAllJobs(t *testing.T) {
	server, root := testZK(t)
	ctx := t.Context()
	master := open(t, server, root)
	worker := open(t, server, root)
	wctx, cancel := context.WithCancel(ctx)
	changes, err := worker.WatchAllJobs(wctx)
	if err != nil {
		t.Fatal(err)
	}
	step := func(what string, do func()) {
		t.Helper()
		drain(changes)
		do()
		closedWithin(t, changes, 30*time.Second, "an event after "+what)
	}
	step("a job registered before any other", func() { setupJob(t, master, "t-000") })
	j, _ := master.Job(ctx, "j")
	step("a state change", func() {
		if j, err = master.SetJobState(ctx, j, JobPlanning, ""); err != nil {
			t.Fatal(err)
		}
	})
	var c *Claim
	step("a claim", func() {
		if c, err = worker.ClaimTask(ctx, "j", "t-000", "w"); err != nil {
			t.Fatal(err)
		}
	})
	step("a result", func() {
		if err := c.Done(ctx); err != nil {
			t.Fatal(err)
		}
	})
	step("a second job", func() {
		if _, err := master.CreateJob(ctx, "j2", nil); err != nil {
			t.Fatal(err)
		}
	})
	step("a job removed", func() {
		if err := master.DeleteJob(ctx, "j"); err != nil {
			t.Fatal(err)
		}
	})
	j2, _ := master.Job(ctx, "j2")
	step("a state change of the second", func() {
		if _, err := master.SetJobState(ctx, j2, JobPlanning, ""); err != nil {
			t.Fatal(err)
		}
	})
	cancel()
	deadline := time.After(30 * time.Second)
	for open := true; open; {
		select {
		case _, open = <-changes:
		case <-deadline:
			t.Fatal("channel not closed after its context ended")
		}
	}
}

func TestPacer(t *testing.T) {
	ch := make(chan struct{}, 1)
	p := &Pacer{Changes: ch, Period: time.Hour, MinGap: time.Millisecond}
	ch <- struct{}{}
	if !p.Wait(t.Context()) {
		t.Fatal("a change: Wait said the period passed")
	}
	ch <- struct{}{}
	if !p.Wait(t.Context()) {
		t.Fatal("a second change: Wait said the period passed")
	}
	close(ch)
	if p.Wait(t.Context()) || p.Changes != nil {
		t.Fatal("a closed watch: Wait reported a change, or kept the channel")
	}
	// With the watch gone only the period (or the end of ctx) wakes it.
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if p.Wait(ctx) {
		t.Fatal("an ended context: Wait reported a change")
	}
	short := &Pacer{Period: time.Millisecond}
	if short.Wait(t.Context()) {
		t.Fatal("no watch: Wait reported a change")
	}
}

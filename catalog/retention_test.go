package catalog

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"rangecopy/job"
)

func TestPruneAudit(t *testing.T) {
	clk := newClock()
	eachCatalog(t, Options{Now: clk.Now}, func(t *testing.T, c *Catalog) {
		ctx := testContext(t)
		start := clk.Now()
		for i := range 25 {
			if _, err := c.AppendAudit(ctx, AuditEntry{Method: "POST", Path: fmt.Sprintf("/x/%d", i), Status: 200}); err != nil {
				t.Fatal(err)
			}
			clk.Add(time.Minute)
		}
		// Entries 0..9 are older than the cut.
		cut := start.Add(10 * time.Minute)
		var batches []int
		for {
			n, err := c.PruneAudit(ctx, cut, 4)
			if err != nil {
				t.Fatal(err)
			}
			batches = append(batches, n)
			if n < 4 {
				break
			}
		}
		if !slices.Equal(batches, []int{4, 4, 2}) {
			t.Errorf("batches %v, want [4 4 2]", batches)
		}
		p, err := c.ListAudit(ctx, "", "", MaxPageSize)
		if err != nil {
			t.Fatal(err)
		}
		if len(p.Entries) != 15 || p.Entries[14].Path != "/x/10" || p.Entries[0].Path != "/x/24" {
			t.Errorf("left %d entries, oldest %q", len(p.Entries), p.Entries[len(p.Entries)-1].Path)
		}
		if n, err := c.PruneAudit(ctx, cut, 0); n != 0 || err != nil {
			t.Errorf("pruning again: %d, %v", n, err)
		}
	})
}

func TestPruneJobs(t *testing.T) {
	clk := newClock()
	eachCatalog(t, Options{Now: clk.Now}, func(t *testing.T, c *Catalog) {
		ctx := testContext(t)
		for _, n := range []string{"dc1", "dc2"} {
			if _, err := c.CreateCluster(ctx, Cluster{Name: n, ZKQuorum: "zk:2181"}); err != nil {
				t.Fatal(err)
			}
		}
		// old-0..old-5 end an hour before the cut; old-running is as old but runs;
		// young ends after the cut.
		report := JSONText(`{"bytes": 1}`)
		mk := func(id string, st job.State) {
			t.Helper()
			if _, _, err := c.CreateJob(ctx, testJob(id)); err != nil {
				t.Fatal(err)
			}
			if err := c.AppendJobSamples(ctx, []JobSample{{JobID: id, BytesDone: 1}, {JobID: id, BytesDone: 2}}); err != nil {
				t.Fatal(err)
			}
			u := JobUpdate{State: StateOf(st), Message: "x"}
			if st.Final() {
				u.FinalReport = &report
			}
			if _, err := c.UpdateJob(ctx, id, u); err != nil {
				t.Fatal(err)
			}
		}
		for i := range 6 {
			mk(fmt.Sprintf("old-%d", i), job.StateDone)
			clk.Add(time.Second)
		}
		mk("old-running", job.StateRunning)
		mk("old-failed", job.StateFailed)
		if _, err := c.UpdateJob(ctx, "old-0", JobUpdate{State: JobLost()}); err != nil {
			t.Fatal(err)
		}
		// A relocation references old-1 from a window that still runs, old-2 from one
		// that finished after the cut and old-3 from one that finished before it.
		r, err := c.CreateRelocation(ctx, testRelocation("ns:t1"), nil)
		if err != nil {
			t.Fatal(err)
		}
		before := clk.Now().Add(time.Minute)
		early := clk.Now()
		if _, err := c.UpdateRelocation(ctx, r.ID, func(_ *Relocation, tx RelocationTx) error {
			late := before.Add(time.Minute)
			if err := tx.PutWindow(RelocationWindow{Seq: 1, Kind: "full", JobIDs: []string{"old-3"}, StartedAt: early, FinishedAt: &early, Outcome: "ran"}); err != nil {
				return err
			}
			if err := tx.PutWindow(RelocationWindow{Seq: 2, Kind: "catch-up", JobIDs: []string{"old-2"}, StartedAt: early, FinishedAt: &late, Outcome: "ran"}); err != nil {
				return err
			}
			return tx.PutWindow(RelocationWindow{Seq: 3, Kind: "catch-up", JobIDs: []string{"old-1"}, StartedAt: early, Outcome: "running"})
		}); err != nil {
			t.Fatal(err)
		}
		clk.Add(time.Hour)
		mk("young", job.StateDone)

		var total []int
		for {
			n, err := c.PruneJobs(ctx, before, 2)
			if err != nil {
				t.Fatal(err)
			}
			if n == 0 {
				break
			}
			total = append(total, n)
			if len(total) > 10 {
				t.Fatal("pruning does not end")
			}
		}
		if !slices.Equal(total, []int{2, 2, 1}) {
			t.Errorf("batches %v, want [2 2 1]", total)
		}
		page, err := c.ListJobs(ctx, JobFilter{Limit: MaxPageSize})
		if err != nil {
			t.Fatal(err)
		}
		var left []string
		for _, j := range page.Jobs {
			left = append(left, j.ID)
		}
		slices.Sort(left)
		if want := []string{"old-1", "old-2", "old-running", "young"}; !slices.Equal(left, want) {
			t.Errorf("left %v, want %v", left, want)
		}
		// The pruned jobs' events and samples went with them.
		for _, tbl := range []string{"job_events", "job_samples"} {
			var n int64
			if err := c.db.Table(tbl).Where("job_id IN ?", []string{"old-0", "old-3", "old-4", "old-5", "old-failed"}).Count(&n).Error; err != nil {
				t.Fatal(err)
			}
			if n != 0 {
				t.Errorf("%s: %d rows of pruned jobs left", tbl, n)
			}
		}
		if ss, err := c.JobSamples(ctx, "young"); err != nil || len(ss) != 2 {
			t.Errorf("the young job's samples: %d, %v", len(ss), err)
		}
	})
}

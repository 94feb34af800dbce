package catalog

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

func testRelocation(tables ...string) Relocation {
	r := Relocation{ID: NewRelocationID(), SourceCluster: "dc1", TargetCluster: "dc2", Schedule: "*/10 * * * *",
		MarginMs: 600_000, MaxLagMs: 300_000, Phase: "copying", CreatedBy: "ops", Bandwidth: "10MB/s"}
	for _, t := range tables {
		src, dst, _ := strings.Cut(t, "=")
		r.Tables = append(r.Tables, RelocationTable{Source: src, Target: dst})
	}
	return r
}

// sameTable refuses a relocation naming a source table an open one names.
func sameTable(r Relocation) func([]Relocation) error {
	return func(open []Relocation) error {
		for _, o := range open {
			for _, a := range o.Tables {
				for _, b := range r.Tables {
					if a.Source == b.Source {
						return fmt.Errorf("table %s: relocation %s moves it", a.Source, o.ID)
					}
				}
			}
		}
		return nil
	}
}

func TestRelocations(t *testing.T) {
	clk := newClock()
	eachCatalog(t, Options{Now: clk.Now}, func(t *testing.T, c *Catalog) {
		ctx := testContext(t)
		for _, n := range []string{"dc1", "dc2"} {
			if _, err := c.CreateCluster(ctx, Cluster{Name: n, ZKQuorum: "zk:2181"}); err != nil {
				t.Fatal(err)
			}
		}
		r := testRelocation("ns:a", "ns:b=ns2:b")
		r.StartRow, r.Families, r.Seq, r.RunningSeq = `\x00k`, []string{"f", "g"}, 1, 1
		got, err := c.CreateRelocation(ctx, r, sameTable(r), RelocationWindow{Seq: 1, Kind: "full", StartedAt: clk.Now(), Outcome: "running"})
		if err != nil {
			t.Fatal(err)
		}
		if !got.CreatedAt.Equal(clk.Now().UTC().Truncate(time.Microsecond)) || got.FinishedAt != nil {
			t.Errorf("created %+v", got)
		}
		back, err := c.GetRelocation(ctx, r.ID)
		if err != nil {
			t.Fatal(err)
		}
		if back.Tables[1].Target != "ns2:b" || back.StartRow != `\x00k` || len(back.Families) != 2 || back.MarginMs != 600_000 ||
			back.Schedule != r.Schedule || back.Bandwidth != "10MB/s" || !back.CreatedAt.Equal(got.CreatedAt) {
			t.Errorf("read back %+v", back)
		}

		// An overlapping one is refused with the check's error, and nothing is created.
		r2 := testRelocation("ns:c", "ns:a")
		if _, err := c.CreateRelocation(ctx, r2, sameTable(r2)); err == nil || !strings.Contains(err.Error(), "table ns:a: relocation "+r.ID) {
			t.Fatalf("overlapping relocation: %v", err)
		}
		if _, err := c.GetRelocation(ctx, r2.ID); !errors.Is(err, ErrNotFound) {
			t.Errorf("the refused relocation: %v; want not found", err)
		}
		if _, err := c.CreateRelocation(ctx, Relocation{ID: "rel_x", Phase: "copying"}, nil); !errors.Is(err, ErrInvalid) {
			t.Errorf("no tables: %v", err)
		}

		// Changing it with its windows, in one transaction.
		clk.Add(time.Minute)
		tick := clk.Now().Add(10 * time.Minute)
		fin := clk.Now()
		up, err := c.UpdateRelocation(ctx, r.ID, func(x *Relocation, tx RelocationTx) error {
			x.Phase, x.Watermark, x.NextTick, x.Seq, x.LastSeq = "catching-up", 1_700_000_000_000, &tick, 2, 1
			x.Verification = `{"passed": true}`
			if err := tx.PutWindow(RelocationWindow{Seq: 1, Kind: "full", SnapshotTime: 1_700_000_000_000, JobIDs: []string{"j1", "j2"},
				StartedAt: clk.Now().Add(-time.Minute), FinishedAt: &fin, Outcome: "ran", Bytes: 1234, FilesLoaded: 3, DurationMs: 60_000, LagMs: 5}); err != nil {
				return err
			}
			return tx.PutWindow(RelocationWindow{Seq: 2, Kind: "catch-up", StartTime: 1, EndTime: 2, SnapshotTime: 2, StartedAt: clk.Now(), Outcome: "running"})
		})
		if err != nil {
			t.Fatal(err)
		}
		if up.Phase != "catching-up" || !up.NextTick.Equal(tick.UTC().Truncate(time.Microsecond)) || string(up.Verification) != `{"passed":true}` {
			t.Errorf("updated %+v", up)
		}
		// A window replaced, and an error of fn rolls back.
		_, err = c.UpdateRelocation(ctx, r.ID, func(x *Relocation, tx RelocationTx) error {
			w, err := tx.Window(2)
			if err != nil {
				return err
			}
			w.Outcome, w.FinishedAt, w.LagMs, w.FilesPruned = "ran", &fin, 42, 7
			x.RunningSeq = 0
			return tx.PutWindow(w)
		})
		if err != nil {
			t.Fatal(err)
		}
		boom := errors.New("boom")
		if _, err := c.UpdateRelocation(ctx, r.ID, func(x *Relocation, tx RelocationTx) error {
			x.Phase = "failed"
			if err := tx.PutWindow(RelocationWindow{Seq: 3, Kind: "catch-up", StartedAt: clk.Now(), Outcome: "skipped"}); err != nil {
				return err
			}
			return boom
		}); err != boom {
			t.Fatalf("fn's error: %v", err)
		}
		ws, err := c.RelocationWindows(ctx, r.ID)
		if err != nil {
			t.Fatal(err)
		}
		if len(ws) != 2 || ws[0].Seq != 1 || len(ws[0].JobIDs) != 2 || ws[0].Bytes != 1234 || ws[1].Outcome != "ran" || ws[1].LagMs != 42 ||
			ws[1].FilesPruned != 7 || ws[1].FinishedAt == nil || !ws[1].FinishedAt.Equal(fin.UTC().Truncate(time.Microsecond)) {
			t.Errorf("windows %+v", ws)
		}
		if w, err := c.RelocationWindow(ctx, r.ID, 1); err != nil || w.FilesLoaded != 3 || w.Kind != "full" || w.Outcome != "ran" {
			t.Errorf("window 1: %+v, %v", w, err)
		}
		if _, err := c.RelocationWindow(ctx, r.ID, 3); !errors.Is(err, ErrNotFound) {
			t.Errorf("window 3 (rolled back): %v", err)
		}
		if err := c.ReadRelocation(ctx, r.ID, func(x Relocation, tx RelocationTx) error {
			w, err := tx.Window(x.LastSeq)
			if err != nil || w.Seq != 1 {
				t.Errorf("read the last window: %+v, %v", w, err)
			}
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		if err := c.ReadRelocation(ctx, "rel_none", func(Relocation, RelocationTx) error { return nil }); !errors.Is(err, ErrNotFound) {
			t.Errorf("read of none: %v", err)
		}
		if back, _ := c.GetRelocation(ctx, r.ID); back.Phase != "catching-up" {
			t.Errorf("after a rolled-back change: phase %s", back.Phase)
		}
		if _, err := c.UpdateRelocation(ctx, "rel_none", func(*Relocation, RelocationTx) error { return nil }); !errors.Is(err, ErrNotFound) {
			t.Errorf("update of none: %v", err)
		}
		if _, err := c.RelocationWindows(ctx, "rel_none"); !errors.Is(err, ErrNotFound) {
			t.Errorf("windows of none: %v", err)
		}

		// Listing; deletion only once it ended.
		if err := c.DeleteRelocation(ctx, r.ID); !errors.Is(err, ErrConflict) {
			t.Errorf("delete an open relocation: %v", err)
		}
		other := testRelocation("ns:z")
		if _, err := c.CreateRelocation(ctx, other, sameTable(other)); err != nil {
			t.Fatal(err)
		}
		if _, err := c.UpdateRelocation(ctx, other.ID, func(x *Relocation, _ RelocationTx) error {
			x.Phase, x.FinishedAt = "cancelled", &fin
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		all, err := c.ListRelocations(ctx, false)
		if err != nil || len(all) != 2 || all[0].ID != r.ID {
			t.Errorf("list: %+v %v", all, err)
		}
		open, err := c.ListRelocations(ctx, true)
		if err != nil || len(open) != 1 || open[0].ID != r.ID {
			t.Errorf("open: %+v %v", open, err)
		}
		// An ended relocation no longer holds its tables.
		again := testRelocation("ns:z")
		if _, err := c.CreateRelocation(ctx, again, sameTable(again)); err != nil {
			t.Errorf("a table whose relocation ended: %v", err)
		}
		if err := c.DeleteRelocation(ctx, other.ID); err != nil {
			t.Fatal(err)
		}
		if _, err := c.GetRelocation(ctx, other.ID); !errors.Is(err, ErrNotFound) {
			t.Errorf("deleted: %v", err)
		}
	})
}

// TestConcurrentRelocations creates relocations of one table at once: the overlap check sees
// the others, so exactly one is created.
func TestConcurrentRelocations(t *testing.T) {
	eachCatalog(t, Options{}, func(t *testing.T, c *Catalog) {
		ctx := testContext(t)
		for _, n := range []string{"dc1", "dc2"} {
			if _, err := c.CreateCluster(ctx, Cluster{Name: n, ZKQuorum: "zk:2181"}); err != nil {
				t.Fatal(err)
			}
		}
		var wg sync.WaitGroup
		errs := make([]error, 6)
		for i := range errs {
			wg.Add(1)
			go func() {
				defer wg.Done()
				r := testRelocation("ns:hot")
				_, errs[i] = c.CreateRelocation(ctx, r, sameTable(r))
			}()
		}
		wg.Wait()
		ok := 0
		for _, err := range errs {
			switch {
			case err == nil:
				ok++
			case !strings.Contains(err.Error(), "table ns:hot: relocation rel_"):
				t.Errorf("unexpected error: %v", err)
			}
		}
		all, _ := c.ListRelocations(ctx, false)
		if ok != 1 || len(all) != 1 {
			t.Errorf("%d created, %d listed; want 1", ok, len(all))
		}
	})
}

// TestRelocationPages pages relocations oldest first: every one once, the open ones alone
// when asked, and a cursor this catalog did not give out refused.
func TestRelocationPages(t *testing.T) {
	eachCatalog(t, Options{}, func(t *testing.T, c *Catalog) {
		ctx := testContext(t)
		for _, n := range []string{"dc1", "dc2"} {
			if _, err := c.CreateCluster(ctx, Cluster{Name: n, ZKQuorum: "zk:2181"}); err != nil {
				t.Fatal(err)
			}
		}
		var ids []string
		for i := range 5 {
			r, err := c.CreateRelocation(ctx, testRelocation(fmt.Sprintf("ns:p%d", i)), nil)
			if err != nil {
				t.Fatal(err)
			}
			ids = append(ids, r.ID)
		}
		fin := time.Now().UTC()
		if _, err := c.UpdateRelocation(ctx, ids[1], func(x *Relocation, _ RelocationTx) error {
			x.Phase, x.FinishedAt = "cancelled", &fin
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		read := func(open bool) []string {
			var got []string
			f := RelocationFilter{Open: open, Limit: 2}
			for pages := 0; ; pages++ {
				if pages > 5 {
					t.Fatal("paging does not end")
				}
				p, err := c.ListRelocationsPage(ctx, f)
				if err != nil {
					t.Fatal(err)
				}
				if len(p.Relocations) > 2 {
					t.Errorf("a page of %d, limit 2", len(p.Relocations))
				}
				for _, r := range p.Relocations {
					got = append(got, r.ID)
				}
				if p.Next == "" {
					return got
				}
				f.Cursor = p.Next
			}
		}
		slices.Reverse(ids) // newest first
		if got := read(false); !slices.Equal(got, ids) {
			t.Errorf("every relocation: %q, want %q", got, ids)
		}
		if got, want := read(true), slices.Delete(slices.Clone(ids), 3, 4); !slices.Equal(got, want) {
			t.Errorf("the open ones: %q, want %q", got, want)
		}
		jobCursor := cursor{kind: cursorJobs, micros: 1, key: "x"}.encode()
		for _, bad := range []string{"nope!", jobCursor} {
			if _, err := c.ListRelocationsPage(ctx, RelocationFilter{Cursor: bad}); !errors.Is(err, ErrInvalid) {
				t.Errorf("cursor %q: %v, want ErrInvalid", bad, err)
			}
		}
	})
}

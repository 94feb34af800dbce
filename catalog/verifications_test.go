package catalog

import (
	"errors"
	"testing"
	"time"
)

func TestVerifications(t *testing.T) {
	eachDB(t, func(t *testing.T, url string) {
		clk := newClock()
		c := openTest(t, url, Options{Now: clk.Now})
		ctx := testContext(t)
		if _, err := c.CreateVerification(ctx, Verification{ID: "", Spec: `{}`}); !errors.Is(err, ErrInvalid) {
			t.Fatalf("no id: %v, want ErrInvalid", err)
		}
		if _, err := c.CreateVerification(ctx, Verification{ID: NewVerificationID(), Spec: `{not json`}); !errors.Is(err, ErrInvalid) {
			t.Fatalf("bad spec: %v, want ErrInvalid", err)
		}
		var ids []string
		for i := range 5 {
			v, err := c.CreateVerification(ctx, Verification{ID: NewVerificationID(), Spec: `{ "table": "t" }`, Runner: "srv-a", CreatedBy: "ops"})
			if err != nil {
				t.Fatalf("create %d: %v", i, err)
			}
			if v.State != VerificationRunning || v.Spec != `{"table":"t"}` || !v.CreatedAt.Equal(clk.Now().Truncate(time.Microsecond)) || v.FinishedAt != nil {
				t.Fatalf("created %+v", v)
			}
			ids = append(ids, v.ID)
			if i < 4 {
				clk.Add(time.Second)
			}
		}
		if _, err := c.CreateVerification(ctx, Verification{ID: ids[0], Spec: `{}`}); !errors.Is(err, ErrConflict) {
			t.Fatalf("same id again: %v, want ErrConflict", err)
		}
		got, err := c.GetVerification(ctx, ids[2])
		if err != nil || got.ID != ids[2] || got.Runner != "srv-a" || got.CreatedBy != "ops" || got.State != VerificationRunning {
			t.Fatalf("get: %+v, %v", got, err)
		}
		if _, err := c.GetVerification(ctx, "ver_none"); !errors.Is(err, ErrNotFound) {
			t.Fatalf("get unknown: %v, want ErrNotFound", err)
		}

		// Newest first, two to a page, every one once.
		var seen []string
		cur := ""
		for pages := 0; ; pages++ {
			p, err := c.ListVerifications(ctx, VerificationFilter{Cursor: cur, Limit: 2})
			if err != nil {
				t.Fatalf("list: %v", err)
			}
			for _, v := range p.Verifications {
				seen = append(seen, v.ID)
			}
			if cur = p.Next; cur == "" {
				break
			}
			if pages > 5 {
				t.Fatal("paging does not end")
			}
		}
		want := []string{ids[4], ids[3], ids[2], ids[1], ids[0]}
		if len(seen) != len(want) {
			t.Fatalf("listed %v, want %v", seen, want)
		}
		for i := range want {
			if seen[i] != want[i] {
				t.Fatalf("listed %v, want %v", seen, want)
			}
		}
		if _, err := c.ListVerifications(ctx, VerificationFilter{Cursor: cursor{kind: cursorJobs, micros: 1, key: "j"}.encode()}); !errors.Is(err, ErrInvalid) {
			t.Fatalf("a job cursor: %v, want ErrInvalid", err)
		}

		clk.Add(time.Second)
		if err := c.HeartbeatVerification(ctx, ids[0], "srv-z"); !errors.Is(err, ErrNotFound) {
			t.Fatalf("heartbeat by a server that does not run it: %v, want ErrNotFound", err)
		}
		if err := c.HeartbeatVerification(ctx, ids[0], runnerOf(t, c, ids[0])); err != nil {
			t.Fatalf("heartbeat: %v", err)
		}
		done, err := c.FinishVerification(ctx, ids[0], VerificationFailed, `{ "differenceCount": 1 }`, "")
		if err != nil || done.State != VerificationFailed || done.Report != `{"differenceCount":1}` || done.FinishedAt == nil {
			t.Fatalf("finish: %+v, %v", done, err)
		}
		if got, _ := c.GetVerification(ctx, ids[0]); got.State != VerificationFailed || got.Report != done.Report || got.FinishedAt == nil ||
			!got.HeartbeatAt.Equal(*got.FinishedAt) {
			t.Fatalf("read back %+v", got)
		}
		if _, err := c.FinishVerification(ctx, ids[0], VerificationPassed, "", ""); !errors.Is(err, ErrConflict) {
			t.Fatalf("finish twice: %v, want ErrConflict", err)
		}
		if _, err := c.FinishVerification(ctx, ids[1], VerificationRunning, "", ""); !errors.Is(err, ErrInvalid) {
			t.Fatalf("finish as running: %v, want ErrInvalid", err)
		}
		if _, err := c.FinishVerification(ctx, "ver_none", VerificationPassed, "", ""); !errors.Is(err, ErrNotFound) {
			t.Fatalf("finish unknown: %v, want ErrNotFound", err)
		}
		if err := c.HeartbeatVerification(ctx, ids[0], runnerOf(t, c, ids[0])); !errors.Is(err, ErrNotFound) {
			t.Fatalf("heartbeat of an ended one: %v, want ErrNotFound", err)
		}

		// ids[1..3] run still (their heartbeats are from their creation), ids[0] and ids[4] ended.
		if _, err := c.FinishVerification(ctx, ids[4], VerificationPassed, `{}`, ""); err != nil {
			t.Fatal(err)
		}
		other, err := c.CreateVerification(ctx, Verification{ID: NewVerificationID(), Spec: `{}`, Runner: "srv-b"})
		if err != nil {
			t.Fatal(err)
		}
		if got, err := c.AdoptVerifications(ctx, "srv-c", false, time.Time{}); err != nil || len(got) != 0 {
			t.Fatalf("adopt nothing: %v, %v", got, err)
		}
		if _, err := c.AdoptVerifications(ctx, "", true, time.Time{}); !errors.Is(err, ErrInvalid) {
			t.Fatalf("adopt for no runner: %v, want ErrInvalid", err)
		}
		// Stale: beats before the clock's now (ids 1..3 beat at creation, earlier; other now).
		adopted, err := c.AdoptVerifications(ctx, "srv-c", false, clk.Now())
		if err != nil || len(adopted) != 3 {
			t.Fatalf("adopt stale: %v, %v; want 3", adopted, err)
		}
		for i, id := range ids[1:4] {
			v, _ := c.GetVerification(ctx, id)
			if adopted[i].ID != id || adopted[i].Runner != "srv-c" || v.State != VerificationRunning || v.Runner != "srv-c" || !v.HeartbeatAt.Equal(clk.Now().UTC().Truncate(time.Microsecond)) {
				t.Fatalf("%s after adoption: %+v (returned %+v)", id, v, adopted[i])
			}
		}
		// Renewed: no one else adopts them now.
		if again, err := c.AdoptVerifications(ctx, "srv-d", false, clk.Now()); err != nil || len(again) != 0 {
			t.Fatalf("adopt the just adopted: %v, %v", again, err)
		}
		if v, _ := c.GetVerification(ctx, ids[4]); v.State != VerificationPassed {
			t.Fatalf("an ended one was adopted: %+v", v)
		}
		if v, _ := c.GetVerification(ctx, other.ID); v.Runner != "srv-b" {
			t.Fatalf("a fresh one was adopted: %+v", v)
		}
		// srv-b started again: it takes its own back, fresh or not. (The clock moves on, as
		// it does between a server's stop and its start: MySQL counts only rows an update
		// changed.)
		clk.Add(time.Millisecond)
		mine, err := c.AdoptVerifications(ctx, "srv-b", true, time.Time{})
		if err != nil || len(mine) != 1 || mine[0].ID != other.ID {
			t.Fatalf("srv-b adopts its own: %v, %v", mine, err)
		}
	})
}

func runnerOf(t *testing.T, c *Catalog, id string) string {
	t.Helper()
	v, err := c.GetVerification(t.Context(), id)
	if err != nil {
		t.Fatal(err)
	}
	return v.Runner
}

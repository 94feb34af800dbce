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
		if err := c.HeartbeatVerification(ctx, ids[0]); err != nil {
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
		if err := c.HeartbeatVerification(ctx, ids[0]); !errors.Is(err, ErrNotFound) {
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
		if n, err := c.InterruptVerifications(ctx, "", time.Time{}, "nothing"); err != nil || n != 0 {
			t.Fatalf("interrupt nothing: %d, %v", n, err)
		}
		// Stale: beats before the clock's now (ids 1..3 beat at creation, earlier; other now).
		n, err := c.InterruptVerifications(ctx, "", clk.Now(), "interrupted: its server stopped")
		if err != nil || n != 3 {
			t.Fatalf("interrupt stale: %d, %v; want 3", n, err)
		}
		for _, id := range ids[1:4] {
			v, _ := c.GetVerification(ctx, id)
			if v.State != VerificationError || v.Error != "interrupted: its server stopped" || v.FinishedAt == nil {
				t.Fatalf("%s after interrupt: %+v", id, v)
			}
		}
		if v, _ := c.GetVerification(ctx, ids[4]); v.State != VerificationPassed {
			t.Fatalf("an ended one was interrupted: %+v", v)
		}
		if v, _ := c.GetVerification(ctx, other.ID); v.State != VerificationRunning {
			t.Fatalf("a fresh one was interrupted: %+v", v)
		}
		n, err = c.InterruptVerifications(ctx, "srv-b", time.Time{}, "interrupted: its server restarted")
		if err != nil || n != 1 {
			t.Fatalf("interrupt srv-b's: %d, %v; want 1", n, err)
		}
		if v, _ := c.GetVerification(ctx, other.ID); v.State != VerificationError || v.Error != "interrupted: its server restarted" {
			t.Fatalf("srv-b's after interrupt: %+v", v)
		}
	})
}

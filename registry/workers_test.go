package registry

import (
	"errors"
	"testing"
	"time"
)

func TestWorkers(t *testing.T) {
	server, root := testZK(t)
	ctx := t.Context()
	r1, proxy := openVia(t, server, root)
	r2 := open(t, server, root)
	changes, err := r2.WatchWorkers(ctx)
	if err != nil {
		t.Fatal(err)
	}
	w := Worker{ID: "host-a:7000", Capacity: 4, Info: "v1"}
	if err := r1.RegisterWorker(ctx, w); err != nil {
		t.Fatal(err)
	}
	closedWithin(t, changes, 30*time.Second, "a worker registration event")
	if err := r2.RegisterWorker(ctx, Worker{ID: w.ID}); !errors.Is(err, ErrExists) {
		t.Fatalf("same id from another session: %v, want ErrExists", err)
	}
	if err := r2.RegisterWorker(ctx, Worker{ID: "host-b:7000", Capacity: 2}); err != nil {
		t.Fatal(err)
	}
	ws, err := r2.Workers(ctx)
	if err != nil || len(ws) != 2 || ws[0] != w || ws[1].ID != "host-b:7000" || ws[1].Capacity != 2 {
		t.Fatalf("Workers = %+v, %v", ws, err)
	}

	// After its session expires, the worker is registered again in the new one.
	drain(changes)
	old := expire(t, r1, proxy)
	closedWithin(t, changes, 30*time.Second, "a worker change event after the expiry")
	waitFor(t, 30*time.Second, "the worker registered again", func() bool {
		ok, st, err := r2.conn.Exists(r2.p.worker(w.ID))
		return err == nil && ok && st.EphemeralOwner == r1.SessionID() && st.EphemeralOwner != old
	})
	if err := r1.UnregisterWorker(ctx, w.ID); err != nil {
		t.Fatal(err)
	}
	ws, err = r2.Workers(ctx)
	if err != nil || len(ws) != 1 || ws[0].ID != "host-b:7000" {
		t.Fatalf("Workers after unregister = %+v, %v", ws, err)
	}
	if err := r1.RegisterWorker(ctx, Worker{ID: "bad/id"}); err == nil {
		t.Fatal("bad worker id accepted")
	}
}

package registry

import (
	"errors"
	"testing"
	"time"
)

// openVia opens a registry whose connection goes through a proxy that can
// end its session.
func openVia(t *testing.T, server, root string) (*Registry, *zkProxy) {
	t.Helper()
	p := newZKProxy(t, server)
	return open(t, p.addr(), root), p
}

// expire ends r's session on the server and waits until r has heard of it
// and holds a new session.
func expire(t *testing.T, r *Registry, p *zkProxy) (old int64) {
	t.Helper()
	old = r.SessionID()
	lost := r.SessionLost()
	p.expire(old)
	closedWithin(t, lost, 30*time.Second, "the registry to hear of its session's expiry")
	waitFor(t, 30*time.Second, "a new session", func() bool {
		id := r.SessionID()
		return id != 0 && id != old
	})
	return old
}

// FENCING: a worker whose session expired, and whose task another worker
// claimed meanwhile, cannot write a checkpoint or a result, and Valid says so.
func TestFencingAfterExpiry(t *testing.T) {
	server, root := testZK(t)
	r1, proxy := openVia(t, server, root)
	r2 := open(t, server, root)
	setupJob(t, r2, "t-000", "t-001")
	ctx := t.Context()

	c1, err := r1.ClaimTask(ctx, "j", "t-000", "w1")
	if err != nil {
		t.Fatal(err)
	}
	if err := c1.SaveCheckpoint(ctx, []byte("w1 at row 10")); err != nil {
		t.Fatal(err)
	}
	old := expire(t, r1, proxy)
	closedWithin(t, c1.Lost(), time.Second, "the claim's Lost channel")
	t.Logf("session %#x expired; new session %#x", old, r1.SessionID())

	// The claim went with the old session: w2 takes the task over.
	c2, err := r2.ClaimTask(ctx, "j", "t-000", "w2")
	if err != nil {
		t.Fatalf("claim after the holder's session expired: %v", err)
	}
	// The old holder, still running, tries to write: refused.
	if err := c1.SaveCheckpoint(ctx, []byte("w1 at row 20")); !errors.Is(err, ErrLostClaim) || Classify(err) != ActionStop {
		t.Fatalf("stale checkpoint save: %v, want ErrLostClaim", err)
	}
	if err := c1.Done(ctx); !errors.Is(err, ErrLostClaim) {
		t.Fatalf("stale result: %v, want ErrLostClaim", err)
	}
	if err := c1.Fail(ctx, errors.New("x")); !errors.Is(err, ErrLostClaim) {
		t.Fatalf("stale failure: %v, want ErrLostClaim", err)
	}
	if ok, err := c1.Valid(ctx); ok || err != nil {
		t.Fatalf("stale Valid = %v, %v, want false", ok, err)
	}
	if err := c1.Release(ctx); !errors.Is(err, ErrLostClaim) {
		t.Fatalf("stale release: %v, want ErrLostClaim", err)
	}
	// Nothing the old holder tried reached ZooKeeper.
	if b, _ := r2.TaskCheckpoint(ctx, "j", "t-000"); string(b) != "w1 at row 10" {
		t.Fatalf("checkpoint = %q", b)
	}
	if ok, err := c2.Valid(ctx); !ok || err != nil {
		t.Fatalf("new holder Valid = %v, %v", ok, err)
	}
	if err := c2.SaveCheckpoint(ctx, []byte("w2 at row 20")); err != nil {
		t.Fatal(err)
	}
	if err := c2.Done(ctx); err != nil {
		t.Fatal(err)
	}
	if res, err := r2.TaskResult(ctx, "j", "t-000"); err != nil || res.Worker != "w2" {
		t.Fatalf("result = %+v, %v", res, err)
	}

	// Without a new claim: the old holder's claim node is gone with its
	// session, so its writes fail too, even though the epoch did not move.
	c3, err := r1.ClaimTask(ctx, "j", "t-001", "w1")
	if err != nil {
		t.Fatal(err)
	}
	expire(t, r1, proxy)
	if err := c3.SaveCheckpoint(ctx, []byte("late")); !errors.Is(err, ErrLostClaim) {
		t.Fatalf("save after expiry, task not re-claimed: %v, want ErrLostClaim", err)
	}
	if ok, _ := c3.Valid(ctx); ok {
		t.Fatal("Valid after expiry")
	}
	// The registry works on in its new session: w1 claims the task again.
	c4, err := r1.ClaimTask(ctx, "j", "t-001", "w1")
	if err != nil {
		t.Fatalf("claim in the new session: %v", err)
	}
	if c4.Session() == c3.Session() || c4.Epoch() <= c3.Epoch() {
		t.Fatalf("new claim: session %#x epoch %d, old %#x %d", c4.Session(), c4.Epoch(), c3.Session(), c3.Epoch())
	}
	if err := c3.Done(ctx); !errors.Is(err, ErrLostClaim) {
		t.Fatalf("old claim's result after the same worker re-claimed: %v", err)
	}
	if err := c4.Done(ctx); err != nil {
		t.Fatal(err)
	}
}

// A worker cut off from ZooKeeper for a whole session timeout is told its
// session is lost without hearing from the server; when it reconnects after
// the server expired the session, its old claim's writes are refused.
func TestPartitionLosesSession(t *testing.T) {
	server, root := testZK(t)
	ctx := t.Context()
	proxy := newZKProxy(t, server)
	r1 := openTimeout(t, proxy.addr(), root, 4*time.Second)
	r2 := open(t, server, root)
	setupJob(t, r2, "t-000")
	c1, err := r1.ClaimTask(ctx, "j", "t-000", "w1")
	if err != nil {
		t.Fatal(err)
	}
	proxy.partition()
	closedWithin(t, c1.Lost(), time.Minute, "the claim to be lost while partitioned")
	if ok, err := c1.Valid(ctx); ok {
		t.Fatalf("Valid while partitioned = %v, %v", ok, err)
	}
	// The server expires the session: the claim node goes.
	waitFor(t, time.Minute, "the server to expire the partitioned session", func() bool {
		ok, _, err := r2.conn.Exists(r2.p.claim("j", "t-000"))
		return err == nil && !ok
	})
	c2, err := r2.ClaimTask(ctx, "j", "t-000", "w2")
	if err != nil {
		t.Fatal(err)
	}
	proxy.heal()
	waitFor(t, time.Minute, "a new session after the partition", func() bool {
		id := r1.SessionID()
		return id != 0 && id != c1.Session()
	})
	if err := c1.SaveCheckpoint(ctx, []byte("stale")); !errors.Is(err, ErrLostClaim) {
		t.Fatalf("save after the partition: %v, want ErrLostClaim", err)
	}
	if err := c2.Done(ctx); err != nil {
		t.Fatal(err)
	}
}

// A session given up after a short partition may survive on the server; its
// claim and election nodes must not outlive what they stood for. Whichever
// way it goes (the server expired the session, or kept it and the registry
// deletes them), the nodes go and another worker or candidate takes over.
func TestGivenUpSessionLeavesNothing(t *testing.T) {
	server, root := testZK(t)
	ctx := t.Context()
	proxy := newZKProxy(t, server)
	// The server raises a 1 s timeout to its minimum (two ticks), so the
	// registry gives up before the server would expire the session.
	r1 := openTimeout(t, proxy.addr(), root, time.Second)
	r2 := open(t, server, root)
	setupJob(t, r2, "t-000")
	c1, err := r1.ClaimTask(ctx, "j", "t-000", "w1")
	if err != nil {
		t.Fatal(err)
	}
	l1, err := r1.Campaign(ctx, "m1")
	if err != nil {
		t.Fatal(err)
	}
	old := r1.SessionID()
	proxy.partition()
	closedWithin(t, c1.Lost(), time.Minute, "the claim to be lost while partitioned")
	closedWithin(t, l1.Done(), time.Minute, "the leadership to end while partitioned")
	proxy.heal()
	waitFor(t, time.Minute, "r1 to have a session again", func() bool { return r1.SessionID() != 0 })
	t.Logf("session before %#x, after %#x (same: the server kept it)", old, r1.SessionID())
	var c2 *Claim
	waitFor(t, time.Minute, "the old claim node to go", func() bool {
		c2, err = r2.ClaimTask(ctx, "j", "t-000", "w2")
		if err != nil && !errors.Is(err, ErrClaimed) {
			t.Fatalf("claim: %v", err)
		}
		return err == nil
	})
	l2, err := r2.Campaign(ctx, "m2")
	if err != nil {
		t.Fatal(err)
	}
	if err := c1.SaveCheckpoint(ctx, []byte("stale")); !errors.Is(err, ErrLostClaim) {
		t.Fatalf("old holder's save: %v, want ErrLostClaim", err)
	}
	if err := c2.Done(ctx); err != nil {
		t.Fatal(err)
	}
	if err := l2.Resign(ctx); err != nil {
		t.Fatal(err)
	}
}

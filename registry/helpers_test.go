package registry

import (
	"context"
	"log/slog"
	"os"
	"testing"
	"time"

	"rangecopy/testenv"
)

// testZK returns the ZooKeeper address of the test environment's source
// cluster and a root of the test's own, deleted after the test.
func testZK(t *testing.T) (server, root string) {
	t.Helper()
	env := testenv.Get(t)
	root = "/rangecopy-test/" + testenv.UniqueName(t, "reg")
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		r, err := Open(ctx, Config{Servers: []string{env.Source.ZKQuorum}, Root: root})
		if err != nil {
			t.Errorf("cleanup: open: %v", err)
			return
		}
		defer r.Close()
		if err := r.deleteTree(ctx, root); err != nil {
			t.Errorf("cleanup: delete %s: %v", root, err)
		}
	})
	return env.Source.ZKQuorum, root
}

func testLogger(t *testing.T) *slog.Logger {
	if testing.Verbose() {
		return slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelInfo}))
	}
	return nil
}

// open opens a registry on server under root, closed after the test.
func open(t *testing.T, server, root string) *Registry {
	t.Helper()
	return openTimeout(t, server, root, 10*time.Second)
}

// openTimeout opens a registry with the given session timeout.
func openTimeout(t *testing.T, server, root string, timeout time.Duration) *Registry {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	r, err := Open(ctx, Config{Servers: []string{server}, Root: root, SessionTimeout: timeout, Logger: testLogger(t)})
	if err != nil {
		t.Fatalf("open: %v", err)
	}
	t.Cleanup(r.Close)
	return r
}

// waitFor polls cond every 20 ms until it holds, failing the test after
// limit (a bound on a wait, not a timing assertion).
func waitFor(t *testing.T, limit time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(limit)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("gave up after %v waiting for %s", limit, what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// closedWithin waits for a value on ch or its close, failing the test after
// limit.
func closedWithin(t *testing.T, ch <-chan struct{}, limit time.Duration, what string) {
	t.Helper()
	select {
	case <-ch:
	case <-time.After(limit):
		t.Fatalf("gave up after %v waiting for %s", limit, what)
	}
}

// drain empties a coalesced notification channel.
func drain(ch <-chan struct{}) {
	for {
		select {
		case <-ch:
		default:
			return
		}
	}
}

package main

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"rangecopy/testenv"
	"rangecopy/testenv/copytest"
)

// TestWorkerHealthz: a real rangecopy worker serves /healthz on its metrics listener, 200
// naming its ZooKeeper session; the handler answers 503 once its registry has no session
// (closed).
func TestWorkerHealthz(t *testing.T) {
	env := testenv.Get(t)
	t.Setenv("RANGECOPY_ZK", "")
	addr := closedPort(t)
	root := "/" + testenv.UniqueName(t, "healthz")
	ctx, cancel := context.WithCancel(t.Context())
	var stderr bytes.Buffer
	done := make(chan int, 1)
	go func() {
		done <- run(ctx, []string{"worker", "--zk", env.Target.ZKQuorum, "--zk-root", root, "--metrics-addr", addr, "--capacity", "1"}, io.Discard, &stderr)
	}()
	defer func() {
		cancel()
		<-done
	}()
	var body string
	deadline := time.Now().Add(60 * time.Second)
	for {
		resp, err := http.Get("http://" + addr + "/healthz")
		if err == nil {
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			body = string(b)
			if resp.StatusCode == http.StatusOK {
				break
			}
		}
		select {
		case code := <-done:
			t.Fatalf("worker ended (exit %d) before /healthz answered: %s", code, stderr.String())
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("no 200 from the worker's /healthz in 60 s (last %q, %v)", body, err)
		}
		time.Sleep(200 * time.Millisecond)
	}
	if !strings.HasPrefix(body, "ok: ZooKeeper session 0x") {
		t.Errorf("/healthz of a worker with a session: %q", body)
	}

	reg := copytest.OpenRegistry(t, env, "/"+testenv.UniqueName(t, "healthz_h"))
	srv := httptest.NewServer(sessionHealth(reg.Connected, reg.SessionID).handler)
	defer srv.Close()
	get := func() (int, string) {
		resp, err := http.Get(srv.URL + "/healthz")
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	if code, b := get(); code != http.StatusOK {
		t.Errorf("with a session: %d %q", code, b)
	}
	reg.Close()
	if code, b := get(); code != http.StatusServiceUnavailable || b != "no ZooKeeper session\n" {
		t.Errorf("registry closed: %d %q; want 503", code, b)
	}
}

package registry

import (
	"context"
	"errors"
	"net"
	"testing"
	"time"
)

func TestOpenRefusesBadConfig(t *testing.T) {
	ctx := context.Background()
	for _, cfg := range []Config{
		{},
		{Servers: []string{"127.0.0.1:2181"}, Root: "relative"},
		{Servers: []string{"127.0.0.1:2181"}, Root: "/a/"},
	} {
		if r, err := Open(ctx, cfg); err == nil {
			r.Close()
			t.Errorf("Open(%+v) accepted", cfg)
		}
	}
}

// Open waits for a session only as long as its context allows.
func TestOpenUnreachable(t *testing.T) {
	// A port nobody listens on: bind one, then free it.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
	defer cancel()
	if r, err := Open(ctx, Config{Servers: []string{addr}}); !errors.Is(err, context.DeadlineExceeded) {
		if r != nil {
			r.Close()
		}
		t.Fatalf("Open of %s: %v, want the context's deadline", addr, err)
	}
}

func TestClosedRegistry(t *testing.T) {
	server, root := testZK(t)
	r := open(t, server, root)
	ctx := t.Context()
	if _, err := r.CreateJob(ctx, "j", nil); err != nil {
		t.Fatal(err)
	}
	lost := r.SessionLost()
	r.Close()
	closedWithin(t, lost, time.Second, "SessionLost after Close")
	if _, err := r.Job(ctx, "j"); !errors.Is(err, ErrClosed) {
		t.Fatalf("Job after Close: %v, want ErrClosed", err)
	}
	if _, err := r.ClaimTask(ctx, "j", "t", "w"); !errors.Is(err, ErrClosed) {
		t.Fatalf("ClaimTask after Close: %v, want ErrClosed", err)
	}
	if _, err := r.Campaign(ctx, "m"); !errors.Is(err, ErrClosed) {
		t.Fatalf("Campaign after Close: %v, want ErrClosed", err)
	}
	r.Close() // twice is harmless
}

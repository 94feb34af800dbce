package hbase

import (
	"context"
	"errors"
	"log/slog"
	"net"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"google.golang.org/protobuf/proto"

	"rangecopy/hbase/pb"
	"rangecopy/retry"
)

// newTestClient builds a Client without ZooKeeper whose dialer hands out
// net.Pipe connections served by serve.
func newTestClient(t *testing.T, serve func(fs *fakeServer)) (*Client, *atomic.Int32) {
	var dials atomic.Int32
	cfg := Config{
		Auth:        Simple{User: "tester"},
		MaxAttempts: 3,
		Backoff:     retry.Backoff{Initial: time.Millisecond, Max: 2 * time.Millisecond, Jitter: 0.5},
		Dialer: func(ctx context.Context, network, addr string) (net.Conn, error) {
			dials.Add(1)
			cli, srv := net.Pipe()
			go func() {
				var pre [10]byte
				if _, err := readFull(srv, pre[:]); err != nil {
					return
				}
				hdr := make([]byte, int(pre[6])<<24|int(pre[7])<<16|int(pre[8])<<8|int(pre[9]))
				if _, err := readFull(srv, hdr); err != nil {
					return
				}
				serve(&fakeServer{t: t, nc: srv})
			}()
			return cli, nil
		},
	}
	c := &Client{cfg: cfg, log: slog.New(slog.DiscardHandler), conns: make(map[connKey]*connEntry)}
	t.Cleanup(func() { c.Close() })
	return c, &dials
}

func readFull(c net.Conn, b []byte) (int, error) {
	n := 0
	for n < len(b) {
		m, err := c.Read(b[n:])
		n += m
		if err != nil {
			return n, err
		}
	}
	return n, nil
}

// TestClientSharesOneConnection checks that concurrent calls to one server
// and service share one connection.
func TestClientSharesOneConnection(t *testing.T) {
	c, dials := newTestClient(t, func(fs *fakeServer) {
		for {
			r, err := fs.read()
			if err != nil {
				return
			}
			go fs.reply(&pb.ResponseHeader{CallId: proto.Uint32(r.hdr.GetCallId())}, &pb.ScanResponse{}, nil)
		}
	})
	server := ServerName{Host: "rs", Port: 1}
	var wg sync.WaitGroup
	for i := 0; i < 16; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := c.rpc(context.Background(), server, ClientService, "Scan", &pb.ScanRequest{}, nil, &pb.ScanResponse{}); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	if n := dials.Load(); n != 1 {
		t.Fatalf("%d dials for one server and service, want 1", n)
	}
	// Another service is another connection.
	if _, err := c.rpc(context.Background(), server, AdminService, "FlushRegion", &pb.ScanRequest{}, nil, nil); err != nil {
		t.Fatal(err)
	}
	if n := dials.Load(); n != 2 {
		t.Fatalf("%d dials after a second service, want 2", n)
	}
}

func TestClientCloseFailsPending(t *testing.T) {
	received := make(chan struct{})
	c, _ := newTestClient(t, func(fs *fakeServer) {
		if _, err := fs.read(); err == nil {
			close(received)
		}
		fs.read() // never answer; wait for the client to hang up
	})
	done := make(chan error, 1)
	go func() {
		_, err := c.rpc(context.Background(), ServerName{Host: "rs", Port: 1}, ClientService, "Scan", &pb.ScanRequest{}, nil, nil)
		done <- err
	}()
	<-received
	c.Close()
	if err := <-done; !errors.Is(err, ErrClosed) {
		t.Fatalf("pending call after Close: err = %v, want ErrClosed", err)
	}
	if _, err := c.rpc(context.Background(), ServerName{Host: "rs", Port: 1}, ClientService, "Scan", &pb.ScanRequest{}, nil, nil); !errors.Is(err, ErrClosed) {
		t.Fatalf("call after Close: err = %v", err)
	}
}

func TestClientRedialsBrokenConnection(t *testing.T) {
	var calls atomic.Int32
	c, dials := newTestClient(t, func(fs *fakeServer) {
		r, err := fs.read()
		if err != nil {
			return
		}
		if calls.Add(1) == 1 {
			fs.nc.Close() // the first connection dies mid-call
			return
		}
		fs.reply(&pb.ResponseHeader{CallId: proto.Uint32(r.hdr.GetCallId())}, &pb.ScanResponse{}, nil)
		fs.read()
	})
	server := ServerName{Host: "rs", Port: 1}
	_, err := c.rpc(context.Background(), server, ClientService, "Scan", &pb.ScanRequest{}, nil, nil)
	if Classify(err) != ActionRelocate {
		t.Fatalf("first call: err = %v, want a Relocate error", err)
	}
	if _, err := c.rpc(context.Background(), server, ClientService, "Scan", &pb.ScanRequest{}, nil, nil); err != nil {
		t.Fatalf("call after the connection broke: %v", err)
	}
	if n := dials.Load(); n != 2 {
		t.Fatalf("%d dials, want 2", n)
	}
}

func TestRetryLoop(t *testing.T) {
	c, _ := newTestClient(t, func(*fakeServer) {})
	busy := remote("org.apache.hadoop.hbase.RegionTooBusyException", false)
	moved := remote("org.apache.hadoop.hbase.NotServingRegionException", false)
	fatal := remote("org.apache.hadoop.hbase.DoNotRetryIOException", true)

	var n, relocations int
	err := c.retryLoop(context.Background(), "op", func(int) error {
		n++
		switch n {
		case 1:
			return busy
		case 2:
			return moved
		}
		return nil
	}, func(error) { relocations++ })
	if err != nil || n != 3 || relocations != 1 {
		t.Fatalf("err %v after %d attempts and %d relocations", err, n, relocations)
	}

	n = 0
	err = c.retryLoop(context.Background(), "op", func(int) error { n++; return fatal }, nil)
	if !errors.Is(err, ErrDoNotRetry) || n != 1 {
		t.Fatalf("fatal error: %v after %d attempts", err, n)
	}

	n = 0
	err = c.retryLoop(context.Background(), "op", func(int) error { n++; return busy }, nil)
	if !errors.Is(err, ErrRegionTooBusy) || n != c.cfg.MaxAttempts {
		t.Fatalf("retries exhausted: %v after %d attempts", err, n)
	}

	ctx, cancel := context.WithCancel(context.Background())
	err = c.retryLoop(ctx, "op", func(int) error { cancel(); return busy }, nil)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled during backoff: %v", err)
	}
}

// fakeRegistry stands in for ZooKeeper: it returns the masters in turn, one
// more each time it is asked.
type fakeRegistry struct {
	mu      sync.Mutex
	masters []ServerName
	reads   int
}

func (r *fakeRegistry) master(context.Context) (ServerName, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	sn := r.masters[min(r.reads, len(r.masters)-1)]
	r.reads++
	return sn, nil
}
func (r *fakeRegistry) metaServer(context.Context) (ServerName, error) {
	return ServerName{}, errors.New("none")
}
func (r *fakeRegistry) children(context.Context, string) ([]string, error) {
	return nil, errors.New("none")
}
func (r *fakeRegistry) close() {}

// TestMasterFailover checks the mechanics of following a master failover:
// the first master's connection breaks, the client reads the master znode
// again and sends the call to the new master.
func TestMasterFailover(t *testing.T) {
	old, next := ServerName{Host: "m1", Port: 1}, ServerName{Host: "m2", Port: 2}
	var served sync.Map
	c, _ := newTestClient(t, nil)
	c.cfg.Dialer = func(ctx context.Context, network, addr string) (net.Conn, error) {
		cli, srv := net.Pipe()
		go func() {
			var pre [10]byte
			if _, err := readFull(srv, pre[:]); err != nil {
				return
			}
			hdr := make([]byte, int(pre[6])<<24|int(pre[7])<<16|int(pre[8])<<8|int(pre[9]))
			if _, err := readFull(srv, hdr); err != nil {
				return
			}
			fs := &fakeServer{t: t, nc: srv}
			r, err := fs.read()
			if err != nil {
				return
			}
			served.Store(addr, r.hdr.GetMethodName())
			if addr == old.Addr() {
				srv.Close() // the old master dies
				return
			}
			fs.reply(&pb.ResponseHeader{CallId: proto.Uint32(r.hdr.GetCallId())},
				&pb.ListNamespaceDescriptorsResponse{NamespaceDescriptor: []*pb.NamespaceDescriptor{{Name: []byte("default")}}}, nil)
			fs.read()
		}()
		return cli, nil
	}
	reg := &fakeRegistry{masters: []ServerName{old, next}}
	c.zk = reg
	nss, err := c.ListNamespaces(context.Background())
	if err != nil || len(nss) != 1 || nss[0] != "default" {
		t.Fatalf("ListNamespaces = %v, %v", nss, err)
	}
	if _, ok := served.Load(old.Addr()); !ok {
		t.Fatal("the old master was never asked")
	}
	if m, _ := served.Load(next.Addr()); m != "ListNamespaceDescriptors" {
		t.Fatalf("the new master served %v", m)
	}
	if reg.reads != 2 {
		t.Fatalf("master znode read %d times, want 2", reg.reads)
	}
}

// TestClientCallTimeout checks that a call the server takes and never
// answers fails after Config.CallTimeout with a *CallTimeoutError, which is
// retried (relocated), rather than waiting for ever.
func TestClientCallTimeout(t *testing.T) {
	c, _ := newTestClient(t, func(fs *fakeServer) {
		for {
			if _, err := fs.read(); err != nil {
				return // never answer; read until the client hangs up
			}
		}
	})
	c.cfg.CallTimeout = 50 * time.Millisecond
	_, err := c.rpc(context.Background(), ServerName{Host: "rs", Port: 1}, ClientService, "Scan", &pb.ScanRequest{}, nil, nil)
	var te *CallTimeoutError
	if !errors.As(err, &te) || te.Method != "Scan" || te.Timeout != 50*time.Millisecond {
		t.Fatalf("unanswered call: err = %v, want a *CallTimeoutError for Scan after 50ms", err)
	}
	if a := Classify(err); a != ActionRelocate {
		t.Errorf("Classify(%v) = %v, want %v", err, a, ActionRelocate)
	}
	// The caller's own deadline is not a call timeout: it ends the operation.
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	_, err = c.rpc(ctx, ServerName{Host: "rs", Port: 1}, ClientService, "Scan", &pb.ScanRequest{}, nil, nil)
	if !errors.Is(err, context.DeadlineExceeded) || errors.As(err, &te) {
		t.Fatalf("call past the caller's deadline: err = %v, want context.DeadlineExceeded", err)
	}
	if a := Classify(err); a != ActionGiveUp {
		t.Errorf("Classify(%v) = %v, want %v", err, a, ActionGiveUp)
	}
}

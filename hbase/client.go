package hbase

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"strings"
	"sync"
	"time"

	"google.golang.org/protobuf/proto"

	"rangecopy/retry"
)

// Config configures a Client. Only ZKQuorum is required.
type Config struct {
	// ZKQuorum lists the ZooKeeper servers, "host:port".
	ZKQuorum []string
	// ZNodeParent is HBase's zookeeper.znode.parent; default "/hbase".
	ZNodeParent string
	// User is the effective user for SIMPLE authentication; default
	// DefaultUser.
	User string
	// Auth overrides User with another authentication; default Simple{User}.
	Auth Authenticator
	// ZKSessionTimeout is the ZooKeeper session timeout; default 30s.
	ZKSessionTimeout time.Duration
	// MaxAttempts bounds the attempts of one operation (including the
	// first); default 15 (about 35s of backoff). The context's deadline
	// bounds it too.
	MaxAttempts int
	// Backoff is the wait between attempts; default 100ms doubling to 5s,
	// each wait cut to a random point of its later half.
	Backoff retry.Backoff
	// DialTimeout bounds opening a connection (TCP and connection header);
	// default 10s.
	DialTimeout time.Duration
	// WriteTimeout bounds writing one request frame; default 30s.
	WriteTimeout time.Duration
	// CallTimeout bounds the wait for one call's answer, as HBase's
	// hbase.rpc.timeout does; default 60s (HBase's default). A call whose
	// context ends sooner keeps that. A call not answered in time fails
	// with a *CallTimeoutError, which is retried on a fresh connection:
	// without it, a server that takes a request and never answers would
	// hold the caller for ever.
	CallTimeout time.Duration
	// MaxFrameSize caps a response frame; default DefaultMaxFrameSize.
	MaxFrameSize int
	// Dialer opens TCP connections to servers; default net.Dialer.
	Dialer func(ctx context.Context, network, addr string) (net.Conn, error)
	// Logger receives debug logs; default discards.
	Logger *slog.Logger
}

// registry is where the client finds the active master, the hbase:meta
// server and the live region servers: ZooKeeper (zkClient).
type registry interface {
	master(ctx context.Context) (ServerName, error)
	metaServer(ctx context.Context) (ServerName, error)
	children(ctx context.Context, name string) ([]string, error)
	close()
}

// Client talks to one HBase cluster. It is safe for concurrent use.
type Client struct {
	cfg   Config
	log   *slog.Logger
	zk    registry
	cache regionCache

	masterCache masterCache

	mu     sync.Mutex
	closed bool
	conns  map[connKey]*connEntry
}

type connKey struct {
	addr    string
	service Service
}

// connEntry is a pooled connection, or one being dialled (ready open).
type connEntry struct {
	ready chan struct{}
	c     *conn
	err   error
}

// Dial creates a client for the cluster described by cfg and checks that
// ZooKeeper knows where hbase:meta is.
func Dial(ctx context.Context, cfg Config) (*Client, error) {
	if len(cfg.ZKQuorum) == 0 {
		return nil, errors.New("hbase: Config.ZKQuorum is empty")
	}
	if cfg.ZNodeParent == "" {
		cfg.ZNodeParent = "/hbase"
	}
	if !strings.HasPrefix(cfg.ZNodeParent, "/") {
		return nil, fmt.Errorf("hbase: Config.ZNodeParent %q is not an absolute znode path", cfg.ZNodeParent)
	}
	if cfg.User == "" {
		cfg.User = DefaultUser()
	}
	if cfg.Auth == nil {
		cfg.Auth = Simple{User: cfg.User}
	}
	if cfg.ZKSessionTimeout <= 0 {
		cfg.ZKSessionTimeout = 30 * time.Second
	}
	if cfg.MaxAttempts <= 0 {
		cfg.MaxAttempts = 15
	}
	if cfg.CallTimeout <= 0 {
		cfg.CallTimeout = DefaultCallTimeout
	}
	if cfg.Backoff.Initial <= 0 {
		cfg.Backoff = retry.Backoff{Initial: 100 * time.Millisecond, Max: 5 * time.Second, Jitter: 0.5}
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	c := &Client{
		cfg:   cfg,
		log:   cfg.Logger,
		zk:    &zkClient{servers: cfg.ZKQuorum, parent: cfg.ZNodeParent, timeout: cfg.ZKSessionTimeout, log: cfg.Logger},
		conns: make(map[connKey]*connEntry),
	}
	if _, err := c.zk.metaServer(ctx); err != nil {
		c.zk.close()
		return nil, fmt.Errorf("hbase: dial cluster %v%s: %w", cfg.ZKQuorum, cfg.ZNodeParent, err)
	}
	return c, nil
}

// Close closes every connection; calls in flight fail with ErrClosed.
func (c *Client) Close() error {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return nil
	}
	c.closed = true
	conns := c.conns
	c.conns = nil
	c.mu.Unlock()
	for _, e := range conns {
		<-e.ready
		if e.c != nil {
			e.c.close()
		}
	}
	if c.zk != nil {
		c.zk.close()
	}
	return nil
}

// getConn returns a pooled connection to server for service, dialling one if
// there is none or the pooled one is broken.
func (c *Client) getConn(ctx context.Context, server ServerName, service Service) (*conn, error) {
	key := connKey{server.Addr(), service}
	for {
		c.mu.Lock()
		if c.closed {
			c.mu.Unlock()
			return nil, ErrClosed
		}
		e := c.conns[key]
		if e == nil {
			e = &connEntry{ready: make(chan struct{})}
			c.conns[key] = e
			c.mu.Unlock()
			timeout := c.cfg.DialTimeout
			if timeout <= 0 {
				timeout = 10 * time.Second
			}
			dctx, cancel := context.WithTimeout(ctx, timeout)
			e.c, e.err = dialConn(dctx, server, service, connOptions{
				auth: c.cfg.Auth, dialer: c.cfg.Dialer, writeTimeout: c.cfg.WriteTimeout,
				maxFrameSize: c.cfg.MaxFrameSize, log: c.log,
			})
			cancel()
			close(e.ready)
			if e.err != nil {
				c.dropConn(key, e)
				return nil, e.err
			}
			c.mu.Lock()
			closed := c.closed
			c.mu.Unlock()
			if closed {
				e.c.close()
				return nil, ErrClosed
			}
			return e.c, nil
		}
		c.mu.Unlock()
		select {
		case <-e.ready:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		if e.err == nil && !e.c.broken() {
			return e.c, nil
		}
		c.dropConn(key, e)
	}
}

// dropConn removes e from the pool if it is still the pooled entry.
func (c *Client) dropConn(key connKey, e *connEntry) {
	c.mu.Lock()
	if c.conns[key] == e {
		delete(c.conns, key)
	}
	c.mu.Unlock()
}

// DefaultCallTimeout is Config.CallTimeout's default.
const DefaultCallTimeout = 60 * time.Second

// errCallTimeout is the cause of a call's context ended by CallTimeout.
var errCallTimeout = errors.New("hbase: call timeout")

// rpc runs one call on server and decodes the response into out (if not
// nil). It returns the response's cell block. The call waits for its answer
// at most Config.CallTimeout.
func (c *Client) rpc(ctx context.Context, server ServerName, service Service, method string, req proto.Message, cellBlock []byte, out proto.Message) ([]byte, error) {
	cn, err := c.getConn(ctx, server, service)
	if err != nil {
		return nil, err
	}
	callCtx := ctx
	if c.cfg.CallTimeout > 0 {
		var cancel context.CancelFunc
		callCtx, cancel = context.WithTimeoutCause(ctx, c.cfg.CallTimeout, errCallTimeout)
		defer cancel()
	}
	resp, err := cn.call(callCtx, method, req, cellBlock)
	if err != nil && ctx.Err() == nil && errors.Is(context.Cause(callCtx), errCallTimeout) {
		// The server took the call and did not answer in time: the caller
		// locates the region again and retries, as after a lost connection.
		return nil, &CallTimeoutError{Server: server, Method: method, Timeout: c.cfg.CallTimeout}
	}
	if err != nil {
		return nil, err
	}
	if out != nil {
		if err := proto.Unmarshal(resp.param, out); err != nil {
			return nil, fmt.Errorf("call %s on %s: %w: decode response: %v", method, server.Addr(), ErrProtocol, err)
		}
	}
	return resp.cellBlock, nil
}

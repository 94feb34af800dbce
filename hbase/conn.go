package hbase

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"sync"
	"time"

	"google.golang.org/protobuf/proto"

	"rangecopy/hbase/pb"
)

// Service is the protobuf service a connection is opened for. HBase fixes the
// service per connection.
type Service string

// Services of HBase's RPC server.
const (
	ClientService Service = "ClientService" // region servers: data and bulk load
	MasterService Service = "MasterService" // active master: admin
	AdminService  Service = "AdminService"  // region servers: flush, region info
)

// connOptions configures one connection.
type connOptions struct {
	auth         Authenticator
	dialer       func(ctx context.Context, network, addr string) (net.Conn, error)
	writeTimeout time.Duration
	maxFrameSize int
	log          *slog.Logger
}

// result is what a pending call receives: a decoded response or an error.
type result struct {
	resp *response
	err  error
}

// conn is one RPC connection to one server for one service. Many calls run
// over it at once: writes are serialised, and a reader goroutine dispatches
// each response to its call by call id.
type conn struct {
	server  ServerName
	service Service
	opts    connOptions
	nc      net.Conn

	writeMu sync.Mutex

	mu      sync.Mutex
	nextID  uint32
	pending map[uint32]chan result
	err     error // set once the connection is broken or closed
	done    chan struct{}
}

// dialConn connects to server, sends the preamble and the ConnectionHeader,
// and starts the reader.
func dialConn(ctx context.Context, server ServerName, service Service, opts connOptions) (*conn, error) {
	dial := opts.dialer
	if dial == nil {
		var d net.Dialer
		dial = d.DialContext
	}
	nc, err := dial(ctx, "tcp", server.Addr())
	if err != nil {
		return nil, &ConnError{Server: server, Err: err}
	}
	c, err := newConn(ctx, nc, server, service, opts)
	if err != nil {
		nc.Close()
		return nil, err
	}
	return c, nil
}

// newConn runs the connection setup on an established net.Conn.
func newConn(ctx context.Context, nc net.Conn, server ServerName, service Service, opts connOptions) (*conn, error) {
	if opts.maxFrameSize <= 0 {
		opts.maxFrameSize = DefaultMaxFrameSize
	}
	if opts.writeTimeout <= 0 {
		opts.writeTimeout = 30 * time.Second
	}
	if opts.log == nil {
		opts.log = slog.New(slog.DiscardHandler)
	}
	if opts.auth == nil {
		opts.auth = Simple{User: DefaultUser()}
	}
	hdr := &pb.ConnectionHeader{
		UserInfo:            &pb.UserInformation{EffectiveUser: proto.String(opts.auth.EffectiveUser())},
		ServiceName:         proto.String(string(service)),
		CellBlockCodecClass: proto.String(keyValueCodecClass),
	}
	pre, err := encodePreamble(opts.auth.Method(), hdr)
	if err != nil {
		return nil, err
	}
	if dl, ok := ctx.Deadline(); ok {
		nc.SetDeadline(dl)
	}
	// The preamble (magic, version, auth) comes first; an authenticator's
	// exchange follows it, then the length-prefixed ConnectionHeader.
	if _, err := nc.Write(pre[:6]); err != nil {
		return nil, &ConnError{Server: server, Err: fmt.Errorf("write preamble: %w", err)}
	}
	nc, err = opts.auth.Handshake(ctx, nc, server)
	if err != nil {
		return nil, &ConnError{Server: server, Err: fmt.Errorf("%s handshake: %w", opts.auth.Method(), err)}
	}
	if _, err := nc.Write(pre[6:]); err != nil {
		return nil, &ConnError{Server: server, Err: fmt.Errorf("write connection header: %w", err)}
	}
	nc.SetDeadline(time.Time{})
	c := &conn{
		server:  server,
		service: service,
		opts:    opts,
		nc:      nc,
		pending: make(map[uint32]chan result),
		done:    make(chan struct{}),
	}
	go c.readLoop()
	return c, nil
}

// call sends one request and waits for its response. The returned response's
// exception, if any, is already turned into a *RemoteError. If ctx ends first
// the call is abandoned; the connection stays usable and a late response is
// dropped.
func (c *conn) call(ctx context.Context, method string, param proto.Message, cellBlock []byte) (*response, error) {
	ch := make(chan result, 1)
	c.mu.Lock()
	if c.err != nil {
		err := c.err
		c.mu.Unlock()
		return nil, err
	}
	id := c.nextID
	c.nextID++
	c.pending[id] = ch
	c.mu.Unlock()

	hdr := &pb.RequestHeader{CallId: proto.Uint32(id), MethodName: proto.String(method)}
	if dl, ok := ctx.Deadline(); ok {
		if ms := time.Until(dl).Milliseconds(); ms > 0 {
			hdr.Timeout = proto.Uint32(uint32(min(ms, 1<<31-1)))
		}
	}
	frame, err := encodeRequest(hdr, param, cellBlock)
	if err != nil {
		c.forget(id)
		return nil, err
	}
	if by, ok := ctx.Value(sendByKey{}).(time.Time); ok && time.Now().After(by) {
		c.forget(id)
		return nil, fmt.Errorf("call %s on %s: %w (send by %s)", method, c.server.Addr(), ErrSendTooLate, by.Format(time.RFC3339Nano))
	}
	if err := c.write(frame); err != nil {
		c.forget(id)
		return nil, err
	}
	select {
	case r := <-ch:
		if r.err != nil {
			return nil, r.err
		}
		if r.resp.exception != nil {
			re := newRemoteError(r.resp.exception)
			re.Server, re.Method, re.CallID = c.server, method, id
			return nil, re
		}
		return r.resp, nil
	case <-ctx.Done():
		c.forget(id)
		return nil, fmt.Errorf("call %s #%d on %s: %w", method, id, c.server.Addr(), ctx.Err())
	}
}

// write sends a whole frame. A frame is never cut short by a caller's
// context: a partial frame would corrupt the stream for every other call. A
// failed write breaks the connection.
func (c *conn) write(frame []byte) error {
	c.writeMu.Lock()
	defer c.writeMu.Unlock()
	c.nc.SetWriteDeadline(time.Now().Add(c.opts.writeTimeout))
	if _, err := c.nc.Write(frame); err != nil {
		err = &ConnError{Server: c.server, Err: fmt.Errorf("write: %w", err)}
		c.fail(err)
		return err
	}
	return nil
}

func (c *conn) forget(id uint32) {
	c.mu.Lock()
	delete(c.pending, id)
	c.mu.Unlock()
}

// readLoop reads responses until the connection breaks.
func (c *conn) readLoop() {
	for {
		frame, err := readFrame(c.nc, c.opts.maxFrameSize)
		if err != nil {
			c.fail(&ConnError{Server: c.server, Err: fmt.Errorf("read: %w", err)})
			return
		}
		resp, err := decodeResponse(frame)
		if err != nil {
			c.fail(&ConnError{Server: c.server, Err: err})
			return
		}
		c.mu.Lock()
		ch, ok := c.pending[resp.callID]
		delete(c.pending, resp.callID)
		issued := resp.callID < c.nextID
		c.mu.Unlock()
		switch {
		case ok:
			ch <- result{resp: resp}
		case issued:
			// An abandoned (cancelled) call: drop the late answer.
			c.opts.log.Debug("hbase: dropping response to abandoned call", "server", c.server.Addr(), "call", resp.callID)
		case resp.exception != nil:
			// A connection-level exception (HBase answers a bad
			// connection header with call id -1 and closes): fail every
			// call with the server's reason.
			re := newRemoteError(resp.exception)
			re.Server, re.CallID = c.server, resp.callID
			c.fail(&ConnError{Server: c.server, Err: re})
			return
		default:
			c.fail(&ConnError{Server: c.server, Err: fmt.Errorf("%w: response to unknown call id %d", ErrProtocol, resp.callID)})
			return
		}
	}
}

// fail breaks the connection with err and fails every pending call.
func (c *conn) fail(err error) {
	c.mu.Lock()
	if c.err != nil {
		c.mu.Unlock()
		return
	}
	c.err = err
	pending := c.pending
	c.pending = make(map[uint32]chan result)
	c.mu.Unlock()
	c.nc.Close()
	close(c.done)
	for _, ch := range pending {
		ch <- result{err: err}
	}
	if !errors.Is(err, ErrClosed) {
		c.opts.log.Debug("hbase: connection broken", "server", c.server.Addr(), "service", string(c.service), "err", err)
	}
}

// close shuts the connection; pending calls fail with ErrClosed.
func (c *conn) close() {
	c.fail(&ConnError{Server: c.server, Err: ErrClosed})
}

// broken reports whether the connection can no longer be used.
func (c *conn) broken() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.err != nil
}

// ErrSendTooLate reports a request not sent because the time it had to be
// sent by (WithSendBy) had passed.
var ErrSendTooLate = errors.New("hbase: request not sent: its send-by time passed")

type sendByKey struct{}

// WithSendBy returns a context whose requests are sent only before t: a
// request about to go out later fails with ErrSendTooLate instead, unsent.
// The answer to a request sent in time is awaited as usual. It fences an
// action that was allowed at some moment (a lease, a claim checked with a
// server) against a pause of the process (GC, SIGSTOP) between the check and
// the send.
func WithSendBy(ctx context.Context, t time.Time) context.Context {
	return context.WithValue(ctx, sendByKey{}, t)
}

// unfenced is a context without the send-by time of its parent (WithSendBy),
// for the lookups a fenced request makes on its way (hbase:meta reads),
// which change nothing and need no fence.
type unfenced struct{ context.Context }

func (u unfenced) Value(key any) any {
	if _, ok := key.(sendByKey); ok {
		return nil
	}
	return u.Context.Value(key)
}

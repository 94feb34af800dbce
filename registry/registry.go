package registry

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/go-zookeeper/zk"
)

// DefaultRoot is the root of the layout when Config.Root is empty.
const DefaultRoot = "/rangecopy"

// DefaultSessionTimeout is the session timeout asked of ZooKeeper when
// Config.SessionTimeout is zero.
const DefaultSessionTimeout = 30 * time.Second

// Config says how to reach ZooKeeper and where the layout lives.
type Config struct {
	// Servers are host:port addresses of the ensemble.
	Servers []string
	// Root is the layout's root path; empty means DefaultRoot.
	Root string
	// SessionTimeout is asked of the server, which may clamp it to its
	// [2, 20] ticks bounds; zero means DefaultSessionTimeout. A connection
	// down for this long is treated as a lost session.
	SessionTimeout time.Duration
	// Logger receives the registry's and go-zookeeper's logs; nil discards.
	Logger *slog.Logger
}

// Registry is the task registry over one ZooKeeper connection. It is safe for
// concurrent use.
type Registry struct {
	conn    *zk.Conn
	p       paths
	log     *slog.Logger
	timeout time.Duration

	mu        sync.Mutex
	lost      chan struct{} // closed when the current session generation ends
	lostDone  bool          // lost is closed; a new generation starts at the next session
	connected chan struct{} // closed at the first session
	gotFirst  bool
	downTimer *time.Timer
	workers   map[string]Worker // registrations to restore in a new session

	hintsMu sync.Mutex
	hints   map[string]*claimHint // ClaimAny's memory of each job

	sessionUp chan struct{} // cap 1: a session was (re)established
	closed    chan struct{}
	closeOnce sync.Once
	wg        sync.WaitGroup
}

// zkLogger sends go-zookeeper's logs to slog.
type zkLogger struct{ log *slog.Logger }

func (l zkLogger) Printf(format string, args ...any) {
	l.log.Debug("zookeeper: " + strings.TrimSpace(fmt.Sprintf(format, args...)))
}

// Open connects to ZooKeeper, waits for a session and creates the root layout
// if missing.
func Open(ctx context.Context, cfg Config) (*Registry, error) {
	if len(cfg.Servers) == 0 {
		return nil, errors.New("registry: no zookeeper servers")
	}
	if cfg.Root == "" {
		cfg.Root = DefaultRoot
	}
	if err := ValidateRoot(cfg.Root); err != nil {
		return nil, fmt.Errorf("registry: %w", err)
	}
	if cfg.SessionTimeout <= 0 {
		cfg.SessionTimeout = DefaultSessionTimeout
	}
	log := cfg.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	r := &Registry{
		p:         paths{root: cfg.Root},
		log:       log.With("zk", strings.Join(cfg.Servers, ","), "root", cfg.Root),
		timeout:   cfg.SessionTimeout,
		lost:      make(chan struct{}),
		connected: make(chan struct{}),
		workers:   map[string]Worker{},
		sessionUp: make(chan struct{}, 1),
		closed:    make(chan struct{}),
	}
	conn, _, err := zk.Connect(cfg.Servers, cfg.SessionTimeout,
		zk.WithLogger(zkLogger{r.log}), zk.WithLogInfo(false), zk.WithEventCallback(r.onEvent))
	if err != nil {
		return nil, fmt.Errorf("registry: connect to %v: %w", cfg.Servers, err)
	}
	r.conn = conn
	select {
	case <-r.connected:
	case <-ctx.Done():
		conn.Close()
		return nil, fmt.Errorf("registry: waiting for a zookeeper session with %v: %w", cfg.Servers, ctx.Err())
	}
	for _, p := range []string{r.p.leaderDir(), r.p.workersDir(), r.p.jobsDir()} {
		if err := r.ensurePath(ctx, p); err != nil {
			conn.Close()
			return nil, err
		}
	}
	r.wg.Add(1)
	go r.sessionLoop()
	r.log.Info("registry open", "session", fmt.Sprintf("%#x", conn.SessionID()))
	return r, nil
}

// Close ends the session (its ephemeral nodes go with it) and the connection.
func (r *Registry) Close() {
	r.closeOnce.Do(func() {
		close(r.closed)
		r.conn.Close()
		r.mu.Lock()
		r.endGeneration("registry closed")
		if r.downTimer != nil {
			r.downTimer.Stop()
		}
		r.mu.Unlock()
		r.wg.Wait()
	})
}

// SessionTimeout is the session timeout asked of ZooKeeper (the server may
// have clamped it).
func (r *Registry) SessionTimeout() time.Duration { return r.timeout }

// SessionID is the id of the current ZooKeeper session (0 while there is none).
func (r *Registry) SessionID() int64 { return r.conn.SessionID() }

// Connected reports whether the registry holds a ZooKeeper session right
// now (connected, session established). A closed registry holds none, although
// its connection says so only once its close has gone through.
func (r *Registry) Connected() bool {
	select {
	case <-r.closed:
		return false
	default:
	}
	return r.conn.State() == zk.StateHasSession
}

// SessionLost returns a channel closed when the current session ends: it
// expired, the connection was down for a whole session timeout, or the
// registry was closed. Every ephemeral node made in it (claims, election
// nodes, worker registrations) must be presumed gone then. Ask again for the
// channel of the next session.
func (r *Registry) SessionLost() <-chan struct{} {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.lost
}

// session returns the current session id with the channel that closes when
// it ends. The channel is read first, so a session that ends between the two
// reads is seen as lost.
func (r *Registry) session() (int64, <-chan struct{}) {
	lost := r.SessionLost()
	return r.conn.SessionID(), lost
}

// onEvent runs on go-zookeeper's connection goroutine, synchronously: it must
// not block or call the connection.
func (r *Registry) onEvent(ev zk.Event) {
	if ev.Type != zk.EventSession {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	switch ev.State {
	case zk.StateHasSession:
		if isClosed(r.closed) {
			return
		}
		if r.downTimer != nil {
			r.downTimer.Stop()
			r.downTimer = nil
		}
		if !r.gotFirst {
			r.gotFirst = true
			close(r.connected)
		}
		if r.lostDone {
			r.lost = make(chan struct{})
			r.lostDone = false
		}
		wake(r.sessionUp)
	case zk.StateExpired:
		r.endGeneration("session expired")
	case zk.StateDisconnected:
		if r.downTimer == nil && !r.lostDone && r.gotFirst {
			var t *time.Timer
			t = time.AfterFunc(r.timeout, func() {
				r.mu.Lock()
				defer r.mu.Unlock()
				if r.downTimer != t {
					return // stopped too late: the session came back meanwhile
				}
				r.downTimer = nil
				r.endGeneration("disconnected for a whole session timeout")
			})
			r.downTimer = t
		}
	}
}

// endGeneration closes the lost channel of the current session. r.mu is held.
// A session lost while the registry is open is a warning; the end of the
// session by Close (or anything seen while closing) is not.
func (r *Registry) endGeneration(why string) {
	if r.lostDone {
		return
	}
	r.lostDone = true
	close(r.lost)
	if isClosed(r.closed) {
		r.log.Debug("zookeeper session ended", "why", why)
		return
	}
	r.log.Warn("zookeeper session lost", "why", why)
}

// sessionLoop restores the worker registrations in every new session.
func (r *Registry) sessionLoop() {
	defer r.wg.Done()
	ctx := context.Background() // calls end with the registry (alive)
	retry := false
	for {
		var again <-chan time.Time
		if retry {
			again = time.After(time.Second)
		}
		select {
		case <-r.closed:
			return
		case <-r.sessionUp:
		case <-again:
		}
		retry = false
		r.mu.Lock()
		ws := make([]Worker, 0, len(r.workers))
		for _, w := range r.workers {
			ws = append(ws, w)
		}
		r.mu.Unlock()
		for _, w := range ws {
			r.mu.Lock()
			_, still := r.workers[w.ID]
			r.mu.Unlock()
			if !still {
				continue // unregistered meanwhile
			}
			if err := r.putWorker(ctx, w); err != nil {
				r.log.Warn("re-registering worker in a new session", "worker", w.ID, "err", err)
				// A passing failure is retried; an id taken by another
				// live session is not.
				retry = retry || Classify(err) == ActionRetry
			}
		}
	}
}

// waitSession waits until the registry has a session that is not lost.
func (r *Registry) waitSession(ctx context.Context) error {
	for {
		lost := r.SessionLost()
		select {
		case <-lost:
		default:
			return nil
		}
		// Bounded poll: a new session replaces the closed channel.
		if err := r.pause(ctx, 50*time.Millisecond); err != nil {
			return err
		}
	}
}

// alive returns an error when ctx is done or the registry closed: checked
// before each call to ZooKeeper (go-zookeeper calls take no context).
func (r *Registry) alive(ctx context.Context) error {
	select {
	case <-r.closed:
		return ErrClosed
	default:
	}
	return ctx.Err()
}

var openACL = zk.WorldACL(zk.PermAll)

// ensurePath creates a persistent path and its parents where missing.
func (r *Registry) ensurePath(ctx context.Context, p string) error {
	parts := strings.Split(p[1:], "/")
	cur := ""
	for _, el := range parts {
		cur += "/" + el
		if err := r.alive(ctx); err != nil {
			return err
		}
		_, err := r.conn.Create(cur, nil, 0, openACL)
		if err != nil && !errors.Is(err, zk.ErrNodeExists) {
			return fmt.Errorf("registry: create %s: %w", cur, err)
		}
	}
	return nil
}

// multiErr finds the first failed operation of a transaction: its index and
// error, or -1 and the call's error.
func multiErr(res []zk.MultiResponse, err error) (int, error) {
	if err == nil {
		return -1, nil
	}
	for i, r := range res {
		if r.Error != nil {
			return i, r.Error
		}
	}
	return -1, err
}

// retryPause is the wait before retrying a call that failed for a passing
// reason (no connection).
const retryPause = 200 * time.Millisecond

// pause waits d unless ctx ends or the registry closes first.
func (r *Registry) pause(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-r.closed:
		return ErrClosed
	case <-t.C:
		return nil
	}
}

// dropIfMine deletes an ephemeral node of a session that the registry gave
// up on (the connection was down for a whole session timeout) but that the
// server kept: once connected again, if the session is still the same, the
// node would otherwise outlive the claim or leadership it stood for. If the
// session changed, the server expired the old one and its nodes are gone.
// It runs in its own goroutine and gives up after a few session timeouts.
func (r *Registry) dropIfMine(path string, session int64) {
	deadline := time.Now().Add(3 * r.timeout)
	for time.Now().Before(deadline) {
		if r.conn.State() == zk.StateHasSession {
			if r.conn.SessionID() != session {
				return
			}
			ok, st, err := r.conn.Exists(path)
			if err == nil {
				if ok && st.EphemeralOwner == session {
					err = r.conn.Delete(path, st.Version)
					r.log.Info("deleted a node of a session given up", "path", path, "err", err)
				}
				if err == nil || errors.Is(err, zk.ErrNoNode) {
					return
				}
			}
		}
		if r.pause(context.Background(), retryPause) != nil {
			return
		}
	}
}

// holdNode watches an ephemeral node of a session until it is lost, and says
// why: the session expired or was given up, or the node was deleted or is
// owned by another session. It returns "" when stop or the registry closes
// first. Connection errors are ridden out (the session decides). A node of a
// session given up is deleted if the server kept the session (dropIfMine).
func (r *Registry) holdNode(path string, session int64, lost, stop <-chan struct{}) string {
	for {
		ok, st, ch, err := r.conn.ExistsW(path)
		switch {
		case errors.Is(err, zk.ErrSessionExpired):
			return "session expired"
		case err != nil:
			ch = nil // no connection: look again after a pause
		case !ok:
			return "node deleted"
		case st.EphemeralOwner != session:
			return fmt.Sprintf("node owned by session %#x", st.EphemeralOwner)
		}
		var retry <-chan time.Time
		if ch == nil {
			retry = time.After(retryPause)
		}
		select {
		case ev := <-ch:
			if ev.Type == zk.EventNodeDeleted {
				return "node deleted"
			}
		case <-retry:
		case <-lost:
			go r.dropIfMine(path, session)
			return "session lost"
		case <-stop:
			return ""
		case <-r.closed:
			return ""
		}
	}
}

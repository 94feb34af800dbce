package server

import (
	"container/list"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"rangecopy/api"
	"rangecopy/catalog"
)

// authLimiter limits the failed authentications of each client with a token bucket: a
// client holds up to burst failures, earns one back every every, and past that is refused
// (429) until it has earned one. The audit log gets every failure the bucket allowed (at most
// burst, then one per every) and one row per burst of 429s: its first 429 as it is, the
// rest counted and summed up (Summaries).
//
// Its memory is bounded: it remembers at most max clients, forgetting the least recently
// seen first (a forgotten client's uncounted refusals are summed up, not lost). It does no
// I/O and reads no clock: every call says what time it is.
type authLimiter struct {
	burst   int
	every   time.Duration
	max     int
	mu      sync.Mutex
	clients map[string]*list.Element // of *authClient
	lru     list.List                // front: most recently seen
	ended   []authBurst              // summaries of forgotten clients' bursts
}

// authClient is what the limiter holds of one client.
type authClient struct {
	addr   string
	tokens float64   // failures it may still make
	at     time.Time // when tokens was computed
	// A burst of 429s: open while since is set; limited counts those after its first,
	// not yet summed up; last is the latest.
	since   time.Time
	limited int
	last    time.Time
}

// authBurst is a client's 429s since the last summary: the audit row that sums them up.
type authBurst struct {
	Addr      string
	Since, To time.Time
	Refused   int
}

// Message is the summary's line in the audit log.
func (b authBurst) Message() string {
	return fmt.Sprintf("%d refused sign-ins from %s in the last %s (too many failed sign-ins)", b.Refused, b.Addr,
		b.To.Sub(b.Since).Round(time.Second))
}

func newAuthLimiter(burst int, every time.Duration, maxClients int) *authLimiter {
	return &authLimiter{burst: max(1, burst), every: max(time.Millisecond, every), max: max(1, maxClients),
		clients: map[string]*list.Element{}}
}

// client returns the record of addr, making one (and forgetting the least recently seen
// client if that makes too many), and marks it seen.
func (l *authLimiter) client(addr string, now time.Time) *authClient {
	if e, ok := l.clients[addr]; ok {
		l.lru.MoveToFront(e)
		c := e.Value.(*authClient)
		c.refill(now, l.every, l.burst)
		return c
	}
	for len(l.clients) >= l.max {
		e := l.lru.Back()
		old := e.Value.(*authClient)
		if b, ok := old.summary(now, true); ok {
			l.ended = append(l.ended, b)
		}
		l.lru.Remove(e)
		delete(l.clients, old.addr)
	}
	c := &authClient{addr: addr, tokens: float64(l.burst), at: now}
	l.clients[addr] = l.lru.PushFront(c)
	return c
}

func (c *authClient) refill(now time.Time, every time.Duration, burst int) {
	if d := now.Sub(c.at); d > 0 {
		c.tokens = min(float64(burst), c.tokens+float64(d)/float64(every))
		c.at = now
	}
}

// Wait returns how long addr must wait before it may try to authenticate again: 0 when it
// may now. A client that must wait is refused with 429; Refuse records that.
func (l *authLimiter) Wait(addr string, now time.Time) time.Duration {
	l.mu.Lock()
	defer l.mu.Unlock()
	e, ok := l.clients[addr]
	if !ok {
		return 0
	}
	c := e.Value.(*authClient)
	c.refill(now, l.every, l.burst)
	if c.tokens >= 1 {
		return 0
	}
	return time.Duration((1 - c.tokens) * float64(l.every))
}

// Refuse records a refusal of addr: a failed authentication (401, 403), which spends one of
// its failures, or a 429 the limiter made, which spends none. It reports whether the caller
// records the refusal in the audit log: every failed authentication (the bucket bounds
// them) and the first 429 of a burst; Summaries sums up the burst's others.
func (l *authLimiter) Refuse(addr string, status int, now time.Time) (record bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	c := l.client(addr, now)
	if status != http.StatusTooManyRequests {
		c.tokens = max(0, c.tokens-1)
		return true
	}
	c.last = now
	if c.since.IsZero() {
		c.since = now
		return true
	}
	c.limited++
	return false
}

// summary returns the client's 429s not yet summed up (ok false when there are none), and
// resets the count; end closes the burst.
func (c *authClient) summary(now time.Time, end bool) (b authBurst, ok bool) {
	if c.since.IsZero() {
		return authBurst{}, false
	}
	b = authBurst{Addr: c.addr, Since: c.since, To: now, Refused: c.limited}
	c.since, c.limited = now, 0
	if end {
		c.since = time.Time{}
	}
	return b, b.Refused > 0
}

// Summaries returns the audit rows due at now: for every client with 429s past the first of
// its burst not yet summed up, one row of them. A burst with no 429 in the last quiet ends;
// a client with no burst and a full bucket is forgotten.
func (l *authLimiter) Summaries(now time.Time, quiet time.Duration) []authBurst {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := l.ended
	l.ended = nil
	for e := l.lru.Front(); e != nil; {
		next := e.Next()
		c := e.Value.(*authClient)
		c.refill(now, l.every, l.burst)
		end := !c.since.IsZero() && now.Sub(c.last) >= quiet
		if b, ok := c.summary(now, end); ok {
			out = append(out, b)
		}
		if c.since.IsZero() && c.tokens >= float64(l.burst) {
			l.lru.Remove(e)
			delete(l.clients, c.addr)
		}
		e = next
	}
	return out
}

// Len is how many clients the limiter remembers.
func (l *authLimiter) Len() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.clients)
}

// clientAddr is the address of the client of a request: the socket's peer, or, when that
// peer is a trusted proxy, the nearest address of X-Forwarded-For that is not one (each
// proxy appends the address it got the request from; only trusted ones are believed).
func clientAddr(remoteAddr string, forwarded []string, trusted []netip.Prefix) string {
	host := remoteAddr
	if h, _, err := net.SplitHostPort(remoteAddr); err == nil {
		host = h
	}
	ip, err := netip.ParseAddr(host)
	if err != nil {
		return host
	}
	ip = ip.Unmap()
	isTrusted := func(a netip.Addr) bool {
		for _, p := range trusted {
			if p.Contains(a) {
				return true
			}
		}
		return false
	}
	if !isTrusted(ip) {
		return ip.String()
	}
	var hops []string
	for _, f := range forwarded {
		for _, h := range strings.Split(f, ",") {
			hops = append(hops, strings.TrimSpace(h))
		}
	}
	for i := len(hops) - 1; i >= 0; i-- {
		a, err := netip.ParseAddr(hops[i])
		if err != nil {
			return ip.String() // a hop that is no address: believe nothing before it
		}
		a = a.Unmap()
		if !isTrusted(a) {
			return a.String()
		}
		ip = a
	}
	return ip.String()
}

type clientAddrKey struct{}

// clientOf returns the client address of a request the guard let through (its socket's
// peer when none was noted).
func clientOf(ctx context.Context, remoteAddr string) string {
	if a, ok := ctx.Value(clientAddrKey{}).(string); ok {
		return a
	}
	return clientAddr(remoteAddr, nil, nil)
}

// openPath reports whether a client refused for too many failures may still call path: the
// health checks and the contract need no token.
func openPath(p string) bool {
	switch p {
	case api.APIPrefix + "/healthz", api.APIPrefix + "/readyz", api.APIPrefix + "/openapi.yaml", api.APIPrefix + "/openapi.json":
		return true
	}
	return false
}

// guardAuth answers 429, with Retry-After, to a client that failed to authenticate too
// often, before anything reads the catalog; it notes the client's address for the handlers
// (which record failures with refused).
func (a *rest) guardAuth(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		addr := clientAddr(r.RemoteAddr, r.Header.Values("X-Forwarded-For"), a.s.cfg.Limits.TrustedProxies)
		if !openPath(r.URL.Path) {
			if wait := a.authLim.Wait(addr, time.Now()); wait > 0 {
				secs := int((wait + time.Second - 1) / time.Second)
				a.refused(r.Context(), catalog.AuditEntry{Method: r.Method, Path: r.URL.Path, RemoteAddr: addr,
					Status: http.StatusTooManyRequests, Message: "too many failed sign-ins"})
				w.Header().Set("Retry-After", strconv.Itoa(secs))
				w.Header().Set("Content-Type", "application/problem+json")
				w.WriteHeader(http.StatusTooManyRequests)
				_ = json.NewEncoder(w).Encode(api.NewProblem(http.StatusTooManyRequests,
					fmt.Sprintf("too many failed sign-ins from %s: try again in %d s", addr, secs)))
				return
			}
		}
		next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), clientAddrKey{}, addr)))
	})
}

// refused records a refusal of e.RemoteAddr (401, 403 or 429) with the limiter, and in the
// audit log unless it is a 429 past the first of its burst: those go into a summary row
// (summarizeRefusals).
func (a *rest) refused(ctx context.Context, e catalog.AuditEntry) {
	if a.authLim.Refuse(e.RemoteAddr, e.Status, time.Now()) {
		a.appendAudit(ctx, e)
	}
}

// appendAudit records e in the audit log; the call's own context may be gone (a client
// that hung up), the record is still kept.
func (a *rest) appendAudit(ctx context.Context, e catalog.AuditEntry) {
	actx, cancel := context.WithTimeout(context.WithoutCancel(ctx), catalogTimeout)
	defer cancel()
	if _, err := a.s.cat.AppendAudit(actx, e); err != nil {
		a.s.metrics.catalogErrors.Inc()
		a.s.cfg.Logger.Error("audit log: cannot record a call", "method", e.Method, "path", e.Path, "status", e.Status, "err", err)
	}
}

// summarizeRefusals writes the limiter's summaries to the audit log every period, and once
// more as ctx ends.
func (a *rest) summarizeRefusals(ctx context.Context) {
	period := a.s.cfg.Limits.AuditSummaryEvery
	t := time.NewTicker(period)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			a.writeSummaries(ctx, time.Now(), 0)
			return
		case now := <-t.C:
			a.writeSummaries(ctx, now, period)
		}
	}
}

func (a *rest) writeSummaries(ctx context.Context, now time.Time, quiet time.Duration) {
	for _, b := range a.authLim.Summaries(now, quiet) {
		a.appendAudit(ctx, catalog.AuditEntry{Time: b.To, Method: "*", Path: "*", RemoteAddr: b.Addr,
			Status: http.StatusTooManyRequests, Message: b.Message()})
	}
}

// storable reports whether s can reach the catalog as a key on every database: PostgreSQL
// refuses a NUL and bytes that are not UTF-8 with an error, where the others find nothing.
func storable(s string) bool { return utf8.ValidString(s) && !strings.ContainsRune(s, 0) }

// refuseUnstorable answers 400 to a request whose path or query holds a NUL or bytes that
// are not UTF-8: no name or id has them, and they would reach the catalog as an error, not
// as "not found".
func refuseUnstorable(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ok := storable(r.URL.Path)
		for k, vs := range r.URL.Query() {
			ok = ok && storable(k)
			for _, v := range vs {
				ok = ok && storable(v)
			}
		}
		if !ok {
			w.Header().Set("Content-Type", "application/problem+json")
			w.WriteHeader(http.StatusBadRequest)
			_ = json.NewEncoder(w).Encode(api.NewProblem(http.StatusBadRequest,
				"the path or query holds a NUL or bytes that are not UTF-8: no name or id has them"))
			return
		}
		next.ServeHTTP(w, r)
	})
}

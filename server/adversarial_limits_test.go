package server

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"rangecopy/api"
	"rangecopy/catalog"
	"rangecopy/testenv"
	"rangecopy/testenv/copytest"
)

// The limits of issue 27 tried against a real server on the real clusters: a flood of failed
// sign-ins, a thousand event streams, oversized and slow bodies, and path tricks.

// limitsRig is a server with small limits: a burst of 10 failed sign-ins, summaries every
// 2 s, 64 event streams (40 per token), 10 s to read a request and 15 s to write an answer,
// 127.0.0.5 a trusted proxy.
func limitsRig(t *testing.T, env *testenv.Env) *rig {
	t.Helper()
	return newRigWith(t, env, 0, t.TempDir(), "/"+testenv.UniqueName(t, "srv"), "", func(c *Config) {
		c.Limits = Limits{FailedAuthBurst: 10, AuditSummaryEvery: 2 * time.Second, Streams: 64, StreamsPerToken: 40,
			ReadTimeout: 10 * time.Second, WriteTimeout: 15 * time.Second,
			TrustedProxies: []netip.Prefix{netip.MustParsePrefix("127.0.0.5/32")}}
	})
}

// clientFrom is an HTTP client whose connections come from a loopback address of its own,
// so that the server sees another client.
func clientFrom(ip string, conns int) *http.Client {
	d := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(ip)}, Timeout: 10 * time.Second}
	// No client timeout: it would cut the event streams; the tests' contexts bound them.
	return &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
		Transport: &http.Transport{DialContext: d.DialContext, MaxIdleConnsPerHost: conns, MaxConnsPerHost: 0}}
}

// call makes one request and returns its status, header and body.
func call(t *testing.T, c *http.Client, method, u, secret string, body io.Reader, header ...string) answer {
	t.Helper()
	req, err := http.NewRequest(method, u, body)
	if err != nil {
		t.Fatal(err)
	}
	if secret != "" {
		req.Header.Set("Authorization", "Bearer "+secret)
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := c.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, u, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return answer{status: resp.StatusCode, header: resp.Header, body: b}
}

// auditCount counts the audit log's entries.
func auditCount(t *testing.T, c *catalog.Catalog) (all []catalog.AuditEntry) {
	t.Helper()
	cur := ""
	for {
		p, err := c.ListAudit(t.Context(), "", cur, catalog.MaxPageSize)
		if err != nil {
			t.Fatal(err)
		}
		all = append(all, p.Entries...)
		if p.Next == "" {
			return all
		}
		cur = p.Next
	}
}

// TestAdversarialFailedSignIns sends 10,000 sign-ins with wrong secrets from one address: the
// limiter holds them at 429 (Retry-After) past a burst of 10, a valid token from that address
// is refused too (the limit comes before the catalog), other addresses are not, and the audit
// log grows by the failures the bucket let through plus one row per burst and one summary
// row per period, which together account for every 429. The dashboard's sign-in, /metrics
// and clients behind a trusted proxy are held the same way.
func TestAdversarialFailedSignIns(t *testing.T) {
	env := testenv.Get(t)
	r := limitsRig(t, env)
	before := len(auditCount(t, r.s.Catalog()))
	const total, workers = 10_000, 8
	c := clientFrom("127.0.0.1", workers)
	var n401, n429, other atomic.Int64
	var badRetry atomic.Value
	start := time.Now()
	var wg sync.WaitGroup
	var next atomic.Int64
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for next.Add(1) <= total {
				req, _ := http.NewRequest(http.MethodGet, r.url+api.APIPrefix+"/jobs", nil)
				req.Header.Set("Authorization", "Bearer rc_wrong-secret")
				resp, err := c.Do(req)
				if err != nil {
					other.Add(1)
					continue
				}
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				a := answer{status: resp.StatusCode, header: resp.Header}
				switch a.status {
				case http.StatusUnauthorized:
					n401.Add(1)
				case http.StatusTooManyRequests:
					n429.Add(1)
					if s, err := strconv.Atoi(a.header.Get("Retry-After")); err != nil || s < 1 {
						badRetry.Store(fmt.Sprintf("Retry-After %q", a.header.Get("Retry-After")))
					}
				default:
					other.Add(1)
				}
			}
		}()
	}
	wg.Wait()
	elapsed := time.Since(start)
	// At most the burst and one more failure per 6 s went through to the catalog.
	maxFailures := int64(10 + elapsed/(6*time.Second) + 1)
	t.Logf("%d sign-ins in %v: %d × 401, %d × 429, %d other", total, elapsed.Round(time.Millisecond), n401.Load(), n429.Load(), other.Load())
	if other.Load() != 0 || n401.Load()+n429.Load() != total {
		t.Fatalf("%d answers neither 401 nor 429", other.Load())
	}
	if n401.Load() < 10 || n401.Load() > maxFailures {
		t.Errorf("%d failures let through in %v; want 10 to %d", n401.Load(), elapsed, maxFailures)
	}
	if v := badRetry.Load(); v != nil {
		t.Errorf("a 429 without a good Retry-After: %v", v)
	}
	// The 429 is the API's problem, and comes before the token is even looked at.
	a := r.do(r.admin, http.MethodGet, api.APIPrefix+"/jobs", nil)
	if a.status != http.StatusTooManyRequests || a.header.Get("Retry-After") == "" {
		t.Errorf("a valid token from the limited address: %d %s", a.status, a.body)
	}
	if a := r.do("", http.MethodGet, api.APIPrefix+"/healthz", nil); a.status != http.StatusOK {
		t.Errorf("/healthz from the limited address: %d", a.status)
	}
	// Another address is served.
	other2 := clientFrom("127.0.0.2", 1)
	if a := call(t, other2, http.MethodGet, r.url+api.APIPrefix+"/jobs", r.viewer, nil); a.status != http.StatusOK {
		t.Errorf("another address: %d %s", a.status, a.body)
	}

	// Every 429 is accounted for: the first of the burst as a row, the others in summary
	// rows (written every 2 s).
	var rows []catalog.AuditEntry
	deadline := time.Now().Add(time.Minute)
	for {
		rows = nil
		summed, firsts, fails := 0, 0, 0
		for _, e := range auditCount(t, r.s.Catalog()) {
			if e.RemoteAddr != "127.0.0.1" {
				continue
			}
			rows = append(rows, e)
			switch {
			case e.Method == "*":
				n, _ := strconv.Atoi(strings.Fields(e.Message)[0])
				summed += n
			case e.Status == http.StatusTooManyRequests:
				firsts++
			case e.Status == http.StatusUnauthorized:
				fails++
			}
		}
		// n429 counts the flood's; the valid token's 429 above is one more.
		if int64(summed+firsts) == n429.Load()+1 {
			if int64(fails) != n401.Load() {
				t.Errorf("%d failures answered, %d in the audit log", n401.Load(), fails)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("after a minute the audit log accounts for %d + %d of %d refusals", firsts, summed, n429.Load()+1)
		}
		time.Sleep(200 * time.Millisecond)
	}
	grown := len(auditCount(t, r.s.Catalog())) - before
	// The bound: the failures let through, one row per burst (the flood is one), and one
	// summary per period while it lasted, and one after.
	bound := int(maxFailures) + 1 + int(time.Since(start)/(2*time.Second)) + 2
	t.Logf("audit log grew by %d rows for %d refused sign-ins (bound %d)", grown, total+1, bound)
	if grown > bound {
		t.Errorf("the audit log grew by %d rows, bound %d", grown, bound)
	}
	for _, e := range rows {
		if e.Method == "*" && !strings.Contains(e.Message, "refused sign-ins from 127.0.0.1") {
			t.Errorf("summary row %q", e.Message)
		}
	}

	// The dashboard's sign-in, from an address of its own.
	dash := clientFrom("127.0.0.3", 1)
	statuses := map[int]int{}
	for range 40 {
		a := call(t, dash, http.MethodPost, r.url+"/login", "", strings.NewReader(url.Values{"secret": {"rc_nope"}}.Encode()),
			"Content-Type", "application/x-www-form-urlencoded")
		statuses[a.status]++
	}
	if statuses[http.StatusUnauthorized] < 10 || statuses[http.StatusTooManyRequests] == 0 || len(statuses) != 2 {
		t.Errorf("dashboard sign-ins: %v; want 401s then 429s", statuses)
	}
	// /metrics, from another.
	metrics := clientFrom("127.0.0.4", 1)
	statuses = map[int]int{}
	for range 40 {
		statuses[call(t, metrics, http.MethodGet, r.url+"/metrics", "rc_nope", nil).status]++
	}
	if statuses[http.StatusUnauthorized] < 10 || statuses[http.StatusTooManyRequests] == 0 || len(statuses) != 2 {
		t.Errorf("/metrics: %v; want 401s then 429s", statuses)
	}
	// Behind the trusted proxy, each forwarded client is its own.
	proxy := clientFrom("127.0.0.5", 1)
	statuses = map[int]int{}
	for range 40 {
		statuses[call(t, proxy, http.MethodGet, r.url+api.APIPrefix+"/jobs", "rc_nope", nil, "X-Forwarded-For", "192.0.2.1").status]++
	}
	if statuses[http.StatusTooManyRequests] == 0 {
		t.Errorf("forwarded client 192.0.2.1: %v; want 429s", statuses)
	}
	if a := call(t, proxy, http.MethodGet, r.url+api.APIPrefix+"/jobs", r.viewer, nil, "X-Forwarded-For", "192.0.2.2"); a.status != http.StatusOK {
		t.Errorf("another forwarded client: %d", a.status)
	}
	// An untrusted peer's X-Forwarded-For is ignored: the refusal is 127.0.0.1's.
	if a := call(t, c, http.MethodGet, r.url+api.APIPrefix+"/jobs", "rc_nope", nil, "X-Forwarded-For", "192.0.2.3"); a.status != http.StatusTooManyRequests &&
		a.status != http.StatusUnauthorized {
		t.Errorf("a client claiming another address: %d", a.status)
	}
	forwarded := false
	for _, e := range auditCount(t, r.s.Catalog()) {
		forwarded = forwarded || e.RemoteAddr == "192.0.2.1"
		if e.RemoteAddr == "192.0.2.3" {
			t.Errorf("an untrusted peer's X-Forwarded-For was believed: %+v", e)
		}
	}
	if !forwarded {
		t.Error("no audit entry names the forwarded client 192.0.2.1")
	}
}

// TestAdversarialEventStreams holds 40 event streams of one token on a running job (its 41st
// is refused, 429), then opens 1,000 more at once with two other tokens: 24 are held (the
// server's cap is 64), the rest are refused with 503 and Retry-After, and the server answers
// a normal GET all along. The held streams share one feed of the job. The held streams outlive the server's read and write timeouts; once closed, their
// slots are free again. A client trickling a body is cut off by the read timeout, and an
// oversized body is answered 413.
func TestAdversarialEventStreams(t *testing.T) {
	env := testenv.Get(t)
	r := limitsRig(t, env)
	r.registerClusters(env)
	table := copytest.CreateSource(t, env, "advstreams")
	copytest.WriteRounds(t, env.Source, table, copytest.BinaryRows(50), 1, time.Now().UnixMilli()-100_000, false)
	copytest.DropTargetLater(t, env, table)
	// No workers: the job runs until it is cancelled.
	a := r.do(r.oper, http.MethodPost, api.APIPrefix+"/jobs", map[string]any{"source": "src", "target": "dst", "table": table, "createTable": true})
	if a.status != http.StatusCreated {
		t.Fatalf("submit: %d %s", a.status, a.body)
	}
	var j api.JobOut
	a.decode(t, &j)
	t.Cleanup(func() { r.do(r.oper, http.MethodPost, api.APIPrefix+"/jobs/"+j.ID+"/cancel", nil) })
	r.waitJob(j.ID, 2*time.Minute, "running", func(v api.JobOut) bool { return v.State == "running" })

	const streams = 1000
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	c := clientFrom("127.0.0.1", streams)
	type held struct{ ended chan struct{} }
	// open asks for a stream: a held one is read in the background until ctx ends.
	open := func(secret string) (int, string, *held) {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, r.url+api.APIPrefix+"/jobs/"+j.ID+"/events", nil)
		req.Header.Set("Authorization", "Bearer "+secret)
		resp, err := c.Do(req)
		if err != nil {
			return -1, err.Error(), nil
		}
		if resp.StatusCode != http.StatusOK {
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			return resp.StatusCode, resp.Header.Get("Retry-After"), nil
		}
		h := &held{ended: make(chan struct{})}
		go func() {
			defer close(h.ended)
			defer resp.Body.Close()
			io.Copy(io.Discard, resp.Body)
		}()
		return http.StatusOK, "", h
	}
	var all []*held
	// One token takes its 40; its 41st is refused, 429.
	var mu sync.Mutex
	var wg sync.WaitGroup
	operStatuses := map[int]int{}
	for range 40 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			st, _, h := open(r.oper)
			mu.Lock()
			defer mu.Unlock()
			operStatuses[st]++
			if h != nil {
				all = append(all, h)
			}
		}()
	}
	wg.Wait()
	if operStatuses[http.StatusOK] != 40 {
		t.Fatalf("the operator's 40 streams: %v", operStatuses)
	}
	if st, retry, _ := open(r.oper); st != http.StatusTooManyRequests || retry == "" {
		t.Errorf("a token's 41st stream: %d, Retry-After %q; want 429 with Retry-After", st, retry)
	}
	// 1,000 at once with two other tokens: 24 are held (the server's 64), the rest 503.
	statuses := map[int]int{}
	noRetry := 0
	for i := range streams {
		secret := r.viewer
		if i%2 == 1 {
			secret = r.admin
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			st, retry, h := open(secret)
			mu.Lock()
			defer mu.Unlock()
			statuses[st]++
			if h != nil {
				all = append(all, h)
			} else if retry == "" {
				noRetry++
			}
		}()
	}
	// The server keeps answering while the streams come in.
	for range 5 {
		if a := r.do(r.viewer, http.MethodGet, api.APIPrefix+"/jobs/"+j.ID, nil); a.status != http.StatusOK {
			t.Errorf("GET the job among the streams: %d %s", a.status, a.body)
		}
	}
	wg.Wait()
	openedAt := time.Now()
	t.Logf("%d streams at once beside 40 held: answers %v; %d streams in use", streams, statuses, r.s.api.streams.inUse())
	if statuses[http.StatusOK] != 24 || statuses[http.StatusServiceUnavailable] != streams-24 {
		t.Errorf("answers %v; want 24 × 200 and %d × 503", statuses, streams-24)
	}
	if noRetry != 0 {
		t.Errorf("%d refusals without Retry-After", noRetry)
	}
	// The metrics say the streams open against their cap, as an operator's alert reads them.
	if a := call(t, clientFrom("127.0.0.5", 1), http.MethodGet, r.url+"/metrics", r.viewer, nil); a.status != http.StatusOK ||
		!strings.Contains(string(a.body), "\nrangecopy_api_event_streams 64\n") ||
		!strings.Contains(string(a.body), "\nrangecopy_api_event_streams_max 64\n") {
		t.Errorf("/metrics with 64 streams held of 64: %d; want rangecopy_api_event_streams 64 and _max 64 in %.300q",
			a.status, a.body)
	}
	// The 64 streams share one watch and one poll of the job.
	if n := r.s.api.feeds.following(); n != 1 {
		t.Errorf("%d feeds for the 64 streams of one job, want 1", n)
	}
	if st, retry, h := open(r.viewer); st != http.StatusServiceUnavailable || retry == "" {
		t.Errorf("one more stream: %d, Retry-After %q", st, retry)
		if h != nil {
			all = append(all, h)
		}
	}
	if a := r.do(r.viewer, http.MethodGet, api.APIPrefix+"/jobs", nil); a.status != http.StatusOK {
		t.Errorf("GET /jobs with the streams held: %d %s", a.status, a.body)
	}

	// Slow bodies: the API's body timeout or the server's read timeout (10 s) ends them,
	// long before they are all sent; the dashboard's sign-in has only the read timeout.
	slowBody(t, r, api.APIPrefix+"/clusters", "application/json")
	slowBody(t, r, "/login", "application/x-www-form-urlencoded")
	// Oversized: 413, as a problem.
	big := `{"name":"big","siteFiles":{"hbase-site.xml":"` + strings.Repeat("x", maxBody+1) + `"}}`
	if a := r.do(r.admin, http.MethodPost, api.APIPrefix+"/clusters", big); a.status != http.StatusRequestEntityTooLarge ||
		!strings.Contains(a.header.Get("Content-Type"), "problem+json") {
		t.Errorf("an oversized body: %d %s %.200s", a.status, a.header.Get("Content-Type"), a.body)
	}

	// The held streams outlive the read timeout (the slow body waited it out) and the
	// write timeout.
	waitFor(t, time.Minute, "write timeout passed", func() bool { return time.Since(openedAt) > r.s.cfg.Limits.WriteTimeout+time.Second })
	for i, h := range all {
		select {
		case <-h.ended:
			t.Errorf("held stream %d of %d ended", i, len(all))
		default:
		}
	}
	cancel()
	for _, h := range all {
		<-h.ended
	}
	// Their slots come back.
	waitFor(t, 30*time.Second, "streams released", func() bool { return r.s.api.streams.inUse() == 0 && r.s.api.feeds.following() == 0 })
	ev := r.follow(j.ID)
	waitFor(t, 30*time.Second, "a new stream's first event", func() bool {
		ev.mu.Lock()
		defer ev.mu.Unlock()
		return ev.frames > 0 || ev.err != nil
	})
	if ev.err != nil {
		t.Errorf("a stream after the others closed: %v", ev.err)
	}
}

// waitFor polls cond until it holds, for at most d.
func waitFor(t *testing.T, d time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(d)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("no %s after %v", what, d)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// slowBody sends a request whose body comes a byte every 200 ms and checks that the server
// ends the request (answers or closes) before the body is all sent, and not with a 5xx.
func slowBody(t *testing.T, r *rig, path, contentType string) {
	t.Helper()
	u, _ := url.Parse(r.url)
	conn, err := net.Dial("tcp", u.Host)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	const size = 2000 // 400 s at this pace
	fmt.Fprintf(conn, "POST %s HTTP/1.1\r\nHost: %s\r\nAuthorization: Bearer %s\r\nContent-Type: %s\r\nContent-Length: %d\r\n\r\n{",
		path, u.Host, r.admin, contentType, size)
	ended := make(chan string, 1)
	go func() {
		resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
		if err != nil {
			ended <- "closed: " + err.Error()
			return
		}
		resp.Body.Close()
		ended <- resp.Status
	}()
	sent := 1
	tick := time.NewTicker(200 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case how := <-ended:
			t.Logf("a slow body to %s ended after %d of %d bytes: %s", path, sent, size, how)
			if strings.HasPrefix(how, "5") {
				t.Errorf("a slow body answered %s", how)
			}
			return
		case <-tick.C:
		}
		if sent >= size-1 {
			t.Fatalf("the whole slow body to %s (%d bytes) was read: the read timeout did not end it", path, size)
		}
		if _, err := conn.Write([]byte(" ")); err != nil {
			t.Logf("a slow body to %s ended after %d of %d bytes: write: %v", path, sent, size, err)
			return
		}
		sent++
	}
}

// TestAdversarialPathTricks puts path tricks in every path parameter of every operation
// (`../`, `%2F`, NUL, invalid UTF-8, 10 KB names, ...), sent byte for byte: each is answered
// 400, 404 or 405 (a literal dot segment may be redirected to the cleaned path, which
// answers so), never 5xx and never with a file's content.
func TestAdversarialPathTricks(t *testing.T) {
	env := testenv.Get(t)
	r := newRig(t, env, 0)
	tricks := []string{
		"..", "..%2F..%2F..%2Fetc%2Fpasswd", "%2E%2E%2F%2E%2E%2Fetc%2Fpasswd", "..%2f..%2fetc%2fpasswd", "x%2Fy", "%252F..%252Fetc",
		"%00", "a%00b", "..%00", "%5C..%5C..%5Cetc%5Cpasswd", "..;", "%C0%AE%C0%AE%C0%AF", "%FF%FE", "%20", "%0D%0AX-Injected:%201",
		"~root", "%7B%7D", strings.Repeat("a", 10<<10), strings.Repeat("%2F", 3<<10), strings.Repeat("../", 3<<10) + "etc/passwd",
	}
	var ops []struct{ method, path string }
	for p, item := range r.spec.Paths.Map() {
		if !strings.Contains(p, "{") {
			continue
		}
		for m := range item.Operations() {
			ops = append(ops, struct{ method, path string }{m, p})
		}
	}
	// The dashboard's pages and static files too.
	for _, p := range []string{"/jobs/{id}", "/relocations/{id}", "/static/{file}"} {
		ops = append(ops, struct{ method, path string }{http.MethodGet, p})
	}
	u, _ := url.Parse(r.url)
	// The dashboard's pages with a session, the API's with a bearer.
	login := call(t, clientFrom("127.0.0.1", 1), http.MethodPost, r.url+"/login", "",
		strings.NewReader(url.Values{"secret": {r.viewer}}.Encode()), "Content-Type", "application/x-www-form-urlencoded")
	var cookies []string
	for _, c := range (&http.Response{Header: login.header}).Cookies() {
		cookies = append(cookies, c.Name+"="+c.Value)
	}
	if len(cookies) == 0 {
		t.Fatalf("sign-in: %d, no cookie", login.status)
	}
	cookie := strings.Join(cookies, "; ")
	n := 0
	for _, o := range ops {
		for _, trick := range tricks {
			path := o.path
			for strings.Contains(path, "{") {
				i, k := strings.Index(path, "{"), strings.Index(path, "}")
				path = path[:i] + trick + path[k+1:]
			}
			status, loc, body := rawRequest(t, u.Host, o.method, path, r.admin, cookie)
			n++
			ok := status == http.StatusBadRequest || status == http.StatusNotFound || status == http.StatusMethodNotAllowed
			if !ok && (status == http.StatusMovedPermanently || status == http.StatusTemporaryRedirect || status == http.StatusPermanentRedirect) &&
				strings.HasPrefix(loc, "/") && !strings.HasPrefix(loc, "//") {
				status, _, body = rawRequest(t, u.Host, http.MethodGet, loc, r.admin, cookie)
				ok = status == http.StatusBadRequest || status == http.StatusNotFound || status == http.StatusSeeOther
			}
			if !ok || status >= 500 {
				t.Errorf("%s %.120s: %d %.200s", o.method, path, status, body)
			}
			// A NUL or bytes that are not UTF-8 never reach the catalog (PostgreSQL would
			// answer them with an error, not "not found").
			if dec, err := url.PathUnescape(trick); err == nil && !storable(dec) && !strings.HasPrefix(o.path, "/static/") &&
				status != http.StatusBadRequest {
				t.Errorf("%s %.120s: %d; want 400 before the catalog", o.method, path, status)
			}
			if strings.Contains(body, "root:x:0:0") || strings.Contains(body, "/bin/sh") || strings.Contains(body, "goroutine ") {
				t.Errorf("%s %.120s: the answer holds a file or a trace: %.300s", o.method, path, body)
			}
		}
	}
	// The same bytes in a query.
	for _, q := range []string{"/jobs?table=%00", "/jobs?cluster=%FF%FE", "/audit?token=a%00b", "/relocations?cursor=%C0%AE"} {
		if a := r.do(r.admin, http.MethodGet, api.APIPrefix+q, nil); a.status != http.StatusBadRequest {
			t.Errorf("GET %s: %d %.200s; want 400", q, a.status, a.body)
		}
		n++
	}
	t.Logf("%d requests with path tricks, none answered 5xx or with a file", n)
	if a := r.do(r.viewer, http.MethodGet, api.APIPrefix+"/jobs", nil); a.status != http.StatusOK {
		t.Errorf("after the tricks: %d", a.status)
	}
}

// rawRequest sends a request line byte for byte (no client cleaning its path) and returns
// the status, Location and body.
func rawRequest(t *testing.T, host, method, path, secret, cookie string) (int, string, string) {
	t.Helper()
	conn, err := net.Dial("tcp", host)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(time.Minute))
	body := ""
	if method == http.MethodPost || method == http.MethodPatch || method == http.MethodPut {
		body = "{}"
	}
	fmt.Fprintf(conn, "%s %s HTTP/1.1\r\nHost: %s\r\nAuthorization: Bearer %s\r\nCookie: %s\r\nContent-Type: application/json\r\nContent-Length: %d\r\nConnection: close\r\n\r\n%s",
		method, path, host, secret, cookie, len(body), body)
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatalf("%s %.120s: %v", method, path, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	return resp.StatusCode, resp.Header.Get("Location"), string(b)
}

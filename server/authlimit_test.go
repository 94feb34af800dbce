package server

import (
	"fmt"
	"net/http"
	"net/netip"
	"strings"
	"testing"
	"time"
)

func TestAuthLimiterBucket(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	l := newAuthLimiter(3, 10*time.Second, 100)
	const a, b = "10.0.0.1", "10.0.0.2"
	if w := l.Wait(a, t0); w != 0 {
		t.Fatalf("a stranger waits %v", w)
	}
	// Three failures are allowed, each recorded.
	for i := range 3 {
		if w := l.Wait(a, t0); w != 0 {
			t.Fatalf("failure %d: wait %v", i, w)
		}
		if !l.Refuse(a, http.StatusUnauthorized, t0) {
			t.Errorf("failure %d not recorded", i)
		}
	}
	if w := l.Wait(a, t0); w != 10*time.Second {
		t.Errorf("after the burst: wait %v, want 10s", w)
	}
	if w := l.Wait(b, t0); w != 0 {
		t.Errorf("another client waits %v", w)
	}
	// The 429s: the first of the burst recorded, the others counted.
	if !l.Refuse(a, http.StatusTooManyRequests, t0) {
		t.Error("the first 429 not recorded")
	}
	for range 99 {
		if l.Refuse(a, http.StatusTooManyRequests, t0.Add(time.Second)) {
			t.Fatal("a later 429 recorded")
		}
	}
	if w := l.Wait(a, t0.Add(4*time.Second)); w != 6*time.Second {
		t.Errorf("4 s on: wait %v, want 6s", w)
	}
	if w := l.Wait(a, t0.Add(10*time.Second)); w != 0 {
		t.Errorf("a refill later: wait %v", w)
	}
	// A summary a minute on sums up the 99; the burst is still open (a 429 came within
	// the quiet period), then ends once quiet.
	s := l.Summaries(t0.Add(time.Minute), time.Minute)
	if len(s) != 1 || s[0].Addr != a || s[0].Refused != 99 {
		t.Fatalf("summaries = %+v", s)
	}
	if m := s[0].Message(); !strings.HasPrefix(m, "99 refused sign-ins from 10.0.0.1 in the last 1m0s") {
		t.Errorf("message %q", m)
	}
	if l.Refuse(a, http.StatusTooManyRequests, t0.Add(61*time.Second)) {
		t.Error("a 429 of an open burst recorded")
	}
	if s := l.Summaries(t0.Add(2*time.Minute), time.Minute); len(s) != 1 || s[0].Refused != 1 {
		t.Errorf("second summary = %+v", s)
	}
	if s := l.Summaries(t0.Add(4*time.Minute), time.Minute); len(s) != 0 {
		t.Errorf("nothing to sum up: %+v", s)
	}
	// The burst ended and the bucket is full: the client is forgotten; a new 429 burst
	// opens with a recorded row.
	if n := l.Len(); n != 0 {
		t.Errorf("%d clients remembered after they went quiet", n)
	}
}

func TestAuthLimiterBounded(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	l := newAuthLimiter(1, time.Hour, 50)
	for i := range 10_000 {
		addr := fmt.Sprintf("10.%d.%d.%d", i>>16, (i>>8)&255, i&255)
		l.Refuse(addr, http.StatusUnauthorized, t0)
		l.Refuse(addr, http.StatusTooManyRequests, t0)
		l.Refuse(addr, http.StatusTooManyRequests, t0) // counted, for a summary
		if n := l.Len(); n > 50 {
			t.Fatalf("%d clients remembered, cap 50", n)
		}
	}
	// The forgotten clients' 429s are summed up, not lost: one row each.
	s := l.Summaries(t0, time.Minute)
	if len(s) != 10_000 {
		t.Errorf("%d summaries, want 10000", len(s))
	}
	// The newest client is still held to its limit.
	if w := l.Wait("10.0.39.15", t0); w == 0 {
		t.Error("the latest client may try again at once")
	}
}

func TestClientAddr(t *testing.T) {
	proxies := []netip.Prefix{netip.MustParsePrefix("10.1.0.0/16"), netip.MustParsePrefix("::1/128")}
	for _, tt := range []struct {
		name, remote string
		xff          []string
		trusted      []netip.Prefix
		want         string
	}{
		{"socket address", "192.0.2.7:5123", nil, nil, "192.0.2.7"},
		{"header ignored without trusted proxies", "192.0.2.7:5123", []string{"203.0.113.9"}, nil, "192.0.2.7"},
		{"header ignored from an untrusted peer", "192.0.2.7:5123", []string{"203.0.113.9"}, proxies, "192.0.2.7"},
		{"trusted proxy", "10.1.2.3:80", []string{"203.0.113.9"}, proxies, "203.0.113.9"},
		{"spoofed left entries", "10.1.2.3:80", []string{"1.2.3.4, 203.0.113.9"}, proxies, "203.0.113.9"},
		{"two trusted hops", "10.1.2.3:80", []string{"203.0.113.9, 10.1.9.9"}, proxies, "203.0.113.9"},
		{"several headers", "10.1.2.3:80", []string{"198.51.100.1", "203.0.113.9"}, proxies, "203.0.113.9"},
		{"garbage hop", "10.1.2.3:80", []string{"203.0.113.9, nonsense"}, proxies, "10.1.2.3"},
		{"only proxies", "10.1.2.3:80", []string{"10.1.4.4"}, proxies, "10.1.4.4"},
		{"ipv6", "[::1]:80", []string{"2001:db8::1"}, proxies, "2001:db8::1"},
		{"v4-mapped", "[::ffff:192.0.2.7]:1", nil, nil, "192.0.2.7"},
		{"no port", "192.0.2.7", nil, nil, "192.0.2.7"},
	} {
		if got := clientAddr(tt.remote, tt.xff, tt.trusted); got != tt.want {
			t.Errorf("%s: clientAddr(%q, %q) = %q, want %q", tt.name, tt.remote, tt.xff, got, tt.want)
		}
	}
}

func TestStreamLimits(t *testing.T) {
	l := newStreamLimits(3, 2)
	r1, st := l.acquire("a")
	r2, st2 := l.acquire("a")
	if st != 0 || st2 != 0 {
		t.Fatalf("first two: %d %d", st, st2)
	}
	if _, st := l.acquire("a"); st != http.StatusTooManyRequests {
		t.Errorf("a's third: %d, want 429", st)
	}
	r3, st := l.acquire("b")
	if st != 0 {
		t.Fatalf("b's first: %d", st)
	}
	if _, st := l.acquire("c"); st != http.StatusServiceUnavailable {
		t.Errorf("past the server's cap: %d, want 503", st)
	}
	r1()
	r1() // twice is once
	if n := l.inUse(); n != 2 {
		t.Errorf("in use %d, want 2", n)
	}
	if r, st := l.acquire("c"); st != 0 {
		t.Errorf("after a release: %d", st)
	} else {
		r()
	}
	r2()
	r3()
	if n := l.inUse(); n != 0 || len(l.by) != 0 {
		t.Errorf("all released: %d in use, %v", n, l.by)
	}
}

func TestLimitsDefaults(t *testing.T) {
	var l Limits
	if err := l.defaults(); err != nil {
		t.Fatal(err)
	}
	if l.FailedAuthBurst != 10 || l.Streams != 256 || l.StreamsPerToken != 32 || l.ReadTimeout != time.Minute ||
		l.AuditRetention != 0 || l.JobRetention != 0 {
		t.Errorf("defaults %+v", l)
	}
	bad := Limits{Streams: -1, JobRetention: -time.Hour}
	if err := bad.defaults(); err == nil || !strings.Contains(err.Error(), "streams -1") || !strings.Contains(err.Error(), "job retention") {
		t.Errorf("negative limits: %v", err)
	}
}

package main

import (
	"net/netip"
	"testing"
	"time"
)

func TestParseAge(t *testing.T) {
	for in, want := range map[string]time.Duration{"90d": 90 * 24 * time.Hour, "0": 0, "0d": 0, "36h": 36 * time.Hour, " 1h30m ": 90 * time.Minute} {
		if got, err := parseAge(in); err != nil || got != want {
			t.Errorf("parseAge(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, bad := range []string{"", "d", "-1d", "1.5d", "90 days", "-3h", "99999d"} {
		if got, err := parseAge(bad); err == nil {
			t.Errorf("parseAge(%q) = %v, want an error", bad, got)
		}
	}
	a := age(180 * 24 * time.Hour)
	if s := a.String(); s != "180d" {
		t.Errorf("String = %q", s)
	}
}

func TestServerLimitsFlags(t *testing.T) {
	c := newServerCommand()
	fs := c.Flags()
	if v := fs.Lookup("audit-retention").DefValue; v != "90d" {
		t.Errorf("--audit-retention defaults to %q, want 90d", v)
	}
	if v := fs.Lookup("job-retention").DefValue; v != "180d" {
		t.Errorf("--job-retention defaults to %q, want 180d", v)
	}
	if err := fs.Parse([]string{"--audit-retention", "30d", "--job-retention", "0", "--max-streams", "8"}); err != nil {
		t.Fatal(err)
	}
	if err := fs.Parse([]string{"--audit-retention", "forever"}); err == nil {
		t.Error("--audit-retention forever: no error")
	}
}

func TestLimitsOfFlags(t *testing.T) {
	got := limitsFlags{auditRetention: age(30 * 24 * time.Hour), failedAuthBurst: 5, streams: 10, streamsPerToken: 2,
		readTimeout: time.Second, writeTimeout: time.Second, trustedProxies: []string{"10.0.0.0/8", "192.0.2.1", "::ffff:192.0.2.2"}}
	lim, err := got.limits()
	if err != nil {
		t.Fatal(err)
	}
	want := []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8"), netip.MustParsePrefix("192.0.2.1/32"), netip.MustParsePrefix("192.0.2.2/32")}
	if len(lim.TrustedProxies) != 3 || lim.TrustedProxies[0] != want[0] || lim.TrustedProxies[1] != want[1] || lim.TrustedProxies[2] != want[2] {
		t.Errorf("trusted proxies %v", lim.TrustedProxies)
	}
	if lim.AuditRetention != 30*24*time.Hour || lim.JobRetention != 0 || lim.Streams != 10 {
		t.Errorf("limits %+v", lim)
	}
	for _, bad := range []limitsFlags{
		{failedAuthBurst: 0, streams: 1, streamsPerToken: 1, readTimeout: 1, writeTimeout: 1},
		{failedAuthBurst: 1, streams: 1, streamsPerToken: 1, readTimeout: 0, writeTimeout: 1},
		{failedAuthBurst: 1, streams: 1, streamsPerToken: 1, readTimeout: 1, writeTimeout: 1, trustedProxies: []string{"proxy.example"}},
	} {
		if _, err := bad.limits(); err == nil {
			t.Errorf("%+v: no error", bad)
		}
	}
}

package main

import (
	"fmt"
	"net/netip"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"rangecopy/server"
	"rangecopy/units"
)

// limitsFlags are rangecopy server's limits: failed sign-ins, event streams, request
// timeouts and the catalog's retention.
type limitsFlags struct {
	auditRetention, jobRetention age
	failedAuthBurst              int
	trustedProxies               []string
	streams, streamsPerToken     int
	readTimeout, writeTimeout    time.Duration
}

func (l *limitsFlags) add(fs *pflag.FlagSet) {
	l.auditRetention = age(server.DefaultAuditRetention)
	l.jobRetention = age(server.DefaultJobRetention)
	fs.Var(&l.auditRetention, "audit-retention", "how long the catalog keeps audit entries, such as 90d or 36h (0: forever)")
	fs.Var(&l.jobRetention, "job-retention", "how long the catalog keeps ended jobs with their history and reports, such as 180d (0: forever; jobs a relocation still uses are kept)")
	fs.IntVar(&l.failedAuthBurst, "failed-auth-burst", 10, "failed sign-ins a client may make at once before it is answered 429 (it earns one back every 6 s)")
	fs.StringSliceVar(&l.trustedProxies, "trusted-proxies", nil, "addresses or CIDR ranges of proxies whose X-Forwarded-For names the client (default none: the client is the connection's peer)")
	fs.IntVar(&l.streams, "max-streams", 256, "event streams the server holds at once (503 past that)")
	fs.IntVar(&l.streamsPerToken, "max-streams-per-token", 32, "event streams one token holds at once (429 past that)")
	fs.DurationVar(&l.readTimeout, "read-timeout", time.Minute, "longest time to read a request, its body included")
	fs.DurationVar(&l.writeTimeout, "write-timeout", time.Minute, "longest time to write an answer (event streams bound each event instead)")
}

// limits returns the server's limits as the flags set them.
func (l *limitsFlags) limits() (server.Limits, error) {
	out := server.Limits{AuditRetention: time.Duration(l.auditRetention), JobRetention: time.Duration(l.jobRetention),
		FailedAuthBurst: l.failedAuthBurst, Streams: l.streams, StreamsPerToken: l.streamsPerToken,
		ReadTimeout: l.readTimeout, WriteTimeout: l.writeTimeout}
	for name, n := range map[string]int{"failed-auth-burst": l.failedAuthBurst, "max-streams": l.streams, "max-streams-per-token": l.streamsPerToken} {
		if n < 1 {
			return server.Limits{}, usageErrorf("--%s %d: want 1 or more", name, n)
		}
	}
	for name, d := range map[string]time.Duration{"read-timeout": l.readTimeout, "write-timeout": l.writeTimeout} {
		if d <= 0 {
			return server.Limits{}, usageErrorf("--%s %v: want more than 0", name, d)
		}
	}
	for _, p := range l.trustedProxies {
		pfx, err := parsePrefix(p)
		if err != nil {
			return server.Limits{}, usageErrorf("--trusted-proxies %q: %v", p, err)
		}
		out.TrustedProxies = append(out.TrustedProxies, pfx)
	}
	return out, nil
}

// parsePrefix reads a CIDR range, or an address as the range of itself.
func parsePrefix(s string) (netip.Prefix, error) {
	s = strings.TrimSpace(s)
	if strings.Contains(s, "/") {
		p, err := netip.ParsePrefix(s)
		if err != nil {
			return netip.Prefix{}, fmt.Errorf("not an address range: %w", err)
		}
		return p.Masked(), nil
	}
	a, err := netip.ParseAddr(s)
	if err != nil {
		return netip.Prefix{}, fmt.Errorf("not an address: %w", err)
	}
	a = a.Unmap()
	return netip.PrefixFrom(a, a.BitLen()), nil
}

// age is a duration flag that also takes days ("90d"); 0 means forever.
type age time.Duration

func (a *age) String() string {
	d := time.Duration(*a)
	if d > 0 && d%(24*time.Hour) == 0 {
		return strconv.FormatInt(int64(d/(24*time.Hour)), 10) + "d"
	}
	return d.String()
}

func (a *age) Set(s string) error {
	d, err := parseAge(s)
	if err != nil {
		return err
	}
	*a = age(d)
	return nil
}

func (a *age) Type() string { return "age" }

// parseAge reads "90d", "36h", "1h30m" or "0" (units.ParseAge), spaces around it ignored.
func parseAge(s string) (time.Duration, error) {
	return units.ParseAge(strings.TrimSpace(s))
}

package server

import (
	"errors"
	"fmt"
	"net/netip"
	"time"
)

// Limits bound what one client, or all of them, can make the server hold: failed sign-ins,
// event streams, slow requests, and how long the catalog keeps history. The zero value is a
// server's defaults (retention: keep forever; rangecopy server's flags default to
// DefaultAuditRetention and DefaultJobRetention).
type Limits struct {
	// FailedAuthBurst is how many failed authentications (401, 403) a client may make at
	// once before it is answered 429; FailedAuthEvery is how often it earns one more back.
	// Defaults: 10, and one every 6 s (10 a minute).
	FailedAuthBurst int
	FailedAuthEvery time.Duration
	// FailedAuthClients caps the clients whose failures are remembered (the least
	// recently seen are forgotten first); default 10,000.
	FailedAuthClients int
	// AuditSummaryEvery is how often a client's refusals past the first of a burst are
	// summed up in one audit row; default one minute.
	AuditSummaryEvery time.Duration
	// TrustedProxies are the proxies whose X-Forwarded-For names the client; empty: the
	// socket's address is the client, whatever the header says.
	TrustedProxies []netip.Prefix

	// Streams caps the event streams open at once on this server, StreamsPerToken those of
	// one token (or, without tokens, of one client address); defaults 256 and 32.
	Streams, StreamsPerToken int

	// ReadTimeout bounds the reading of a whole request, body included; WriteTimeout the
	// writing of an answer (event streams extend theirs as they go); defaults 1 min.
	// MaxHeaderBytes bounds a request's header; default 64 KiB.
	ReadTimeout, WriteTimeout time.Duration
	MaxHeaderBytes            int

	// AuditRetention and JobRetention are how long the catalog keeps audit entries, and
	// ended jobs with their history, samples and reports; 0 keeps them forever. The leading
	// server prunes older rows every PruneEvery (default one hour), PruneBatch rows at a
	// time (default catalog.DefaultPruneBatch).
	AuditRetention, JobRetention time.Duration
	PruneEvery                   time.Duration
	PruneBatch                   int
}

// The retention rangecopy server keeps by default.
const (
	DefaultAuditRetention = 90 * 24 * time.Hour
	DefaultJobRetention   = 180 * 24 * time.Hour
)

// defaults fills the unset limits and checks the set ones.
func (l *Limits) defaults() error {
	var errs []error
	for _, v := range []struct {
		name string
		n    int
	}{{"failed-auth burst", l.FailedAuthBurst}, {"failed-auth clients", l.FailedAuthClients}, {"streams", l.Streams},
		{"streams per token", l.StreamsPerToken}, {"max header bytes", l.MaxHeaderBytes}, {"prune batch", l.PruneBatch}} {
		if v.n < 0 {
			errs = append(errs, fmt.Errorf("%s %d: want 0 (the default) or more", v.name, v.n))
		}
	}
	for _, v := range []struct {
		name string
		d    time.Duration
	}{{"failed-auth refill", l.FailedAuthEvery}, {"audit summary period", l.AuditSummaryEvery}, {"read timeout", l.ReadTimeout},
		{"write timeout", l.WriteTimeout}, {"audit retention", l.AuditRetention}, {"job retention", l.JobRetention},
		{"prune period", l.PruneEvery}} {
		if v.d < 0 {
			errs = append(errs, fmt.Errorf("%s %v: want 0 or more", v.name, v.d))
		}
	}
	setInt := func(p *int, def int) {
		if *p == 0 {
			*p = def
		}
	}
	setDur := func(p *time.Duration, def time.Duration) {
		if *p == 0 {
			*p = def
		}
	}
	setInt(&l.FailedAuthBurst, 10)
	setDur(&l.FailedAuthEvery, 6*time.Second)
	setInt(&l.FailedAuthClients, 10_000)
	setDur(&l.AuditSummaryEvery, time.Minute)
	setInt(&l.Streams, 256)
	setInt(&l.StreamsPerToken, 32)
	setDur(&l.ReadTimeout, time.Minute)
	setDur(&l.WriteTimeout, time.Minute)
	setInt(&l.MaxHeaderBytes, 64<<10)
	setDur(&l.PruneEvery, time.Hour)
	return errors.Join(errs...)
}

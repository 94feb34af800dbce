package server

import (
	"errors"
	"fmt"
	"log/slog"
	"net"
	"time"

	"rangecopy/catalog"
)

// Config is a server as its operator configures it (rangecopy server's flags).
type Config struct {
	// Listen is the API's address, host:port; default 127.0.0.1:8080.
	Listen string
	// Catalog is the catalog's URL (catalog.Open); required (rangecopy server defaults it to
	// a SQLite file in its data folder).
	Catalog string
	// ZK lists the registry's ZooKeeper servers; required. ZKRoot is the registry's root;
	// empty means registry.DefaultRoot. SessionTimeout is the session's; 0 means the
	// registry's default.
	ZK             []string
	ZKRoot         string
	SessionTimeout time.Duration
	// ID names this server in the master election and its embedded workers' prefix; empty
	// means server-<host>-<pid>.
	ID string
	// Workers is how many tasks embedded workers run at once; 0 runs none.
	Workers int
	// TLSCert and TLSKey, both or neither, serve HTTPS. They are loaded before anything else
	// and again whenever the files change (or on SIGHUP).
	TLSCert, TLSKey string
	// InsecurePlainHTTP serves plain HTTP on an address that is not loopback: bearer tokens
	// and dashboard cookies then cross the network in clear text. Without it (or
	// BehindTLSProxy, or TLSCert) such a Listen is refused.
	InsecurePlainHTTP bool
	// BehindTLSProxy says that clients reach the server through a proxy (an ingress, a load
	// balancer) that terminates TLS: the server may listen in plain HTTP off loopback, and
	// marks the dashboard's cookie Secure (and __Host-) although requests arrive in plain HTTP.
	BehindTLSProxy bool
	// Sessions bound the dashboard's sign-ins; zero values are the catalog's defaults.
	Sessions catalog.SessionLimits
	// InsecureNoAuth serves every call without a token, as an admin. Only on a loopback
	// address.
	InsecureNoAuth bool
	// User is the HBase effective user and HDFS user of jobs whose clusters name none; empty
	// means hbase.DefaultUser.
	User string
	// WorkRoot is the parent of job work folders on the target HDFS; empty means
	// bulkload.DefaultRoot(User).
	WorkRoot string
	// Reconcile is how often the leading server reconciles the catalog with the registry;
	// 0 means 2 s. Poll is how often the embedded master looks at every job; 0 means 2 s.
	Reconcile, Poll time.Duration
	// Retention is how long an ended job stays in the registry once the catalog holds its
	// end and final report; 0 means DefaultRetention. The catalog keeps it for good.
	Retention time.Duration
	// Limits bound failed sign-ins, event streams, slow requests and the catalog's history.
	Limits Limits
	// Logger receives the server's log; nil discards.
	Logger *slog.Logger
	// Version is the binary's version, shown in the API's description.
	Version string
}

func (c *Config) defaults() error {
	if c.Listen == "" {
		c.Listen = "127.0.0.1:8080"
	}
	if c.Reconcile <= 0 {
		c.Reconcile = 2 * time.Second
	}
	if c.Retention <= 0 {
		c.Retention = DefaultRetention
	}
	if c.Poll <= 0 {
		c.Poll = 2 * time.Second
	}
	if c.Logger == nil {
		c.Logger = slog.New(slog.DiscardHandler)
	}
	if c.Version == "" {
		c.Version = "dev"
	}
	var errs []error
	if err := c.Limits.defaults(); err != nil {
		errs = append(errs, err)
	}
	if c.Catalog == "" {
		errs = append(errs, errors.New("no catalog URL"))
	}
	if len(c.ZK) == 0 {
		errs = append(errs, errors.New("no ZooKeeper servers for the registry (--zk)"))
	}
	if (c.TLSCert == "") != (c.TLSKey == "") {
		errs = append(errs, errors.New("--tls-cert and --tls-key go together"))
	}
	if c.Workers < 0 || c.Workers > 256 {
		errs = append(errs, fmt.Errorf("workers %d: want 0 to 256", c.Workers))
	}
	host, _, err := net.SplitHostPort(c.Listen)
	if err != nil {
		errs = append(errs, fmt.Errorf("listen address %q: %v", c.Listen, err))
	} else if c.InsecureNoAuth && !LoopbackHost(host) {
		errs = append(errs, fmt.Errorf("--insecure-no-auth serves everyone as an admin, so it listens only on loopback, not %q", c.Listen))
	} else if err := CheckPlainHTTP(host, c.TLSCert != "", c.InsecurePlainHTTP, c.BehindTLSProxy); err != nil {
		errs = append(errs, fmt.Errorf("listen address %q: %w", c.Listen, err))
	}
	return errors.Join(errs...)
}

// CheckPlainHTTP decides whether the server may listen on host (of its listen address): with
// TLS anywhere, in plain HTTP on loopback, and in plain HTTP elsewhere only when the operator
// says so (insecurePlain, or behindProxy); else ErrPlainHTTPRefused, saying what to do.
func CheckPlainHTTP(host string, tls, insecurePlain, behindProxy bool) error {
	if tls || LoopbackHost(host) || insecurePlain || behindProxy {
		return nil
	}
	return fmt.Errorf("%w: it would carry bearer tokens and dashboard cookies in clear text: "+
		"give --tls-cert and --tls-key (docs/operations.md, \"TLS\"), or --behind-tls-proxy if a proxy in front terminates TLS, "+
		"or --insecure-plain-http to serve plain HTTP on purpose", ErrPlainHTTPRefused)
}

// ErrPlainHTTPRefused is why a server without TLS does not listen on an address that is not
// loopback: the operator did not say that plain HTTP there is meant.
var ErrPlainHTTPRefused = errors.New("plain HTTP off loopback refused")

// LoopbackHost reports whether host (an address's host, without its port) names only the
// local machine: localhost, 127.0.0.0/8 or ::1. --insecure-no-auth and plain HTTP without a
// reason listen only on such a host.
func LoopbackHost(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// DefaultRetention is how long an ended job stays in the registry by default: long enough
// for anyone following it (a relocation's window, rangecopy job wait) to read its end there.
const DefaultRetention = time.Hour

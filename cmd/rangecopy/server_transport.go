package main

import (
	"net"
	"time"

	"github.com/spf13/pflag"

	"rangecopy/catalog"
	"rangecopy/server"
)

// serverTransportFlags are rangecopy server's choices of how clients reach it: plain HTTP
// off loopback, a TLS-terminating proxy in front, and how long dashboard sign-ins last.
type serverTransportFlags struct {
	insecurePlainHTTP bool
	behindTLSProxy    bool
	sessionIdle       time.Duration
	sessionLifetime   time.Duration
}

func (t *serverTransportFlags) add(fs *pflag.FlagSet) {
	fs.BoolVar(&t.insecurePlainHTTP, "insecure-plain-http", false,
		"serve plain HTTP on an address that is not loopback, tokens and cookies in clear text (refused without it, --tls-cert or --behind-tls-proxy)")
	fs.BoolVar(&t.behindTLSProxy, "behind-tls-proxy", false,
		"clients come through a proxy that terminates TLS: plain HTTP is allowed off loopback and the dashboard's cookie is Secure")
	fs.DurationVar(&t.sessionIdle, "dashboard-session-idle", catalog.DefaultSessionIdle, "a dashboard sign-in ends after this long unused")
	fs.DurationVar(&t.sessionLifetime, "dashboard-session-lifetime", catalog.DefaultSessionLifetime, "a dashboard sign-in ends this long after it began")
}

// preflight checks how the server is to be reached before it waits for anything: plain HTTP
// off loopback without saying so is a usage error, a TLS pair that does not load an error.
// What other checks report (a malformed --listen, a certificate without its key,
// --insecure-no-auth off loopback) it leaves to them.
func (t serverTransportFlags) preflight(listen, cert, key string, insecureNoAuth bool) error {
	if host, _, err := net.SplitHostPort(listen); err == nil && !insecureNoAuth {
		if err := server.CheckPlainHTTP(host, cert != "", t.insecurePlainHTTP, t.behindTLSProxy); err != nil {
			return usageErrorf("--listen %s: %v", listen, err)
		}
	}
	if cert != "" && key != "" {
		return server.CheckTLS(cert, key)
	}
	return nil
}

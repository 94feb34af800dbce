package apiclient

import (
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"
)

// ErrPlainHTTP is what New returns for a bearer token that would go over plain HTTP to a
// host that is not this machine.
var ErrPlainHTTP = errors.New("a bearer token would cross the network in plain HTTP")

// LoopbackHost reports whether host (a URL's host without its port, as url.URL.Hostname
// gives it) names only this machine: localhost, 127.0.0.0/8 or ::1. It classifies the name
// only; it resolves nothing.
func LoopbackHost(host string) bool {
	h := strings.TrimSuffix(strings.ToLower(host), ".")
	if h == "localhost" || strings.HasSuffix(h, ".localhost") {
		return true
	}
	ip := net.ParseIP(h)
	return ip != nil && ip.IsLoopback()
}

// checkPlainHTTP decides whether a client of u may send its token: always over https, to a
// loopback host over http, and to any other host over http only if allowed.
func checkPlainHTTP(u *url.URL, hasToken, allow bool) error {
	if !hasToken || allow || u.Scheme != "http" || LoopbackHost(u.Hostname()) {
		return nil
	}
	return fmt.Errorf("server URL %s: %w to %s: use https:// (the server's --tls-cert), or allow plain HTTP explicitly (--allow-plain-http, apiclient.Options.AllowPlainHTTP)",
		u.Redacted(), ErrPlainHTTP, u.Hostname())
}

// refuseDowngrade is the client's redirect policy when it holds a token: it follows no
// redirect from https to http (where the token would follow in clear text), and at most
// ten, as net/http does.
func refuseDowngrade(req *http.Request, via []*http.Request) error {
	if len(via) >= 10 {
		return errors.New("stopped after 10 redirects")
	}
	if len(via) > 0 && via[0].URL.Scheme == "https" && req.URL.Scheme != "https" {
		return fmt.Errorf("redirect from %s to %s: %w", via[0].URL.Redacted(), req.URL.Redacted(), ErrPlainHTTP)
	}
	return nil
}

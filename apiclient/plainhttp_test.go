package apiclient

import (
	"encoding/pem"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"
)

// TestLoopbackHost classifies host names; it resolves and reaches none of them.
func TestLoopbackHost(t *testing.T) {
	for host, want := range map[string]bool{
		"localhost": true, "LOCALHOST": true, "localhost.": true, "api.localhost": true,
		"127.0.0.1": true, "127.1.2.3": true, "127.255.255.254": true, "::1": true, "::ffff:127.0.0.1": true,
		"10.0.0.1": false, "192.168.1.10": false, "172.16.0.1": false, "0.0.0.0": false, "::": false,
		"128.0.0.1": false, "fe80::1": false, "2001:db8::1": false, "rangecopy.example.com": false,
		"localhost.example.com": false, "127.0.0.1.nip.io": false, "": false,
	} {
		if got := LoopbackHost(host); got != want {
			t.Errorf("LoopbackHost(%q) = %v, want %v", host, got, want)
		}
	}
}

// TestPlainHTTPRefused makes clients (New connects to nothing): a token over http:// to a
// host other than this machine is refused unless allowed; https, loopback http and no token
// are fine.
func TestPlainHTTPRefused(t *testing.T) {
	for _, c := range []struct {
		url     string
		token   bool
		allow   bool
		refused bool
	}{
		{"http://10.1.2.3:8080", true, false, true},
		{"http://rangecopy.example.com:8080", true, false, true},
		{"http://[2001:db8::1]:8080", true, false, true},
		{"http://0.0.0.0:8080", true, false, true},
		{"http://10.1.2.3:8080", true, true, false},
		{"http://10.1.2.3:8080", false, false, false},
		{"https://10.1.2.3:8443", true, false, false},
		{"http://127.0.0.1:8080", true, false, false},
		{"http://localhost:8080", true, false, false},
		{"http://[::1]:8080", true, false, false},
	} {
		o := Options{AllowPlainHTTP: c.allow}
		if c.token {
			o.Token = "rc_secret"
		}
		_, err := New(c.url, o)
		if got := errors.Is(err, ErrPlainHTTP); got != c.refused || (err != nil && !got) {
			t.Errorf("New(%s, token %v, allow %v): %v; want refused %v", c.url, c.token, c.allow, err, c.refused)
		}
	}
}

// TestNoRedirectToPlainHTTP follows a redirect from an https server to a plain one (both on
// loopback): the client holding a token does not follow it, and the token never arrives in
// plain HTTP.
func TestNoRedirectToPlainHTTP(t *testing.T) {
	got := make(chan string, 1)
	plain := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got <- r.Header.Get("Authorization")
	}))
	defer plain.Close()
	tlsSrv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, plain.URL+r.URL.Path, http.StatusFound)
	}))
	defer tlsSrv.Close()
	ca := filepath.Join(t.TempDir(), "ca.pem")
	if err := os.WriteFile(ca, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: tlsSrv.Certificate().Raw}), 0o600); err != nil {
		t.Fatal(err)
	}
	c, err := New(tlsSrv.URL, Options{Token: "rc_secret", CAFile: ca})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.GetJob(t.Context(), "j1"); !errors.Is(err, ErrPlainHTTP) {
		t.Errorf("GetJob through a redirect to plain HTTP: %v; want ErrPlainHTTP", err)
	}
	select {
	case a := <-got:
		t.Errorf("the plain server was called (Authorization %q)", a)
	default:
	}
}

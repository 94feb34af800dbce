package server

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"rangecopy/testenv"
)

// presented does a TLS handshake with addr, trusting pool, and returns the certificate the
// server presented.
func presented(t *testing.T, addr string, pool *x509.CertPool) []byte {
	t.Helper()
	d := &net.Dialer{Timeout: 10 * time.Second}
	c, err := tls.DialWithDialer(d, "tcp", addr, &tls.Config{RootCAs: pool, ServerName: "127.0.0.1"})
	if err != nil {
		t.Fatalf("TLS handshake with %s: %v", addr, err)
	}
	defer c.Close()
	return c.ConnectionState().PeerCertificates[0].Raw
}

// certDER reads the DER of a PEM certificate file.
func certDER(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	p, _ := pem.Decode(b)
	if p == nil {
		t.Fatalf("%s: no PEM", path)
	}
	return p.Bytes
}

// replaceFile puts src's content at dst by a rename, as a deployment tool (or a Kubernetes
// Secret's update) replaces a file.
func replaceFile(t *testing.T, src, dst string) {
	t.Helper()
	b, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	tmp := dst + ".new"
	if err := os.WriteFile(tmp, b, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, dst); err != nil {
		t.Fatal(err)
	}
}

// TestTLSCertReload serves TLS on a real server, replaces its certificate and key files,
// and sees the next handshake present the new certificate; then breaks the certificate file,
// and sees the server keep serving the last good one and log why.
func TestTLSCertReload(t *testing.T) {
	env := testenv.Get(t)
	cert, key, pool := selfSigned(t)
	cert2, key2, _ := selfSigned(t)
	pool.AddCert(mustParse(t, certDER(t, cert2)))
	var logs lockedLog
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	s, err := New(ctx, Config{Listen: "127.0.0.1:0", Catalog: "sqlite://" + filepath.Join(t.TempDir(), "c.db"),
		ZK: []string{env.Target.ZKQuorum}, ZKRoot: "/" + testenv.UniqueName(t, "reload"), TLSCert: cert, TLSKey: key,
		Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	done := make(chan error, 1)
	go func() { done <- s.Run(ctx) }()
	addr := s.Addr().String()

	first := presented(t, addr, pool)
	if !bytes.Equal(first, certDER(t, cert)) {
		t.Fatal("the server presents another certificate than --tls-cert's")
	}
	replaceFile(t, key2, key)
	replaceFile(t, cert2, cert)
	if got := presented(t, addr, pool); !bytes.Equal(got, certDER(t, cert2)) {
		t.Fatal("after the files were replaced, the next handshake presents the old certificate")
	}
	t.Logf("after replacing the files, the next handshake presented the new certificate")

	if err := os.WriteFile(cert+".new", []byte("-----BEGIN CERTIFICATE-----\nbroken\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(cert+".new", cert); err != nil {
		t.Fatal(err)
	}
	if got := presented(t, addr, pool); !bytes.Equal(got, certDER(t, cert2)) {
		t.Error("with a broken certificate file, the server stopped presenting the last good certificate")
	}
	presented(t, addr, pool) // the same broken version: logged once
	if l := logs.String(); strings.Count(l, "do not load") != 1 || !strings.Contains(l, "level=ERROR") {
		t.Errorf("a broken certificate file is to be logged once as an error; log:\n%s", l)
	}
	// SIGHUP (systemctl reload) tries the files again, whatever their stamps say.
	hangup(t)
	for deadline := time.Now().Add(30 * time.Second); strings.Count(logs.String(), "do not load") < 2; time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("SIGHUP did not reload the certificate files; log:\n%s", logs.String())
		}
	}
	if got := presented(t, addr, pool); !bytes.Equal(got, certDER(t, cert2)) {
		t.Error("after SIGHUP with a broken certificate file, the server stopped presenting the last good certificate")
	}
	cancel()
	if err := <-done; err != nil {
		t.Errorf("run: %v", err)
	}
}

func mustParse(t *testing.T, der []byte) *x509.Certificate {
	t.Helper()
	c, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestTLSFailsFast gives the server a certificate that does not load and a ZooKeeper that
// does not answer: New fails at once on the certificate, before it opens the catalog.
func TestTLSFailsFast(t *testing.T) {
	cert, _, _ := selfSigned(t)
	dir := t.TempDir()
	_, otherKey, _ := selfSigned(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0") // a port that accepts and never speaks ZooKeeper
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	for name, pair := range map[string][2]string{"missing key": {cert, filepath.Join(dir, "none.key")}, "key of another certificate": {cert, otherKey}} {
		ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
		_, err := New(ctx, Config{Listen: "127.0.0.1:0", Catalog: "sqlite://" + filepath.Join(dir, "c.db"),
			ZK: []string{ln.Addr().String()}, TLSCert: pair[0], TLSKey: pair[1]})
		cancel()
		if err == nil || !strings.Contains(err.Error(), "--tls-") {
			t.Errorf("%s: New: %v; want an error naming --tls-cert/--tls-key", name, err)
		}
		if _, err := os.Stat(filepath.Join(dir, "c.db")); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s: the catalog was opened before the certificate was checked (%v)", name, err)
		}
	}
}

// TestPlainHTTPOffLoopback is the listen decision: plain HTTP is refused off loopback unless
// the operator says so (--insecure-plain-http, or --behind-tls-proxy); TLS and loopback are
// always fine. No address here is listened on.
func TestPlainHTTPOffLoopback(t *testing.T) {
	for _, c := range []struct {
		listen            string
		tls, plain, proxy bool
		refused           bool
	}{
		{"0.0.0.0:8080", false, false, false, true},
		{":8080", false, false, false, true},
		{"10.1.2.3:8080", false, false, false, true},
		{"[::]:8080", false, false, false, true},
		{"rangecopy.example.com:8080", false, false, false, true},
		{"0.0.0.0:8443", true, false, false, false},
		{"0.0.0.0:8080", false, true, false, false},
		{"0.0.0.0:8080", false, false, true, false},
		{"127.0.0.1:8080", false, false, false, false},
		{"127.0.0.2:8080", false, false, false, false},
		{"[::1]:8080", false, false, false, false},
		{"localhost:8080", false, false, false, false},
	} {
		cfg := Config{Listen: c.listen, Catalog: "sqlite://x.db", ZK: []string{"h:1"}, InsecurePlainHTTP: c.plain, BehindTLSProxy: c.proxy}
		if c.tls {
			cfg.TLSCert, cfg.TLSKey = "c.pem", "k.pem"
		}
		err := cfg.defaults()
		if (err != nil) != c.refused {
			t.Errorf("%+v: %v; want refused %v", c, err, c.refused)
		}
		if err != nil && (!strings.Contains(err.Error(), "--insecure-plain-http") || !strings.Contains(err.Error(), "--tls-cert")) {
			t.Errorf("%s: error %q does not say what to do", c.listen, err)
		}
	}
}

// TestReloadDue is the reload decision over the files' stamps.
func TestReloadDue(t *testing.T) {
	t0 := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	a := certStamp{certMod: t0, keyMod: t0, certSize: 500, keySize: 200}
	b := a
	b.certMod = t0.Add(time.Second)
	c := a
	c.keySize = 201
	for _, x := range []struct {
		name                string
		now, loaded, failed certStamp
		force, want         bool
	}{
		{"unchanged", a, a, certStamp{}, false, false},
		{"certificate replaced", b, a, certStamp{}, false, true},
		{"key rewritten, same time", c, a, certStamp{}, false, true},
		{"the version that failed", b, a, b, false, false},
		{"forced (SIGHUP)", a, a, certStamp{}, true, true},
		{"forced, failed version", b, a, b, true, true},
	} {
		if got := reloadDue(x.now, x.loaded, x.failed, x.force); got != x.want {
			t.Errorf("%s: reloadDue = %v, want %v", x.name, got, x.want)
		}
	}
}

// BenchmarkGetCertificate is what each TLS handshake pays for noticing a renewed
// certificate: two stats of unchanged files.
func BenchmarkGetCertificate(b *testing.B) {
	cert, key, _ := selfSigned(b)
	c, err := loadCertFiles(cert, key, slog.New(slog.DiscardHandler))
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := c.getCertificate(nil); err != nil {
			b.Fatal(err)
		}
	}
}

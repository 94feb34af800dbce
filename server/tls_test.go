package server

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"rangecopy/api"
	"rangecopy/testenv"
)

// selfSigned writes a certificate for 127.0.0.1 and its key, and returns their paths and a
// pool that trusts it.
func selfSigned(t testing.TB) (cert, key string, pool *x509.CertPool) {
	t.Helper()
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "rangecopy test"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1")}, KeyUsage: x509.KeyUsageDigitalSignature,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &k.PublicKey, k)
	if err != nil {
		t.Fatal(err)
	}
	kb, err := x509.MarshalECPrivateKey(k)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	cert, key = filepath.Join(dir, "tls.crt"), filepath.Join(dir, "tls.key")
	if err := os.WriteFile(cert, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(key, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kb}), 0o600); err != nil {
		t.Fatal(err)
	}
	c, _ := x509.ParseCertificate(der)
	pool = x509.NewCertPool()
	pool.AddCert(c)
	return cert, key, pool
}

// TestServerTLS serves the API over HTTPS with --tls-cert/--tls-key, refuses plain HTTP on
// that port, and refuses a certificate without its key and --insecure-no-auth off loopback.
func TestServerTLS(t *testing.T) {
	env := testenv.Get(t)
	cert, key, pool := selfSigned(t)
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	s, err := New(ctx, Config{Listen: "127.0.0.1:0", Catalog: "sqlite://" + filepath.Join(t.TempDir(), "c.db"),
		ZK: []string{env.Target.ZKQuorum}, ZKRoot: "/" + testenv.UniqueName(t, "tls"), TLSCert: cert, TLSKey: key})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	done := make(chan error, 1)
	go func() { done <- s.Run(ctx) }()
	if !strings.HasPrefix(s.URL(), "https://") {
		t.Fatalf("URL %s: want https", s.URL())
	}
	c := &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}}
	resp, err := c.Get(s.URL() + api.APIPrefix + "/healthz")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || resp.TLS == nil {
		t.Errorf("healthz over TLS: %d, tls %v", resp.StatusCode, resp.TLS != nil)
	}
	plain := strings.Replace(s.URL(), "https://", "http://", 1)
	if resp, err := http.Get(plain + api.APIPrefix + "/healthz"); err == nil {
		resp.Body.Close()
		if resp.StatusCode == http.StatusOK {
			t.Error("plain HTTP on the TLS port answered 200")
		}
	}
	cancel()
	if err := <-done; err != nil {
		t.Errorf("run: %v", err)
	}
	for _, bad := range []Config{
		{Catalog: "sqlite://x.db", ZK: []string{"h:1"}, TLSCert: cert},
		{Catalog: "sqlite://x.db", ZK: []string{"h:1"}, Listen: "0.0.0.0:0", InsecureNoAuth: true},
		{Catalog: "sqlite://x.db", ZK: []string{"h:1"}, Listen: "nonsense"},
		{ZK: []string{"h:1"}},
	} {
		if _, err := New(t.Context(), bad); err == nil {
			t.Errorf("New(%+v): no error", bad)
		}
	}
}

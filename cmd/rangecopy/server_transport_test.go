package main

import (
	"bytes"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestServerTransportPreflight starts rangecopy server with a ZooKeeper that never answers:
// plain HTTP off loopback without saying so is a usage error, and a TLS pair that does not
// load an error, both at once, before the server waits for anything.
func TestServerTransportPreflight(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0") // accepts, never speaks ZooKeeper
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	dir := t.TempDir()
	cert, key := filepath.Join(dir, "tls.crt"), filepath.Join(dir, "tls.key")
	for _, f := range []string{cert, key} {
		if err := os.WriteFile(f, []byte("not PEM"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	base := []string{"server", "--zk", ln.Addr().String(), "--data-dir", dir}
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"--listen", "0.0.0.0:0"}, exitUsage, "--insecure-plain-http"},
		{[]string{"--listen", "10.1.2.3:8080"}, exitUsage, "--tls-cert and --tls-key"},
		{[]string{"--listen", "127.0.0.1:0", "--tls-cert", cert, "--tls-key", key}, 1, "--tls-cert"},
	} {
		var out, errb bytes.Buffer
		start := time.Now()
		code := run(t.Context(), append(append([]string{}, base...), tc.args...), &out, &errb)
		if code != tc.code || !strings.Contains(errb.String(), tc.want) {
			t.Errorf("%v: exit %d, want %d saying %q:\n%s", tc.args, code, tc.code, tc.want, errb.String())
		}
		if _, err := os.Stat(filepath.Join(dir, "catalog.db")); err == nil {
			t.Errorf("%v: the catalog was opened before the check", tc.args)
		}
		t.Logf("%v: exit %d after %s", tc.args, code, time.Since(start).Round(time.Millisecond))
	}
}

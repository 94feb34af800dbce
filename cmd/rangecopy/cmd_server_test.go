package main

import (
	"bytes"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// closedPort is a loopback address nothing listens on: a port just freed.
func closedPort(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	return addr
}

// serverEnvClean empties the variables rangecopy server reads, so the host's do not leak in.
func serverEnvClean(t *testing.T) {
	for _, v := range []string{"RANGECOPY_ZK", "RANGECOPY_CATALOG", "RANGECOPY_TLS_CERT", "RANGECOPY_TLS_KEY",
		"RANGECOPY_LISTEN", "RANGECOPY_WORKERS", "RANGECOPY_ZK_WAIT", "RANGECOPY_DATA_DIR", "RANGECOPY_CONFIG"} {
		t.Setenv(v, "")
		os.Unsetenv(v)
	}
}

// TestServerUnreachableZooKeeper: rangecopy server with nothing listening at --zk says at once
// what it waits for, says every 10 s that it still waits, gives up after --zk-wait, and ends
// with one sentence (exit 1) naming the address, with no prefix said twice.
func TestServerUnreachableZooKeeper(t *testing.T) {
	serverEnvClean(t)
	zk := closedPort(t)
	var out, errb bytes.Buffer
	code := run(t.Context(), []string{"server", "--zk", zk, "--zk-wait", "13s", "--data-dir", t.TempDir(), "--listen", "127.0.0.1:0"}, &out, &errb)
	stderr := errb.String()
	if code != exitError {
		t.Errorf("exit %d, want %d", code, exitError)
	}
	first, _, _ := strings.Cut(stderr, "\n")
	if !strings.Contains(first, "connecting to ZooKeeper "+zk) {
		t.Errorf("first line %q does not say it connects to ZooKeeper %s", first, zk)
	}
	if !strings.Contains(stderr, "still waiting for ZooKeeper "+zk) {
		t.Errorf("no progress line while it waited:\n%s", stderr)
	}
	want := "rangecopy server: no ZooKeeper server answered at " + zk + " in 13s"
	if !strings.Contains(stderr, want) || !strings.Contains(stderr, "(last: dial tcp "+zk) {
		t.Errorf("stderr does not end with %q and the cause:\n%s", want, stderr)
	}
	for _, twice := range []string{"server: server:", "registry: registry:"} {
		if strings.Contains(stderr, twice) {
			t.Errorf("stderr says %q:\n%s", twice, stderr)
		}
	}
	if strings.Count(stderr, "rangecopy server: ") != 1 {
		t.Errorf("want one closing sentence:\n%s", stderr)
	}
}

// TestServerBadFlags: each bad setting is a usage error (exit 2) found before the server
// connects to anything: stderr never says it connects to ZooKeeper.
func TestServerBadFlags(t *testing.T) {
	serverEnvClean(t)
	zk := closedPort(t)
	dir := t.TempDir()
	cert := filepath.Join(dir, "tls.crt")
	if err := os.WriteFile(cert, []byte("not used"), 0o600); err != nil {
		t.Fatal(err)
	}
	base := []string{"server", "--zk", zk, "--zk-wait", "30s", "--data-dir", dir}
	for _, tc := range []struct {
		args []string
		env  map[string]string
		want string
	}{
		{args: []string{"--workers", "-1"}, want: "--workers -1: want 0 (none) to 256"},
		{args: []string{"--workers", "1000"}, want: "--workers 1000"},
		{args: []string{"--listen", "nonsense"}, want: `--listen "nonsense": want host:port`},
		{args: []string{"--listen", "127.0.0.1:http-ish"}, want: `port "http-ish" is not a number`},
		{args: []string{"--catalog", "ftp://x"}, want: `unknown scheme "ftp"`},
		{args: []string{"--tls-cert", cert}, want: "--tls-cert and --tls-key go together"},
		{args: []string{"--zk-wait", "0s"}, want: "--zk-wait 0s: must be positive"},
		{args: []string{"--insecure-no-auth", "--listen", "0.0.0.0:0"}, want: "listens only on loopback"},
		{args: []string{"--log-format", "xml"}, want: `--log-format "xml"`},
		{env: map[string]string{"RANGECOPY_WORKERS": "-1"}, want: "--workers -1"},
		{env: map[string]string{"RANGECOPY_CATALOG": "postgres://rangecopy:CHANGE-ME@postgres.example.com:5432/rangecopy"},
			want: "still holds the placeholder CHANGE-ME"},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			for k, v := range tc.env {
				t.Setenv(k, v)
			}
			var out, errb bytes.Buffer
			code := run(t.Context(), append(append([]string{}, base...), tc.args...), &out, &errb)
			stderr := errb.String()
			if code != exitUsage {
				t.Errorf("exit %d, want %d:\n%s", code, exitUsage, stderr)
			}
			if !strings.Contains(stderr, tc.want) {
				t.Errorf("stderr does not say %q:\n%s", tc.want, stderr)
			}
			if strings.Contains(stderr, "connecting to ZooKeeper") {
				t.Errorf("it connected before checking its flags:\n%s", stderr)
			}
			if strings.Contains(stderr, "CHANGE-ME@") {
				t.Errorf("stderr shows the catalog password:\n%s", stderr)
			}
		})
	}
}

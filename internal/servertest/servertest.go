// Package servertest runs rangecopy servers for tests of the packages that talk to one
// (apiclient, the command); server's own tests start theirs in the package.
package servertest

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"rangecopy/catalog"
	"rangecopy/server"
	"rangecopy/testenv"
)

// TestServer is a rangecopy server a test runs: its URL and an admin token's secret.
type TestServer struct {
	*server.Server
	URL   string
	Token string
}

// StartServer runs a rangecopy server for the test: a SQLite catalog in a temporary
// folder, a registry root of the test's own on the target's ZooKeeper, and workers
// embedded workers (0: none, so jobs stay planned). It stops when the test ends.
func StartServer(t testing.TB, env *testenv.Env, workers int) *TestServer {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	srv, err := server.New(ctx, server.Config{
		Listen:  "127.0.0.1:0",
		Catalog: "sqlite://" + filepath.Join(t.TempDir(), "catalog.db"),
		ZK:      []string{env.Target.ZKQuorum},
		ZKRoot:  "/" + testenv.UniqueName(t, "srv"),
		Workers: workers,
		User:    env.Target.User,
		Poll:    500 * time.Millisecond, Reconcile: 500 * time.Millisecond,
	})
	if err != nil {
		t.Fatalf("start a rangecopy server: %v", err)
	}
	_, secret, err := srv.Catalog().CreateToken(ctx, "test-admin", catalog.RoleAdmin)
	if err != nil {
		srv.Close()
		t.Fatalf("create a token: %v", err)
	}
	rctx, stop := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- srv.Run(rctx) }()
	t.Cleanup(func() {
		stop()
		if err := <-done; err != nil && !errors.Is(err, context.Canceled) {
			t.Errorf("rangecopy server: %v", err)
		}
		srv.Close()
	})
	return &TestServer{Server: srv, URL: srv.URL(), Token: secret}
}

// SiteFiles reads a test cluster's hbase-site.xml and core-site.xml (those present) for
// registering it with a server.
func SiteFiles(t testing.TB, c *testenv.Cluster) map[string]string {
	t.Helper()
	files := map[string]string{}
	for _, name := range []string{"hbase-site.xml", "core-site.xml", "hdfs-site.xml"} {
		b, err := os.ReadFile(filepath.Join(c.ConfDir, name))
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err != nil {
			t.Fatalf("site files of the %s cluster: %v", c.Name, err)
		}
		files[name] = string(b)
	}
	if len(files) == 0 {
		t.Fatalf("no site files in %s", c.ConfDir)
	}
	return files
}

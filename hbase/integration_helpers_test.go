package hbase_test

import (
	"context"
	"log/slog"
	"os"
	"strings"
	"testing"
	"time"

	"rangecopy/hbase"
	"rangecopy/testenv"
)

// dialCluster connects our client to a test cluster and closes it at the end
// of the test.
func dialCluster(t *testing.T, cl *testenv.Cluster) *hbase.Client {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	c, err := hbase.Dial(ctx, hbase.Config{
		ZKQuorum:    strings.Split(cl.ZKQuorum, ","),
		ZNodeParent: cl.ZNodeParent,
		User:        cl.User,
		Logger:      testLogger(),
	})
	if err != nil {
		t.Fatalf("dial %s: %v", cl.Name, err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// bothClusters runs f as a parallel subtest on source and target.
func bothClusters(t *testing.T, f func(t *testing.T, cl *testenv.Cluster, c *hbase.Client)) {
	env := testenv.Get(t)
	for _, cl := range []*testenv.Cluster{env.Source, env.Target} {
		t.Run(cl.Name, func(t *testing.T) {
			t.Parallel()
			f(t, cl, dialCluster(t, cl))
		})
	}
}

// testCtx is a context bounded well below the test timeout.
func testCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	t.Cleanup(cancel)
	return ctx
}

// newTable creates a table with the harness (HBase's own admin client) and
// deletes it when the test ends.
func newTable(t *testing.T, cl *testenv.Cluster, prefix string, fams []testenv.Family, splits [][]byte) string {
	t.Helper()
	return cl.NewTable(t, prefix, fams, splits)
}

// testLogger logs the client's debug output to stderr when
// RANGECOPY_HBASE_DEBUG is set.
func testLogger() *slog.Logger {
	if os.Getenv("RANGECOPY_HBASE_DEBUG") == "" {
		return nil
	}
	return slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelDebug}))
}

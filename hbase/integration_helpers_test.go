package hbase_test

import (
	"log/slog"
	"os"
	"testing"

	"rangecopy/hbase"
	"rangecopy/internal/testsupport"
	"rangecopy/testenv"
)

// dialCluster connects our client to a test cluster, with the package's
// debug logger, and closes it at the end of the test.
func dialCluster(t *testing.T, cl *testenv.Cluster) *hbase.Client {
	t.Helper()
	return testsupport.DialWith(t, cl, hbase.Config{Logger: testLogger()})
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

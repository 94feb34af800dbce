package testsupport

import (
	"context"
	"strings"
	"testing"
	"time"

	"rangecopy/hbase"
	"rangecopy/testenv"
)

// dialTimeout bounds opening the client: a harness that does not answer
// fails the test with the dial's error instead of hanging to the test
// binary's timeout.
const dialTimeout = time.Minute

// Dial opens our HBase client on a test cluster as the cluster's user and
// closes it when the test ends.
func Dial(t testing.TB, c *testenv.Cluster) *hbase.Client {
	t.Helper()
	return DialWith(t, c, hbase.Config{})
}

// DialWith is Dial with more of the client's configuration: cfg's
// ZooKeeper quorum and parent znode are set from the cluster, and an empty
// User is the cluster's user.
func DialWith(t testing.TB, c *testenv.Cluster, cfg hbase.Config) *hbase.Client {
	t.Helper()
	cfg.ZKQuorum = strings.Split(c.ZKQuorum, ",")
	cfg.ZNodeParent = c.ZNodeParent
	if cfg.User == "" {
		cfg.User = c.User
	}
	ctx, cancel := context.WithTimeout(t.Context(), dialTimeout)
	defer cancel()
	client, err := hbase.Dial(ctx, cfg)
	if err != nil {
		t.Fatalf("connect our HBase client to the %s cluster as %s: %v", c.Name, cfg.User, err)
	}
	t.Cleanup(func() { client.Close() })
	return client
}

package cluster_test

import (
	"strings"
	"testing"

	"rangecopy/cluster"
	"rangecopy/testenv"
)

// TestLoadHarnessConfig reads the site files the harness writes for each real
// cluster and checks them against what the harness reports.
func TestLoadHarnessConfig(t *testing.T) {
	env := testenv.Get(t)
	for _, tc := range []*testenv.Cluster{env.Source, env.Target} {
		c, err := cluster.Load(tc.Name, tc.ConfDir)
		if err != nil {
			t.Fatal(err)
		}
		port := tc.ZKQuorum[strings.LastIndexByte(tc.ZKQuorum, ':'):]
		if len(c.ZKQuorum) != 1 || !strings.HasSuffix(c.ZKQuorum[0], port) || c.ZNodeParent != tc.ZNodeParent {
			t.Errorf("%s: zookeeper %v%s, want port %s parent %s", tc.Name, c.ZKQuorum, c.ZNodeParent, port, tc.ZNodeParent)
		}
		nnPort := tc.NameNode[strings.LastIndexByte(tc.NameNode, ':'):]
		if len(c.NameNodes) != 1 || !strings.HasSuffix(c.NameNodes[0], nnPort) || c.RootDir != tc.RootDirPath() {
			t.Errorf("%s: hdfs %v%s, want port %s root %s", tc.Name, c.NameNodes, c.RootDir, nnPort, tc.RootDirPath())
		}
		key, err := cluster.ParseClusterKey(tc.Name, tc.ClusterKey)
		if err != nil || key.ZKQuorum[0] != tc.ZKQuorum || key.ZNodeParent != tc.ZNodeParent {
			t.Errorf("%s: cluster key %s read as %+v, %v", tc.Name, tc.ClusterKey, key, err)
		}
	}
}

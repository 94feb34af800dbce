package main

import (
	"testing"

	"github.com/colinmarc/hdfs/v2"

	"rangecopy/testenv"
)

func hdfsClientFor(t *testing.T, c *testenv.Cluster) *hdfs.Client {
	t.Helper()
	return c.HDFS(t, "")
}

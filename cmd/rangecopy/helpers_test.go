package main

import (
	"testing"

	"github.com/colinmarc/hdfs/v2"

	"rangecopy/testenv"
)

func hdfsClientFor(t *testing.T, c *testenv.Cluster) *hdfs.Client {
	t.Helper()
	client, err := hdfs.NewClient(hdfs.ClientOptions{Addresses: []string{c.NameNode}, User: c.User})
	if err != nil {
		t.Fatalf("connect to %s NameNode %s: %v", c.Name, c.NameNode, err)
	}
	t.Cleanup(func() { client.Close() })
	return client
}

// Package dial reaches a cluster that a cluster.Config describes: its HBase
// (through our client) and its HDFS (as an fsys.HDFS). It is apart from
// package cluster so that the pure description of a cluster, which job
// records hold, links neither client.
package dial

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"rangecopy/cluster"
	"rangecopy/fsys"
	"rangecopy/hbase"
)

// HBase opens an HBase client on cluster c as user and checks, with one
// call to the master, that the cluster answers within timeout.
func HBase(ctx context.Context, c cluster.Config, user string, timeout time.Duration, log *slog.Logger) (*hbase.Client, error) {
	dctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cl, err := hbase.Dial(dctx, hbase.Config{ZKQuorum: c.ZKQuorum, ZNodeParent: c.ZNodeParent, User: user, Logger: log})
	if err != nil {
		return nil, fmt.Errorf("%s: unreachable within %s: %w", c, timeout, err)
	}
	if _, err := cl.ListNamespaces(dctx); err != nil {
		cl.Close()
		return nil, fmt.Errorf("%s: unreachable within %s: %w", c, timeout, err)
	}
	return cl, nil
}

// HDFS opens cluster c's HDFS as user and checks that the HBase root folder
// is there. The client has fetched the server defaults (see fsys.NewHDFS),
// so it may be shared at once.
func HDFS(ctx context.Context, c cluster.Config, user string) (*fsys.HDFS, error) {
	if !c.HasHDFS() {
		return nil, fmt.Errorf("%s: its HDFS is not known (give --%s-hdfs hdfs://namenode:port/hbase-root)", c, c.Name)
	}
	fs, err := fsys.OpenHDFS(c.NameNodes, user, fsys.HDFSOptions{})
	if err != nil {
		return nil, fmt.Errorf("%s cluster HDFS %s: %w", c.Name, strings.Join(c.NameNodes, ","), err)
	}
	if _, err := fs.Stat(ctx, c.RootDir); err != nil {
		fs.Close()
		return nil, fmt.Errorf("%s cluster HDFS %s: hbase root %s: %w", c.Name, strings.Join(c.NameNodes, ","), c.RootDir, err)
	}
	return fs, nil
}

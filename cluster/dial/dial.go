package cluster

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/colinmarc/hdfs/v2"

	"rangecopy/hbase"
)

// DialHBase opens an HBase client on the cluster as user and checks, with
// one call to the master, that the cluster answers within timeout.
func (c Config) DialHBase(ctx context.Context, user string, timeout time.Duration, log *slog.Logger) (*hbase.Client, error) {
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

// OpenHDFS opens a client on the cluster's HDFS as user and checks that the
// HBase root folder is there.
func (c Config) OpenHDFS(user string) (*hdfs.Client, error) {
	if !c.HasHDFS() {
		return nil, fmt.Errorf("%s: its HDFS is not known (give --%s-hdfs hdfs://namenode:port/hbase-root)", c, c.Name)
	}
	fs, err := hdfs.NewClient(hdfs.ClientOptions{Addresses: c.NameNodes, User: user})
	if err != nil {
		return nil, fmt.Errorf("%s cluster HDFS %s: %w", c.Name, strings.Join(c.NameNodes, ","), err)
	}
	if _, err := fs.Stat(c.RootDir); err != nil {
		fs.Close()
		return nil, fmt.Errorf("%s cluster HDFS %s: hbase root %s: %w", c.Name, strings.Join(c.NameNodes, ","), c.RootDir, err)
	}
	// The client caches the server defaults at the first Create without a
	// lock; fetching them here, before the client is shared, keeps
	// concurrent Creates from racing on that cache.
	if _, err := fs.ServerDefaults(); err != nil {
		fs.Close()
		return nil, fmt.Errorf("%s cluster HDFS %s: server defaults: %w", c.Name, strings.Join(c.NameNodes, ","), err)
	}
	return fs, nil
}

// Package cluster says how to reach one HBase cluster: its ZooKeeper quorum
// and znode parent (for the HBase client) and the NameNodes and root
// directory of its HDFS (for reading and writing HFiles). Operators name a
// cluster either by a ZooKeeper cluster key, as HBase's replication and tools
// take it, or by the folder that holds its hbase-site.xml, core-site.xml and
// hdfs-site.xml, the way they keep client configuration.
package cluster

import (
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"path"
	"strconv"
	"strings"
)

// DefaultZKPort and DefaultZNodeParent are HBase's defaults.
const (
	DefaultZKPort      = 2181
	DefaultZNodeParent = "/hbase"
	// DefaultNameNodePort is HDFS's default RPC port.
	DefaultNameNodePort = 8020
)

// Config is how to reach one cluster.
type Config struct {
	// Name is how messages call the cluster ("source", "target").
	Name string
	// ZKQuorum lists the ZooKeeper servers as host:port.
	ZKQuorum []string
	// ZNodeParent is HBase's root znode.
	ZNodeParent string
	// NameNodes lists the RPC addresses (host:port) of the NameNodes that
	// serve RootDir: one, or the members of an HA name service. Empty means
	// not known yet (a cluster key names no HDFS).
	NameNodes []string
	// RootDir is the path of hbase.rootdir inside that HDFS, e.g. /hbase.
	RootDir string
	// ZstdCodec is the cluster's hbase.io.compress.zstd.codec, the class
	// its region servers read and write ZSTD blocks with; empty means HBase's
	// default, Hadoop's org.apache.hadoop.io.compress.ZStandardCodec. Files
	// written for a ZSTD family are framed for it.
	ZstdCodec string
}

// String describes the config for logs and errors.
func (c Config) String() string {
	s := fmt.Sprintf("%s cluster (zookeeper %s%s", c.Name, strings.Join(c.ZKQuorum, ","), c.ZNodeParent)
	if len(c.NameNodes) > 0 {
		s += fmt.Sprintf(", hdfs %s%s", strings.Join(c.NameNodes, ","), c.RootDir)
	}
	return s + ")"
}

// HasHDFS reports whether the config says where the cluster's files are.
func (c Config) HasHDFS() bool { return len(c.NameNodes) > 0 && c.RootDir != "" }

// Parse reads a cluster named on the command line: the path of a folder of
// site files (see Load), or a ZooKeeper cluster key (see ParseClusterKey).
func Parse(name, s string) (Config, error) {
	if s == "" {
		return Config{}, fmt.Errorf("%s cluster: not given: name a ZooKeeper cluster key (zk1,zk2:2181:/hbase) or a folder with hbase-site.xml", name)
	}
	if st, err := os.Stat(s); err == nil && st.IsDir() {
		return Load(name, s)
	}
	if strings.HasPrefix(s, "/") || strings.HasPrefix(s, ".") {
		return Config{}, fmt.Errorf("%s cluster: %s is not a folder of site files", name, s)
	}
	return ParseClusterKey(name, s)
}

// ParseClusterKey reads a ZooKeeper cluster key in one of the forms
//
//	zk1,zk2,zk3:2181:/hbase    HBase's cluster key: hosts, client port, znode parent
//	zk1:2181,zk2:2182/hbase    a ZooKeeper connect string, the parent as its path
//	zk1,zk2                    default port 2181 and parent /hbase
func ParseClusterKey(name, key string) (Config, error) {
	c := Config{Name: name, ZNodeParent: DefaultZNodeParent}
	hosts := key
	// quorum:port:/parent
	if i := strings.Index(key, ":/"); i >= 0 {
		hosts, c.ZNodeParent = key[:i], key[i+1:]
		j := strings.LastIndexByte(hosts, ':')
		if j < 0 {
			return Config{}, fmt.Errorf("%s cluster key %q: want hosts:port:/parent", name, key)
		}
		port, err := strconv.Atoi(hosts[j+1:])
		if err != nil || port <= 0 || port > 65535 {
			return Config{}, fmt.Errorf("%s cluster key %q: bad client port %q", name, key, hosts[j+1:])
		}
		hosts = hosts[:j]
		q, err := quorum(hosts, port)
		if err != nil {
			return Config{}, fmt.Errorf("%s cluster key %q: %w", name, key, err)
		}
		c.ZKQuorum = q
	} else {
		if i := strings.IndexByte(key, '/'); i >= 0 {
			hosts, c.ZNodeParent = key[:i], key[i:]
		}
		q, err := quorum(hosts, DefaultZKPort)
		if err != nil {
			return Config{}, fmt.Errorf("%s cluster key %q: %w", name, key, err)
		}
		c.ZKQuorum = q
	}
	if err := checkParent(c.ZNodeParent); err != nil {
		return Config{}, fmt.Errorf("%s cluster key %q: %w", name, key, err)
	}
	return c, nil
}

// quorum splits a comma-separated host list, giving port to hosts without one.
func quorum(hosts string, port int) ([]string, error) {
	var out []string
	for _, h := range strings.Split(hosts, ",") {
		h = strings.TrimSpace(h)
		if h == "" {
			return nil, errors.New("empty host in the quorum")
		}
		if host, p, err := net.SplitHostPort(h); err == nil {
			n, err := strconv.Atoi(p)
			if err != nil || n <= 0 || n > 65535 || host == "" {
				return nil, fmt.Errorf("bad ZooKeeper address %q", h)
			}
			out = append(out, h)
			continue
		}
		if strings.ContainsAny(h, ":/ ") {
			return nil, fmt.Errorf("bad ZooKeeper host %q", h)
		}
		out = append(out, net.JoinHostPort(h, strconv.Itoa(port)))
	}
	return out, nil
}

func checkParent(p string) error {
	if !strings.HasPrefix(p, "/") || (len(p) > 1 && strings.HasSuffix(p, "/")) || strings.Contains(p, "//") {
		return fmt.Errorf("bad znode parent %q: want an absolute path such as /hbase", p)
	}
	return nil
}

// ParseRootDir reads an hbase.rootdir URI such as hdfs://nn:8020/hbase into
// NameNode addresses and a path, resolving an HA name service through site
// (which may be nil when the URI names a host).
func ParseRootDir(rootDir string, site Site) (nameNodes []string, dir string, err error) {
	u, err := url.Parse(rootDir)
	if err != nil {
		return nil, "", fmt.Errorf("hbase.rootdir %q: %w", rootDir, err)
	}
	if u.Scheme != "hdfs" {
		return nil, "", fmt.Errorf("hbase.rootdir %q: rangecopy reads and writes HDFS; want an hdfs:// URI", rootDir)
	}
	if u.Host == "" {
		return nil, "", fmt.Errorf("hbase.rootdir %q names no NameNode or name service", rootDir)
	}
	dir = path.Clean("/" + u.Path)
	if ids := site.Get("dfs.ha.namenodes." + u.Host); ids != "" && u.Port() == "" {
		for _, id := range strings.Split(ids, ",") {
			id = strings.TrimSpace(id)
			key := "dfs.namenode.rpc-address." + u.Host + "." + id
			addr := site.Get(key)
			if addr == "" {
				return nil, "", fmt.Errorf("name service %s lists NameNode %s, but %s is not set", u.Host, id, key)
			}
			nameNodes = append(nameNodes, addr)
		}
		return nameNodes, dir, nil
	}
	host := u.Host
	if u.Port() == "" {
		host = net.JoinHostPort(u.Hostname(), strconv.Itoa(DefaultNameNodePort))
	}
	return []string{host}, dir, nil
}

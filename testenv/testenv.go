// Package testenv finds and drives rangecopy's real test environment: two HBase
// mini clusters, "source" and "target", each with its own ZooKeeper, HDFS (three
// DataNodes, replication 2), master and two region servers, run by the Java
// harness in this folder.
//
// The environment is started once per test run (make testenv-up, or Start) and
// shared by every test package; tests work in tables, namespaces and HDFS folders
// of their own (see UniqueName). A test gets the running environment with Get,
// which fails the test in CI when there is none and skips it elsewhere.
package testenv

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// EnvVar names the environment variable that points at the state directory of
// a running environment; without it, the directory is .testenv at the root of
// the rangecopy module.
const EnvVar = "RANGECOPY_TESTENV"

// ErrNotRunning reports that no environment is running in a state directory.
var ErrNotRunning = errors.New("test environment not running")

// Env is a running test environment as described by its clusters.json.
type Env struct {
	// Dir is the state directory: clusters.json, harness.log, data, conf dirs.
	Dir string `json:"-"`
	// HBaseVersion and HadoopVersion are the versions the harness runs.
	HBaseVersion  string `json:"hbaseVersion"`
	HadoopVersion string `json:"hadoopVersion"`
	// Control is the loopback address of the harness's control channel.
	Control string `json:"control"`
	// PID is the process id of the harness JVM.
	PID    int      `json:"pid"`
	Source *Cluster `json:"source"`
	Target *Cluster `json:"target"`
}

// Cluster describes one mini cluster and drives it through the control channel.
type Cluster struct {
	// Name is "source" or "target".
	Name string `json:"name"`
	// ZKQuorum is the ZooKeeper host:port and ZNodeParent HBase's root znode.
	ZKQuorum    string `json:"zkQuorum"`
	ZNodeParent string `json:"znodeParent"`
	// ClusterKey is quorum:port:/parent, as HBase's tools take it.
	ClusterKey string `json:"clusterKey"`
	// FSDefaultFS is the HDFS URI (hdfs://localhost:port); NameNode its RPC address.
	FSDefaultFS string `json:"fsDefaultFS"`
	NameNode    string `json:"nameNode"`
	// HBaseRootDir is the fully qualified hbase.rootdir.
	HBaseRootDir string `json:"hbaseRootDir"`
	// Master and RegionServers are server names (host,port,startcode) at start-up.
	Master        string   `json:"master"`
	RegionServers []string `json:"regionServers"`
	// DataNodes are the DataNodes' transfer addresses at start-up.
	DataNodes []string `json:"dataNodes"`
	// User is the OS user of the harness: HDFS superuser and HBase's user.
	User string `json:"user"`
	// ConfDir holds hbase-site.xml and core-site.xml for this cluster.
	ConfDir string `json:"confDir"`

	ctl *control
}

// RootDirPath is the path part of HBaseRootDir (without scheme and authority),
// as an HDFS client names files.
func (c *Cluster) RootDirPath() string {
	s := strings.TrimPrefix(c.HBaseRootDir, "hdfs://")
	if i := strings.IndexByte(s, '/'); i >= 0 {
		return s[i:]
	}
	return "/"
}

// DefaultDir returns the state directory: $RANGECOPY_TESTENV, or .testenv at
// the root of the rangecopy module found from the working directory upward.
func DefaultDir() (string, error) {
	if d := os.Getenv(EnvVar); d != "" {
		return filepath.Abs(d)
	}
	root, err := ModuleRoot()
	if err != nil {
		return "", err
	}
	return filepath.Join(root, ".testenv"), nil
}

// ModuleRoot finds the root of the rangecopy module from the working directory.
func ModuleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", fmt.Errorf("find module root: %w", err)
	}
	for {
		b, err := os.ReadFile(filepath.Join(dir, "go.mod"))
		if err == nil && strings.HasPrefix(string(b), "module rangecopy\n") {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", fmt.Errorf("find module root: no go.mod of module rangecopy above the working directory")
		}
		dir = parent
	}
}

// Load reads the clusters.json of the environment in dir and checks that its
// control channel answers. It returns an error wrapping ErrNotRunning when
// there is no clusters.json or nothing answers.
func Load(dir string) (*Env, error) {
	path := filepath.Join(dir, "clusters.json")
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("%w: no %s", ErrNotRunning, path)
	}
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	var e Env
	if err := json.Unmarshal(b, &e); err != nil {
		return nil, fmt.Errorf("parse %s: %w", path, err)
	}
	if e.Source == nil || e.Target == nil || e.Control == "" {
		return nil, fmt.Errorf("parse %s: source, target or control missing", path)
	}
	e.Dir = dir
	ctl := &control{addr: e.Control, http: &http.Client{Timeout: 15 * time.Minute}}
	e.Source.ctl, e.Target.ctl = ctl, ctl
	if err := ctl.ping(); err != nil {
		return nil, fmt.Errorf("%w: %s names control channel %s, which does not answer: %v", ErrNotRunning, path, e.Control, err)
	}
	return &e, nil
}

// Cluster returns the cluster of that name ("source" or "target").
func (e *Env) Cluster(name string) (*Cluster, error) {
	switch name {
	case "source":
		return e.Source, nil
	case "target":
		return e.Target, nil
	}
	return nil, fmt.Errorf("no cluster %q: want source or target", name)
}

// Package testenv finds and drives rangecopy's real test environment: two HBase
// mini clusters, "source" and "target", each with its own ZooKeeper, HDFS (three
// DataNodes, replication 2), master and two region servers, run by the Java
// harness in this folder, each cluster in a JVM of its own (see ClusterSpec).
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
	"io"
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
	// Dir is the state directory: clusters.json, the JVMs' logs, data,
	// conf dirs.
	Dir string `json:"-"`
	// HBaseVersion and HadoopVersion are the versions the source runs
	// (each cluster says its own).
	HBaseVersion  string `json:"hbaseVersion"`
	HadoopVersion string `json:"hadoopVersion"`
	// Control and PID are the control channel's loopback address and the
	// process id of the harness JVM when one JVM runs both clusters; empty
	// when each runs its own (see Cluster.Control and Cluster.PID, and
	// PIDs).
	Control string   `json:"control,omitempty"`
	PID     int      `json:"pid,omitempty"`
	Source  *Cluster `json:"source"`
	Target  *Cluster `json:"target"`
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
	// Control is the loopback address of the control channel of the JVM
	// that runs this cluster, and PID that JVM's process id.
	Control string `json:"control,omitempty"`
	PID     int    `json:"pid,omitempty"`
	// HBaseVersion, HadoopVersion and JavaVersion are what that JVM runs.
	HBaseVersion  string `json:"hbaseVersion,omitempty"`
	HadoopVersion string `json:"hadoopVersion,omitempty"`
	JavaVersion   string `json:"javaVersion,omitempty"`
	// Log is that JVM's log file (the clusters' warnings and up, and the
	// harness's own lines).
	Log string `json:"log,omitempty"`

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
	if e.Source == nil || e.Target == nil {
		return nil, fmt.Errorf("parse %s: source or target missing", path)
	}
	e.Dir = dir
	// One control client a JVM; a clusters.json of the single-JVM layout
	// names one control channel at the top level only.
	ctls := map[string]*control{}
	for _, c := range []*Cluster{e.Source, e.Target} {
		if c.Control == "" {
			c.Control, c.PID = e.Control, e.PID
		}
		if c.Control == "" {
			return nil, fmt.Errorf("parse %s: control channel of %s missing", path, c.Name)
		}
		if ctls[c.Control] == nil {
			ctls[c.Control] = &control{addr: c.Control, http: &http.Client{Timeout: 15 * time.Minute}}
		}
		c.ctl = ctls[c.Control]
		if c.HBaseVersion == "" {
			c.HBaseVersion, c.HadoopVersion = e.HBaseVersion, e.HadoopVersion
		}
	}
	var msgs []string
	var culprit *Cluster
	for _, c := range []*Cluster{e.Source, e.Target} {
		err := c.ctl.ping(c.Name)
		if err == nil {
			continue
		}
		msg := fmt.Sprintf("%s names control channel %s of cluster %s, which does not answer: %v", path, c.Control, c.Name, err)
		if c.PID > 0 && !alive(c.PID) {
			msg += fmt.Sprintf("; its JVM (pid %d) is gone", c.PID)
		}
		msgs = append(msgs, msg)
		// The JVM that ended first says why in its log; one that stopped
		// because the other ended says only that.
		if culprit == nil && !strings.Contains(logTail(c.Log, 400), peerEnded) {
			culprit = c
		}
	}
	if len(msgs) == 0 {
		return &e, nil
	}
	msg := strings.Join(msgs, "; ")
	if culprit != nil {
		if t := logTail(culprit.Log, 20); t != "" {
			msg += "; end of " + culprit.Log + ":\n" + t
		}
	}
	return nil, fmt.Errorf("%w: %s", ErrNotRunning, msg)
}

// peerEnded is what a harness JVM logs when it stops because another JVM of
// its environment ended (Control.java's watch).
const peerEnded = "(another cluster of this environment) has ended"

// logTail returns the last n lines of a log file, or "" when it cannot be
// read.
func logTail(path string, n int) string {
	if path == "" {
		return ""
	}
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	// The last 64 KiB hold the last lines; a log may be large.
	if st, err := f.Stat(); err == nil && st.Size() > 64<<10 {
		if _, err := f.Seek(-64<<10, io.SeekEnd); err != nil {
			return ""
		}
	}
	b, err := io.ReadAll(f)
	if err != nil || len(b) == 0 {
		return ""
	}
	return tail(string(b), n)
}

// OneJVM reports whether one JVM runs both clusters (the single-JVM
// layout), so that a JVM's CPU time or memory is both clusters'.
func (e *Env) OneJVM() bool {
	return e.Source.PID == e.Target.PID
}

// PIDs lists the process ids of the harness's JVMs: the source's, then the
// target's unless both run in one.
func (e *Env) PIDs() []int {
	if e.OneJVM() {
		return []int{e.Source.PID}
	}
	return []int{e.Source.PID, e.Target.PID}
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

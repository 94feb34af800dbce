package testenv

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
)

// ClusterSpec says what one cluster of the harness is and how the JVM that
// runs it starts. Start runs one JVM per spec (or all in one, see
// StartOptions.OneJVM); the JVM reads the spec from <name>-spec.json.
type ClusterSpec struct {
	// Name is "source" or "target": the cluster's name in clusters.json,
	// its data and configuration folders and its log.
	Name string `json:"name"`
	// Classpath is a file holding the JVM's classpath on one line, as
	// Maven's dependency:build-classpath writes it; empty means the
	// harness's own target/classpath.txt. A cluster of another HBase
	// release names the classpath of that release here.
	Classpath string `json:"classpath,omitempty"`
	// JavaHome is the JDK the JVM runs on; empty means java on PATH.
	JavaHome string `json:"javaHome,omitempty"`
	// Heap is the JVM's -Xmx; empty means StartOptions.Heap.
	Heap string `json:"heap,omitempty"`
	// Secure asks for a Kerberized cluster, which the harness does not
	// build yet: it refuses the spec.
	Secure bool `json:"secure,omitempty"`
	// Site holds configuration properties set over the harness's defaults
	// (hbase-site and hdfs-site alike: one Configuration holds both).
	Site map[string]string `json:"site,omitempty"`
}

// DefaultSpecs are the two clusters every test expects: source and target,
// on the harness's own classpath.
func DefaultSpecs() []ClusterSpec {
	return []ClusterSpec{{Name: "source"}, {Name: "target"}}
}

var specName = regexp.MustCompile(`^[a-z][a-z0-9-]*$`)

// checkSpecs checks that specs name source and target once each, with names
// fit for file names, and that specs sharing a JVM (oneJVM) agree on what
// chooses the JVM: classpath, Java home and heap.
func checkSpecs(specs []ClusterSpec, oneJVM bool) error {
	seen := map[string]bool{}
	for _, s := range specs {
		if !specName.MatchString(s.Name) {
			return fmt.Errorf("cluster spec name %q: want lower-case letters, digits and dashes", s.Name)
		}
		if seen[s.Name] {
			return fmt.Errorf("two cluster specs named %q", s.Name)
		}
		seen[s.Name] = true
		if oneJVM && (s.Classpath != specs[0].Classpath || s.JavaHome != specs[0].JavaHome || s.Heap != specs[0].Heap) {
			return fmt.Errorf("clusters %s and %s cannot share one JVM: their classpath, Java home or heap differ", specs[0].Name, s.Name)
		}
	}
	if !seen["source"] || !seen["target"] {
		return fmt.Errorf("cluster specs must name a source and a target")
	}
	return nil
}

// jvm is one harness JVM to start: the clusters it runs and its files in the
// state directory.
type jvm struct {
	// name is the cluster's name, or the names joined by "+" when several
	// clusters share the JVM.
	name  string
	specs []ClusterSpec
}

// jvmGroups assigns specs to JVMs: one each, or all in one.
func jvmGroups(specs []ClusterSpec, oneJVM bool) []jvm {
	if oneJVM {
		names := make([]string, len(specs))
		for i, s := range specs {
			names[i] = s.Name
		}
		return []jvm{{name: strings.Join(names, "+"), specs: specs}}
	}
	out := make([]jvm, len(specs))
	for i, s := range specs {
		out[i] = jvm{name: s.Name, specs: []ClusterSpec{s}}
	}
	return out
}

// The files of a JVM in the state directory.
func (j jvm) logPath(dir string) string   { return filepath.Join(dir, "harness-"+j.name+".log") }
func (j jvm) outPath(dir string) string   { return filepath.Join(dir, "harness-"+j.name+".out") }
func (j jvm) pidPath(dir string) string   { return filepath.Join(dir, "harness-"+j.name+".pid") }
func (j jvm) readyPath(dir string) string { return filepath.Join(dir, "ready-"+j.name+".json") }

// specPath is where the JVM reads a cluster's spec.
func specPath(dir, name string) string { return filepath.Join(dir, name+"-spec.json") }

// jvmReady is the ready file a harness JVM writes once its clusters are up.
type jvmReady struct {
	HBaseVersion  string                     `json:"hbaseVersion"`
	HadoopVersion string                     `json:"hadoopVersion"`
	JavaVersion   string                     `json:"javaVersion"`
	Control       string                     `json:"control"`
	PID           int                        `json:"pid"`
	Clusters      map[string]json.RawMessage `json:"clusters"`
}

// composeClusters builds clusters.json from the ready files of the JVMs (by
// JVM name, in the order of jvms): every cluster's description with its own
// JVM's control address, pid, versions and log added; at the top level the
// source's versions (both clusters' when they run one release).
func composeClusters(dir string, jvms []jvm, ready map[string]jvmReady) ([]byte, error) {
	out := map[string]any{}
	for _, j := range jvms {
		r, ok := ready[j.name]
		if !ok {
			return nil, fmt.Errorf("no ready file of JVM %s", j.name)
		}
		for _, s := range j.specs {
			raw, ok := r.Clusters[s.Name]
			if !ok {
				return nil, fmt.Errorf("JVM %s is ready but does not describe cluster %s", j.name, s.Name)
			}
			var c map[string]any
			if err := json.Unmarshal(raw, &c); err != nil {
				return nil, fmt.Errorf("JVM %s: cluster %s: %w", j.name, s.Name, err)
			}
			c["control"] = r.Control
			c["pid"] = r.PID
			c["hbaseVersion"] = r.HBaseVersion
			c["hadoopVersion"] = r.HadoopVersion
			c["javaVersion"] = r.JavaVersion
			c["log"] = j.logPath(dir)
			out[s.Name] = c
			if s.Name == "source" {
				out["hbaseVersion"] = r.HBaseVersion
				out["hadoopVersion"] = r.HadoopVersion
			}
		}
	}
	if len(jvms) == 1 {
		// One JVM: the single-JVM layout's top-level control and pid too.
		r := ready[jvms[0].name]
		out["control"], out["pid"] = r.Control, r.PID
	}
	return json.MarshalIndent(out, "", "  ")
}

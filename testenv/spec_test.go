package testenv

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

func TestCheckSpecs(t *testing.T) {
	ok := DefaultSpecs()
	if err := checkSpecs(ok, false); err != nil {
		t.Fatalf("checkSpecs(default) = %v", err)
	}
	if err := checkSpecs(ok, true); err != nil {
		t.Fatalf("checkSpecs(default, one JVM) = %v", err)
	}
	for _, tc := range []struct {
		name   string
		specs  []ClusterSpec
		oneJVM bool
		want   string
	}{
		{"no target", []ClusterSpec{{Name: "source"}}, false, "a source and a target"},
		{"twice", []ClusterSpec{{Name: "source"}, {Name: "source"}, {Name: "target"}}, false, `two cluster specs named "source"`},
		{"bad name", []ClusterSpec{{Name: "Source/x"}, {Name: "target"}}, false, "lower-case"},
		{"classpaths differ in one JVM", []ClusterSpec{{Name: "source", Classpath: "/a"}, {Name: "target"}}, true, "cannot share one JVM"},
		{"Java differs in one JVM", []ClusterSpec{{Name: "source"}, {Name: "target", JavaHome: "/jdk"}}, true, "cannot share one JVM"},
	} {
		err := checkSpecs(tc.specs, tc.oneJVM)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: checkSpecs = %v, want an error containing %q", tc.name, err, tc.want)
		}
	}
	// Different classpaths and Javas are what separate JVMs are for.
	if err := checkSpecs([]ClusterSpec{{Name: "source", Classpath: "/a", JavaHome: "/jdk8"}, {Name: "target"}}, false); err != nil {
		t.Errorf("checkSpecs(different classpaths, one JVM each) = %v", err)
	}
}

func TestJVMGroups(t *testing.T) {
	specs := DefaultSpecs()
	two := jvmGroups(specs, false)
	if len(two) != 2 || two[0].name != "source" || two[1].name != "target" || len(two[0].specs) != 1 {
		t.Fatalf("jvmGroups(one JVM each) = %+v", two)
	}
	if got := two[1].logPath("/s"); got != "/s/harness-target.log" {
		t.Errorf("target log = %s, want /s/harness-target.log", got)
	}
	one := jvmGroups(specs, true)
	if len(one) != 1 || one[0].name != "source+target" || len(one[0].specs) != 2 {
		t.Fatalf("jvmGroups(one JVM) = %+v", one)
	}
}

func TestComposeClusters(t *testing.T) {
	desc := func(name string) map[string]json.RawMessage {
		return map[string]json.RawMessage{name: json.RawMessage(`{"name":"` + name + `","zkQuorum":"127.0.0.1:1","clusterKey":"k"}`)}
	}
	dir := "/state"
	jvms := jvmGroups(DefaultSpecs(), false)
	ready := map[string]jvmReady{
		"source": {HBaseVersion: "2.4.18", HadoopVersion: "3.1.4", JavaVersion: "11", Control: "127.0.0.1:10", PID: 100, Clusters: desc("source")},
		"target": {HBaseVersion: "2.6.1-hadoop3", HadoopVersion: "3.3.5", JavaVersion: "17", Control: "127.0.0.1:20", PID: 200, Clusters: desc("target")},
	}
	b, err := composeClusters(dir, jvms, ready)
	if err != nil {
		t.Fatal(err)
	}
	var e Env
	if err := json.Unmarshal(b, &e); err != nil {
		t.Fatal(err)
	}
	if e.Control != "" || e.PID != 0 {
		t.Errorf("top-level control %q, pid %d: want none with a JVM a cluster", e.Control, e.PID)
	}
	if e.HBaseVersion != "2.4.18" || e.HadoopVersion != "3.1.4" {
		t.Errorf("top-level versions %s, %s: want the source's", e.HBaseVersion, e.HadoopVersion)
	}
	s, tg := e.Source, e.Target
	if s.Control != "127.0.0.1:10" || s.PID != 100 || s.HBaseVersion != "2.4.18" || s.JavaVersion != "11" ||
		s.Log != filepath.Join(dir, "harness-source.log") || s.ZKQuorum != "127.0.0.1:1" {
		t.Errorf("source = %+v", s)
	}
	if tg.Control != "127.0.0.1:20" || tg.PID != 200 || tg.HBaseVersion != "2.6.1-hadoop3" || tg.Log != filepath.Join(dir, "harness-target.log") {
		t.Errorf("target = %+v", tg)
	}
	if got := (&e).PIDs(); len(got) != 2 || got[0] != 100 || got[1] != 200 {
		t.Errorf("PIDs = %v, want [100 200]", got)
	}

	// Both clusters in one JVM: the top-level control and pid of that layout too.
	one := jvmGroups(DefaultSpecs(), true)
	both := map[string]json.RawMessage{"source": desc("source")["source"], "target": desc("target")["target"]}
	b, err = composeClusters(dir, one, map[string]jvmReady{"source+target": {Control: "127.0.0.1:30", PID: 300, Clusters: both}})
	if err != nil {
		t.Fatal(err)
	}
	e = Env{}
	if err := json.Unmarshal(b, &e); err != nil {
		t.Fatal(err)
	}
	if e.Control != "127.0.0.1:30" || e.PID != 300 || e.Source.PID != 300 || e.Target.Control != "127.0.0.1:30" {
		t.Errorf("one JVM: %+v, source %+v, target %+v", e, e.Source, e.Target)
	}
	if got := (&e).PIDs(); len(got) != 1 || got[0] != 300 {
		t.Errorf("one JVM: PIDs = %v, want [300]", got)
	}

	// A JVM that is ready without describing its cluster is an error.
	delete(ready["target"].Clusters, "target")
	if _, err := composeClusters(dir, jvms, ready); err == nil || !strings.Contains(err.Error(), "does not describe cluster target") {
		t.Errorf("composeClusters(target undescribed) = %v", err)
	}
}

package cluster

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestParseClusterKey(t *testing.T) {
	tests := []struct {
		key    string
		quorum string
		parent string
		err    string
	}{
		{key: "zk1,zk2,zk3:2181:/hbase", quorum: "zk1:2181,zk2:2181,zk3:2181", parent: "/hbase"},
		{key: "127.0.0.1:53240:/hbase", quorum: "127.0.0.1:53240", parent: "/hbase"},
		{key: "zk1:2182:/hbase-secure", quorum: "zk1:2182", parent: "/hbase-secure"},
		{key: "zk1:2181,zk2:2182/hb/x", quorum: "zk1:2181,zk2:2182", parent: "/hb/x"},
		{key: "zk1,zk2", quorum: "zk1:2181,zk2:2181", parent: "/hbase"},
		{key: "zk1:3000", quorum: "zk1:3000", parent: "/hbase"},
		{key: "zk1:99999:/hbase", err: `bad client port "99999"`},
		{key: "zk1:x:/hbase", err: `bad client port "x"`},
		{key: "zk1,,zk2", err: "empty host"},
		{key: "zk1:2181:/hbase/", err: `bad znode parent "/hbase/"`},
		{key: ":/hbase", err: "want hosts:port:/parent"},
		{key: "zk1 zk2", err: `bad ZooKeeper host "zk1 zk2"`},
	}
	for _, tt := range tests {
		c, err := ParseClusterKey("source", tt.key)
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) || !strings.Contains(err.Error(), "source cluster key") {
				t.Errorf("ParseClusterKey(%q) error = %v, want it to name the source key and contain %q", tt.key, err, tt.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("ParseClusterKey(%q): %v", tt.key, err)
			continue
		}
		if got := strings.Join(c.ZKQuorum, ","); got != tt.quorum || c.ZNodeParent != tt.parent {
			t.Errorf("ParseClusterKey(%q) = %s %s, want %s %s", tt.key, got, c.ZNodeParent, tt.quorum, tt.parent)
		}
		if c.HasHDFS() {
			t.Errorf("ParseClusterKey(%q) claims to know the HDFS", tt.key)
		}
	}
}

func writeSite(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, props := range files {
		body := "<?xml version=\"1.0\"?>\n<configuration>\n" + props + "</configuration>\n"
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func prop(name, value string) string {
	return "  <property><name>" + name + "</name><value>" + value + "</value></property>\n"
}

func TestLoad(t *testing.T) {
	ha := writeSite(t, map[string]string{
		"core-site.xml": prop("fs.defaultFS", "hdfs://prod"),
		"hdfs-site.xml": prop("dfs.ha.namenodes.prod", "nn1, nn2") +
			prop("dfs.namenode.rpc-address.prod.nn1", "nn-a.example:8020") +
			prop("dfs.namenode.rpc-address.prod.nn2", "nn-b.example:8020") +
			prop("dfs.namenode.rpc-address.other.nn1", "elsewhere:8020"),
		"hbase-site.xml": prop("hbase.zookeeper.quorum", "zk1,zk2:2182") +
			prop("hbase.zookeeper.property.clientPort", "2281") +
			prop("zookeeper.znode.parent", "/hbase-prod") +
			prop("hbase.rootdir", "${fs.defaultFS}/apps/hbase/data") +
			prop("hbase.io.compress.zstd.codec", " org.apache.hadoop.hbase.io.compress.zstd.ZstdCodec "),
	})
	c, err := Load("source", ha)
	if err != nil {
		t.Fatal(err)
	}
	if c.ZstdCodec != "org.apache.hadoop.hbase.io.compress.zstd.ZstdCodec" {
		t.Errorf("HA config: ZSTD codec %q", c.ZstdCodec)
	}
	want := "source cluster (zookeeper zk1:2281,zk2:2182/hbase-prod, hdfs nn-a.example:8020,nn-b.example:8020/apps/hbase/data)"
	if c.String() != want {
		t.Errorf("HA config: %s\nwant %s", c, want)
	}

	plain := writeSite(t, map[string]string{
		"core-site.xml":  prop("fs.defaultFS", "hdfs://nn.example"),
		"hbase-site.xml": prop("hbase.zookeeper.quorum", "zk") + prop("hbase.rootdir", "/hbase"),
	})
	c, err = Load("target", plain)
	if err != nil {
		t.Fatal(err)
	}
	want = "target cluster (zookeeper zk:2181/hbase, hdfs nn.example:8020/hbase)"
	if c.String() != want {
		t.Errorf("plain config: %s\nwant %s", c, want)
	}
	if c.ZstdCodec != "" {
		t.Errorf("plain config: ZSTD codec %q, want HBase's default (empty)", c.ZstdCodec)
	}
	if p, err := Parse("target", plain); err != nil || p.String() != want {
		t.Errorf("Parse(folder) = %s, %v", p, err)
	}
}

func TestLoadRefusesIncompleteConfig(t *testing.T) {
	tests := []struct {
		name  string
		files map[string]string
		want  string
	}{
		{"empty folder", nil, "holds none of core-site.xml, hdfs-site.xml, hbase-site.xml"},
		{"no quorum", map[string]string{"hbase-site.xml": prop("hbase.rootdir", "hdfs://nn/hbase")}, "sets no hbase.zookeeper.quorum"},
		{"no rootdir", map[string]string{"hbase-site.xml": prop("hbase.zookeeper.quorum", "zk")}, "sets no hbase.rootdir"},
		{"local rootdir", map[string]string{"hbase-site.xml": prop("hbase.zookeeper.quorum", "zk") + prop("hbase.rootdir", "file:///tmp/hbase")}, "want an hdfs:// URI"},
		{"ha without addresses", map[string]string{
			"hdfs-site.xml":  prop("dfs.ha.namenodes.ns", "a"),
			"hbase-site.xml": prop("hbase.zookeeper.quorum", "zk") + prop("hbase.rootdir", "hdfs://ns/hbase"),
		}, "dfs.namenode.rpc-address.ns.a is not set"},
		{"bad port", map[string]string{"hbase-site.xml": prop("hbase.zookeeper.quorum", "zk") + prop("hbase.zookeeper.property.clientPort", "http") + prop("hbase.rootdir", "hdfs://nn/hbase")}, "bad hbase.zookeeper.property.clientPort"},
		{"broken xml", map[string]string{"hbase-site.xml": "<property><name>x</name>"}, "hbase-site.xml"},
	}
	for _, tt := range tests {
		dir := writeSite(t, tt.files)
		_, err := Load("source", dir)
		if err == nil || !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), "source cluster") {
			t.Errorf("%s: Load error %v, want it to name the source cluster and contain %q", tt.name, err, tt.want)
		}
	}
	if _, err := Parse("target", "/no/such/folder"); err == nil || !strings.Contains(err.Error(), "not a folder of site files") {
		t.Errorf("Parse(missing folder) = %v", err)
	}
	if _, err := Parse("target", ""); err == nil || !strings.Contains(err.Error(), "target cluster: not given") {
		t.Errorf("Parse(empty) = %v", err)
	}
}

func TestSiteExpansionStopsCycles(t *testing.T) {
	s := Site{"a": "${b}/x", "b": "${a}", "c": "${missing}/y", "d": "${c}"}
	if got := s.Get("c"); got != "${missing}/y" {
		t.Errorf("Get(c) = %q", got)
	}
	if got := s.Get("d"); got != "${missing}/y" {
		t.Errorf("Get(d) = %q", got)
	}
	if got := s.Get("a"); !strings.HasSuffix(got, "/x") {
		t.Errorf("Get(a) with a cycle = %q", got)
	}
}

func FuzzParseClusterKey(f *testing.F) {
	for _, s := range []string{"zk1,zk2:2181:/hbase", "a:1/b", "x", ":", ":/", "a:2181:/", "[::1]:2181:/hbase"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		c, err := ParseClusterKey("f", s)
		if err != nil {
			return
		}
		if len(c.ZKQuorum) == 0 || !strings.HasPrefix(c.ZNodeParent, "/") {
			t.Fatalf("ParseClusterKey(%q) = %+v: accepted without a quorum or parent", s, c)
		}
	})
}

func TestParseSite(t *testing.T) {
	site, err := ParseSite(map[string]string{
		"hbase-site.xml": `<configuration>
<property><name>hbase.zookeeper.quorum</name><value>zk1,zk2</value></property>
<property><name>hbase.rootdir</name><value>hdfs://nn1:8020/hbase</value></property>
</configuration>`,
	})
	if err != nil {
		t.Fatal(err)
	}
	c, err := FromSite("dc1", "the registered site files", site)
	if err != nil {
		t.Fatal(err)
	}
	if len(c.ZKQuorum) != 2 || c.ZKQuorum[0] != "zk1:2181" || c.RootDir != "/hbase" || c.NameNodes[0] != "nn1:8020" {
		t.Errorf("config = %+v", c)
	}
	for _, bad := range []map[string]string{
		{},
		{"yarn-site.xml": "<configuration/>"},
		{"hbase-site.xml": "<configuration><property>"},
	} {
		if _, err := ParseSite(bad); err == nil {
			t.Errorf("ParseSite(%v): no error", bad)
		}
	}
	if _, err := FromSite("dc1", "x", Site{"hbase.rootdir": "hdfs://nn/hbase"}); err == nil {
		t.Error("FromSite without a quorum: no error")
	}
}

package cluster

import (
	"errors"
	"strings"
	"testing"
)

// TestCheckNotSelf decides when a copy would write into its own source: the same table
// (namespace spelt or not) on one cluster, known by id, ZooKeeper or HDFS; never a different
// table, never a different cluster.
func TestCheckNotSelf(t *testing.T) {
	dc1 := Config{Name: "dc1", ZKQuorum: []string{"zk1:2181", "zk2:2181"}, ZNodeParent: "/hbase",
		NameNodes: []string{"nn1:8020"}, RootDir: "/hbase"}
	dc2 := Config{Name: "dc2", ZKQuorum: []string{"zk9:2181"}, ZNodeParent: "/hbase",
		NameNodes: []string{"nn9:8020"}, RootDir: "/hbase"}
	with := func(c Config, f func(*Config)) Config { f(&c); return c }
	// dc1 under another name and other spellings of every address.
	alias := with(dc1, func(c *Config) {
		c.Name, c.ZKQuorum, c.NameNodes = "dc1-again", []string{"zk1.example:2181"}, []string{"nn1.example:8020"}
	})
	for _, c := range []struct {
		name             string
		src, tgt         Identity
		srcTable, tgtTbl string
		same, byID       bool
	}{
		{"same name, same table", Identity{Config: dc1}, Identity{Config: dc1}, "t", "t", true, false},
		{"default namespace spelt", Identity{Config: dc1}, Identity{Config: dc1}, "t", "default:t", true, false},
		{"another table", Identity{Config: dc1}, Identity{Config: dc1}, "t", "t_copy", false, false},
		{"another namespace", Identity{Config: dc1}, Identity{Config: dc1}, "ns:t", "ns2:t", false, false},
		{"another cluster", Identity{Config: dc1}, Identity{Config: dc2}, "t", "t", false, false},
		{"other clusters with ids", Identity{ID: "a", Config: dc1}, Identity{ID: "b", Config: dc2}, "t", "t", false, false},
		{"one ZooKeeper in common", Identity{Config: dc1},
			Identity{Config: with(dc2, func(c *Config) { c.ZKQuorum = []string{"ZK2"} })}, "t", "t", true, false},
		{"same ZooKeeper, other parent", Identity{Config: dc1},
			Identity{Config: with(dc1, func(c *Config) { c.ZNodeParent = "/hbase2"; c.NameNodes = nil })}, "t", "t", false, false},
		{"parent spelt with a slash", Identity{Config: dc1},
			Identity{Config: with(dc1, func(c *Config) { c.ZNodeParent = "/hbase/" })}, "t", "t", true, false},
		{"same HDFS root, other ZooKeeper", Identity{Config: dc1},
			Identity{Config: with(dc2, func(c *Config) { c.NameNodes = []string{"nn1"}; c.RootDir = "/hbase/" })}, "t", "t", true, false},
		{"same NameNode, other root", Identity{Config: dc1},
			Identity{Config: with(dc2, func(c *Config) { c.NameNodes = []string{"nn1:8020"}; c.RootDir = "/hbase-b" })}, "t", "t", false, false},
		{"two names, other addresses, one id", Identity{ID: "x", Config: dc1}, Identity{ID: "x", Config: alias}, "t", "t", true, true},
		{"two names, other addresses, no id", Identity{Config: dc1}, Identity{Config: alias}, "t", "t", false, false},
	} {
		err := CheckNotSelf(c.src, c.tgt, c.src.Config.Name, c.tgt.Config.Name, c.srcTable, c.tgtTbl)
		var se *SameTableError
		if got := errors.As(err, &se); got != c.same {
			t.Errorf("%s: CheckNotSelf = %v; want refused %v", c.name, err, c.same)
			continue
		}
		if se == nil {
			continue
		}
		if se.ByID != c.byID || !strings.Contains(err.Error(), c.srcTable) || !strings.Contains(err.Error(), "never writes into its source") {
			t.Errorf("%s: %v (by id %v); want the table named, by id %v", c.name, err, se.ByID, c.byID)
		}
		if c.byID && !strings.Contains(err.Error(), "dc1 and dc1-again are one: the same HBase cluster id") {
			t.Errorf("%s: %v; want both names and the id named", c.name, err)
		}
	}
}

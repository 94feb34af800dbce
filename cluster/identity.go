package cluster

import (
	"fmt"
	"path"
	"slices"
	"strings"
)

// Identity is what tells one HBase cluster from another, whatever name it was registered or
// given under: the cluster id HBase keeps in ZooKeeper (<parent>/hbaseid), when it was read,
// and where the cluster lives (its ZooKeeper quorum and parent, its HDFS root).
type Identity struct {
	// ID is HBase's cluster id; empty when it was not read.
	ID string
	// Config is how the cluster is reached.
	Config Config
}

// SameCluster reports whether a and b are one cluster: the same HBase cluster id, or a
// ZooKeeper server in common under the same parent, or a NameNode in common with the same
// HBase root directory. It errs towards "the same": a copy that could write into its own
// source must never run. It is pure.
func SameCluster(a, b Identity) bool {
	if a.ID != "" && a.ID == b.ID {
		return true
	}
	ca, cb := a.Config, b.Config
	if parentOf(ca) == parentOf(cb) && shareAddr(ca.ZKQuorum, cb.ZKQuorum, DefaultZKPort) {
		return true
	}
	if ca.RootDir != "" && path.Clean(ca.RootDir) == path.Clean(cb.RootDir) &&
		shareAddr(ca.NameNodes, cb.NameNodes, DefaultNameNodePort) {
		return true
	}
	return false
}

// SameTableError says that a copy would write into the very table it reads: the target
// table is the source table on the same cluster.
type SameTableError struct {
	// Table is the table, as the source names it.
	Table string
	// Source and Target are the clusters as the request names them.
	Source, Target string
	// ByID is set when the clusters were found one by HBase's cluster id (their names and
	// addresses differ).
	ByID bool
}

// Error implements error.
func (e *SameTableError) Error() string {
	where := "the same cluster"
	if e.Source != e.Target {
		where = fmt.Sprintf("the same cluster (%s and %s are one", e.Source, e.Target)
		if e.ByID {
			where += ": the same HBase cluster id"
		}
		where += ")"
	}
	return fmt.Sprintf("the target table is the source table %s on %s: a copy never writes into its source "+
		"(name another target table, or another target cluster)", e.Table, where)
}

// CheckNotSelf refuses a copy of source table srcTable on src into tgtTable on tgt when the
// two tables are one: the same table name (default namespace or not) on the same cluster
// (SameCluster). A different table on the same cluster is allowed. srcName and tgtName are
// the clusters' names for the message. It is pure.
func CheckNotSelf(src, tgt Identity, srcName, tgtName, srcTable, tgtTable string) error {
	if QualifiedTable(srcTable) != QualifiedTable(tgtTable) || !SameCluster(src, tgt) {
		return nil
	}
	byID := src.ID != "" && src.ID == tgt.ID && !SameCluster(Identity{Config: src.Config}, Identity{Config: tgt.Config})
	return &SameTableError{Table: srcTable, Source: srcName, Target: tgtName, ByID: byID}
}

// QualifiedTable is a table's name with its namespace: "t" is "default:t".
func QualifiedTable(name string) string {
	if strings.Contains(name, ":") {
		return name
	}
	return "default:" + name
}

// parentOf is a config's znode parent, the default when empty, without a trailing slash.
func parentOf(c Config) string {
	p := c.ZNodeParent
	if p == "" {
		p = DefaultZNodeParent
	}
	return path.Clean("/" + p)
}

// shareAddr reports whether two lists of host[:port] addresses name a server in common
// (hosts compared without case, a missing port taken as def).
func shareAddr(a, b []string, def int) bool {
	norm := func(s string) string {
		s = strings.ToLower(strings.TrimSpace(s))
		if !strings.Contains(s, ":") || strings.HasSuffix(s, "]") {
			s = fmt.Sprintf("%s:%d", s, def)
		}
		return s
	}
	seen := make([]string, 0, len(a))
	for _, x := range a {
		seen = append(seen, norm(x))
	}
	for _, y := range b {
		if slices.Contains(seen, norm(y)) {
			return true
		}
	}
	return false
}

package jobs

import (
	"context"
	"errors"
	"strings"
	"testing"

	"rangecopy/cluster"
	"rangecopy/job"
)

// namedClusters resolves cluster names from a map, as the catalog would.
type namedClusters map[string]cluster.Config

func (n namedClusters) Cluster(_ context.Context, name string) (cluster.Config, string, error) {
	c, ok := n[name]
	if !ok {
		return cluster.Config{}, "", errors.New("not in the test's map")
	}
	return c, "", nil
}

// TestSubmitRefusesCopyOntoItself refuses, before reaching any cluster, the registry or the
// catalog (the service has none), a copy whose target table is its source table on one
// cluster by address, under one name or two; the error is a 400's, naming the target.
func TestSubmitRefusesCopyOntoItself(t *testing.T) {
	dc1 := cluster.Config{Name: "dc1", ZKQuorum: []string{"zk1:2181"}, ZNodeParent: "/hbase", NameNodes: []string{"nn1:8020"}, RootDir: "/hbase"}
	again := dc1
	again.Name, again.ZKQuorum = "dc1-again", []string{"ZK1"}
	s := New(Config{Clusters: namedClusters{"dc1": dc1, "dc1-again": again}})
	for _, c := range []struct{ source, target, table, targetTable string }{
		{"dc1", "dc1", "t", ""},
		{"dc1", "dc1", "t", "default:t"},
		{"dc1", "dc1-again", "ns:t", ""},
	} {
		req, err := NewRequest(c.source, c.target, job.Request{Table: c.table, TargetTable: c.targetTable})
		if err != nil {
			t.Fatal(err)
		}
		_, err = s.Submit(t.Context(), req)
		var inv *InvalidError
		var self *cluster.SameTableError
		if !errors.As(err, &inv) || !errors.As(err, &self) || len(inv.Fields) != 1 || inv.Fields[0].Field != "target" ||
			!strings.Contains(inv.Fields[0].Message, "never writes into its source") {
			t.Errorf("%+v: Submit = %v; want an *InvalidError naming target", c, err)
		}
	}
}

// TestSetBandwidthRefusesPastTheLimit refuses a rate past 1TB/s (and a negative one) before
// reaching the registry (the service has none), naming the bandwidth field and the limit.
func TestSetBandwidthRefusesPastTheLimit(t *testing.T) {
	s := New(Config{})
	for _, bps := range []float64{1e21, 1e12 + 1, -1} {
		err := s.SetBandwidth(t.Context(), "copy-t-0123456789abcdef", bps, "test")
		var inv *InvalidError
		if !errors.As(err, &inv) || len(inv.Fields) != 1 || inv.Fields[0].Field != "bandwidth" || !strings.Contains(err.Error(), "1TB/s") {
			t.Errorf("SetBandwidth(%g) = %v; want an *InvalidError naming bandwidth and 1TB/s", bps, err)
		}
	}
}

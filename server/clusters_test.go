package server

import (
	"net/http"
	"strings"
	"testing"

	"rangecopy/api"
	"rangecopy/testenv"
)

// TestRegisterClusterRefusals: a cluster is refused, naming the field, when its quorum or
// HDFS root cannot be read or its hosts have no address; nothing is registered.
func TestRegisterClusterRefusals(t *testing.T) {
	env := testenv.Get(t)
	r := newRig(t, env, 0)
	for _, c := range []struct {
		body  map[string]any
		field string
	}{
		{map[string]any{"name": "a", "zkQuorum": "zk-of-nowhere.invalid:2181", "hdfsRoot": "hdfs://127.0.0.1:8020/hbase"}, "zkQuorum"},
		{map[string]any{"name": "a", "zkQuorum": "127.0.0.1:2181", "hdfsRoot": "hdfs://nn-of-nowhere.invalid:8020/hbase"}, "hdfsRoot"},
		{map[string]any{"name": "a", "zkQuorum": "127.0.0.1:2181"}, "hdfsRoot"},
		{map[string]any{"name": "a", "hdfsRoot": "hdfs://127.0.0.1:8020/hbase"}, "zkQuorum"},
		{map[string]any{"name": "a", "zkQuorum": "127.0.0.1:2181/hbase", "hdfsRoot": "hdfs://127.0.0.1:8020/hbase"}, "zkQuorum"},
		{map[string]any{"name": "a", "siteFiles": map[string]string{"yarn-site.xml": "<configuration/>"}}, "siteFiles"},
		{map[string]any{"name": "bad name", "zkQuorum": "127.0.0.1:2181", "hdfsRoot": "hdfs://127.0.0.1:8020/hbase"}, "name"},
	} {
		a := r.do(r.admin, http.MethodPost, api.APIPrefix+"/clusters", c.body)
		if a.status != http.StatusBadRequest || !strings.Contains(string(a.body), c.field) {
			t.Errorf("register %v: %d %s; want 400 naming %s", c.body, a.status, a.body, c.field)
		}
	}
	if cs, err := r.s.Catalog().ListClusters(t.Context()); err != nil || len(cs) != 0 {
		t.Errorf("refused registrations left clusters: %v, %v", cs, err)
	}
	// A good one, then the same name again: 409.
	good := map[string]any{"name": "dc1", "zkQuorum": "127.0.0.1:2181", "hdfsRoot": "hdfs://localhost:8020/hbase"}
	// Nothing answers at 127.0.0.1:2181: registered unchecked (TestRegisterClusterQuorumAnswers).
	if a := r.do(r.admin, http.MethodPost, api.APIPrefix+"/clusters?unchecked=true", good); a.status != http.StatusCreated {
		t.Fatalf("register: %d %s", a.status, a.body)
	}
	if a := r.do(r.admin, http.MethodPost, api.APIPrefix+"/clusters?unchecked=true", good); a.status != http.StatusConflict {
		t.Errorf("register the same name again: %d %s; want 409", a.status, a.body)
	}
}

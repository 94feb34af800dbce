package server

import (
	"net"
	"net/http"
	"strings"
	"testing"

	"rangecopy/api"
	"rangecopy/testenv"
)

// TestRegisterClusterQuorumAnswers: POST and PUT /clusters try the cluster's ZooKeeper (for a
// few seconds) and refuse with a 400 naming the quorum when nobody answers there (a closed
// loopback port), unless ?unchecked=true; a quorum that answers (the test environment's)
// registers as before.
func TestRegisterClusterQuorumAnswers(t *testing.T) {
	env := testenv.Get(t)
	r := newRig(t, env, 0)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	dead := l.Addr().String()
	l.Close()

	body := map[string]any{"name": "dead", "zkQuorum": dead, "hdfsRoot": "hdfs://127.0.0.1:8020/hbase"}
	a := r.do(r.admin, http.MethodPost, api.APIPrefix+"/clusters", body)
	if a.status != http.StatusBadRequest || !strings.Contains(string(a.body), "zkQuorum") ||
		!strings.Contains(string(a.body), "ZooKeeper "+dead+" does not answer") || !strings.Contains(string(a.body), "unchecked=true") {
		t.Errorf("register a quorum nobody answers at: %d %s; want 400 naming it", a.status, a.body)
	}
	if _, err := r.s.Catalog().GetCluster(t.Context(), "dead"); err == nil {
		t.Error("the refused cluster was registered")
	}
	if a := r.do(r.admin, http.MethodPost, api.APIPrefix+"/clusters?unchecked=true", body); a.status != http.StatusCreated {
		t.Fatalf("register it with ?unchecked=true: %d %s", a.status, a.body)
	}
	put := map[string]any{"zkQuorum": dead, "hdfsRoot": "hdfs://127.0.0.1:8021/hbase"}
	if a := r.do(r.admin, http.MethodPut, api.APIPrefix+"/clusters/dead", put); a.status != http.StatusBadRequest || !strings.Contains(string(a.body), dead) {
		t.Errorf("change it, still unanswered: %d %s; want 400", a.status, a.body)
	}
	if a := r.do(r.admin, http.MethodPut, api.APIPrefix+"/clusters/dead?unchecked=true", put); a.status != http.StatusOK {
		t.Errorf("change it with ?unchecked=true: %d %s", a.status, a.body)
	}
	live := map[string]any{"name": "live", "zkQuorum": env.Source.ZKQuorum, "hdfsRoot": env.Source.HBaseRootDir}
	if a := r.do(r.admin, http.MethodPost, api.APIPrefix+"/clusters", live); a.status != http.StatusCreated {
		t.Errorf("register the test environment's source by quorum: %d %s", a.status, a.body)
	}
}

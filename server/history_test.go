package server

import (
	"fmt"
	"net/http"
	"testing"
	"time"

	"rangecopy/api"
	"rangecopy/catalog"
	"rangecopy/job"
	"rangecopy/testenv"
)

// TestServerPrunesHistory runs a server that keeps audit entries a day and ended jobs two:
// its leader deletes the older audit entries on its own, and a pass as of three days on
// deletes the ended jobs with their history, and keeps the one still running.
func TestServerPrunesHistory(t *testing.T) {
	env := testenv.Get(t)
	r := newRigWith(t, env, 0, t.TempDir(), "/"+testenv.UniqueName(t, "srv"), "", func(c *Config) {
		c.Limits.AuditRetention = 24 * time.Hour
		c.Limits.JobRetention = 48 * time.Hour
		c.Limits.PruneEvery = 500 * time.Millisecond
		c.Limits.PruneBatch = 2
	})
	ctx := t.Context()
	cat := r.s.Catalog()
	now := time.Now()
	for i := range 5 {
		if _, err := cat.AppendAudit(ctx, catalog.AuditEntry{Time: now.Add(-25 * time.Hour), Method: "POST", Path: fmt.Sprintf("/old/%d", i), Status: 200}); err != nil {
			t.Fatal(err)
		}
	}
	for i := range 3 {
		if _, err := cat.AppendAudit(ctx, catalog.AuditEntry{Time: now.Add(-time.Hour), Method: "POST", Path: fmt.Sprintf("/new/%d", i), Status: 200}); err != nil {
			t.Fatal(err)
		}
	}
	waitFor(t, time.Minute, "the old audit entries pruned", func() bool {
		p, err := cat.ListAudit(ctx, "", "", catalog.MaxPageSize)
		if err != nil {
			t.Fatal(err)
		}
		old, young := 0, 0
		for _, e := range p.Entries {
			switch e.Path[:5] {
			case "/old/":
				old++
			case "/new/":
				young++
			}
		}
		if young != 3 {
			t.Fatalf("%d of the 3 young entries left", young)
		}
		return old == 0
	})

	// Three ended jobs (the catalog's own, as a reconcile records them) and the API's list.
	for i, st := range []job.State{job.StateDone, job.StateFailed, job.StateCancelled} {
		id := fmt.Sprintf("copy-pruned-%d", i)
		if _, _, err := cat.CreateJob(ctx, catalog.Job{ID: id, Spec: `{}`, Table: "t", TargetTable: "t", SourceCluster: "a", TargetCluster: "b"}); err != nil {
			t.Fatal(err)
		}
		if _, err := cat.UpdateJob(ctx, id, catalog.JobUpdate{State: catalog.StateOf(st), Message: "ended"}); err != nil {
			t.Fatal(err)
		}
	}
	var list api.JobList
	a := r.do(r.viewer, http.MethodGet, api.APIPrefix+"/jobs", nil)
	a.decode(t, &list)
	if len(list.Jobs) != 3 || list.Jobs[0].ID != "copy-pruned-2" {
		t.Fatalf("jobs newest first: %+v", list.Jobs)
	}
	if _, jobs := r.s.pruneOnce(ctx, now.Add(72*time.Hour)); jobs != 3 {
		t.Errorf("a pass three days on pruned %d jobs, want 3", jobs)
	}
	a = r.do(r.viewer, http.MethodGet, api.APIPrefix+"/jobs", nil)
	a.decode(t, &list)
	if len(list.Jobs) != 0 {
		t.Errorf("jobs left: %+v", list.Jobs)
	}
	if a := r.do(r.viewer, http.MethodGet, api.APIPrefix+"/jobs/copy-pruned-0", nil); a.status != http.StatusNotFound {
		t.Errorf("a pruned job: %d", a.status)
	}
}

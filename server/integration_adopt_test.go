package server

import (
	"net/http"
	"testing"
	"time"

	"rangecopy/api"
	"rangecopy/cluster"
	"rangecopy/job"
	"rangecopy/master"
	"rangecopy/testenv"
	"rangecopy/testenv/copytest"
)

// TestSubmitAfterAdoption: a job registered without the server (copy --detach) is adopted
// by the leader's reconcile; submitting the same copy over the API then answers that job
// (200) and gives its catalog row the submitter, the clusters and the Idempotency-Key. This
// is also what happens when the reconcile runs between a submission's registry record and
// its catalog row.
func TestSubmitAfterAdoption(t *testing.T) {
	env := testenv.Get(t)
	r := newRig(t, env, 0)
	r.registerClusters(env)
	table := copytest.CreateSource(t, env, "adopt")
	copytest.WriteRounds(t, env.Source, table, copytest.BinaryRows(20), 1, time.Now().UnixMilli()-10_000, false)
	copytest.DropTargetLater(t, env, table)
	src, err := cluster.Load("source", env.Source.ConfDir)
	if err != nil {
		t.Fatal(err)
	}
	tgt, err := cluster.Load("target", env.Target.ConfDir)
	if err != nil {
		t.Fatal(err)
	}
	id, _, err := master.Submit(t.Context(), master.Options{Source: src, Target: tgt, Spec: job.Spec{Table: table}, RunOptions: job.RunOptions{Settings: job.Settings{CreateTable: true}, User: env.Target.User}, ZK: r.s.cfg.ZK, ZKRoot: r.s.cfg.ZKRoot})
	if err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(time.Minute)
	for {
		row, err := r.s.Catalog().GetJob(t.Context(), id)
		if err == nil && row.SubmittedBy == adoptedBy {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the registry's job was not adopted: %+v, %v", row, err)
		}
		time.Sleep(100 * time.Millisecond)
	}
	a := r.do(r.oper, http.MethodPost, api.APIPrefix+"/jobs", map[string]any{"source": "src", "target": "dst", "table": table, "createTable": true},
		"Idempotency-Key", "adopt-"+table)
	var v api.JobOut
	a.decode(t, &v)
	if a.status != http.StatusOK || v.ID != id || v.SubmittedBy != "test operator" || v.Request == nil || v.Source != "src" {
		t.Fatalf("submit the adopted copy: %d %+v; want 200 with job %s as submitted", a.status, v, id)
	}
	row, err := r.s.Catalog().JobByIdempotencyKey(t.Context(), "adopt-"+table)
	if err != nil || row.ID != id || row.TargetCluster != "dst" {
		t.Fatalf("the key after submitting an adopted job: %+v, %v", row, err)
	}
	// The job still runs to its end under the server's master (it has no workers: cancel it).
	if a := r.do(r.oper, http.MethodPost, api.APIPrefix+"/jobs/"+id+"/cancel", nil); a.status != http.StatusOK {
		t.Fatalf("cancel: %d %s", a.status, a.body)
	}
	r.waitJob(id, 2*time.Minute, "cancelled", func(v api.JobOut) bool { return v.State == api.JobCancelled })
}

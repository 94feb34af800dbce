package server

import (
	"errors"
	"net/http"
	"testing"
	"time"

	"rangecopy/api"
	"rangecopy/registry"
	"rangecopy/testenv"
	"rangecopy/testenv/copytest"
)

// TestServerDropsEndedJobsFromRegistry: once the catalog holds a job's end and report, the
// leading server drops the job from the registry after the retention (a second here), and
// the API goes on showing it, done with its figures, never lost.
func TestServerDropsEndedJobsFromRegistry(t *testing.T) {
	env := testenv.Get(t)
	r := newRigWith(t, env, 2, t.TempDir(), "/"+testenv.UniqueName(t, "srv"), "", func(c *Config) { c.Retention = time.Second })
	r.registerClusters(env)
	table := copytest.CreateSource(t, env, "srvret")
	copytest.WriteRounds(t, env.Source, table, copytest.BinaryRows(50), 1, time.Now().UnixMilli()-100_000, true)
	copytest.DropTargetLater(t, env, table)
	a := r.do(r.oper, http.MethodPost, api.APIPrefix+"/jobs", map[string]any{"source": "src", "target": "dst", "table": table, "createTable": true})
	if a.status != http.StatusCreated {
		t.Fatalf("submit: %d %s", a.status, a.body)
	}
	var j api.JobOut
	a.decode(t, &j)
	done := r.waitJob(j.ID, 2*time.Minute, "done", func(v api.JobOut) bool { return v.State == "done" })
	if done.Progress.FilesLoaded == 0 {
		t.Fatalf("done job loaded no files: %+v", done.Progress)
	}
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(200 * time.Millisecond) {
		_, err := r.s.reg.Job(t.Context(), j.ID)
		if errors.Is(err, registry.ErrNotFound) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if time.Now().After(deadline) {
			t.Fatalf("job %s is still in the registry a minute after it ended", j.ID)
		}
	}
	// The next reconcile pass (every 500 ms) would mark a job the registry no longer has
	// lost. Watch the job through six passes: it stays done, with its figures.
	for passes := time.Now().Add(6 * 500 * time.Millisecond); ; time.Sleep(100 * time.Millisecond) {
		v := r.waitJob(j.ID, time.Second, "done", func(v api.JobOut) bool { return true })
		if v.State != "done" || v.Progress.FilesLoaded != done.Progress.FilesLoaded || v.Progress.BytesDone != done.Progress.BytesDone {
			t.Fatalf("after the registry dropped it the job reads %s (%s) with %+v; it was done with %+v", v.State, v.Message, v.Progress, done.Progress)
		}
		if time.Now().After(passes) {
			break
		}
	}
}

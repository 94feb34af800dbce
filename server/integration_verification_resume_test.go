package server

import (
	"net/http"
	"testing"
	"time"

	"rangecopy/api"
	"rangecopy/job"
	"rangecopy/registry"
	"rangecopy/testenv"
	"rangecopy/testenv/copytest"
)

// A verification whose server stops part way resumes when that server starts again: the
// same registry job, the same snapshots, and it passes.
func TestServerVerificationResumesAfterRestart(t *testing.T) {
	env := testenv.Get(t)
	dir, root := t.TempDir(), "/"+testenv.UniqueName(t, "srv")
	id := "srv-" + testenv.UniqueName(t, "vres")
	r := newRigAs(t, env, 1, dir, root, id)
	r.registerClusters(env)
	table := copytest.CreateSource(t, env, "srvvres")
	copytest.WriteRounds(t, env.Source, table, copytest.BinaryRows(400), 2, time.Now().UnixMilli()-100_000, true)
	copytest.DropTargetLater(t, env, table)
	a := r.do(r.oper, http.MethodPost, api.APIPrefix+"/jobs", map[string]any{"source": "src", "target": "dst", "table": table, "createTable": true})
	if a.status != http.StatusCreated {
		t.Fatalf("submit: %d %s", a.status, a.body)
	}
	var j api.JobOut
	a.decode(t, &j)
	r.waitJob(j.ID, 3*time.Minute, "done", func(v api.JobOut) bool { return v.State == "done" })

	// Slow enough to stop part way: a few KiB of HFiles a second, both sides together;
	// every batch read (the copy's files are the source's, which checksums would prove).
	v := r.createVerification(map[string]any{"source": "src", "target": "dst", "table": table, "mode": "raw", "bandwidth": "24KiB/s", "readAll": true})
	job, snapshot, done := waitVerifyUnits(t, r, 1, 3*time.Minute)
	r.stop()
	t.Logf("stopped with %d of the units of job %s done", done, job)

	r2 := newRigAs(t, env, 1, dir, root, id)
	out := r2.waitVerification(v.ID, 4*time.Minute)
	if out.State != "passed" || out.Report == nil {
		t.Fatalf("the resumed verification: %+v", out)
	}
	rep := out.Report
	if rep.Job != job || rep.SourceSnapshot != snapshot || rep.UnitsResumed < done || rep.Units == 0 || rep.BatchesMismatched != 0 || rep.SourceCells == 0 {
		t.Fatalf("resumed report %+v; want job %s, snapshot %s, at least %d units resumed", rep, job, snapshot, done)
	}
	t.Logf("resumed: %d units, %d resumed, %d hashed after the restart, %d cells a side", rep.Units, rep.UnitsResumed, rep.UnitsHashed, rep.SourceCells)
}

// waitVerifyUnits waits until the server's one verification job has at least n units done
// and returns its id, its source snapshot and how many are done.
func waitVerifyUnits(t *testing.T, r *rig, n int, d time.Duration) (string, string, int) {
	t.Helper()
	ctx := t.Context()
	for deadline := time.Now().Add(d); ; time.Sleep(200 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("no verification job with %d units done within %s", n, d)
		}
		ids, err := r.s.reg.Jobs(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for _, id := range ids {
			j, err := r.s.reg.Job(ctx, id)
			if err != nil {
				continue
			}
			rec, err := job.DecodeRecord(j.Spec)
			if err != nil || rec.Kind != job.KindVerify {
				continue
			}
			done, err := r.s.reg.TasksWith(ctx, id, registry.StatusDone)
			if err != nil {
				t.Fatal(err)
			}
			if len(done) >= n {
				return id, rec.Snapshot, len(done)
			}
		}
	}
}

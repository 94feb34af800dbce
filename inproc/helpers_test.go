package inproc

import (
	"log/slog"
	"strings"
	"testing"

	"rangecopy/cluster"
	"rangecopy/job"
	"rangecopy/master"
	"rangecopy/registry"
	"rangecopy/testenv"
	"rangecopy/testenv/copytest"
)

// testOptions returns options for a copy between the test clusters, with a
// registry root and work folder of the test's own.
func testOptions(t *testing.T, env *testenv.Env, spec job.Spec) Options {
	t.Helper()
	src, err := cluster.Load("source", env.Source.ConfDir)
	if err != nil {
		t.Fatal(err)
	}
	tgt, err := cluster.Load("target", env.Target.ConfDir)
	if err != nil {
		t.Fatal(err)
	}
	u := testenv.UniqueName(t, "m")
	return Options{Options: master.Options{Source: src, Target: tgt, Spec: spec, Workers: 2, ZKRoot: "/rangecopy-test/" + u, RunOptions: job.RunOptions{WorkRoot: "/tmp/rangecopy-test/" + u, User: env.Target.User}, Logger: slog.New(slog.NewTextHandler(testWriter{T: t}, &slog.HandlerOptions{Level: slog.LevelWarn}))}}
}

// Shared helpers (copytest), under the names the tests use.
var (
	openRegistry     = copytest.OpenRegistry
	dialCluster      = copytest.DialCluster
	binaryRows       = copytest.BinaryRows
	sampleSplits     = copytest.SampleSplits
	sampleFamilies   = copytest.SampleFamilies
	writeRounds      = copytest.WriteRounds
	createSource     = copytest.CreateSource
	createSourceWith = copytest.CreateSourceWith
	dropTargetLater  = copytest.DropTargetLater
	assertSame       = copytest.AssertSame
	hasSnapshot      = copytest.HasSnapshot
)

type testWriter = copytest.Writer

// assertFinished checks a done job left no snapshot and no work folder.
func assertFinished(t *testing.T, env *testenv.Env, o Options, rep job.Report) {
	t.Helper()
	if rep.Status != job.ReportDone || rep.TasksDone != rep.Tasks || rep.TasksFailed != 0 {
		t.Fatalf("report: %+v", rep)
	}
	snaps, err := dialCluster(t, env.Source).ListSnapshots(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range snaps {
		if strings.HasPrefix(s.Name, master.SnapshotName(rep.Job)+"-") {
			t.Errorf("snapshot %s of the done job is still there", s.Name)
		}
	}
	reg := openRegistry(t, env, o.ZKRoot)
	j, err := reg.Job(t.Context(), rep.Job)
	if err != nil || j.State != registry.JobDone {
		t.Errorf("job %s in the registry: %+v, %v", rep.Job, j, err)
	}
}

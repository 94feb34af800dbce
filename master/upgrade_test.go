package master

import (
	"testing"
	"time"

	"rangecopy/job"
	"rangecopy/registry"
	"rangecopy/testenv"
	"rangecopy/testenv/copytest"
)

// fixtureSetup loads the fixtures' jobs under a registry root and work root
// of the test's own.
func fixtureSetup(t *testing.T, env *testenv.Env) (copytest.Setup, Options) {
	o := testOptions(t, env, job.Spec{})
	return copytest.Setup{Source: o.Source, Target: o.Target, ZKRoot: o.ZKRoot, WorkRoot: o.WorkRoot,
		JobID: func(table string) string { return JobID(o.Source, o.Target, job.Spec{Table: table}) }}, o
}

// TestUpgradeResumesDetachedJob loads a detached job part way as release
// 02d71e2 left it (testdata/v2-detached) and lets this release's master and
// worker finish it: the target equals the source, the snapshot is released,
// the report (stored by that release in its first format) counts the time
// run before the upgrade, and the plan's totals are summed from the tasks.
func TestUpgradeResumesDetachedJob(t *testing.T) {
	env := testenv.Get(t)
	s, o := fixtureSetup(t, env)
	u := copytest.LoadFixture(t, env, "testdata/v2-detached", s)
	if len(u.OldReport) == 0 {
		t.Fatal("the fixture has no report node")
	}
	old, err := job.DecodeReport(u.OldReport)
	if err != nil || old.Version != 0 || old.ElapsedMs <= 0 {
		t.Fatalf("the fixture's report: %+v, %v", old, err)
	}
	f := newFleet(t, env, o.ZKRoot)
	f.master("m1")
	f.worker("w1", 2)
	waitState(t, u.Reg, u.ID, 3*time.Minute, registry.JobDone)
	assertSame(t, env, u.Table, u.Table, nil, nil)
	if hasSnapshot(t, env, SnapshotName(u.ID)+"-") {
		t.Error("the job's snapshot is still there")
	}
	rep, ok, err := LoadReport(t.Context(), u.Reg, u.ID)
	if err != nil || !ok {
		t.Fatalf("report: %v, %v", ok, err)
	}
	t.Logf("report: %+v", rep)
	if files := copytest.LoadedFiles(t, u); rep.Version != job.ReportVersion || rep.Status != job.ReportDone ||
		rep.Tasks != int64(u.Meta.Tasks) || rep.TasksDone != rep.Tasks || rep.FilesLoaded != files {
		t.Errorf("report %+v; want version %d, done, %d tasks, %d files (as the checkpoints count)", rep, job.ReportVersion, u.Meta.Tasks, files)
	}
	if rep.ElapsedMs < old.ElapsedMs {
		t.Errorf("report's %d ms do not count the %d ms run before the upgrade", rep.ElapsedMs, old.ElapsedMs)
	}
	if rep.InputBytes != u.Meta.Bytes || rep.Table != u.Table || rep.StopRow != "" || rep.MaxTimeMs <= 0 {
		t.Errorf("report %+v; want the fixture's %d input bytes and the job's table and ranges", rep, u.Meta.Bytes)
	}
	b, err := u.Reg.JobData(t.Context(), u.ID, registry.NodePlan)
	if err != nil {
		t.Fatal(err)
	}
	tot, err := job.DecodePlanTotals(b)
	if err != nil || !tot.FromTaskSpecs || tot.Tasks != u.Meta.Tasks || tot.InputBytes != u.Meta.Bytes {
		t.Errorf("plan totals %+v, %v; want %d tasks and %d bytes, summed from the task specs", tot, err, u.Meta.Tasks, u.Meta.Bytes)
	}
}

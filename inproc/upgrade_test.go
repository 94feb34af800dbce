package inproc

import (
	"testing"

	"rangecopy/job"
	"rangecopy/master"
	"rangecopy/registry"
	"rangecopy/testenv"
	"rangecopy/testenv/copytest"
)

// TestUpgradeResumesCopyJob loads a rangecopy copy job interrupted part way
// by release 02d71e2 (master/testdata/v2-copy: its plan's totals in the job's
// message only) and runs the same copy again with this release: it resumes
// the job, loads only what was not loaded, sums the plan's totals from the
// task specs and stores them, and reports them.
func TestUpgradeResumesCopyJob(t *testing.T) {
	env := testenv.Get(t)
	o := testOptions(t, env, job.Spec{})
	u := copytest.LoadFixture(t, env, "../master/testdata/v2-copy", copytest.Setup{Source: o.Source, Target: o.Target,
		ZKRoot: o.ZKRoot, WorkRoot: o.WorkRoot,
		JobID: func(table string) string { return master.JobID(o.Source, o.Target, job.Spec{Table: table}) }})
	o.Spec = job.Spec{Table: u.Table}
	rep, err := Copy(t.Context(), o)
	if err != nil {
		t.Fatalf("copy: %v (%+v)", err, rep)
	}
	t.Logf("report: %+v", rep)
	files := copytest.LoadedFiles(t, u)
	if rep.Job != u.ID || rep.Tasks != int64(u.Meta.Tasks) || rep.InputBytes != u.Meta.Bytes || rep.FilesLoaded != files-u.Preloaded {
		t.Errorf("report %+v; want job %s, %d tasks, %d input bytes, %d files loaded (%d less the %d before)", rep, u.ID,
			u.Meta.Tasks, u.Meta.Bytes, files-u.Preloaded, files, u.Preloaded)
	}
	b, err := u.Reg.JobData(t.Context(), u.ID, registry.NodePlan)
	if err != nil {
		t.Fatal(err)
	}
	if tot, err := job.DecodePlanTotals(b); err != nil || !tot.FromTaskSpecs || tot.Tasks != u.Meta.Tasks || tot.InputBytes != u.Meta.Bytes {
		t.Errorf("plan totals %+v, %v; want %d tasks and %d bytes, summed from the task specs", tot, err, u.Meta.Tasks, u.Meta.Bytes)
	}
	assertSame(t, env, u.Table, u.Table, nil, nil)
	assertFinished(t, env, o, rep)
}

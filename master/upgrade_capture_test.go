package master

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"rangecopy/checkpoint"
	"rangecopy/job"
	"rangecopy/registry"
	"rangecopy/testenv"
)

// TestCaptureUpgradeFixtures writes the upgrade fixtures of this release
// into $RANGECOPY_CAPTURE_FIXTURES (testdata/v2-detached, testdata/v2-copy):
// a detached job part way (a task done, one checkpointed part way, the
// leader's report stored) and a rangecopy copy job interrupted part way. It
// runs only when that variable is set: it generates data, it checks nothing.
func TestCaptureUpgradeFixtures(t *testing.T) {
	out := os.Getenv("RANGECOPY_CAPTURE_FIXTURES")
	if out == "" {
		t.Skip("set RANGECOPY_CAPTURE_FIXTURES to a folder to write the upgrade fixtures")
	}
	env := testenv.Get(t)
	t.Run("detached", func(t *testing.T) { captureDetached(t, env, filepath.Join(out, "v2-detached")) })
	t.Run("copy", func(t *testing.T) { captureCopy(t, env, filepath.Join(out, "v2-copy")) })
}

// partWay reports whether a job has a task done and another checkpointed
// but not done.
func partWay(t *testing.T, reg *registry.Registry, id string) (bool, error) {
	ctx := t.Context()
	done, err := reg.TasksWith(ctx, id, registry.StatusDone)
	if err != nil || len(done) == 0 {
		return false, err
	}
	cps, err := reg.CheckpointedTasks(ctx, id)
	if err != nil {
		return false, err
	}
	for _, task := range cps {
		b, err := reg.TaskCheckpoint(ctx, id, task)
		if err != nil {
			continue
		}
		cp, err := checkpoint.Decode(task, b)
		if err == nil && !cp.Done([]string{"cf1", "cf2"}) {
			return true, nil
		}
	}
	return false, nil
}

func fixtureSource(t *testing.T, env *testenv.Env, prefix string) (string, Options) {
	table := createSource(t, env, prefix)
	writeRounds(t, env.Source, table, binaryRows(fixtureRows), fixtureRounds, fixtureTS0, true)
	dropTargetLater(t, env, table)
	o := testOptions(t, env, job.Spec{Table: table})
	o.CreateTable = true
	o.Workers = 1
	o.Bandwidth = 2048
	return table, o
}

func fixtureMetaOf(t *testing.T, env *testenv.Env, reg *registry.Registry, table, id string, o Options) fixtureMeta {
	ctx := t.Context()
	m := fixtureMeta{Release: "02d71e2", JobID: id, Table: table, Regions: sourceRegions(t, env, table), WorkRoot: o.WorkRoot,
		SourceRootDir: o.Source.RootDir, TargetRootDir: o.Target.RootDir, SourceZK: o.Source.ZKQuorum[0], TargetZK: o.Target.ZKQuorum[0],
		SourceNameNode: o.Source.NameNodes[0], TargetNameNode: o.Target.NameNodes[0]}
	ids, err := reg.Tasks(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	m.Tasks = len(ids)
	for _, task := range ids {
		b, err := reg.TaskSpec(ctx, id, task)
		if err != nil {
			t.Fatal(err)
		}
		ts, err := job.DecodeTaskSpec(b)
		if err != nil {
			t.Fatal(err)
		}
		m.Bytes += ts.Task.Bytes
	}
	return m
}

func captureDetached(t *testing.T, env *testenv.Env, dir string) {
	table, o := fixtureSource(t, env, "v2det")
	reg := openRegistry(t, env, o.ZKRoot)
	id, _, err := Submit(t.Context(), o)
	if err != nil {
		t.Fatal(err)
	}
	f := newFleet(t, env, o.ZKRoot)
	stopMaster := f.master("m1")
	stopWorker := f.worker("w1", 1)
	waitFor(t, 3*time.Minute, "part way", func() (bool, error) {
		ok, err := partWay(t, reg, id)
		if !ok || err != nil {
			return false, err
		}
		b, err := reg.JobData(t.Context(), id, registry.NodeReport)
		return len(b) > 0, err
	})
	stopWorker()
	waitFor(t, time.Minute, "claims released", func() (bool, error) {
		c, err := reg.Count(t.Context(), id)
		return err == nil && c.Claimed == 0, err
	})
	stopMaster()
	f.wg.Wait()
	writeMeta(t, dir, fixtureMetaOf(t, env, reg, table, id, o))
	dumpJob(t, []string{env.Target.ZKQuorum}, o.ZKRoot, id, dir)
}

func captureCopy(t *testing.T, env *testenv.Env, dir string) {
	table, o := fixtureSource(t, env, "v2copy")
	reg := openRegistry(t, env, o.ZKRoot)
	id := JobID(o.Source, o.Target, o.Spec)
	ctx, cancel := context.WithCancel(t.Context())
	errc := make(chan error, 1)
	go func() {
		_, err := Copy(ctx, o)
		errc <- err
	}()
	waitFor(t, 3*time.Minute, "part way", func() (bool, error) { return partWay(t, reg, id) })
	cancel()
	if err := <-errc; err == nil {
		t.Fatal("the interrupted copy finished")
	}
	writeMeta(t, dir, fixtureMetaOf(t, env, reg, table, id, o))
	dumpJob(t, []string{env.Target.ZKQuorum}, o.ZKRoot, id, dir)
}

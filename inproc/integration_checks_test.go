package inproc

import (
	"errors"
	"strings"
	"testing"
	"time"

	"rangecopy/hbase"
	"rangecopy/job"
	"rangecopy/master"
	"rangecopy/memory"
	"rangecopy/registry"
	"rangecopy/testenv"
)

// TestCopyMemoryTooSmallMakesNothing copies with a memory budget that cannot hold one task:
// the copy is refused with memory.ErrTooSmall before anything is made (no registry job, no
// snapshot, no target table), the message naming what a task needs.
func TestCopyMemoryTooSmallMakesNothing(t *testing.T) {
	env := testenv.Get(t)
	table := createSource(t, env, "memsmall")
	writeRounds(t, env.Source, table, binaryRows(50), 1, time.Now().UnixMilli()-100_000, false)
	dropTargetLater(t, env, table)
	o := testOptions(t, env, job.Spec{Table: table})
	o.CreateTable = true
	o.Workers = 4
	o.Budget = memory.New(8 << 20)
	rep, err := Copy(t.Context(), o)
	if !errors.Is(err, memory.ErrTooSmall) || !strings.Contains(err.Error(), "nothing was made") {
		t.Fatalf("copy in 8 MiB: %v (report %+v); want memory.ErrTooSmall saying nothing was made", err, rep)
	}
	t.Logf("refused: %v", err)
	if _, err := dialCluster(t, env.Target).TableDescriptor(t.Context(), table); !errors.Is(err, hbase.ErrTableNotFound) {
		t.Errorf("the target table after a refused copy: %v; want it not created", err)
	}
	id := master.JobID(o.Source, o.Target, o.Spec)
	if hasSnapshot(t, env, master.SnapshotName(id)) {
		t.Errorf("a snapshot %s* was taken for a refused copy", master.SnapshotName(id))
	}
	reg := openRegistry(t, env, o.ZKRoot)
	if _, err := reg.Job(t.Context(), id); !errors.Is(err, registry.ErrNotFound) {
		t.Errorf("job %s in the registry after a refused copy: %v; want none", id, err)
	}
}

// TestCopyMemoryFewerTasks copies with four workers in a budget that gives each of four a
// share too small for a task (every task failed "memory budget too small" before): two run
// at once instead, the copy is done and equal to the source, and the budget's high-water
// mark stays within it.
func TestCopyMemoryFewerTasks(t *testing.T) {
	env := testenv.Get(t)
	table := createSource(t, env, "memfew")
	writeRounds(t, env.Source, table, binaryRows(300), 2, time.Now().UnixMilli()-100_000, true)
	dropTargetLater(t, env, table)
	o := testOptions(t, env, job.Spec{Table: table})
	o.CreateTable = true
	o.Workers = 4
	budget := memory.New(40 << 20)
	o.Budget = budget
	if _, err := memory.PlanTask(budget.Share(4), 1, 0, 0); !errors.Is(err, memory.ErrTooSmall) {
		t.Fatalf("a quarter of %s holds a task (%v): the test needs a budget that does not", memory.Bytes(budget.Limit()), err)
	}
	rep, err := Copy(t.Context(), o)
	if err != nil {
		t.Fatalf("copy: %v (report %+v)", err, rep)
	}
	assertFinished(t, env, o, rep)
	n := assertSame(t, env, table, table, nil, nil)
	t.Logf("copied %d cells in %d tasks; budget high water %s of %s", n, rep.Tasks, memory.Bytes(budget.HighWater()), memory.Bytes(budget.Limit()))
	if budget.HighWater() > budget.Limit() || budget.HighWater() == 0 {
		t.Errorf("budget high water %d of %d", budget.HighWater(), budget.Limit())
	}
}

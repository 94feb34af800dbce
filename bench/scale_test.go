package bench

import (
	"testing"
	"time"

	"rangecopy/job"
	"rangecopy/master"
)

// The synthetic table is what job.Make takes: regions that cover the key
// space, files of known regions; planned, each region is one task whose spec
// names all its files with their resolved paths.
func TestSyntheticTablePlans(t *testing.T) {
	const regions, files = 500, 10
	pd := SyntheticTable("t", "/hbase", regions, files)
	if len(pd.Regions) != regions || len(pd.Files) != regions*files || len(pd.Inputs) != regions*files {
		t.Fatalf("%d regions, %d files, %d inputs", len(pd.Regions), len(pd.Files), len(pd.Inputs))
	}
	t0 := time.Now()
	plan, err := job.Make(job.Spec{Table: "t"}, pd.Regions, pd.Files, job.PlanOptions{TaskBytes: job.DefaultTaskBytes})
	if err != nil {
		t.Fatal(err)
	}
	made := time.Since(t0)
	t0 = time.Now()
	tasks, err := master.TaskSpecs(pd, plan)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("job.Make %v, TaskSpecs %v for %d regions", made, time.Since(t0), regions)
	if len(tasks) != regions {
		t.Fatalf("%d tasks, want one per region (%d)", len(tasks), regions)
	}
	ts, err := job.DecodeTaskSpec(tasks[7].Spec)
	if err != nil {
		t.Fatal(err)
	}
	if len(ts.Inputs) != files || ts.Inputs[0].Path == "" {
		t.Fatalf("task %s: %d inputs (first path %q), want %d with paths", ts.Task.ID, len(ts.Inputs), ts.Inputs[0].Path, files)
	}
}

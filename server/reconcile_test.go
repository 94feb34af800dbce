package server

import (
	"slices"
	"testing"
	"time"

	"rangecopy/catalog"
	"rangecopy/job"
)

func TestPrunePlan(t *testing.T) {
	t0 := time.Date(2026, 12, 2, 10, 0, 0, 0, time.UTC)
	before := t0.Add(-time.Hour)
	old := func(id string, st catalog.JobState, age time.Duration) catalog.Job {
		return catalog.Job{ID: id, State: st, UpdatedAt: t0.Add(-age)}
	}
	rows := map[string]catalog.Job{
		"done-old":      old("done-old", catalog.StateOf(job.StateDone), 2*time.Hour),
		"done-older":    old("done-older", catalog.StateOf(job.StateDone), 3*time.Hour),
		"failed-old":    old("failed-old", catalog.StateOf(job.StateFailed), 2*time.Hour),
		"done-recent":   old("done-recent", catalog.StateOf(job.StateDone), time.Minute),
		"running-old":   old("running-old", catalog.StateOf(job.StateRunning), 5*time.Hour),
		"catalog-ahead": old("catalog-ahead", catalog.StateOf(job.StateDone), 2*time.Hour),
		"paused-old":    old("paused-old", catalog.StateOf(job.StatePaused), 5*time.Hour),
	}
	reg := map[string]regState{
		"done-old":       {state: catalog.StateOf(job.StateDone)},
		"done-older":     {state: catalog.StateOf(job.StateDone)},
		"failed-old":     {state: catalog.StateOf(job.StateFailed)},
		"done-recent":    {state: catalog.StateOf(job.StateDone)},
		"running-old":    {state: catalog.StateOf(job.StateRunning)},
		"catalog-ahead":  {state: catalog.StateOf(job.StateRunning)}, // the registry says running: not followed yet
		"paused-old":     {state: catalog.StateOf(job.StatePaused)},
		"not-in-catalog": {state: catalog.StateOf(job.StateDone)}, // to adopt first
	}
	if got, want := prunePlan(rows, reg, before, 10), []string{"done-older", "done-old", "failed-old"}; !slices.Equal(got, want) {
		t.Errorf("prunePlan = %v, want %v (ended in both, since before the retention, oldest first)", got, want)
	}
	if got := prunePlan(rows, reg, before, 2); !slices.Equal(got, []string{"done-older", "done-old"}) {
		t.Errorf("prunePlan with max 2 = %v", got)
	}
	if got := prunePlan(rows, reg, t0.Add(-24*time.Hour), 10); len(got) != 0 {
		t.Errorf("prunePlan with a day's retention = %v, want none", got)
	}
}

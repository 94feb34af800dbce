package master

import (
	"reflect"
	"strings"
	"testing"
	"time"

	"rangecopy/registry"
)

func TestNextStep(t *testing.T) {
	now := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	running := func(c registry.Counts, f ...Failure) View {
		return View{State: registry.JobRunning, Counts: c, Failures: f, RetryLimit: 2, Now: now}
	}
	old := now.Add(-time.Hour)
	for _, tc := range []struct {
		name string
		v    View
		want Decision
	}{
		{"pending plans", View{State: registry.JobPending}, Decision{Step: StepPlan}},
		{"planning (a master died planning) plans again", View{State: registry.JobPlanning}, Decision{Step: StepPlan}},
		{"paused waits", View{State: registry.JobPaused, Counts: registry.Counts{Tasks: 3, Done: 1}}, Decision{Step: StepWait}},
		{"done waits", View{State: registry.JobDone}, Decision{Step: StepWait}},
		{"running with work left waits", running(registry.Counts{Tasks: 3, Done: 1, Claimed: 1, Pending: 1}), Decision{Step: StepWait}},
		{"all done finishes", running(registry.Counts{Tasks: 3, Done: 3}), Decision{Step: StepFinish}},
		{"no tasks (empty range) finishes", running(registry.Counts{}), Decision{Step: StepFinish}},
		{"fresh failure waits its backoff",
			running(registry.Counts{Tasks: 2, Done: 1, Failed: 1}, Failure{Task: "t1", Seen: now.Add(-time.Second)}),
			Decision{Step: StepWait}},
		{"failure past its backoff is retried",
			running(registry.Counts{Tasks: 3, Done: 1, Failed: 2}, Failure{Task: "t2", Seen: old, Retries: 1}, Failure{Task: "t1", Seen: old}),
			Decision{Step: StepRetry, Retry: []string{"t1", "t2"}}},
		{"exhausted failure with work left waits",
			running(registry.Counts{Tasks: 3, Done: 1, Failed: 1, Claimed: 1}, Failure{Task: "t1", Seen: old, Retries: 2}),
			Decision{Step: StepWait}},
		{"exhausted beside a retryable one retries that one",
			running(registry.Counts{Tasks: 3, Done: 1, Failed: 2}, Failure{Task: "t1", Seen: old, Retries: 2}, Failure{Task: "t2", Seen: old}),
			Decision{Step: StepRetry, Retry: []string{"t2"}}},
		{"cancelling with tasks held waits",
			View{State: registry.JobCancelling, Counts: registry.Counts{Tasks: 3, Claimed: 2}},
			Decision{Step: StepWait, Message: "waiting for 2 tasks to stop"}},
		{"cancelling with none held cancels", View{State: registry.JobCancelling, Counts: registry.Counts{Tasks: 3, Done: 1}}, Decision{Step: StepCancel}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := NextStep(tc.v); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("NextStep = %+v, want %+v", got, tc.want)
			}
		})
	}
	// Every failure exhausted and nothing else to wait for: pause, saying why.
	d := NextStep(running(registry.Counts{Tasks: 3, Done: 2, Failed: 1}, Failure{Task: "t1", Seen: old, Retries: 2}))
	if d.Step != StepPause || !strings.Contains(d.Message, "1 of 3 tasks failed 3 times") || !strings.Contains(d.Message, "job resume") {
		t.Errorf("all retries used: %+v", d)
	}
}

func TestRetryBackoff(t *testing.T) {
	want := []time.Duration{5 * time.Second, 10 * time.Second, 20 * time.Second, 40 * time.Second, 80 * time.Second, 2 * time.Minute, 2 * time.Minute}
	for i, w := range want {
		if got := RetryBackoff().Delay(i); got != w {
			t.Errorf("RetryBackoff().Delay(%d) = %v, want %v", i, got, w)
		}
	}
}

// TestNextStepLocal: the one-process copy's policy, where it differs from the
// leader's.
func TestNextStepLocal(t *testing.T) {
	local := func(starting bool, st registry.JobState, c registry.Counts, f ...Failure) View {
		return View{Runner: RunnerInProc, Starting: starting, State: st, Counts: c, Failures: f}
	}
	for _, tc := range []struct {
		name string
		v    View
		want Decision
	}{
		{"pending plans", local(true, registry.JobPending, registry.Counts{}), Decision{Step: StepPlan}},
		{"planning (a run died planning) plans again", local(true, registry.JobPlanning, registry.Counts{}), Decision{Step: StepPlan}},
		{"paused is refused", local(true, registry.JobPaused, registry.Counts{Tasks: 2}),
			Decision{Step: StepRefuse, Message: "only a running job is served here"}},
		{"cancelling is refused", local(true, registry.JobCancelling, registry.Counts{Tasks: 2}),
			Decision{Step: StepRefuse, Message: "only a running job is served here"}},
		{"starting with work runs", local(true, registry.JobRunning, registry.Counts{Tasks: 3, Done: 1, Pending: 2}), Decision{Step: StepRun}},
		{"starting with every task done finishes", local(true, registry.JobRunning, registry.Counts{Tasks: 3, Done: 3}), Decision{Step: StepFinish}},
		{"starting with earlier failures resets them all, no backoff or limit",
			local(true, registry.JobRunning, registry.Counts{Tasks: 3, Done: 1, Failed: 2},
				Failure{Task: "t2", Retries: 9, Seen: time.Now()}, Failure{Task: "t1"}),
			Decision{Step: StepRetry, Retry: []string{"t1", "t2"}}},
		{"running with work left waits", local(false, registry.JobRunning, registry.Counts{Tasks: 3, Done: 1, Failed: 1, Claimed: 1}), Decision{Step: StepWait}},
		{"every task with a result, some failed, stops",
			local(false, registry.JobRunning, registry.Counts{Tasks: 3, Done: 1, Failed: 2}), Decision{Step: StepStop, Message: "2 of 3"}},
		{"all done finishes", local(false, registry.JobRunning, registry.Counts{Tasks: 3, Done: 3}), Decision{Step: StepFinish}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := NextStep(tc.v); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("NextStep = %+v, want %+v", got, tc.want)
			}
		})
	}
}

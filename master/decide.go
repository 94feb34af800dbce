package master

import (
	"fmt"
	"slices"
	"time"

	"rangecopy/registry"
	"rangecopy/retry"
)

// Step is what the process serving a job does next: the leading master, or
// the one-process copy (inproc.Copy) whose policy differs where the steps
// say so.
type Step uint8

const (
	// StepWait: nothing to do now.
	StepWait Step = iota
	// StepPlan: pin the source and register the tasks.
	StepPlan
	// StepRetry: reset the failed tasks named in Decision.Retry.
	StepRetry
	// StepPause: every failure has used its retries; pause the job for an
	// operator (resuming it gives the failed tasks a new round).
	StepPause
	// StepFinish: every task is done; clean up and mark the job done.
	StepFinish
	// StepCancel: no task is held any more; clean up and mark the job
	// cancelled.
	StepCancel
	// StepRun (one-process copy): start the workers.
	StepRun
	// StepStop (one-process copy): every task has a result and some failed;
	// end the run with the job resumable.
	StepStop
	// StepRefuse (one-process copy): the job is in a state this process
	// does not serve (paused, cancelling); Message says so.
	StepRefuse
)

func (s Step) String() string {
	return [...]string{"wait", "plan", "retry", "pause", "finish", "cancel", "run", "stop", "refuse"}[s]
}

// Runner is who takes the steps.
type Runner uint8

const (
	// RunnerLeader is the leading master serving detached jobs: failed
	// tasks are reset after a backoff up to the retry limit, then the job
	// is paused.
	RunnerLeader Runner = iota
	// RunnerInProc is a rangecopy copy process with its own workers: tasks
	// that failed in an earlier run are reset once as it starts; a task
	// that fails during the run ends the run once every task has a result.
	RunnerInProc
)

// Failure is a failed task as the master sees it.
type Failure struct {
	Task string
	// Retries is how often it was reset before.
	Retries int
	// Seen is when the master first saw this failure.
	Seen time.Time
}

// View is what the master knows of one job when it decides.
type View struct {
	// Runner is who decides; the zero value is the leading master.
	Runner Runner
	// Starting says the one-process copy has not started its workers yet.
	Starting bool
	State    registry.JobState
	Counts   registry.Counts
	// Failures are the failed tasks (Counts.Failed of them, or fewer if
	// listed earlier than counted).
	Failures []Failure
	// RetryLimit is how often a task may be reset.
	RetryLimit int
	Now        time.Time
}

// Decision is the step to take, with its details.
type Decision struct {
	Step Step
	// Retry lists the tasks to reset (StepRetry).
	Retry []string
	// Message explains the step (StepPause: why the job waits for an
	// operator).
	Message string
}

// RetryBackoff is how long a failed task waits before its next reset, by
// the number of earlier resets: 5 s doubling per earlier retry, at most 2
// minutes. It has no jitter, so NextStep stays pure.
func RetryBackoff() retry.Backoff {
	return retry.Backoff{Initial: 5 * time.Second, Max: 2 * time.Minute}
}

// NextStep chooses the next step for a job. It is pure: the caller gathers
// the View and carries the step out.
func NextStep(v View) Decision {
	if v.Runner == RunnerInProc {
		return nextStepInProc(v)
	}
	switch v.State {
	case registry.JobPending, registry.JobPlanning:
		return Decision{Step: StepPlan}
	case registry.JobCancelling:
		if v.Counts.Claimed == 0 {
			return Decision{Step: StepCancel}
		}
		return Decision{Step: StepWait, Message: fmt.Sprintf("waiting for %d tasks to stop", v.Counts.Claimed)}
	case registry.JobRunning:
	default:
		return Decision{Step: StepWait}
	}
	c := v.Counts
	if c.Done >= c.Tasks && c.Failed == 0 {
		return Decision{Step: StepFinish}
	}
	var reset []string
	exhausted := 0
	backoff := RetryBackoff()
	for _, f := range v.Failures {
		switch {
		case f.Retries >= v.RetryLimit:
			exhausted++
		case !v.Now.Before(f.Seen.Add(backoff.Delay(f.Retries))):
			reset = append(reset, f.Task)
		}
	}
	if len(reset) > 0 {
		slices.Sort(reset)
		return Decision{Step: StepRetry, Retry: reset}
	}
	// Pause only once nothing else can end: every other task is done.
	if exhausted > 0 && exhausted == c.Failed && c.Done+c.Failed >= c.Tasks {
		return Decision{Step: StepPause, Message: fmt.Sprintf(
			"paused: %d of %d tasks failed %d times; fix the cause and run rangecopy job resume to try them again",
			c.Failed, c.Tasks, v.RetryLimit+1)}
	}
	return Decision{Step: StepWait}
}

// nextStepInProc is NextStep for a rangecopy copy process.
func nextStepInProc(v View) Decision {
	switch v.State {
	case registry.JobPending, registry.JobPlanning:
		return Decision{Step: StepPlan}
	case registry.JobRunning:
	default:
		return Decision{Step: StepRefuse, Message: "only a running job is served here"}
	}
	c := v.Counts
	switch {
	case c.Done >= c.Tasks && c.Failed == 0:
		return Decision{Step: StepFinish}
	case v.Starting && len(v.Failures) > 0:
		reset := make([]string, 0, len(v.Failures))
		for _, f := range v.Failures {
			reset = append(reset, f.Task)
		}
		slices.Sort(reset)
		return Decision{Step: StepRetry, Retry: reset}
	case v.Starting:
		return Decision{Step: StepRun}
	case c.Failed > 0 && c.Done+c.Failed >= c.Tasks:
		return Decision{Step: StepStop, Message: fmt.Sprintf("%d of %d", c.Failed, c.Tasks)}
	}
	return Decision{Step: StepWait}
}

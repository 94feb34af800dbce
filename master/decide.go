package master

import (
	"fmt"
	"slices"
	"time"

	"rangecopy/registry"
	"rangecopy/retry"
)

// Step is what the leading master does next for one job.
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
)

func (s Step) String() string {
	return [...]string{"wait", "plan", "retry", "pause", "finish", "cancel"}[s]
}

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
	State  registry.JobState
	Counts registry.Counts
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
// minutes. It has no jitter, so Decide stays pure.
func RetryBackoff() retry.Backoff {
	return retry.Backoff{Initial: 5 * time.Second, Max: 2 * time.Minute}
}

// Decide chooses the next step for a job. It is pure: the caller gathers
// the View and carries the step out.
func Decide(v View) Decision {
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

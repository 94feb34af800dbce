package registry

import (
	"fmt"

	"rangecopy/job"
)

// JobState is where a job is in its life: job.State, the one job-state type
// the registry and the catalog share. The registry writes it as a byte.
type JobState = job.State

// The job states by the registry's names, for its callers' brevity.
const (
	JobPending    = job.StatePending
	JobPlanning   = job.StatePlanning
	JobRunning    = job.StateRunning
	JobPaused     = job.StatePaused
	JobCancelling = job.StateCancelling
	JobDone       = job.StateDone
	JobFailed     = job.StateFailed
	JobCancelled  = job.StateCancelled
)

// ParseJobState is the inverse of String.
func ParseJobState(name string) (JobState, error) { return job.ParseState(name) }

// ResumeState is the state a paused job resumes to: running when its tasks
// are registered, pending (to be planned again) when it was paused while
// planning, before any task was: running with no task would finish it at
// once with nothing copied.
func ResumeState(tasks int) JobState {
	if tasks == 0 {
		return JobPending
	}
	return JobRunning
}

// jobTransitions lists the states each state may move to.
var jobTransitions = map[JobState][]JobState{
	JobPending:    {JobPlanning, JobCancelling, JobCancelled, JobFailed},
	JobPlanning:   {JobRunning, JobPaused, JobCancelling, JobFailed},
	JobRunning:    {JobPaused, JobCancelling, JobDone, JobFailed},
	JobPaused:     {JobRunning, JobPending, JobCancelling, JobFailed},
	JobCancelling: {JobCancelled, JobFailed},
}

// Transition decides whether a job may move from one state to another. Moving
// to the state it is in is allowed (a retried write is harmless); an
// impossible move is an ErrTransition.
func Transition(from, to JobState) error {
	if !from.Valid() || !to.Valid() {
		return fmt.Errorf("%w: %v to %v: unknown state", ErrTransition, from, to)
	}
	if from == to {
		return nil
	}
	for _, s := range jobTransitions[from] {
		if s == to {
			return nil
		}
	}
	return fmt.Errorf("%w: %v to %v", ErrTransition, from, to)
}

// Status is where a task is, as the registry sees it.
type Status uint8

const (
	// StatusPending: registered, not claimed, no result.
	StatusPending Status = iota + 1
	// StatusClaimed: a live worker holds it.
	StatusClaimed
	// StatusDone: finished; it cannot be claimed again.
	StatusDone
	// StatusFailed: failed with an error; it is not claimed again unless the
	// master resets it.
	StatusFailed
)

func (s Status) String() string {
	switch s {
	case StatusPending:
		return "pending"
	case StatusClaimed:
		return "claimed"
	case StatusDone:
		return "done"
	case StatusFailed:
		return "failed"
	}
	return fmt.Sprintf("Status(%d)", uint8(s))
}

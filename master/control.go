package master

import (
	"context"
	"errors"
	"fmt"

	"rangecopy/registry"
)

// Action is what an operator asks of a job: ActionPause, ActionResume or ActionCancel.
type Action string

// The actions of Control.
const (
	// ActionPause stops handing out the job's tasks; running ones stop at their checkpoint.
	ActionPause Action = "pause"
	// ActionResume runs a paused job again, with a new round of retries.
	ActionResume Action = "resume"
	// ActionCancel stops the job; the leading master cleans up and stores the report.
	ActionCancel Action = "cancel"
)

// Past is the action's past participle: "paused".
func (a Action) Past() string {
	return map[Action]string{ActionCancel: "cancelled", ActionPause: "paused", ActionResume: "resumed"}[a]
}

// StateError says that a job is in a state the action cannot apply to.
type StateError struct {
	// Job is the job's id; State its state; Action what was asked.
	Job    string
	State  registry.JobState
	Action Action
	// Why says what would be needed.
	Why string
}

// Error implements error.
func (e *StateError) Error() string {
	return fmt.Sprintf("job %s is %s: %s", e.Job, e.State, e.Why)
}

// Control moves a job to the state an action asks for and returns the job as it then is. An
// action already done (pausing a paused job) changes nothing and is no error; one the job's
// state forbids (resuming a running job is fine, pausing a done one is not) is a *StateError;
// an unknown job is registry.ErrNotFound.
func Control(ctx context.Context, reg *registry.Registry, id string, action Action) (registry.Job, error) {
	var to registry.JobState
	var msg string
	switch action {
	case ActionCancel:
		to, msg = registry.JobCancelling, "cancelling: asked by an operator"
	case ActionPause:
		to, msg = registry.JobPaused, "paused by an operator"
	case ActionResume:
		tasks, err := reg.Tasks(ctx, id)
		if err != nil && !errors.Is(err, registry.ErrNotFound) {
			return registry.Job{}, fmt.Errorf("job %s: list its tasks: %w", id, err)
		}
		to, msg = registry.ResumeState(len(tasks)), "resumed by an operator"
		if to == registry.JobPending {
			msg = "resumed by an operator; it was paused while planning, so it is planned again"
		}
	default:
		return registry.Job{}, fmt.Errorf("job %s: unknown action %q: want pause, resume or cancel", id, action)
	}
	j, err := reg.UpdateJob(ctx, id, func(j registry.Job) (registry.JobState, string, error) {
		if err := controlAllowed(j, action, to); err != nil {
			return 0, "", err
		}
		if j.State == to || (action == ActionCancel && j.State == registry.JobCancelled) ||
			(action == ActionResume && j.State == registry.JobRunning) {
			return j.State, j.Message, nil
		}
		return to, msg, nil
	})
	if err != nil {
		return registry.Job{}, err
	}
	if action == ActionResume {
		// A new round of retries for the tasks that used theirs.
		if err := reg.PutJobData(ctx, id, registry.NodeRetries, []byte("{}")); err != nil {
			return j, fmt.Errorf("job %s: clear retries: %w", id, err)
		}
	}
	return j, nil
}

// controlAllowed decides whether action may move job j to state to.
func controlAllowed(j registry.Job, action Action, to registry.JobState) error {
	switch {
	case j.State == to || (action == ActionCancel && j.State == registry.JobCancelled) ||
		(action == ActionResume && j.State == registry.JobRunning):
		return nil
	case j.State.Final():
		return &StateError{Job: j.ID, State: j.State, Action: action, Why: "it has ended and cannot be " + action.Past()}
	case action == ActionResume && j.State != registry.JobPaused:
		return &StateError{Job: j.ID, State: j.State, Action: action, Why: "it is not paused: there is nothing to resume"}
	case action == ActionPause && j.State != registry.JobRunning && j.State != registry.JobPlanning:
		return &StateError{Job: j.ID, State: j.State, Action: action, Why: "only a running or planning job can be paused"}
	}
	return nil
}

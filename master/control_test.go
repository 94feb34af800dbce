package master

import (
	"errors"
	"testing"

	"rangecopy/registry"
)

func TestControlAllowed(t *testing.T) {
	for _, c := range []struct {
		state  registry.JobState
		action Action
		to     registry.JobState
		ok     bool
	}{
		{registry.JobRunning, ActionPause, registry.JobPaused, true},
		{registry.JobPlanning, ActionPause, registry.JobPaused, true},
		{registry.JobPaused, ActionPause, registry.JobPaused, true},
		{registry.JobPending, ActionPause, registry.JobPaused, false},
		{registry.JobDone, ActionPause, registry.JobPaused, false},
		{registry.JobPaused, ActionResume, registry.JobRunning, true},
		{registry.JobRunning, ActionResume, registry.JobRunning, true},
		{registry.JobPlanning, ActionResume, registry.JobRunning, false},
		{registry.JobFailed, ActionResume, registry.JobRunning, false},
		{registry.JobRunning, ActionCancel, registry.JobCancelling, true},
		{registry.JobCancelled, ActionCancel, registry.JobCancelling, true},
		{registry.JobDone, ActionCancel, registry.JobCancelling, false},
	} {
		err := controlAllowed(registry.Job{ID: "j", State: c.state}, c.action, c.to)
		var se *StateError
		if c.ok != (err == nil) || (err != nil && !errors.As(err, &se)) {
			t.Errorf("%s on %s: %v, want allowed %v", c.action, c.state, err, c.ok)
		}
	}
}

package job

import (
	"fmt"
)

// State is where a job is in its life: one type for the registry, which holds it
// live (a byte of the job's record), and the catalog, which keeps it by its name.
//
//	Pending ──► Planning ──► Running ◄──► Paused
//	   │            │           │            │
//	   │            ▼           ▼            │
//	   ├──────► Cancelling ◄────┴────────────┘
//	   │            │
//	   ▼            ▼
//	Cancelled ◄─────┘      Running ──► Done
//	                       Pending, Planning, Running, Paused, Cancelling ──► Failed
//
// Done, Failed and Cancelled are final. The values are persisted (the registry
// writes them as a byte): never renumber them.
type State uint8

// The states of a job.
const (
	StatePending State = iota + 1
	StatePlanning
	StateRunning
	StatePaused
	StateCancelling
	StateDone
	StateFailed
	StateCancelled
)

var stateNames = [...]string{
	StatePending:    "pending",
	StatePlanning:   "planning",
	StateRunning:    "running",
	StatePaused:     "paused",
	StateCancelling: "cancelling",
	StateDone:       "done",
	StateFailed:     "failed",
	StateCancelled:  "cancelled",
}

// States lists every state, in the order of a job's life.
func States() []State {
	return []State{StatePending, StatePlanning, StateRunning, StatePaused, StateCancelling, StateDone, StateFailed, StateCancelled}
}

// String is the state's name: "running".
func (s State) String() string {
	if s.Valid() {
		return stateNames[s]
	}
	return fmt.Sprintf("JobState(%d)", uint8(s))
}

// Valid reports whether s is one of States.
func (s State) Valid() bool { return s >= StatePending && s <= StateCancelled }

// Final reports whether no transition leaves s.
func (s State) Final() bool { return s == StateDone || s == StateFailed || s == StateCancelled }

// ParseState is the inverse of String.
func ParseState(name string) (State, error) {
	for _, s := range States() {
		if stateNames[s] == name {
			return s, nil
		}
	}
	return 0, fmt.Errorf("unknown job state %q", name)
}

// MarshalText writes the state's name.
func (s State) MarshalText() ([]byte, error) {
	if !s.Valid() {
		return nil, fmt.Errorf("job state %d unknown", uint8(s))
	}
	return []byte(s.String()), nil
}

// UnmarshalText reads a state's name.
func (s *State) UnmarshalText(b []byte) error {
	v, err := ParseState(string(b))
	if err != nil {
		return err
	}
	*s = v
	return nil
}

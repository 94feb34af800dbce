package registry

import (
	"errors"

	"github.com/go-zookeeper/zk"
)

var (
	// ErrClaimed: another worker holds the task.
	ErrClaimed = errors.New("registry: task already claimed")
	// ErrFinished: the task has a result (done or failed) and cannot be claimed.
	ErrFinished = errors.New("registry: task already finished")
	// ErrLostClaim: the claim is no longer this session's (session expired,
	// claim released or taken over); the holder must stop at once and must
	// not write anything more for the task.
	ErrLostClaim = errors.New("registry: claim lost")
	// ErrConflict: a versioned write lost a race; read again and decide again.
	ErrConflict = errors.New("registry: version conflict")
	// ErrTransition: a job state change that the state machine refuses.
	ErrTransition = errors.New("registry: impossible job state transition")
	// ErrNotFound: no such job, task, worker or leader.
	ErrNotFound = errors.New("registry: not found")
	// ErrExists: the job, task or worker already exists.
	ErrExists = errors.New("registry: already exists")
	// ErrTooLarge: data over the registry's bound for that node.
	ErrTooLarge = errors.New("registry: data too large")
	// ErrFormat: bytes read from ZooKeeper that this package did not write.
	ErrFormat = errors.New("registry: bad record format")
	// ErrSessionLost: the ZooKeeper session expired (or was given up) while
	// the call waited.
	ErrSessionLost = errors.New("registry: zookeeper session lost")
	// ErrClosed: the registry was closed.
	ErrClosed = errors.New("registry: closed")
)

// Action is what a caller should do after an error from the registry.
type Action uint8

const (
	// ActionNone: no error.
	ActionNone Action = iota
	// ActionRetry: a transient failure (connection lost, server busy, a lost
	// race); the same call may succeed later. A fenced write that is retried
	// either succeeds or reports ErrLostClaim.
	ActionRetry
	// ActionStop: the claim (or leadership) is gone; stop the work for it now,
	// write nothing more for it, and claim again (or campaign again) later.
	ActionStop
	// ActionGiveUp: retrying cannot help (bad input, not found, refused).
	ActionGiveUp
)

func (a Action) String() string {
	switch a {
	case ActionNone:
		return "none"
	case ActionRetry:
		return "retry"
	case ActionStop:
		return "stop"
	case ActionGiveUp:
		return "give up"
	}
	return "Action(?)"
}

// Classify decides what an error from this package means for its caller.
func Classify(err error) Action {
	switch {
	case err == nil:
		return ActionNone
	case errors.Is(err, ErrLostClaim), errors.Is(err, ErrSessionLost), errors.Is(err, zk.ErrSessionExpired):
		return ActionStop
	case errors.Is(err, ErrConflict), errors.Is(err, ErrClaimed),
		errors.Is(err, zk.ErrConnectionClosed), errors.Is(err, zk.ErrNoServer),
		errors.Is(err, zk.ErrSessionMoved):
		return ActionRetry
	}
	return ActionGiveUp
}

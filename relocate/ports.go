package relocate

import (
	"context"
	"errors"

	"rangecopy/catalog"
	"rangecopy/job"
	"rangecopy/relocation"
	"rangecopy/verify"
)

// Catalog is the part of the catalog the driver reads and writes: its own rows, the
// relocations and their windows. *catalog.Catalog is one.
type Catalog interface {
	// ListRelocations lists the relocations, only those that have not ended when open.
	ListRelocations(ctx context.Context, open bool) ([]catalog.Relocation, error)
	// UpdateRelocation changes a relocation and its windows in one transaction.
	UpdateRelocation(ctx context.Context, id string, fn func(r *catalog.Relocation, tx catalog.RelocationTx) error) (catalog.Relocation, error)
	// RelocationWindow reads one window of a relocation.
	RelocationWindow(ctx context.Context, id string, seq int) (catalog.RelocationWindow, error)
	// RelocationWindows reads every window of a relocation, oldest first.
	RelocationWindows(ctx context.Context, id string) ([]catalog.RelocationWindow, error)
}

// The errors of a Jobs call the driver tells apart; an implementation wraps them
// (errors.Is) around what it met. Any other error is taken for a passing one: the step
// is tried again at the next look.
var (
	// ErrInvalid: the job was refused for what it asks (a request a resubmission would
	// not change).
	ErrInvalid = errors.New("job request not valid")
	// ErrConflict: the job, or its state, conflicts with the request (a job that ended
	// cannot be paused; another copy holds the table).
	ErrConflict = errors.New("job conflict")
	// ErrNotFound: no such job.
	ErrNotFound = errors.New("job not found")
)

// Submission is a copy job the driver asks for: one table of a window.
type Submission struct {
	// Source and Target name registered clusters.
	Source, Target string
	// Request is the copy.
	Request job.Request
	// By says on whose behalf, for the job's record: "relocation <id>".
	By string
	// Relocation is the relocation's id, which the job's record keeps (its metrics are
	// the relocation's).
	Relocation string
}

// Control is what the driver asks of a running job.
type Control int

// The controls of a job.
const (
	// Pause stops handing out the job's tasks.
	Pause Control = iota + 1
	// Resume runs a paused job again.
	Resume
	// Cancel stops the job.
	Cancel
)

// String returns the control's name: pause, resume or cancel.
func (c Control) String() string {
	switch c {
	case Pause:
		return "pause"
	case Resume:
		return "resume"
	case Cancel:
		return "cancel"
	}
	return "control?"
}

// JobState is where a job is, as far as a window cares: under way, or how it ended.
type JobState int

// The states of a job.
const (
	// JobActive: it has not ended (pending, planning, running or paused).
	JobActive JobState = iota
	// JobDone: every task of it is done.
	JobDone
	// JobFailed: it failed.
	JobFailed
	// JobCancelled: an operator or the driver cancelled it.
	JobCancelled
	// JobLost: its record is gone from the registry without an end.
	JobLost
)

// String returns the state's name, as the catalog writes a job's state.
func (s JobState) String() string {
	switch s {
	case JobActive:
		return "active"
	case JobDone:
		return "done"
	case JobFailed:
		return "failed"
	case JobCancelled:
		return "cancelled"
	case JobLost:
		return "lost"
	}
	return "state?"
}

// Ended reports whether a job in state s has ended.
func (s JobState) Ended() bool { return s != JobActive }

// Outcome is a job as a window reads it: its state and, once it ended, what it did.
type Outcome struct {
	// State is where the job is.
	State JobState
	// Why says why it failed, was cancelled or was lost.
	Why string
	// BytesRead counts its input bytes; FilesLoaded the files it bulk loaded;
	// FilesPruned the source files its row or time range left unread.
	BytesRead, FilesLoaded, FilesPruned int64
}

// Jobs submits, controls and reads the copy jobs of windows.
type Jobs interface {
	// Submit registers a copy job and returns its id; the same copy under way returns
	// that job. ErrInvalid and ErrConflict fail the window.
	Submit(ctx context.Context, s Submission) (string, error)
	// Control pauses, resumes or cancels a job; ErrConflict: it is in a state the control
	// does not apply to (it ended, say).
	Control(ctx context.Context, id string, c Control) error
	// Outcome reads a job's state and, once it ended, what it did.
	Outcome(ctx context.Context, id string) (Outcome, error)
	// Changes signals when any job changes (a task done, a job planned or ended): the
	// driver looks then rather than at the next poll. A nil channel: none.
	Changes(ctx context.Context) (<-chan struct{}, error)
}

// Check is one table of a relocation's scope to verify over [0, Until).
type Check struct {
	// Relocation is the relocation's id.
	Relocation string
	// Source and Target name registered clusters.
	Source, Target string
	// Table is the table and its target.
	Table relocation.TableMap
	// StartRow, StopRow, Families and Bandwidth are the scope's (relocation.Scope).
	StartRow, StopRow string
	Families          []string
	Bandwidth         string
	// Until (ms) ends the time range verified.
	Until int64
}

// Verifier compares a table of a relocation on both clusters and repairs what differs.
type Verifier interface {
	// Verify compares c's table over c's rows and [0, c.Until), visible cells.
	Verify(ctx context.Context, c Check) (verify.Report, error)
	// Repair re-copies the ranges first found mismatched and verifies them again,
	// returning that second report (verify.Repair).
	Repair(ctx context.Context, c Check, first verify.Report) (verify.Report, error)
}

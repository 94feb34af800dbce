package dashboard

import (
	"context"
	"errors"
	"time"
)

// ErrNotFound is what a Source returns for a job it does not know.
var ErrNotFound = errors.New("dashboard: not found")

// ErrUnauthenticated is what Source.Authenticate returns for a secret that is no token's
// (or a revoked one's).
var ErrUnauthenticated = errors.New("dashboard: not a valid token")

// Role is what a signed-in person may do: viewer, operator or admin, as the tokens' roles.
type Role string

// The roles, each allowed what the one before it may do and more.
const (
	RoleViewer   Role = "viewer"
	RoleOperator Role = "operator"
	RoleAdmin    Role = "admin"
)

func (r Role) rank() int {
	switch r {
	case RoleViewer:
		return 1
	case RoleOperator:
		return 2
	case RoleAdmin:
		return 3
	}
	return 0
}

// MayOperate reports whether the role may pause, resume, cancel and re-limit jobs.
func (r Role) MayOperate() bool { return r.rank() >= RoleOperator.rank() }

// Principal is who is signed in.
type Principal struct {
	// TokenID and Name are the token's id and name; Role its role.
	TokenID, Name string
	Role          Role
	// Addr is the address the request came from, for the audit log.
	Addr string
}

// Action is what an operator asks of a job.
type Action string

// The actions the job page offers.
const (
	ActionPause     Action = "pause"
	ActionResume    Action = "resume"
	ActionCancel    Action = "cancel"
	ActionBandwidth Action = "bandwidth"
)

// UserError is a refusal the person can act on (a job whose state forbids the action, a
// bandwidth that does not parse): the page shows Message with Status.
type UserError struct {
	Status  int
	Message string
}

func (e *UserError) Error() string { return e.Message }

// TaskCounts are a job's tasks by state.
type TaskCounts struct {
	Total, Pending, Running, Done, Failed int
}

// Field is one line of a job's spec as submitted: a label and its value, row keys already
// in \xNN form.
type Field struct {
	Name, Value string
}

// Job is a job as the pages show it.
type Job struct {
	ID, State, Message string
	Final              bool // the job has ended: no live updates, no actions
	Source, Target     string
	Table, TargetTable string
	SubmittedBy        string
	SubmittedAt        time.Time
	UpdatedAt          time.Time
	Spec               []Field
	BytesDone          int64
	BytesTotal         int64
	Fraction           float64 // 0 to 1
	BytesPerSecond     float64
	ETA                time.Duration // 0: unknown
	Elapsed            time.Duration
	Tasks              TaskCounts
	FilesLoaded        int64
	BytesLoaded        int64
	FilesPruned        int
	LoadRetries        int64
	PinRetries         int
	BandwidthLimit     float64 // bytes per second; 0: none
	LastError          string
}

// JobFilter selects a page of jobs.
type JobFilter struct {
	States []string
	Cursor string
	Limit  int
}

// JobPage is one page of jobs and the cursor of the next ("" on the last).
type JobPage struct {
	Jobs []Job
	Next string
}

// Task is one task of a job.
type Task struct {
	ID, State         string // pending, running, done, failed
	StartRow, StopRow string // \xNN form; empty: the table's start or end
	Bytes             int64  // input bytes the plan estimated
	Worker            string // the worker that holds it (running) or ended it
	Error             string
}

// TaskFilter selects a page of a job's tasks.
type TaskFilter struct {
	State  string // "" for every state
	Cursor string
	Limit  int
}

// TaskPage is one page of tasks and the cursor of the next ("" on the last).
type TaskPage struct {
	Tasks []Task
	Next  string
}

// TaskRef names a task a worker runs.
type TaskRef struct {
	Job, Task string
}

// Worker is a live worker and what it runs.
type Worker struct {
	ID       string
	Capacity int
	Info     string
	Running  []TaskRef
}

// Source is what the dashboard reads and asks of the server. Its errors other than
// ErrNotFound, ErrUnauthenticated and *UserError are shown as "unavailable".
type Source interface {
	// Authenticate returns the holder of a token secret; ErrUnauthenticated if none.
	Authenticate(ctx context.Context, secret string) (Principal, error)
	// Jobs lists a page of jobs, oldest first.
	Jobs(ctx context.Context, f JobFilter) (JobPage, error)
	// Job returns one job; ErrNotFound if unknown.
	Job(ctx context.Context, id string) (Job, error)
	// Tasks lists a page of a job's tasks by id; ErrNotFound when the registry has none.
	Tasks(ctx context.Context, id string, f TaskFilter) (TaskPage, error)
	// Workers lists the live workers by id.
	Workers(ctx context.Context) ([]Worker, error)
	// Act does an action on a job for p (recorded in the audit log); arg is the rate of
	// ActionBandwidth.
	Act(ctx context.Context, p Principal, id string, act Action, arg string) error
}

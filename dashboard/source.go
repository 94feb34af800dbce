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
	// Refused records in the audit log a request the dashboard refused.
	Refused(ctx context.Context, r Refusal) error
	SampleSource
	RelocationSource
	AdminSource
}

// Refusal is a request the dashboard refused: a POST with no session, a forged form (no or
// a wrong CSRF token), a role too small for the action, or a sign-in with a secret that is
// no token's.
type Refusal struct {
	// Who sent it: the zero Principal but for Addr when no one is signed in.
	Who Principal
	// Method and Path are what was asked; Status the answer (401 or 403).
	Method, Path string
	Status       int
	// Why says what was wrong, for people.
	Why string
}

// JobSample is a sample of one job.
type JobSample struct {
	Job string
	Sample
}

// SampleSource is the part of Source that keeps the jobs' samples for the throughput
// charts, so that they outlive the process.
type SampleSource interface {
	// RecordSamples stores samples of one or more jobs.
	RecordSamples(ctx context.Context, ss []JobSample) error
	// Samples returns a job's recent samples, oldest first.
	Samples(ctx context.Context, id string) ([]Sample, error)
}

// TableMap is a table of a relocation and the name it has on the target.
type TableMap struct {
	Source, Target string
}

// Gate is one cut-over gate of a relocation as it stands.
type Gate struct {
	Name, Detail string
	OK           bool
	Forcible     bool // a forced cut-over passes over it
}

// Window is one window of a relocation: the full copy, a catch-up or the final one.
type Window struct {
	Seq           int
	Kind, Outcome string // full, catch-up, final; running, ran, skipped, failed
	Why           string // why it failed or was skipped
	// From and Until are the cell time range it copied, [From, Until); both zero for the
	// full copy. Snapshot is the time it copies up to.
	From, Until, Snapshot time.Time
	JobIDs                []string
	Bytes                 int64
	FilesLoaded           int64
	FilesPruned           int64
	StartedAt, FinishedAt time.Time // FinishedAt zero: not ended
	Duration              time.Duration
	Lag                   time.Duration // FinishedAt minus Snapshot, for a window that ran
}

// Verification is the last verification of a relocation's scope.
type Verification struct {
	Until         time.Time // the time range verified was [0, Until)
	At            time.Time
	Passed, Final bool
	Why           string
}

// ReportTable is one table's part of a cut-over report.
type ReportTable struct {
	Source, Target                        string
	CellsCompared, Differences, Remaining int64
	RangesRecopied                        int
}

// Report is what a relocation's cut-over found and repaired.
type Report struct {
	Until                                 time.Time
	CellsCompared, Differences, Remaining int64
	RangesRecopied                        int
	BytesCopied, BytesVerified            int64
	Windows                               map[string]int // by outcome
	Duration, VerifyTime                  time.Duration
	Tables                                []ReportTable
}

// Relocation is a relocation as the pages show it.
type Relocation struct {
	ID                 string
	Source, Target     string
	Tables             []TableMap
	StartRow, StopRow  string // \xNN form; empty: each table's start or end
	Schedule           string
	Margin, MaxLag     string
	Bandwidth          string // each job's cap as asked; empty: none
	Phase, ResumePhase string
	Why                string
	Final              bool // it has ended: no actions
	Watermark          time.Time
	NextTick           time.Time // zero: none due
	RunningWindow      int       // seq of the window running; 0: none
	Lag                time.Duration
	HasLag             bool // a catch-up window ran, so Lag is known
	Verifying          bool
	Verification       *Verification
	Gates              []Gate
	Report             *Report
	CreatedBy          string
	CreatedAt          time.Time
	UpdatedAt          time.Time
	FinishedAt         time.Time
	Windows            []Window // oldest first; only from Source.Relocation
}

// RelocationAct is what an operator asks of a relocation.
type RelocationAct string

// The actions the relocation page offers.
const (
	RelocationPause  RelocationAct = "pause"
	RelocationResume RelocationAct = "resume"
	RelocationCancel RelocationAct = "cancel"
	// RelocationDryRun asks what a cut-over would do and which gate blocks it, changing
	// nothing.
	RelocationDryRun RelocationAct = "dry-run"
)

// CutoverPlan is the answer of a cut-over dry run.
type CutoverPlan struct {
	Blocked string // the gate that blocks it; empty: none
	Gates   []Gate
	Steps   []string // what it would do, in order
}

// RelocationSource is the part of Source that reads and acts on relocations.
type RelocationSource interface {
	// Relocations lists the relocations, oldest first, without their windows.
	Relocations(ctx context.Context) ([]Relocation, error)
	// Relocation returns one relocation with its windows; ErrNotFound if unknown.
	Relocation(ctx context.Context, id string) (Relocation, error)
	// RelocationAction does an action on a relocation for p (recorded in the audit log);
	// a dry run returns its plan.
	RelocationAction(ctx context.Context, p Principal, id string, act RelocationAct) (CutoverPlan, error)
}

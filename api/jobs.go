package api

import "time"

// JobState is the state of a job as the API shows it.
type JobState string

// The states of a job. Lost is the catalog's: a job it holds open that the registry no
// longer knows.
const (
	JobPending    JobState = "pending"
	JobPlanning   JobState = "planning"
	JobRunning    JobState = "running"
	JobPaused     JobState = "paused"
	JobCancelling JobState = "cancelling"
	JobDone       JobState = "done"
	JobFailed     JobState = "failed"
	JobCancelled  JobState = "cancelled"
	JobLost       JobState = "lost"
	// JobUnknown is carried only by a state event of a job the server does not know.
	JobUnknown JobState = "unknown"
)

// Final reports whether a job in state s has ended: done, failed, cancelled or lost.
func (s JobState) Final() bool {
	switch s {
	case JobDone, JobFailed, JobCancelled, JobLost:
		return true
	}
	return false
}

// CopyRequest is a copy as an operator asks for it, in the words of rangecopy copy's flags:
// row keys in the HBase shell's \xNN escapes, sizes and rates as text ("512MiB",
// "200MB/s"). The server checks it as rangecopy copy does (package job's Request, whose
// fields and JSON names these are).
type CopyRequest struct {
	Table         string   `json:"table" doc:"source table, [namespace:]name"`
	TargetTable   string   `json:"targetTable,omitempty" doc:"target table; empty: the source's name"`
	StartRow      string   `json:"startRow,omitempty" doc:"first row (inclusive), HBase shell escapes such as \\x00; empty: the table's start"`
	StopRow       string   `json:"stopRow,omitempty" doc:"row to stop before (exclusive); empty: the table's end"`
	StartTime     *int64   `json:"startTime,omitempty" doc:"oldest cell timestamp copied (inclusive, ms)"`
	EndTime       *int64   `json:"endTime,omitempty" doc:"timestamp to stop before (exclusive, ms)"`
	Families      []string `json:"families,omitempty" doc:"column families copied; empty: all"`
	Bandwidth     string   `json:"bandwidth,omitempty" doc:"job-wide read cap, e.g. 200MB/s, at most 1TB/s; empty: none"`
	TaskSize      string   `json:"taskSize,omitempty" doc:"input size a task aims at, e.g. 512MiB; empty: the default"`
	CreateTable   bool     `json:"createTable,omitempty" doc:"create a missing target table, pre-split like the source"`
	KeepSnapshot  bool     `json:"keepSnapshot,omitempty" doc:"keep the source snapshot when the job is done"`
	Retries       int      `json:"retries,omitempty" doc:"resets of a failed task before the job pauses; 0: the default"`
	ProtectSource string   `json:"protectSource,omitempty" doc:"keep the source's read p99 at a target: a factor of the p99 before the copy (2x) or a latency (20ms); empty: no throttle"`
	Pin           string   `json:"pin,omitempty" doc:"how the source's inputs are pinned: snapshot (empty means it) or live"`
}

// JobSubmission is the body of POST /jobs: the clusters by name and the copy, with the same
// fields and checks as rangecopy copy.
type JobSubmission struct {
	// Source and Target name registered clusters.
	Source string `json:"source" minLength:"1" maxLength:"128" doc:"name of the registered source cluster" example:"dc1"`
	Target string `json:"target" minLength:"1" maxLength:"128" doc:"name of the registered target cluster" example:"dc2"`
	CopyRequest
}

// JobPatch is the body of PATCH /jobs/{id}.
type JobPatch struct {
	Bandwidth string `json:"bandwidth" maxLength:"64" doc:"new job-wide read cap, e.g. 200MB/s, at most 1TB/s; \"0\" or \"none\" removes the cap" example:"200MB/s"`
}

// TaskCounts are a job's tasks by state.
type TaskCounts struct {
	Total   int `json:"total" doc:"tasks the plan made"`
	Pending int `json:"pending" doc:"waiting for a worker"`
	Running int `json:"running" doc:"held by a worker"`
	Done    int `json:"done" doc:"finished"`
	Failed  int `json:"failed" doc:"failed (retried by the master up to the job's retries)"`
}

// Progress is how far a job is.
type Progress struct {
	BytesDone      int64      `json:"bytesDone" doc:"input bytes of the done tasks"`
	BytesTotal     int64      `json:"bytesTotal" doc:"input bytes the plan estimated"`
	Fraction       float64    `json:"fraction" doc:"bytesDone over bytesTotal, 0 to 1"`
	BytesPerSecond float64    `json:"bytesPerSecond" doc:"input bytes per second, over the job's run time"`
	EtaSeconds     *float64   `json:"etaSeconds,omitempty" doc:"seconds left at the present rate; absent when unknown"`
	Tasks          TaskCounts `json:"tasks"`
	FilesLoaded    int64      `json:"filesLoaded" doc:"files bulk loaded into the target"`
	BytesLoaded    int64      `json:"bytesLoaded" doc:"bytes bulk loaded into the target"`
	FilesPruned    int        `json:"filesPruned" doc:"input files left unread by the row or time range"`
	LoadRetries    int64      `json:"loadRetries" doc:"bulk load requests sent again"`
	PinRetries     int        `json:"pinRetries" doc:"source snapshots taken again after a failed one"`
	BandwidthLimit float64    `json:"bandwidthLimit" doc:"job-wide read cap in bytes per second; 0 means none"`
	ElapsedMs      int64      `json:"elapsedMs" doc:"how long the job has run"`
}

// JobOut is a job as the API shows it.
type JobOut struct {
	ID          string         `json:"id" doc:"the job's id"`
	State       JobState       `json:"state" enum:"pending,planning,running,paused,cancelling,done,failed,cancelled,lost" doc:"the job's state; lost: in the catalog, gone from the registry"`
	Message     string         `json:"message,omitempty" doc:"what the state means now"`
	Source      string         `json:"source" doc:"source cluster (its name, or how it is reached for a job submitted without the server)"`
	Target      string         `json:"target" doc:"target cluster"`
	Table       string         `json:"table" doc:"source table"`
	TargetTable string         `json:"targetTable" doc:"target table"`
	Request     *JobSubmission `json:"request,omitempty" doc:"the job as submitted"`
	SubmittedBy string         `json:"submittedBy,omitempty" doc:"token name of the submitter"`
	SubmittedAt time.Time      `json:"submittedAt" doc:"when it was submitted"`
	UpdatedAt   time.Time      `json:"updatedAt" doc:"when its catalog record last changed"`
	Progress    Progress       `json:"progress"`
	LastError   string         `json:"lastError,omitempty" doc:"the last error the job met"`
	Report      *JobReport     `json:"report,omitempty" doc:"the master's latest report: progress while it runs, the final report once it ended"`
}

// Report statuses: a report stored while a job runs carries the job's state (running,
// paused, cancelling); one of a run that stopped says interrupted or failed.
const (
	ReportDone        = "done"
	ReportFailed      = "failed"
	ReportInterrupted = "interrupted"
	ReportCancelled   = "cancelled"
)

// JobReport is the account of a job: its progress while it runs, its final report once it
// ended (package job's Report, whose JSON it is).
type JobReport struct {
	Version           int       `json:"version" doc:"the report's format"`
	Job               string    `json:"job" doc:"the job's id"`
	Table             string    `json:"table" doc:"source table"`
	TargetTable       string    `json:"targetTable" doc:"target table"`
	StartRow          string    `json:"startRow" doc:"first row copied (\\xNN escapes); empty: the table's start"`
	StopRow           string    `json:"stopRow" doc:"row the copy stopped before; empty: the table's end"`
	MinTimeMs         int64     `json:"minTimeMs" doc:"oldest cell timestamp copied (inclusive, ms)"`
	MaxTimeMs         int64     `json:"maxTimeMs" doc:"timestamp the copy stopped before (exclusive, ms)"`
	Status            string    `json:"status" doc:"done, failed, interrupted or cancelled once the job (or the run) ended, else the job's state"`
	Error             string    `json:"error,omitempty" doc:"why the job is not done"`
	UpdatedAt         time.Time `json:"updatedAt,omitzero" doc:"when the report was made"`
	ElapsedMs         int64     `json:"elapsedMs" doc:"how long the job has run"`
	BandwidthLimit    float64   `json:"bandwidthLimit,omitempty" doc:"job-wide read cap in bytes per second when the report was made; 0: none"`
	ProtectSource     string    `json:"protectSource,omitempty" doc:"the job's source protection target (2x, 20ms)"`
	ThrottleRate      float64   `json:"throttleRate,omitempty" doc:"the read rate the throttle last set, bytes per second; 0: none"`
	ProbeP99Ms        float64   `json:"probeP99Ms,omitempty" doc:"p99 of the throttle's probes of the source over its last window, ms"`
	ProbeIdleP99Ms    float64   `json:"probeIdleP99Ms,omitempty" doc:"p99 of the probes before the copy read anything, ms"`
	ProbeTargetMs     float64   `json:"probeTargetMs,omitempty" doc:"the p99 the throttle keeps to, ms"`
	Probes            int64     `json:"probes,omitempty" doc:"probes sent"`
	ProbeErrors       int64     `json:"probeErrors,omitempty" doc:"probes that failed or timed out"`
	ThrottleDecreases int64     `json:"throttleDecreases,omitempty" doc:"times the throttle cut the rate"`
	Tasks             int64     `json:"tasks" doc:"tasks the plan made"`
	TasksDone         int64     `json:"tasksDone" doc:"tasks done"`
	TasksFailed       int64     `json:"tasksFailed" doc:"tasks failed"`
	InputBytes        int64     `json:"inputBytes" doc:"the plan's estimate of the input in range, bytes"`
	BytesRead         int64     `json:"bytesRead" doc:"input read or copied, bytes"`
	BytesLoaded       int64     `json:"bytesLoaded" doc:"size of the files bulk loaded into the target, bytes"`
	FilesLoaded       int64     `json:"filesLoaded" doc:"files bulk loaded into the target"`
	Cells             int64     `json:"cells" doc:"cells of the files loaded"`
	LoadRetries       int64     `json:"loadRetries" doc:"bulk load requests sent again"`
	BytesPerSecond    float64   `json:"bytesPerSecond" doc:"bytesRead over the time run"`
	FilesPruned       int       `json:"filesPruned" doc:"input files left unread by the time or row range"`
	PinRetries        int       `json:"pinRetries,omitempty" doc:"source snapshots taken again after a failed one"`
	Pinned            string    `json:"pinned,omitempty" doc:"how the source's inputs were pinned: snapshot or live"`
	LiveFallback      string    `json:"liveFallback,omitempty" doc:"why a live pin asked for gave way to a snapshot"`
	CreatedNamespace  string    `json:"createdNamespace,omitempty" doc:"the target namespace the copy created"`
}

// StateEvent is sent on a job's event stream when the job changes state.
type StateEvent struct {
	ID      string   `json:"id" doc:"the job's id"`
	State   JobState `json:"state" doc:"its new state"`
	Message string   `json:"message,omitempty" doc:"what it means"`
	Final   bool     `json:"final" doc:"the job has ended; the stream ends after this event"`
}

// TaskState is the state of one task of a job.
type TaskState string

// The states of a task.
const (
	TaskPending TaskState = "pending"
	TaskRunning TaskState = "running"
	TaskDone    TaskState = "done"
	TaskFailed  TaskState = "failed"
)

// TaskOut is one task of a job.
type TaskOut struct {
	ID       string    `json:"id" doc:"the task's id"`
	State    TaskState `json:"state" enum:"pending,running,done,failed" doc:"pending, running (held by a worker), done or failed"`
	StartRow string    `json:"startRow" doc:"first row of the task's range (\\xNN escapes); empty: the table's start"`
	StopRow  string    `json:"stopRow" doc:"row the task stops before; empty: the table's end"`
	Bytes    int64     `json:"bytes" doc:"input bytes the plan estimated"`
	Worker   string    `json:"worker,omitempty" doc:"the worker that ended it"`
	Error    string    `json:"error,omitempty" doc:"why it failed"`
}

// Seconds is ElapsedMs in seconds.
func (r JobReport) Seconds() float64 { return float64(r.ElapsedMs) / 1e3 }

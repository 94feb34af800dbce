package job

import (
	"encoding/json"
	"errors"
	"fmt"
	"time"
)

// ErrReport marks bytes that are not a job report or plan totals this
// package wrote.
var ErrReport = errors.New("job: bad job report")

// ReportVersion is the format of a Report as EncodeReport writes it.
const ReportVersion = 1

// ReportStatus is what a report says of its job: done, failed, cancelled or
// interrupted once the job (or a rangecopy copy run) ended; while the job
// runs, the job's state (ReportStatusOf: running, paused, cancelling). It is
// written by name in JSON; the zero value is written "".
type ReportStatus uint8

// Report statuses. The first eight are the job states' (State), in their
// order.
const (
	ReportPending ReportStatus = iota + 1
	ReportPlanning
	ReportRunning
	ReportPaused
	ReportCancelling
	ReportDone
	ReportFailed
	ReportCancelled
	// ReportInterrupted: a rangecopy copy run that stopped before its job
	// ended (the job can be resumed).
	ReportInterrupted
)

var reportStatusNames = [...]string{
	ReportPending:     "pending",
	ReportPlanning:    "planning",
	ReportRunning:     "running",
	ReportPaused:      "paused",
	ReportCancelling:  "cancelling",
	ReportDone:        "done",
	ReportFailed:      "failed",
	ReportCancelled:   "cancelled",
	ReportInterrupted: "interrupted",
}

// ReportStatusOf is the status of a report made while a job is in state s.
func ReportStatusOf(s State) ReportStatus {
	if !s.Valid() {
		return 0
	}
	return ReportStatus(s)
}

// String is the status's name: "done"; "" for the zero value.
func (s ReportStatus) String() string {
	if int(s) < len(reportStatusNames) {
		return reportStatusNames[s]
	}
	return fmt.Sprintf("ReportStatus(%d)", uint8(s))
}

// ParseReportStatus is the inverse of String.
func ParseReportStatus(name string) (ReportStatus, error) {
	for i, n := range reportStatusNames {
		if n == name {
			return ReportStatus(i), nil
		}
	}
	return 0, fmt.Errorf("unknown report status %q", name)
}

// MarshalText writes the status's name.
func (s ReportStatus) MarshalText() ([]byte, error) {
	if int(s) >= len(reportStatusNames) {
		return nil, fmt.Errorf("report status %d unknown", uint8(s))
	}
	return []byte(reportStatusNames[s]), nil
}

// UnmarshalText reads a status's name.
func (s *ReportStatus) UnmarshalText(b []byte) error {
	v, err := ParseReportStatus(string(b))
	if err != nil {
		return err
	}
	*s = v
	return nil
}

// Report is the account of a job: its progress while it runs, its final
// report once it ended. It is the record stored in the job's report side
// node (registry.NodeReport), printed by rangecopy copy --json and shown by
// rangecopy job status; the text report renders it (progress.WriteText).
type Report struct {
	// Version is the record's format, ReportVersion. A report of the first
	// format (before versions, with seconds for the time run) decodes with
	// Version 0 and no row or time range.
	Version int `json:"version"`
	// Job is the job's id.
	Job string `json:"job"`
	// Table is the source table and TargetTable the table copied into.
	Table       string `json:"table"`
	TargetTable string `json:"targetTable"`
	// StartRow and StopRow are the row range [start, stop), written as the
	// HBase shell writes row keys (\xNN escapes); empty means the table's
	// first or last row.
	StartRow string `json:"startRow"`
	StopRow  string `json:"stopRow"`
	// MinTimeMs and MaxTimeMs are the time range [min, max) of the cells
	// copied, in milliseconds since the Unix epoch.
	MinTimeMs int64 `json:"minTimeMs"`
	MaxTimeMs int64 `json:"maxTimeMs"`
	// Status is done, failed, interrupted or cancelled once the job (or the
	// run) ended, else the job's state (running, paused, cancelling).
	Status ReportStatus `json:"status"`
	// Error says why a job is not done; empty when it is.
	Error string `json:"error,omitempty"`
	// UpdatedAt is when the report was made (RFC 3339).
	UpdatedAt time.Time `json:"updatedAt,omitzero"`
	// ElapsedMs is how long the job has run, in milliseconds: by one
	// rangecopy copy run, or by every leading master in turn.
	ElapsedMs int64 `json:"elapsedMs"`
	// BandwidthLimit is the job-wide read limit in bytes per second when
	// the report was made (an operator's override, else the job's
	// --bandwidth); 0 means none.
	BandwidthLimit float64 `json:"bandwidthLimit,omitempty"`
	// ProtectSource is the job's --protect-source target ("2x", "20ms");
	// empty when the job has no throttle, and then the probe fields below
	// are absent too.
	ProtectSource string `json:"protectSource,omitempty"`
	// ThrottleRate is the job-wide read rate the throttle last set, in
	// bytes per second; 0 means it set no limit (it runs at the ceiling,
	// --bandwidth, or unlimited).
	ThrottleRate float64 `json:"throttleRate,omitempty"`
	// ProbeP99Ms is the p99 of the throttle's probes of the source (small
	// Gets, a timeout counted as its length) over its last window, in
	// milliseconds; ProbeIdleP99Ms the p99 learned before the copy read
	// anything (0 when the target was a latency); ProbeTargetMs the p99 the
	// throttle keeps to.
	ProbeP99Ms     float64 `json:"probeP99Ms,omitempty"`
	ProbeIdleP99Ms float64 `json:"probeIdleP99Ms,omitempty"`
	ProbeTargetMs  float64 `json:"probeTargetMs,omitempty"`
	// Probes counts the probes sent by this run (rangecopy copy) or this
	// leading master, ProbeErrors those that failed or timed out, and
	// ThrottleDecreases the times the throttle cut the rate.
	Probes            int64 `json:"probes,omitempty"`
	ProbeErrors       int64 `json:"probeErrors,omitempty"`
	ThrottleDecreases int64 `json:"throttleDecreases,omitempty"`
	// Tasks is how many tasks the plan made; TasksDone and TasksFailed how
	// many have that result.
	Tasks       int64 `json:"tasks"`
	TasksDone   int64 `json:"tasksDone"`
	TasksFailed int64 `json:"tasksFailed"`
	// InputBytes is the plan's estimate of the input in range, in bytes.
	InputBytes int64 `json:"inputBytes"`
	// BytesRead is the input read or copied, in bytes: by this run (rangecopy
	// copy), or the estimates of the done tasks (a master's report).
	BytesRead int64 `json:"bytesRead"`
	// BytesLoaded is the size of the files bulk loaded into the target, in
	// bytes; FilesLoaded how many they are and Cells their cells.
	BytesLoaded int64 `json:"bytesLoaded"`
	FilesLoaded int64 `json:"filesLoaded"`
	Cells       int64 `json:"cells"`
	// LoadRetries counts bulk load requests sent again (a region moved,
	// split or was busy).
	LoadRetries int64 `json:"loadRetries"`
	// BytesPerSecond is BytesRead over ElapsedMs, in bytes per second.
	BytesPerSecond float64 `json:"bytesPerSecond"`
	// FilesPruned counts input files left out unread by the time or row
	// range (0 for a job planned before plan totals were stored).
	FilesPruned int `json:"filesPruned"`
	// PinRetries counts the snapshots of the source taken again after one
	// failed (a region server died while it was taken, say).
	PinRetries int `json:"pinRetries,omitempty"`
	// Pinned says how the source's inputs were pinned: PinSnapshot or
	// PinLive (empty in reports written before live pins).
	Pinned PinMode `json:"pinned,omitempty"`
	// LiveFallback says why a live pin asked for gave way to a snapshot.
	LiveFallback string `json:"liveFallback,omitempty"`
	// CreatedNamespace is the target namespace the copy created for the
	// target table (--create-table), if it had to.
	CreatedNamespace string `json:"createdNamespace,omitempty"`
}

// NewReport starts the report of a job of spec s, in status failed until
// told otherwise.
func NewReport(id string, s Spec) Report {
	t := s.Times()
	return Report{Version: ReportVersion, Job: id, Table: s.Table, TargetTable: s.Target(),
		StartRow: FormatKey(s.Rows.Start), StopRow: FormatKey(s.Rows.End), MinTimeMs: t.Min, MaxTimeMs: t.Max,
		Status: ReportFailed}
}

// Rows is the report's row range; a report of the first format has none
// and reads as the whole table.
func (r Report) Rows() KeyRange {
	start, err1 := ParseKey(r.StartRow)
	end, err2 := ParseKey(r.StopRow)
	if err1 != nil || err2 != nil {
		return KeyRange{}
	}
	return KeyRange{Start: start, End: end}
}

// Times is the report's time range.
func (r Report) Times() TimeRange { return TimeRange{Min: r.MinTimeMs, Max: r.MaxTimeMs} }

// Elapsed is ElapsedMs as a duration.
func (r Report) Elapsed() time.Duration { return time.Duration(r.ElapsedMs) * time.Millisecond }

// Seconds is ElapsedMs in seconds.
func (r Report) Seconds() float64 { return float64(r.ElapsedMs) / 1e3 }

// SetElapsed sets ElapsedMs, and BytesPerSecond from it.
func (r *Report) SetElapsed(d time.Duration) {
	r.ElapsedMs = d.Milliseconds()
	r.BytesPerSecond = 0
	if d > 0 {
		r.BytesPerSecond = float64(r.BytesRead) / d.Seconds()
	}
}

// firstReport is the report as the first format wrote it (progress.Report
// of release 02d71e2 and before): no version, seconds for the time run, the
// ranges as display text.
type firstReport struct {
	Job            string  `json:"job"`
	Table          string  `json:"table"`
	TargetTable    string  `json:"targetTable"`
	Status         string  `json:"status"`
	Error          string  `json:"error"`
	Seconds        float64 `json:"seconds"`
	Tasks          int64   `json:"tasks"`
	TasksDone      int64   `json:"tasksDone"`
	TasksFailed    int64   `json:"tasksFailed"`
	BytesRead      int64   `json:"bytesRead"`
	BytesLoaded    int64   `json:"bytesLoaded"`
	FilesLoaded    int64   `json:"filesLoaded"`
	Cells          int64   `json:"cells"`
	Retries        int64   `json:"retries"`
	BytesPerSecond float64 `json:"bytesPerSecond"`
	FilesPruned    int     `json:"filesPruned"`
	PinRetries     int     `json:"pinRetries"`
}

// EncodeReport writes a report (JSON) in the current format.
func EncodeReport(r Report) ([]byte, error) {
	r.Version = ReportVersion
	b, err := json.Marshal(r)
	if err != nil {
		return nil, fmt.Errorf("encode the report of job %s: %w", r.Job, err)
	}
	return b, nil
}

// DecodeReport reads a report of the current format or of the first one;
// anything else is an error wrapping ErrReport.
func DecodeReport(b []byte) (Report, error) {
	var v struct {
		Version *int `json:"version"`
	}
	if err := json.Unmarshal(b, &v); err != nil {
		return Report{}, fmt.Errorf("%w: %v", ErrReport, err)
	}
	if v.Version == nil {
		var f firstReport
		if err := json.Unmarshal(b, &f); err != nil {
			return Report{}, fmt.Errorf("%w: first format: %v", ErrReport, err)
		}
		status, err := ParseReportStatus(f.Status)
		if err != nil {
			return Report{}, fmt.Errorf("%w: first format: %v", ErrReport, err)
		}
		return Report{Job: f.Job, Table: f.Table, TargetTable: f.TargetTable, Status: status, Error: f.Error,
			ElapsedMs: int64(f.Seconds * 1e3), Tasks: f.Tasks, TasksDone: f.TasksDone, TasksFailed: f.TasksFailed,
			BytesRead: f.BytesRead, BytesLoaded: f.BytesLoaded, FilesLoaded: f.FilesLoaded, Cells: f.Cells,
			LoadRetries: f.Retries, BytesPerSecond: f.BytesPerSecond, FilesPruned: f.FilesPruned, PinRetries: f.PinRetries}, nil
	}
	if *v.Version != ReportVersion {
		return Report{}, fmt.Errorf("%w: version %d, want %d", ErrReport, *v.Version, ReportVersion)
	}
	var r Report
	if err := json.Unmarshal(b, &r); err != nil {
		return Report{}, fmt.Errorf("%w: %v", ErrReport, err)
	}
	return r, nil
}

// PlanTotalsVersion is the format of PlanTotals as EncodePlanTotals writes
// it.
const PlanTotalsVersion = 1

// PlanTotals are the totals of a job's plan, stored in its plan side node
// (registry.NodePlan) by the planner before the job runs, so that whoever
// serves the job knows them without reading every task.
type PlanTotals struct {
	// Version is the record's format, PlanTotalsVersion.
	Version int `json:"version"`
	// Tasks is how many tasks the plan made.
	Tasks int `json:"tasks"`
	// InputBytes is the estimated input in range, in bytes.
	InputBytes int64 `json:"inputBytes"`
	// FilesPruned counts input files left out unread by time or row range.
	FilesPruned int `json:"filesPruned"`
	// PlannedAt is when the plan was made (RFC 3339); absent when the
	// totals were summed from the task specs.
	PlannedAt time.Time `json:"plannedAt,omitzero"`
	// FromTaskSpecs says the totals were summed from the job's task specs:
	// the job was planned by a release that kept them in its message only,
	// and FilesPruned is not known (0).
	FromTaskSpecs bool `json:"fromTaskSpecs,omitempty"`
}

// TotalsOf are a plan's totals, planned at at.
func TotalsOf(p Plan, at time.Time) PlanTotals {
	return PlanTotals{Version: PlanTotalsVersion, Tasks: len(p.Tasks), InputBytes: p.Bytes, FilesPruned: len(p.Pruned), PlannedAt: at.UTC()}
}

// Message is the running job's message for a person: the plan's totals.
func (t PlanTotals) Message() string {
	return fmt.Sprintf("planned: %d tasks, %d bytes, %d files pruned", t.Tasks, t.InputBytes, t.FilesPruned)
}

// EncodePlanTotals writes plan totals (JSON).
func EncodePlanTotals(t PlanTotals) ([]byte, error) {
	t.Version = PlanTotalsVersion
	return json.Marshal(t)
}

// DecodePlanTotals reads what EncodePlanTotals wrote; anything else is an
// error wrapping ErrReport.
func DecodePlanTotals(b []byte) (PlanTotals, error) {
	var t PlanTotals
	if err := json.Unmarshal(b, &t); err != nil {
		return PlanTotals{}, fmt.Errorf("%w: plan totals: %v", ErrReport, err)
	}
	if t.Version != PlanTotalsVersion || t.Tasks < 0 || t.InputBytes < 0 || t.FilesPruned < 0 {
		return PlanTotals{}, fmt.Errorf("%w: plan totals of version %d: %d tasks, %d bytes, %d pruned", ErrReport,
			t.Version, t.Tasks, t.InputBytes, t.FilesPruned)
	}
	return t, nil
}

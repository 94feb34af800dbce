package api

import "time"

// RelocationPhase is where a relocation is.
type RelocationPhase string

// The phases of a relocation.
const (
	RelocationCopying     RelocationPhase = "copying"
	RelocationCatchingUp  RelocationPhase = "catching-up"
	RelocationReady       RelocationPhase = "ready"
	RelocationCuttingOver RelocationPhase = "cutting-over"
	RelocationDone        RelocationPhase = "done"
	RelocationPaused      RelocationPhase = "paused"
	RelocationFailed      RelocationPhase = "failed"
	RelocationCancelled   RelocationPhase = "cancelled"
)

// Final reports whether a relocation does not leave the phase: done, failed or cancelled.
func (p RelocationPhase) Final() bool {
	return p == RelocationDone || p == RelocationFailed || p == RelocationCancelled
}

// WindowKind is what a relocation's window is for.
type WindowKind string

// The kinds of window.
const (
	WindowFull    WindowKind = "full"
	WindowCatchUp WindowKind = "catch-up"
	WindowFinal   WindowKind = "final"
)

// WindowOutcome is how a window ended (running until it did).
type WindowOutcome string

// The outcomes of a window.
const (
	WindowRunning WindowOutcome = "running"
	WindowRan     WindowOutcome = "ran"
	WindowSkipped WindowOutcome = "skipped"
	WindowFailed  WindowOutcome = "failed"
)

// RelocationCreate is the body of POST /relocations.
type RelocationCreate struct {
	Source    string   `json:"source" minLength:"1" maxLength:"128" doc:"name of the registered source cluster" example:"dc1"`
	Target    string   `json:"target" minLength:"1" maxLength:"128" doc:"name of the registered target cluster" example:"dc2"`
	Tables    []string `json:"tables" minItems:"1" maxItems:"1000" doc:"tables in scope, ns:t, or ns:t→ns2:t (also ns:t=ns2:t) to rename on the target" example:"[\"ns:t\"]"`
	StartRow  string   `json:"startRow,omitempty" maxLength:"4096" doc:"first row (inclusive), HBase shell escapes; empty: the start of each table"`
	StopRow   string   `json:"stopRow,omitempty" maxLength:"4096" doc:"row to stop before (exclusive); empty: the end of each table"`
	Families  []string `json:"families,omitempty" doc:"column families to move; empty: all"`
	Bandwidth string   `json:"bandwidth,omitempty" maxLength:"64" doc:"each job's read cap, e.g. 200MB/s, at most 1TB/s; empty: none" example:"200MB/s"`
	Schedule  string   `json:"schedule" minLength:"1" maxLength:"255" doc:"cron expression of the catch-up windows: 5 fields, or 6 with seconds first, or @every 10m; CRON_TZ=Area/City prefix for a time zone (UTC otherwise)" example:"*/10 * * * *"`
	Margin    string   `json:"margin,omitempty" maxLength:"32" doc:"how far before the watermark a window starts, a Go duration (default 10m)" example:"10m"`
	MaxLag    string   `json:"maxLag,omitempty" maxLength:"32" doc:"cut-over gate: the last window's lag must be under it, a Go duration (default 5m)" example:"5m"`
}

// RelocationPatch is the body of PATCH /relocations/{id}: what may change while it runs.
type RelocationPatch struct {
	Schedule  *string `json:"schedule,omitempty" maxLength:"255" doc:"new cron expression; the next tick is computed from now"`
	Margin    *string `json:"margin,omitempty" maxLength:"32" doc:"new margin, a Go duration"`
	Bandwidth *string `json:"bandwidth,omitempty" maxLength:"64" doc:"new read cap of each job (at most 1TB/s), also applied to the running window's jobs; \"\", \"0\" or \"none\" removes it"`
}

// CutoverRequest is the body of POST /relocations/{id}/cutover.
type CutoverRequest struct {
	Force  bool   `json:"force,omitempty" doc:"pass over the lag and verification gates: needs a token with the force-cutover right, and a reason"`
	Reason string `json:"reason,omitempty" maxLength:"1000" doc:"why the gates are passed over (needed with force); written to the audit log"`
	DryRun bool   `json:"dryRun,omitempty" doc:"say what it would do, change nothing"`
}

// TableMap is one table of a relocation's scope and the table it goes to.
type TableMap struct {
	Source string `json:"source" doc:"source table, [namespace:]name"`
	Target string `json:"target,omitempty" doc:"target table; absent: the source's name"`
}

// GateOut is one cut-over gate.
type GateOut struct {
	Name     string `json:"name" enum:"phase,lag,verification" doc:"the gate"`
	OK       bool   `json:"ok" doc:"it holds"`
	Detail   string `json:"detail" doc:"what was found"`
	Forcible bool   `json:"forcible" doc:"force passes over it"`
}

// VerificationOut is the last verification of a relocation.
type VerificationOut struct {
	Until  int64     `json:"until" doc:"the time range verified was [0, until), ms"`
	At     time.Time `json:"at" doc:"when it ended"`
	Passed bool      `json:"passed" doc:"source and target were equal (after the repair)"`
	Final  bool      `json:"final" doc:"it was the cut-over's"`
	Why    string    `json:"why,omitempty" doc:"what differed or failed"`
}

// WindowOut is one window of a relocation.
type WindowOut struct {
	Seq          int           `json:"seq" doc:"number of the window, from 1"`
	Kind         WindowKind    `json:"kind" enum:"full,catch-up,final" doc:"what it is for"`
	StartTime    int64         `json:"startTime" doc:"cells copied from this timestamp (inclusive, ms); 0 with endTime 0 for the full copy"`
	EndTime      int64         `json:"endTime" doc:"to this timestamp (exclusive, ms)"`
	SnapshotTime int64         `json:"snapshotTime" doc:"the time it copies up to: the watermark once it ran"`
	JobIDs       []string      `json:"jobIds" doc:"its jobs, one per table"`
	Bytes        int64         `json:"bytes" doc:"input bytes its jobs read"`
	FilesLoaded  int64         `json:"filesLoaded" doc:"files bulk loaded into the target"`
	FilesPruned  int64         `json:"filesPruned" doc:"source files left unread by the time or row range"`
	StartedAt    time.Time     `json:"startedAt" doc:"when it was submitted (or its tick skipped)"`
	FinishedAt   *time.Time    `json:"finishedAt,omitempty" doc:"when its jobs ended"`
	DurationMs   int64         `json:"durationMs" doc:"how long it ran"`
	LagMs        int64         `json:"lagMs" doc:"finishedAt minus snapshotTime, for a window that ran"`
	Outcome      WindowOutcome `json:"outcome" enum:"running,ran,skipped,failed" doc:"how it ended"`
	Why          string        `json:"why,omitempty" doc:"why it failed or was skipped"`
}

// RelocationReport is what a verification of a relocation's scope found and repaired; the
// cut-over's is stored as the relocation's report.
type RelocationReport struct {
	Tables []TableVerification `json:"tables" doc:"per table"`
	// Until is the end of the time range verified, [0, until).
	Until int64 `json:"until" doc:"the time range verified is [0, until), ms"`
	// CellsCompared counts the source cells compared over every table.
	CellsCompared int64 `json:"cellsCompared" doc:"source cells compared, every table"`
	// BatchesProven counts the batches matched unread, by file checksums.
	BatchesProven int `json:"batchesProven" doc:"batches matched without reading them, every table: their store files the same on both sides by HDFS checksums (their cells are not in cellsCompared)"`
	// Differences counts the cells that differed before the repair; Remaining after it.
	Differences int64 `json:"differences" doc:"differing cells found, before the repair"`
	Remaining   int64 `json:"remaining" doc:"differing cells left after the repair"`
	// RangesRecopied counts the row ranges the repair copied again.
	RangesRecopied int `json:"rangesRecopied" doc:"row ranges re-copied by the repair"`
	// BytesCopied sums the input bytes of every window; BytesVerified the HFile bytes the
	// verification read.
	BytesCopied   int64 `json:"bytesCopied" doc:"input bytes of every window's jobs"`
	BytesVerified int64 `json:"bytesVerified" doc:"HFile bytes read by the verification, both sides"`
	// Windows counts the windows by outcome.
	Windows map[string]int `json:"windows" doc:"windows by outcome (ran, skipped, failed)"`
	// DurationMs is how long the relocation took, creation to report; VerifyMs the
	// verification's part.
	DurationMs int64 `json:"durationMs" doc:"from the relocation's creation to this report"`
	VerifyMs   int64 `json:"verifyMs" doc:"how long the verification and repair took"`
}

// TableVerification is one table's part of a RelocationReport.
type TableVerification struct {
	Source         string     `json:"source" doc:"source table"`
	Target         string     `json:"target" doc:"target table"`
	CellsCompared  int64      `json:"cellsCompared" doc:"source cells compared"`
	BatchesProven  int        `json:"batchesProven" doc:"batches matched unread, by file checksums"`
	Differences    int64      `json:"differences" doc:"differing cells before the repair"`
	Remaining      int64      `json:"remaining" doc:"differing cells after the repair"`
	RangesRecopied []RowRange `json:"rangesRecopied,omitempty" doc:"row ranges copied again"`
}

// RelocationOut is a relocation as the API shows it.
type RelocationOut struct {
	ID            string            `json:"id" doc:"the relocation's id"`
	Source        string            `json:"source" doc:"source cluster"`
	Target        string            `json:"target" doc:"target cluster"`
	Tables        []TableMap        `json:"tables" doc:"tables in scope"`
	StartRow      string            `json:"startRow,omitempty" doc:"first row"`
	StopRow       string            `json:"stopRow,omitempty" doc:"row to stop before"`
	Families      []string          `json:"families,omitempty" doc:"families moved; absent: all"`
	Bandwidth     string            `json:"bandwidth,omitempty" doc:"each job's read cap"`
	Schedule      string            `json:"schedule" doc:"cron expression of the windows"`
	Margin        string            `json:"margin" doc:"window margin"`
	MaxLag        string            `json:"maxLag" doc:"cut-over lag bound"`
	Phase         RelocationPhase   `json:"phase" enum:"copying,catching-up,ready,cutting-over,done,paused,failed,cancelled" doc:"where it is"`
	ResumePhase   RelocationPhase   `json:"resumePhase,omitempty" doc:"the phase a paused relocation returns to"`
	Why           string            `json:"why,omitempty" doc:"why it failed, or who paused, cancelled or cut it over"`
	Watermark     int64             `json:"watermark" doc:"snapshot time of the last window that ran (ms); 0 before the full copy ran"`
	NextTick      *time.Time        `json:"nextTick,omitempty" doc:"when the next catch-up is due"`
	RunningWindow int               `json:"runningWindow,omitempty" doc:"seq of the window running"`
	LagMs         *int64            `json:"lagMs,omitempty" doc:"lag of the last window that ran (not of the full copy)"`
	Verifying     bool              `json:"verifying" doc:"a verification runs"`
	Verification  *VerificationOut  `json:"verification,omitempty" doc:"the last verification"`
	Gates         []GateOut         `json:"gates" doc:"the cut-over gates as they stand"`
	Report        *RelocationReport `json:"report,omitempty" doc:"the cut-over's report"`
	CreatedBy     string            `json:"createdBy" doc:"token name of its creator"`
	CreatedAt     time.Time         `json:"createdAt" doc:"when it was created"`
	UpdatedAt     time.Time         `json:"updatedAt" doc:"when it last changed"`
	FinishedAt    *time.Time        `json:"finishedAt,omitempty" doc:"when it ended"`
	Windows       []WindowOut       `json:"windows,omitempty" doc:"its windows, oldest first (GET of one relocation only)"`
}

// CutoverOut is the answer of POST /relocations/{id}/cutover.
type CutoverOut struct {
	DryRun     bool          `json:"dryRun" doc:"nothing was changed"`
	Started    bool          `json:"started" doc:"the cut-over began"`
	Blocked    string        `json:"blocked,omitempty" doc:"the gate that blocks it (dry run)"`
	Gates      []GateOut     `json:"gates" doc:"the gates as they stood"`
	Steps      []string      `json:"steps,omitempty" doc:"what it does (or would do), in order"`
	Relocation RelocationOut `json:"relocation"`
}

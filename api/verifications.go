package api

import "time"

// VerificationState is the state of a verification.
type VerificationState string

// The states of a verification.
const (
	// VerificationRunning: it compares.
	VerificationRunning VerificationState = "running"
	// VerificationPassed: source and target are equal (after the repair).
	VerificationPassed VerificationState = "passed"
	// VerificationFailed: they differ; the report says where.
	VerificationFailed VerificationState = "failed"
	// VerificationError: it could not compare; the error says why.
	VerificationError VerificationState = "error"
)

// Final reports whether a verification has ended.
func (s VerificationState) Final() bool { return s != VerificationRunning && s != "" }

// VerificationRequest is the body of POST /verifications: what to compare, as rangecopy
// verify's flags say it.
type VerificationRequest struct {
	Source      string   `json:"source" minLength:"1" maxLength:"128" doc:"name of the registered source cluster" example:"dc1"`
	Target      string   `json:"target" minLength:"1" maxLength:"128" doc:"name of the registered target cluster" example:"dc2"`
	Table       string   `json:"table" maxLength:"512" doc:"source table, [namespace:]name" example:"ns:events"`
	TargetTable string   `json:"targetTable,omitempty" maxLength:"512" doc:"target table; empty: the source's name"`
	StartRow    string   `json:"startRow,omitempty" maxLength:"4096" doc:"first row (inclusive), HBase shell escapes such as \\x00; empty: the table's start"`
	StopRow     string   `json:"stopRow,omitempty" maxLength:"4096" doc:"row to stop before (exclusive); empty: the table's end"`
	StartTime   *int64   `json:"startTime,omitempty" doc:"oldest cell timestamp compared (inclusive, ms)"`
	EndTime     *int64   `json:"endTime,omitempty" doc:"timestamp to stop before (exclusive, ms)"`
	Families    []string `json:"families,omitempty" maxItems:"1000" doc:"column families compared; empty: every family of the source"`
	Mode        string   `json:"mode,omitempty" enum:"visible,raw" default:"visible" doc:"visible: what a read returns (deletes applied, versions capped, TTL); raw: every cell and delete marker"`
	Bandwidth   string   `json:"bandwidth,omitempty" maxLength:"64" doc:"read cap of both sides together, e.g. 200MB/s; empty: none"`
	MaxDiffs    int      `json:"maxDiffs,omitempty" minimum:"1" maximum:"100000" default:"100" doc:"differing cells listed (all are counted)"`
	Repair      bool     `json:"repair,omitempty" doc:"re-copy the mismatched row ranges (as copy jobs of this server) and verify them again"`
	ReadAll     bool     `json:"readAll,omitempty" doc:"hash every batch from the HFiles; without it, a batch whose store files are byte-for-byte the same on both sides by their HDFS checksums (as a fast-path copy leaves them) matches unread"`
}

// RowRange is a range of rows [startRow, stopRow) in HBase shell escapes; an empty bound is
// the table's start or end.
type RowRange struct {
	StartRow string `json:"startRow" doc:"first row (inclusive)"`
	StopRow  string `json:"stopRow" doc:"row to stop before (exclusive)"`
}

// CellDifference is one differing cell, its bytes in \xNN form.
type CellDifference struct {
	Kind        string  `json:"kind" enum:"missing on target,extra on target,value differs" doc:"how it differs"`
	Row         string  `json:"row" doc:"row key"`
	Family      string  `json:"family" doc:"column family"`
	Qualifier   string  `json:"qualifier" doc:"qualifier"`
	Timestamp   int64   `json:"timestamp" doc:"timestamp, ms"`
	Type        string  `json:"type" doc:"cell type: Put or a delete marker's"`
	SourceValue *string `json:"sourceValue,omitempty" doc:"the source's value"`
	TargetValue *string `json:"targetValue,omitempty" doc:"the target's value"`
}

// VerificationReport is what a verification found: with repair, the counts are the second
// pass's, over the repaired ranges' batches, and the first pass's differences are kept too.
type VerificationReport struct {
	SourceTable       string           `json:"sourceTable" doc:"source table"`
	TargetTable       string           `json:"targetTable" doc:"target table"`
	Mode              string           `json:"mode" doc:"visible or raw"`
	SourceSnapshot    string           `json:"sourceSnapshot" doc:"snapshot read on the source"`
	TargetSnapshot    string           `json:"targetSnapshot" doc:"snapshot read on the target"`
	SourceCells       int64            `json:"sourceCells" doc:"cells compared on the source"`
	TargetCells       int64            `json:"targetCells" doc:"cells compared on the target"`
	SourceRows        int64            `json:"sourceRows" doc:"rows compared on the source"`
	TargetRows        int64            `json:"targetRows" doc:"rows compared on the target"`
	Batches           int              `json:"batches" doc:"batches hashed on each side"`
	BatchesMatched    int              `json:"batchesMatched" doc:"batches whose hashes matched"`
	BatchesMismatched int              `json:"batchesMismatched" doc:"batches whose hashes differed"`
	BatchesProven     int              `json:"batchesProven,omitempty" doc:"matched batches not read: every store file of theirs the same on both sides by its HDFS checksum (their cells are not counted)"`
	MismatchedRanges  []RowRange       `json:"mismatchedRanges" doc:"row ranges of the mismatched batches, adjacent ones joined"`
	DifferenceCount   int64            `json:"differenceCount" doc:"differing cells, all counted"`
	Differences       []CellDifference `json:"differences" doc:"the first differing cells (at most maxDiffs)"`
	BytesRead         int64            `json:"bytesRead" doc:"HFile bytes read, both sides"`
	ElapsedMs         int64            `json:"elapsedMs" doc:"how long the comparison took"`
	Repaired          []RowRange       `json:"repaired,omitempty" doc:"row ranges re-copied by the repair"`
	Job               string           `json:"job,omitempty" doc:"the registry job that hashed both sides (the same after a server restart: it resumed)"`
	Units             int              `json:"units,omitempty" doc:"units hashed (a side's batches in one region)"`
	UnitsResumed      int              `json:"unitsResumed,omitempty" doc:"units found hashed when this server ran it: by an earlier run or by worker agents"`
	UnitsHashed       int              `json:"unitsHashed,omitempty" doc:"units this server's run hashed itself"`
	// Before is the first pass of a verification that repaired.
	Before *VerificationReport `json:"before,omitempty" doc:"with repair: the first pass, before the re-copy"`
}

// VerificationOutput is a verification as the API shows it.
type VerificationOutput struct {
	ID         string              `json:"id" doc:"the verification's id"`
	State      VerificationState   `json:"state" enum:"running,passed,failed,error" doc:"running; passed: equal; failed: they differ (see report); error: it could not compare (see error)"`
	Request    VerificationRequest `json:"request" doc:"what it compares"`
	Report     *VerificationReport `json:"report,omitempty" doc:"what it found, once it ended (passed or failed)"`
	Error      string              `json:"error,omitempty" doc:"why it ended in error"`
	Runner     string              `json:"runner" doc:"id of the server that runs it"`
	CreatedBy  string              `json:"createdBy" doc:"token name of its creator"`
	CreatedAt  time.Time           `json:"createdAt" doc:"when it was created"`
	FinishedAt *time.Time          `json:"finishedAt,omitempty" doc:"when it ended"`
}

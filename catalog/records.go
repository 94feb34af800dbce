package catalog

import (
	"bytes"
	"database/sql/driver"
	"encoding/json"
	"fmt"
	"time"

	"rangecopy/job"
)

// JSONText is a column holding a JSON document as text. It marshals as the document itself
// (or null when empty), so API responses embed it as it was stored.
type JSONText string

// MarshalJSON implements json.Marshaler.
func (j JSONText) MarshalJSON() ([]byte, error) {
	if j == "" {
		return []byte("null"), nil
	}
	if !json.Valid([]byte(j)) {
		return nil, fmt.Errorf("catalog: stored JSON text is not valid JSON")
	}
	return []byte(j), nil
}

// UnmarshalJSON implements json.Unmarshaler; null becomes empty.
func (j *JSONText) UnmarshalJSON(b []byte) error {
	if bytes.Equal(bytes.TrimSpace(b), []byte("null")) {
		*j = ""
		return nil
	}
	var buf bytes.Buffer
	if err := json.Compact(&buf, b); err != nil {
		return err
	}
	*j = JSONText(buf.String())
	return nil
}

// compact returns the document without insignificant white space, the form it is stored and
// compared in; empty stays empty.
func (j JSONText) compact() (JSONText, error) {
	if j == "" {
		return "", nil
	}
	var buf bytes.Buffer
	if err := json.Compact(&buf, []byte(j)); err != nil {
		return "", err
	}
	return JSONText(buf.String()), nil
}

// Cluster is a cluster registered once by name; jobs name clusters, not addresses.
type Cluster struct {
	// Name is the cluster's unique name, such as "dc1" (at most 191 bytes).
	Name string `gorm:"column:name;primaryKey" json:"name"`
	// ZKQuorum is the ZooKeeper quorum, host:port pairs separated by commas.
	ZKQuorum string `gorm:"column:zk_quorum" json:"zkQuorum"`
	// ZNodeParent is HBase's znode parent, such as "/hbase".
	ZNodeParent string `gorm:"column:znode_parent" json:"znodeParent"`
	// HDFSRoot is the URL of the cluster's HDFS, such as "hdfs://nn1:8020".
	HDFSRoot string `gorm:"column:hdfs_root" json:"hdfsRoot"`
	// User is the user rangecopy acts as on the cluster's HDFS.
	User string `gorm:"column:user_name" json:"user"`
	// SiteFiles optionally holds the contents of the cluster's site files by file name
	// (hbase-site.xml, core-site.xml, hdfs-site.xml).
	SiteFiles map[string]string `gorm:"column:site_files;serializer:json" json:"siteFiles,omitempty"`
	// CreatedAt is when the cluster was registered (UTC, microseconds).
	CreatedAt time.Time `gorm:"column:created_at;autoCreateTime:false" json:"createdAt"`
	// UpdatedAt is when the cluster was last changed (UTC, microseconds).
	UpdatedAt time.Time `gorm:"column:updated_at;autoUpdateTime:false" json:"updatedAt"`
}

// TableName implements gorm's tabler.
func (Cluster) TableName() string { return "clusters" }

// JobState is a job's state as the catalog keeps it: the registry's state of the job
// (job.State, the one job-state type), or Lost, the catalog's own condition of a job whose
// registry record is gone. It is stored by name in the state column ("running", "lost"),
// and so written in JSON; the zero value (no state) is written "".
type JobState struct {
	// State is the job's state; zero when Lost.
	State job.State
	// Lost says the registry no longer holds the job: it will not change again.
	Lost bool
}

// jobLostName is the name of the lost condition in the state column.
const jobLostName = "lost"

// StateOf is the catalog's record of a job in registry state s.
func StateOf(s job.State) JobState { return JobState{State: s} }

// JobLost is the catalog's record of a job whose registry record is gone.
func JobLost() JobState { return JobState{Lost: true} }

// JobStates lists every state the catalog records, in the order of a job's life, lost last.
func JobStates() []JobState {
	var out []JobState
	for _, s := range job.States() {
		out = append(out, StateOf(s))
	}
	return append(out, JobLost())
}

// ParseJobState reads a state's name (String).
func ParseJobState(name string) (JobState, error) {
	if name == jobLostName {
		return JobLost(), nil
	}
	s, err := job.ParseState(name)
	if err != nil {
		return JobState{}, err
	}
	return StateOf(s), nil
}

// String returns the state's name: the job state's, or "lost"; "" for the zero value.
func (s JobState) String() string {
	switch {
	case s.Lost:
		return jobLostName
	case s.State == 0:
		return ""
	}
	return s.State.String()
}

// IsZero reports whether s is no state (a JobUpdate that keeps the state).
func (s JobState) IsZero() bool { return s == JobState{} }

// Valid reports whether s is one of JobStates.
func (s JobState) Valid() bool { return s.Lost != (s.State != 0) && (s.Lost || s.State.Valid()) }

// Final reports whether a job in state s has ended: done, failed, cancelled or lost.
func (s JobState) Final() bool { return s.Lost || s.State.Final() }

// Is reports whether s is the registry state st (and not lost).
func (s JobState) Is(st job.State) bool { return !s.Lost && s.State == st }

// MarshalText writes the state's name.
func (s JobState) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// UnmarshalText reads a state's name; "" is the zero value.
func (s *JobState) UnmarshalText(b []byte) error {
	if len(b) == 0 {
		*s = JobState{}
		return nil
	}
	v, err := ParseJobState(string(b))
	if err != nil {
		return err
	}
	*s = v
	return nil
}

// Value implements driver.Valuer: the state column holds the name.
func (s JobState) Value() (driver.Value, error) { return s.String(), nil }

// Scan implements sql.Scanner.
func (s *JobState) Scan(v any) error {
	switch v := v.(type) {
	case string:
		return s.UnmarshalText([]byte(v))
	case []byte:
		return s.UnmarshalText(v)
	case nil:
		*s = JobState{}
		return nil
	}
	return fmt.Errorf("catalog: job state column holds a %T", v)
}

// finalStates are the states for which Final is true.
func finalStates() []JobState {
	var out []JobState
	for _, s := range JobStates() {
		if s.Final() {
			out = append(out, s)
		}
	}
	return out
}

// Job is a job as submitted, with its state mirrored from the registry and its final report.
type Job struct {
	// ID is the registry's job id (unique, at most 191 bytes).
	ID string `gorm:"column:id;primaryKey" json:"id"`
	// Spec is the job's specification as JSON.
	Spec JSONText `gorm:"column:spec" json:"spec"`
	// Table is the source table, "namespace:name" or "name".
	Table string `gorm:"column:table_name" json:"table"`
	// TargetTable is the target table.
	TargetTable string `gorm:"column:target_table" json:"targetTable"`
	// SourceCluster is the name of the source cluster.
	SourceCluster string `gorm:"column:source_cluster" json:"sourceCluster"`
	// TargetCluster is the name of the target cluster.
	TargetCluster string `gorm:"column:target_cluster" json:"targetCluster"`
	// SubmittedBy names who submitted the job (a token's name, or a user).
	SubmittedBy string `gorm:"column:submitted_by" json:"submittedBy"`
	// SubmittedAt is when the job was submitted (UTC, microseconds).
	SubmittedAt time.Time `gorm:"column:submitted_at;autoCreateTime:false" json:"submittedAt"`
	// UpdatedAt is when the job's row last changed (UTC, microseconds).
	UpdatedAt time.Time `gorm:"column:updated_at;autoUpdateTime:false" json:"updatedAt"`
	// State is the job's state.
	State JobState `gorm:"column:state" json:"state"`
	// LastError is the last error the job met, empty if none.
	LastError string `gorm:"column:last_error" json:"lastError,omitempty"`
	// FinalReport is the job's final report as JSON, empty until the job ends.
	FinalReport JSONText `gorm:"column:final_report" json:"finalReport,omitempty"`
	// IdempotencyKey is the client's Idempotency-Key, unique when set.
	IdempotencyKey *string `gorm:"column:idempotency_key" json:"idempotencyKey,omitempty"`
}

// TableName implements gorm's tabler.
func (Job) TableName() string { return "jobs" }

// JobEvent is one entry of a job's history: a state it reached, with a message.
type JobEvent struct {
	// ID orders the events of the catalog (assigned by the database).
	ID int64 `gorm:"column:id;primaryKey;autoIncrement" json:"id"`
	// JobID is the job's id.
	JobID string `gorm:"column:job_id" json:"jobId"`
	// Time is when the event was recorded (UTC, microseconds).
	Time time.Time `gorm:"column:time" json:"time"`
	// State is the job's state after the event.
	State JobState `gorm:"column:state" json:"state"`
	// Message says what happened, for people.
	Message string `gorm:"column:message" json:"message,omitempty"`
}

// TableName implements gorm's tabler.
func (JobEvent) TableName() string { return "job_events" }

// Role is what a token may do.
type Role string

// The roles, each allowed what the one before it may do and more.
const (
	// RoleViewer may read.
	RoleViewer Role = "viewer"
	// RoleOperator may also submit, pause, resume and cancel jobs.
	RoleOperator Role = "operator"
	// RoleAdmin may also manage clusters and tokens.
	RoleAdmin Role = "admin"
)

// String returns the role's name.
func (r Role) String() string { return string(r) }

// Valid reports whether r is a known role.
func (r Role) Valid() bool { return r == RoleViewer || r == RoleOperator || r == RoleAdmin }

// Allows reports whether a token of role r may act as role need.
func (r Role) Allows(need Role) bool { return r.rank() >= need.rank() && need.rank() > 0 }

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

// Token is a bearer token. The catalog keeps only the SHA-256 of its secret.
type Token struct {
	// ID identifies the token ("tok_" and 16 hex digits); it is not secret.
	ID string `gorm:"column:id;primaryKey" json:"id"`
	// Name says whom or what the token is for.
	Name string `gorm:"column:name" json:"name"`
	// Role is what the token may do.
	Role Role `gorm:"column:role" json:"role"`
	// SecretHash is the hex SHA-256 of the secret; never shown.
	SecretHash string `gorm:"column:secret_hash" json:"-"`
	// CreatedAt is when the token was created (UTC, microseconds).
	CreatedAt time.Time `gorm:"column:created_at;autoCreateTime:false" json:"createdAt"`
	// LastUsedAt is when the token last authenticated, to within a minute; nil if never.
	LastUsedAt *time.Time `gorm:"column:last_used_at" json:"lastUsedAt,omitempty"`
	// RevokedAt is when the token was revoked; nil while it is valid.
	RevokedAt *time.Time `gorm:"column:revoked_at" json:"revokedAt,omitempty"`
	// ExpiresAt is when the token's secret stops working; nil: never.
	ExpiresAt *time.Time `gorm:"column:expires_at" json:"expiresAt,omitempty"`
	// RotatedAt is when the token's secret was last replaced; nil: never.
	RotatedAt *time.Time `gorm:"column:rotated_at" json:"rotatedAt,omitempty"`
	// PreviousSecretHash is the hex SHA-256 of the secret the last rotation replaced; never
	// shown. It authenticates until PreviousSecretUntil, and is known afterwards only to
	// say that the secret was rotated out.
	PreviousSecretHash *string `gorm:"column:previous_secret_hash" json:"-"`
	// PreviousSecretUntil is when the replaced secret stops working (the rotation's grace).
	PreviousSecretUntil *time.Time `gorm:"column:previous_secret_until" json:"previousSecretUntil,omitempty"`
	// Scopes restrict where the token may write (see Scope); none: everywhere.
	Scopes Scopes `gorm:"column:scopes;serializer:json" json:"scopes"`
	// Rights are permissions the token holds beyond its role.
	Rights []Right `gorm:"column:rights;serializer:json" json:"rights,omitempty"`
}

// HasRight reports whether the token holds right r.
func (t Token) HasRight(r Right) bool {
	for _, x := range t.Rights {
		if x == r {
			return true
		}
	}
	return false
}

// TableName implements gorm's tabler.
func (Token) TableName() string { return "tokens" }

// AuditEntry records one mutating call: who, what, when, from where, and its outcome.
type AuditEntry struct {
	// ID orders the entries (assigned by the database).
	ID int64 `gorm:"column:id;primaryKey;autoIncrement" json:"id"`
	// Time is when the call was made (UTC, microseconds).
	Time time.Time `gorm:"column:time" json:"time"`
	// TokenID is the caller's token id, empty when unauthenticated.
	TokenID string `gorm:"column:token_id" json:"tokenId,omitempty"`
	// TokenName is the caller's token name.
	TokenName string `gorm:"column:token_name" json:"tokenName,omitempty"`
	// Role is the caller's role.
	Role Role `gorm:"column:role" json:"role,omitempty"`
	// Method is the HTTP method.
	Method string `gorm:"column:method" json:"method"`
	// Path is the request path.
	Path string `gorm:"column:path" json:"path"`
	// RemoteAddr is the caller's address, host:port.
	RemoteAddr string `gorm:"column:remote_addr" json:"remoteAddr"`
	// Status is the HTTP status of the answer.
	Status int `gorm:"column:status" json:"status"`
	// Message says what was done or what was wrong.
	Message string `gorm:"column:message" json:"message,omitempty"`
}

// TableName implements gorm's tabler.
func (AuditEntry) TableName() string { return "audit_log" }

// JobSample is how far a job had copied at a time: a point of the dashboard's throughput
// chart. A job keeps its newest MaxJobSamples; they are deleted with it.
type JobSample struct {
	// ID orders the samples (assigned by the database).
	ID int64 `gorm:"column:id;primaryKey;autoIncrement" json:"-"`
	// JobID is the job's id.
	JobID string `gorm:"column:job_id" json:"jobId"`
	// Time is when the job was looked at (UTC, microseconds).
	Time time.Time `gorm:"column:time" json:"time"`
	// BytesDone is how many input bytes the job had copied then.
	BytesDone int64 `gorm:"column:bytes_done" json:"bytesDone"`
}

// TableName implements gorm's tabler.
func (JobSample) TableName() string { return "job_samples" }

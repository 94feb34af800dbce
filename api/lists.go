package api

// Page sizes of every list operation.
const (
	// DefaultPageSize is the page size when the limit is not given.
	DefaultPageSize = 100
	// MaxPageSize is the largest limit a list takes.
	MaxPageSize = 1000
)

// PageQuery are the query parameters of every list operation: a list is read a page at a
// time, each answer's next is the cursor of the page after (absent on the last).
type PageQuery struct {
	Cursor string `query:"cursor" maxLength:"1024" doc:"the next of the page before; absent: the first page"`
	Limit  int    `query:"limit" minimum:"1" maximum:"1000" default:"100" doc:"page size"`
}

// JobList is a page of GET /jobs.
type JobList struct {
	Jobs []JobOut `json:"jobs" doc:"newest first (by submission time, then id)"`
	Next string   `json:"next,omitempty" doc:"cursor of the next page; absent on the last"`
}

// TaskList is a page of GET /jobs/{id}/tasks.
type TaskList struct {
	Tasks []TaskOut `json:"tasks" doc:"by id"`
	Next  string    `json:"next,omitempty" doc:"cursor of the next page; absent on the last"`
}

// ClusterList is a page of GET /clusters.
type ClusterList struct {
	Clusters []ClusterOut `json:"clusters" doc:"registered clusters, by name"`
	Next     string       `json:"next,omitempty" doc:"cursor of the next page; absent on the last"`
}

// TokenList is a page of GET /tokens.
type TokenList struct {
	Tokens []TokenOut `json:"tokens" doc:"oldest first, revoked ones too"`
	Next   string     `json:"next,omitempty" doc:"cursor of the next page; absent on the last"`
}

// AuditList is a page of GET /audit.
type AuditList struct {
	Entries []AuditOut `json:"entries" doc:"newest first"`
	Next    string     `json:"next,omitempty" doc:"cursor of the next (older) page; absent on the last"`
}

// WorkerList is a page of GET /workers.
type WorkerList struct {
	Workers []WorkerOut `json:"workers" doc:"by id"`
	Next    string      `json:"next,omitempty" doc:"cursor of the next page; absent on the last"`
}

// RelocationList is a page of GET /relocations.
type RelocationList struct {
	Relocations []RelocationOut `json:"relocations" doc:"newest first (by creation time, then id)"`
	Next        string          `json:"next,omitempty" doc:"cursor of the next page; absent on the last"`
}

// VerificationList is a page of GET /verifications.
type VerificationList struct {
	Verifications []VerificationOutput `json:"verifications" doc:"newest first"`
	Next          string               `json:"next,omitempty" doc:"cursor of the next page; absent on the last"`
}

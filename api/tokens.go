package api

import "time"

// Role is what a token may do; each role may do what the ones before it may.
type Role string

// The roles, from least to most.
const (
	// RoleViewer reads.
	RoleViewer Role = "viewer"
	// RoleOperator also submits and controls jobs, relocations and verifications.
	RoleOperator Role = "operator"
	// RoleAdmin also registers clusters and manages tokens.
	RoleAdmin Role = "admin"
)

// TokenOut is a token as listed: never its secret.
type TokenOut struct {
	ID         string     `json:"id" doc:"the token's id (not secret)"`
	Name       string     `json:"name" doc:"whom or what it is for"`
	Role       Role       `json:"role" enum:"viewer,operator,admin" doc:"what it may do"`
	CreatedAt  time.Time  `json:"createdAt" doc:"when it was created"`
	LastUsedAt *time.Time `json:"lastUsedAt,omitempty" doc:"when it last authenticated, to within a minute"`
	RevokedAt  *time.Time `json:"revokedAt,omitempty" doc:"when it was revoked"`
}

// TokenCreateRequest is the body of POST /tokens.
type TokenCreateRequest struct {
	Name string `json:"name" minLength:"1" maxLength:"255" doc:"whom or what the token is for"`
	Role Role   `json:"role" enum:"viewer,operator,admin" doc:"what it may do"`
}

// TokenCreated is the answer of POST /tokens: the token with its secret, shown only then.
type TokenCreated struct {
	TokenOut
	Secret string `json:"secret" doc:"the bearer secret: shown only now"`
}

// AuditOut is one entry of the audit log.
type AuditOut struct {
	ID         int64     `json:"id" doc:"orders the entries"`
	Time       time.Time `json:"time" doc:"when the call was made"`
	TokenID    string    `json:"tokenId,omitempty" doc:"the caller's token"`
	TokenName  string    `json:"tokenName,omitempty" doc:"the caller's token name"`
	Role       Role      `json:"role,omitempty" doc:"the caller's role"`
	Method     string    `json:"method" doc:"HTTP method"`
	Path       string    `json:"path" doc:"request path"`
	RemoteAddr string    `json:"remoteAddr" doc:"the caller's address"`
	Status     int       `json:"status" doc:"HTTP status of the answer"`
	Operation  string    `json:"operation,omitempty" doc:"the operation called"`
}

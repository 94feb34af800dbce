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
	ID                  string     `json:"id" doc:"the token's id (not secret)"`
	Name                string     `json:"name" doc:"whom or what it is for"`
	Role                Role       `json:"role" enum:"viewer,operator,admin" doc:"what it may do"`
	Scopes              []string   `json:"scopes" doc:"where it may write (submit, relocate, verify, repair into), cluster[:namespace[:table]] patterns such as dc2:ns_a:*; [\"*\"]: everywhere"`
	Rights              []string   `json:"rights,omitempty" doc:"permissions beyond its role: force-cutover (force a relocation's cut-over past its gates, with a reason)"`
	CreatedAt           time.Time  `json:"createdAt" doc:"when it was created"`
	ExpiresAt           *time.Time `json:"expiresAt,omitempty" doc:"when its secret stops working; absent: never"`
	RotatedAt           *time.Time `json:"rotatedAt,omitempty" doc:"when its secret was last replaced"`
	PreviousSecretUntil *time.Time `json:"previousSecretUntil,omitempty" doc:"when the secret the last rotation replaced stops (stopped) working"`
	LastUsedAt          *time.Time `json:"lastUsedAt,omitempty" doc:"when it last authenticated, to within a minute"`
	RevokedAt           *time.Time `json:"revokedAt,omitempty" doc:"when it was revoked"`
}

// TokenCreateRequest is the body of POST /tokens.
type TokenCreateRequest struct {
	Name      string   `json:"name" minLength:"1" maxLength:"255" doc:"whom or what the token is for"`
	Role      Role     `json:"role" enum:"viewer,operator,admin" doc:"what it may do"`
	Scopes    []string `json:"scopes,omitempty" maxItems:"100" doc:"where it may write, cluster[:namespace[:table]] patterns (dc2:*, dc2:ns_a:*, dc2:ns_a:events, *); absent: everywhere"`
	Rights    []string `json:"rights,omitempty" maxItems:"10" doc:"permissions beyond its role: force-cutover"`
	ExpiresIn string   `json:"expiresIn,omitempty" maxLength:"32" doc:"lifetime of its secret: days (90d) or a Go duration (720h); absent: until revoked" example:"90d"`
}

// TokenCreated is the answer of POST /tokens and of a rotation: the token with its secret,
// shown only then.
type TokenCreated struct {
	TokenOut
	Secret string `json:"secret" doc:"the bearer secret: shown only now"`
}

// TokenRotateRequest is the body of POST /tokens/{id}/rotate.
type TokenRotateRequest struct {
	Grace     string `json:"grace,omitempty" maxLength:"32" doc:"how long the replaced secret keeps working, a Go duration up to 168h; absent: not at all" example:"10m"`
	ExpiresIn string `json:"expiresIn,omitempty" maxLength:"32" doc:"lifetime of the new secret, days (90d) or a Go duration; absent: the lifetime the token had (none if it had no expiry)"`
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

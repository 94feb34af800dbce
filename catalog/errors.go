package catalog

import (
	"errors"
	"fmt"
	"strings"
)

// Typed errors of the catalog. Every operation wraps them with what was looked for, so callers
// test with errors.Is and show err.Error() to people.
var (
	// ErrNotFound: the cluster, job or token asked for does not exist.
	ErrNotFound = errors.New("not found")
	// ErrConflict: the write would contradict a record that exists; the error is a
	// *ConflictError naming what conflicts.
	ErrConflict = errors.New("conflict")
	// ErrInUse: the record cannot be deleted while others depend on it; the error is an
	// *InUseError naming them.
	ErrInUse = errors.New("in use")
	// ErrUnauthenticated: a token secret is unknown, malformed or revoked.
	ErrUnauthenticated = errors.New("unauthenticated")
	// ErrSchemaTooNew: the catalog's schema was migrated by a newer rangecopy than this one.
	ErrSchemaTooNew = errors.New("catalog schema is newer than this binary")
	// ErrInvalid: an argument is malformed (an unknown state or role, a spec that is not
	// JSON, a bad cursor); the wrapping error names the field.
	ErrInvalid = errors.New("invalid argument")
)

// ConflictError says which record a write conflicts with and on what. It matches ErrConflict.
type ConflictError struct {
	// Kind is the kind of record: "cluster", "job", "token".
	Kind string
	// Key is the record's key (a cluster name, a job id).
	Key string
	// What is the conflicting property: "name", "id", "idempotency key".
	What string
	// Detail says how, for people.
	Detail string
}

// Error implements error.
func (e *ConflictError) Error() string {
	s := fmt.Sprintf("%s %q: %s conflicts", e.Kind, e.Key, e.What)
	if e.Detail != "" {
		s += ": " + e.Detail
	}
	return s
}

// Is makes errors.Is(err, ErrConflict) true.
func (e *ConflictError) Is(target error) bool { return target == ErrConflict }

// InUseError says which jobs keep a cluster from being deleted. It matches ErrInUse.
type InUseError struct {
	// Cluster is the cluster's name.
	Cluster string
	// Jobs are the ids of the jobs that have not ended and name the cluster (at most 10).
	Jobs []string
}

// Error implements error.
func (e *InUseError) Error() string {
	return fmt.Sprintf("cluster %q is in use by jobs that have not ended: %s", e.Cluster, strings.Join(e.Jobs, ", "))
}

// Is makes errors.Is(err, ErrInUse) true.
func (e *InUseError) Is(target error) bool { return target == ErrInUse }

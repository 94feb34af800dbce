package jobs

import (
	"errors"
	"strings"
)

// The kinds of the service's errors, for errors.Is: each error type below matches one.
var (
	// ErrNotFound: no such job (or, in the registry, no longer).
	ErrNotFound = errors.New("not found")
	// ErrConflict: the job's state, or what was submitted before, forbids the call.
	ErrConflict = errors.New("conflict")
	// ErrInvalid: the request is wrong; the caller must change it.
	ErrInvalid = errors.New("invalid request")
	// ErrUnavailable: what the service relies on (the clusters, the registry) failed;
	// nothing the caller got wrong, and the same call may succeed later.
	ErrUnavailable = errors.New("unavailable")
)

// NotFoundError says that the job named is not known where it was looked for.
type NotFoundError struct {
	// What is what was looked for: "job x".
	What string
	// Why says where it was missed: "no such job", "no such job in the registry".
	Why string
}

// Error implements error.
func (e *NotFoundError) Error() string { return e.What + ": " + e.Why }

// Is matches ErrNotFound.
func (e *NotFoundError) Is(target error) bool { return target == ErrNotFound }

// ConflictError says that the job's state (or an idempotency key's earlier use) forbids
// the call.
type ConflictError struct {
	// Err says what stands in the way.
	Err error
}

// Error implements error.
func (e *ConflictError) Error() string { return e.Err.Error() }

// Unwrap returns what stands in the way.
func (e *ConflictError) Unwrap() error { return e.Err }

// Is matches ErrConflict.
func (e *ConflictError) Is(target error) bool { return target == ErrConflict }

// FieldError names a field of a request and what is wrong with it.
type FieldError struct {
	// Field is the field's JSON name ("startRow", "source").
	Field string
	// Message says what is wrong with it.
	Message string
	// Value is the value given, when it helps to show it; nil otherwise.
	Value any
}

// InvalidError says that a request is wrong: Fields names each field that is, or, for what
// no single field holds (a source table that does not exist), Err says it.
type InvalidError struct {
	// Fields are the fields that are wrong, in the request's order.
	Fields []FieldError
	// Err is the error when no field is named.
	Err error
}

// Error implements error.
func (e *InvalidError) Error() string {
	if len(e.Fields) == 0 && e.Err != nil {
		return e.Err.Error()
	}
	msgs := make([]string, len(e.Fields))
	for i, f := range e.Fields {
		msgs[i] = f.Field + ": " + f.Message
	}
	return "the request is not valid: " + strings.Join(msgs, "; ")
}

// Unwrap returns the error when no field is named.
func (e *InvalidError) Unwrap() error { return e.Err }

// Is matches ErrInvalid.
func (e *InvalidError) Is(target error) bool { return target == ErrInvalid }

// UnavailableError says that what the service relies on failed (a cluster that cannot be
// reached, the registry): the call may succeed later.
type UnavailableError struct {
	// Err is the failure.
	Err error
}

// Error implements error.
func (e *UnavailableError) Error() string { return e.Err.Error() }

// Unwrap returns the failure.
func (e *UnavailableError) Unwrap() error { return e.Err }

// Is matches ErrUnavailable.
func (e *UnavailableError) Is(target error) bool { return target == ErrUnavailable }

package master

import "errors"

// ErrInvalidRequest marks an error of a request that names what is not there (a source table
// or family that does not exist, a target table missing without CreateTable, or one without
// the families): the request is wrong, not the clusters. The API answers it with a 4xx.
var ErrInvalidRequest = errors.New("invalid copy request")

// invalidError is an error of the request; it matches ErrInvalidRequest and unwraps to what
// was wrong.
type invalidError struct{ err error }

func (e invalidError) Error() string        { return e.err.Error() }
func (e invalidError) Unwrap() error        { return e.err }
func (e invalidError) Is(target error) bool { return target == ErrInvalidRequest }

// invalid marks err as an error of the request.
func invalid(err error) error { return invalidError{err} }

package server

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"time"

	"github.com/danielgtaylor/huma/v2"

	"rangecopy/api"
	"rangecopy/catalog"
	"rangecopy/job"
	"rangecopy/master"
	"rangecopy/registry"
	"rangecopy/relocation"
)

// catalogTimeout bounds one catalog call made on a request's behalf.
const catalogTimeout = 10 * time.Second

// fieldProblem is a 400 naming one field of the body and what is wrong with it.
func fieldProblem(field, msg string, value any) error {
	return api.NewProblem(http.StatusBadRequest, "the request body is not valid: "+field+": "+msg,
		&api.ProblemDetail{Location: "body." + field, Message: msg, Value: value})
}

// requestProblem is a 400 listing every field error of a job request.
func requestProblem(err error, prefix string) error {
	fes := job.FieldErrors(err)
	if len(fes) == 0 {
		return huma.Error400BadRequest(err.Error())
	}
	var details []*api.ProblemDetail
	var msgs []string
	for _, fe := range fes {
		details = append(details, &api.ProblemDetail{Location: "body." + prefix + fe.Field, Message: fe.Err.Error()})
		msgs = append(msgs, prefix+fe.Field+": "+fe.Err.Error())
	}
	return api.NewProblem(http.StatusBadRequest, "the request body is not valid: "+strings.Join(msgs, "; "), details...)
}

// problem turns an error of the catalog, the registry, the engine or the relocation machine
// into the API's answer: what the caller got wrong is a 4xx that says so, what failed on our
// side a 5xx. It is the one place a domain error becomes an HTTP status.
func (a *rest) problem(err error, what string) error {
	var se huma.StatusError
	if errors.As(err, &se) {
		return err
	}
	msg := strings.TrimPrefix(err.Error(), "catalog: ")
	var stateErr *master.StateError
	var refused *relocation.RefusedError
	switch {
	case errors.As(err, &refused):
		return huma.Error409Conflict(refused.Error())
	case errors.Is(err, catalog.ErrNotFound), errors.Is(err, registry.ErrNotFound):
		return huma.Error404NotFound(what + ": not found")
	case errors.Is(err, catalog.ErrConflict), errors.Is(err, catalog.ErrInUse), errors.As(err, &stateErr):
		return huma.Error409Conflict(msg)
	case errors.Is(err, catalog.ErrInvalid), errors.Is(err, master.ErrInvalidRequest):
		return huma.Error400BadRequest(msg)
	case errors.Is(err, context.DeadlineExceeded):
		return huma.Error503ServiceUnavailable(what + ": timed out: " + msg)
	}
	a.s.cfg.Logger.Error("call failed", "what", what, "err", err)
	return huma.NewError(http.StatusInternalServerError, what+": "+msg)
}

package api

import (
	"fmt"
	"net/http"
)

// ProblemType names the kind of an error answer, in Problem.Type: a client tells what went
// wrong from it (or from the status, one type per status) and reads what to do from Detail.
type ProblemType string

// The problem types of the API, each with its status.
const (
	// ProblemInvalid (400): the request is wrong; Errors name each field and why.
	ProblemInvalid ProblemType = "urn:rangecopy:problem:invalid"
	// ProblemUnauthenticated (401): no bearer token, or not a valid one.
	ProblemUnauthenticated ProblemType = "urn:rangecopy:problem:unauthenticated"
	// ProblemForbidden (403): the token's role may not do this.
	ProblemForbidden ProblemType = "urn:rangecopy:problem:forbidden"
	// ProblemNotFound (404): no such job, cluster, relocation, ... (or path).
	ProblemNotFound ProblemType = "urn:rangecopy:problem:not-found"
	// ProblemConflict (409): the resource's state refuses it (a job that ended, a cluster in
	// use, an idempotency key used for another copy, ...).
	ProblemConflict ProblemType = "urn:rangecopy:problem:conflict"
	// ProblemTooLarge (413): the body is larger than the API takes.
	ProblemTooLarge ProblemType = "urn:rangecopy:problem:too-large"
	// ProblemTooMany (429): too many failed sign-ins from this client, or too many event
	// streams; Retry-After says when to try again.
	ProblemTooMany ProblemType = "urn:rangecopy:problem:too-many"
	// ProblemInternal (500): the server failed; its log says why.
	ProblemInternal ProblemType = "urn:rangecopy:problem:internal"
	// ProblemUpstream (502): a cluster the request names could not be reached or refused.
	ProblemUpstream ProblemType = "urn:rangecopy:problem:upstream"
	// ProblemUnavailable (503): the catalog or ZooKeeper cannot serve now; try again.
	ProblemUnavailable ProblemType = "urn:rangecopy:problem:unavailable"
)

// ProblemTypeOf is the problem type of an error answer of that status; "about:blank" (no
// more than the status says) for a status the API does not name.
func ProblemTypeOf(status int) ProblemType {
	switch status {
	case http.StatusBadRequest, http.StatusUnprocessableEntity:
		return ProblemInvalid
	case http.StatusUnauthorized:
		return ProblemUnauthenticated
	case http.StatusForbidden:
		return ProblemForbidden
	case http.StatusNotFound:
		return ProblemNotFound
	case http.StatusConflict:
		return ProblemConflict
	case http.StatusRequestEntityTooLarge:
		return ProblemTooLarge
	case http.StatusTooManyRequests:
		return ProblemTooMany
	case http.StatusInternalServerError:
		return ProblemInternal
	case http.StatusBadGateway:
		return ProblemUpstream
	case http.StatusServiceUnavailable:
		return ProblemUnavailable
	}
	return "about:blank"
}

// Problem is the body of every error answer: RFC 9457 problem details, sent as
// application/problem+json.
type Problem struct {
	Type     ProblemType      `json:"type,omitempty" format:"uri" default:"about:blank" example:"urn:rangecopy:problem:invalid" doc:"the kind of problem: one per status (urn:rangecopy:problem:invalid, not-found, conflict, ...)"`
	Title    string           `json:"title,omitempty" example:"Bad Request" doc:"the status's text"`
	Status   int              `json:"status,omitempty" example:"400" doc:"HTTP status code"`
	Detail   string           `json:"detail,omitempty" example:"the request body is not valid: table: required" doc:"what went wrong this time, and what to fix"`
	Instance string           `json:"instance,omitempty" format:"uri" doc:"a URI reference of this occurrence"`
	Errors   []*ProblemDetail `json:"errors,omitempty" doc:"each thing that is wrong, by where it is"`
}

// NewProblem is the problem of a status with its detail.
func NewProblem(status int, detail string, errs ...*ProblemDetail) *Problem {
	return &Problem{Type: ProblemTypeOf(status), Title: http.StatusText(status), Status: status, Detail: detail, Errors: errs}
}

// Error is the problem's detail.
func (p *Problem) Error() string {
	if p.Detail == "" {
		return fmt.Sprintf("%d %s", p.Status, http.StatusText(p.Status))
	}
	return p.Detail
}

// GetStatus is the problem's HTTP status.
func (p *Problem) GetStatus() int { return p.Status }

// ContentType is the media type of a problem sent in place of a body of type ct.
func (p *Problem) ContentType(ct string) string {
	if ct == "application/json" {
		return "application/problem+json"
	}
	return ct
}

// ProblemDetail is one thing a problem says is wrong: where (body.table, query.limit) and
// what.
type ProblemDetail struct {
	Message  string `json:"message,omitempty" doc:"what is wrong"`
	Location string `json:"location,omitempty" doc:"where: body.items[3].tags, query.limit, path.id"`
	Value    any    `json:"value,omitempty" doc:"the value found there"`
}

// Error is the detail's message, with where it is.
func (d *ProblemDetail) Error() string {
	if d.Location == "" {
		return d.Message
	}
	return d.Location + ": " + d.Message
}

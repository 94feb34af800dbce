// Package apiclient is a typed client of rangecopy server's REST API (/api/v1): jobs,
// their control and event stream, and clusters. It speaks the API's wire types (package
// api: api.JobSubmission, api.JobOut, ...), which is all it imports beside the standard
// library, and turns an RFC 9457 problem answer into an *Error that names the status and
// the detail.
package apiclient

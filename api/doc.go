// Package api is the wire contract of rangecopy server's REST API: the request and response
// bodies of every operation, the states they carry, the problem details of an error answer
// and the path the API lives under. Its OpenAPI document, generated from these types by the
// server, is committed beside them as openapi.yaml (go generate ./api writes it again; a
// test of package server fails when it differs from what a server serves).
//
// The package imports only the standard library, so that a client (apiclient, or any
// program) speaks the API without linking the server, its catalog or its clusters' drivers.
// JSON field names are the wire's; a field's doc, enum and limit tags become its schema.
package api

//go:generate go run ../cmd/rangecopy openapi --out openapi.yaml

// APIPrefix is where the REST API lives, below a server's base URL.
const APIPrefix = "/api/v1"

// Version is the version of the contract, the OpenAPI document's info.version: a change a
// client of an earlier version can follow (a field or an operation added) raises the minor;
// one it cannot would take a new APIPrefix.
const Version = "1.0"

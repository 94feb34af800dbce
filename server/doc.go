// Package server is rangecopy server: one process that serves the REST API (/api/v1, JSON,
// OpenAPI 3.1; its bodies are package api's types, its document api/openapi.yaml), keeps the catalog (catalog), takes part in the master election (the leader
// plans, retries and finishes detached jobs as rangecopy master does) and, when asked, runs
// embedded workers. More rangecopy worker processes join through ZooKeeper.
//
// ZooKeeper (registry) holds the live state of every job; the catalog holds what must outlive
// it: jobs as submitted, by whom, their history and final reports, the clusters, the tokens
// and the audit log. The leading server reconciles the two at the start of its term and every
// few seconds after (reconcile.go): a job registered without a catalog row appears in the
// API, and a catalog job whose registry record is gone is shown as lost.
package server

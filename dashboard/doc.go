// Package dashboard is rangecopy server's web dashboard: server-rendered HTML pages of the
// jobs, the relocations and the workers for people with a browser, and of the clusters,
// tokens and audit log for admins.
//
// Everyone signed in reads the jobs and one job (its tasks and throughput chart), the
// relocations and one relocation (its windows, lag, gates and cut-over report) and the
// workers. Admins also read the registered clusters, their site files redacted as the API
// redacts them (no secret-bearing value, for anyone), the API tokens (never their secrets)
// and the audit log, newest first (admin.go); anyone else gets a 403 page for those, and the
// navigation offers them to admins alone.
//
// The pages are html/template templates embedded in the binary with their CSS and a little
// JavaScript; nothing is loaded from elsewhere. Every page reads without JavaScript; with it,
// times are shown in the viewer's time zone and running jobs update live from the
// dashboard's own event stream (/live). What the pages show comes from a Source, which the
// server implements over its catalog and registry, so this package links neither.
//
// Sign-in takes a token secret, the same tokens as the REST API, and opens a session
// (Sessions, signin.go) whose id, never the secret, the HttpOnly, SameSite=Strict cookie
// holds (Secure and __Host- over TLS or behind a TLS proxy); the role of the token decides
// what a page offers. Every action is a POST form carrying a CSRF token derived from the session
// (csrf.go); a POST without a valid one, or from a role that may not act, is refused with
// 403.
package dashboard

package server

import (
	"context"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/danielgtaylor/huma/v2"
	"github.com/danielgtaylor/huma/v2/adapters/humago"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"rangecopy/api"
	"rangecopy/catalog"
)

// maxBody bounds a request body: a job or a cluster with its site files.
const maxBody = 4 << 20

// rest is the REST API over one server: its handlers translate HTTP to calls on the
// server and its errors back to HTTP problems.
type rest struct {
	s       *Server
	mux     *http.ServeMux
	h       huma.API
	authLim *authLimiter  // failed authentications by client (authlimit.go)
	streams *streamLimits // event streams open (events.go)
	feeds   *jobFeeds     // the jobs they follow (jobfeed.go)
}

// principal is who calls: a token, or everyone under --insecure-no-auth.
type principal struct {
	tokenID, name string
	role          catalog.Role
	// scopes restrict where the caller may write (none: everywhere); rights are what it
	// may do beyond its role; all says it may do everything (--insecure-no-auth).
	scopes catalog.Scopes
	rights []catalog.Right
	all    bool
	// addr is the caller's address, for audit entries a handler writes itself.
	addr string
}

type principalKey struct{}

// callerOf returns the caller of a request handled by the API.
func callerOf(ctx context.Context) principal {
	if p, ok := ctx.Value(principalKey{}).(*principal); ok {
		return *p
	}
	return principal{}
}

// roleMeta is the operation metadata key of the role an operation needs; operations without
// it are open to everyone (health, readiness, the spec).
const roleMeta = "x-rangecopy-role"

func newAPI(s *Server) *rest {
	lim := s.cfg.Limits
	a := &rest{s: s, mux: http.NewServeMux(), authLim: newAuthLimiter(lim.FailedAuthBurst, lim.FailedAuthEvery, lim.FailedAuthClients),
		streams: newStreamLimits(lim.Streams, lim.StreamsPerToken)}
	a.feeds = newJobFeeds(a)
	// The document is the contract (api/openapi.yaml): the same from every build.
	cfg := huma.DefaultConfig("rangecopy", api.Version)
	cfg.Info.Description = "Copies key ranges of HBase tables between clusters: clusters, jobs, relocations, verifications, workers, tokens. " +
		"Every operation but the health checks and this document needs a bearer token (rangecopy token create). " +
		"Every list is read a page at a time (cursor, limit; next in the answer); every error answer is an RFC 9457 problem (api.Problem)."
	cfg.OpenAPIPath = api.APIPrefix + "/openapi"
	cfg.DocsPath = ""
	cfg.SchemasPath = ""
	cfg.CreateHooks = nil // no $schema links in bodies: the spec is the contract
	cfg.Components.SecuritySchemes = map[string]*huma.SecurityScheme{
		"bearer": {Type: "http", Scheme: "bearer", Description: "a token secret from rangecopy token create"},
	}
	useClearErrors()
	a.h = humago.New(a.mux, cfg)
	a.h.UseMiddleware(a.audit, a.authenticate)
	a.registerHealth()
	a.registerClusters()
	a.registerJobs()
	a.registerTokens()
	a.registerWorkers()
	a.registerRelocations()
	a.registerVerifications()
	return a
}

// handler is the server's HTTP handler: the API under /api/ (an unknown path there a
// problem+json 404), /metrics (a viewer's), and the web dashboard at every other path.
func (a *rest) handler(dash http.Handler) http.Handler {
	metrics := promhttp.HandlerFor(a.s.promReg, promhttp.HandlerOpts{})
	root := http.NewServeMux()
	root.Handle("GET /metrics", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if p, err := a.authorize(r.Context(), r.Header.Get("Authorization"), catalog.RoleViewer); err != nil {
			var ae *authError
			if errors.As(err, &ae) {
				a.refused(r.Context(), catalog.AuditEntry{TokenID: p.tokenID, TokenName: p.name, Role: p.role, Method: r.Method,
					Path: r.URL.Path, RemoteAddr: clientOf(r.Context(), r.RemoteAddr), Status: ae.status, Message: "metrics"})
			}
			writeProblem(w, err)
			return
		}
		metrics.ServeHTTP(w, r)
	}))
	root.Handle("/api/", a.s.metrics.instrument(a.mux))
	root.Handle("/", a.s.metrics.instrumentDashboard(dash))
	// The dashboard's live streams, held to the event streams' caps and timeouts.
	live := a.s.metrics.instrumentDashboard(a.dashStream(dash))
	root.Handle("GET /live", live)
	root.Handle("GET /live/relocation", live)
	return a.guardAuth(refuseUnstorable(root))
}

// op declares an operation that needs role (empty: open to everyone).
func op(id, method, path, summary string, role catalog.Role, tags ...string) huma.Operation {
	o := huma.Operation{OperationID: id, Method: method, Path: api.APIPrefix + path, Summary: summary,
		Tags: tags, MaxBodyBytes: maxBody}
	if role != "" {
		o.Security = []map[string][]string{{"bearer": {}}}
		o.Metadata = map[string]any{roleMeta: role}
		o.Errors = []int{http.StatusBadRequest, http.StatusUnauthorized, http.StatusForbidden, http.StatusTooManyRequests}
		o.Description = fmt.Sprintf("Needs a token of role %s or above.", role)
	}
	if method == http.MethodPost || method == http.MethodPut || method == http.MethodPatch {
		// A body past maxBody, or one that does not arrive in time.
		o.Errors = append(o.Errors, http.StatusRequestEntityTooLarge, http.StatusRequestTimeout)
	}
	return o
}

// authError is a refusal to serve: 401 (who are you?) or 403 (not allowed).
type authError struct {
	status int
	msg    string
}

func (e *authError) Error() string { return e.msg }

// authorize returns the caller of an Authorization header, if it may act as need.
func (a *rest) authorize(ctx context.Context, header string, need catalog.Role) (principal, error) {
	if a.s.cfg.InsecureNoAuth {
		return principal{name: "anonymous (--insecure-no-auth)", role: catalog.RoleAdmin, all: true}, nil
	}
	scheme, secret, ok := strings.Cut(header, " ")
	if header == "" {
		return principal{}, &authError{http.StatusUnauthorized, "no bearer token: send Authorization: Bearer <secret> (rangecopy token create)"}
	}
	if !ok || subtle.ConstantTimeCompare([]byte(strings.ToLower(scheme)), []byte("bearer")) != 1 {
		return principal{}, &authError{http.StatusUnauthorized, "the Authorization header is not a bearer token"}
	}
	t, err := a.s.cat.Authenticate(ctx, strings.TrimSpace(secret))
	if errors.Is(err, catalog.ErrUnauthenticated) {
		// The answer names no token; the log does, for whoever looks into the refusal.
		var ae *catalog.AuthError
		if errors.As(err, &ae) && ae.TokenID != "" {
			a.s.cfg.Logger.Info("api: refused a token's secret", "token", ae.TokenID, "reason", ae.Reason)
		}
		return principal{}, &authError{http.StatusUnauthorized, strings.TrimPrefix(err.Error(), "catalog: ")}
	}
	if err != nil {
		a.s.metrics.catalogErrors.Inc()
		return principal{}, fmt.Errorf("authenticate: %w", err)
	}
	p := principal{tokenID: t.ID, name: t.Name, role: t.Role, scopes: t.Scopes, rights: t.Rights}
	if !t.Role.Allows(need) {
		return p, &authError{http.StatusForbidden, fmt.Sprintf("token %s (%s) has role %s; this needs %s", t.ID, t.Name, t.Role, need)}
	}
	return p, nil
}

// authenticate is the middleware that lets through only callers of the operation's role.
func (a *rest) authenticate(ctx huma.Context, next func(huma.Context)) {
	need, _ := ctx.Operation().Metadata[roleMeta].(catalog.Role)
	if need == "" {
		next(ctx)
		return
	}
	p, err := a.authorize(ctx.Context(), ctx.Header("Authorization"), need)
	p.addr = ctx.RemoteAddr()
	if held, ok := ctx.Context().Value(principalKey{}).(*principal); ok {
		*held = p // for the audit log, which runs around this
	}
	if err != nil {
		var ae *authError
		if errors.As(err, &ae) {
			if ae.status == http.StatusUnauthorized {
				ctx.SetHeader("WWW-Authenticate", `Bearer realm="rangecopy"`)
			}
			_ = huma.WriteErr(a.h, ctx, ae.status, ae.msg)
			return
		}
		_ = huma.WriteErr(a.h, ctx, http.StatusServiceUnavailable, "the catalog cannot check the token now", err)
		return
	}
	next(ctx)
}

// audit records every mutating call, and every call refused for want of a token or a role,
// in the catalog's audit log; refusals go through the failed-authentication limiter, which
// bounds them (authlimit.go).
func (a *rest) audit(ctx huma.Context, next func(huma.Context)) {
	ctx = huma.WithValue(ctx, principalKey{}, &principal{})
	next(ctx)
	status := ctx.Status()
	if status == 0 {
		status = http.StatusOK
	}
	refused := status == http.StatusUnauthorized || status == http.StatusForbidden
	mutating := ctx.Method() != http.MethodGet && ctx.Method() != http.MethodHead
	if !mutating && !refused {
		return
	}
	p := callerOf(ctx.Context())
	e := catalog.AuditEntry{TokenID: p.tokenID, TokenName: p.name, Role: p.role, Method: ctx.Method(),
		Path: ctx.URL().Path, RemoteAddr: clientOf(ctx.Context(), ctx.RemoteAddr()), Status: status, Message: ctx.Operation().OperationID}
	if refused {
		a.refused(ctx.Context(), e)
		return
	}
	a.appendAudit(ctx.Context(), e)
}

// writeProblem writes an authorization refusal (or failure) outside huma, as problem+json.
func writeProblem(w http.ResponseWriter, err error) {
	status, msg := http.StatusServiceUnavailable, "the catalog cannot check the token now"
	var ae *authError
	if errors.As(err, &ae) {
		status, msg = ae.status, ae.msg
	}
	if status == http.StatusUnauthorized {
		w.Header().Set("WWW-Authenticate", `Bearer realm="rangecopy"`)
	}
	w.Header().Set("Content-Type", "application/problem+json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(api.NewProblem(status, msg))
}

// useClearErrors makes every error answer an api.Problem, and huma's request validation
// answer 400 (not 422) with a detail that names every field that is wrong and why, so that
// a client reads what to fix from the detail alone. huma keeps its error constructors in
// package variables; every server sets the same functions.
func useClearErrors() {
	huma.NewError = newProblem
	huma.NewErrorWithContext = func(_ huma.Context, status int, msg string, errs ...error) huma.StatusError {
		return newProblem(status, msg, errs...)
	}
}

// newProblem is the API's answer of a status: its problem details, with each error of errs
// as a detail (huma's validation errors say where they are).
func newProblem(status int, msg string, errs ...error) huma.StatusError {
	details := make([]*api.ProblemDetail, 0, len(errs))
	var parts []string
	for _, e := range errs {
		var d *api.ProblemDetail
		switch x := e.(type) {
		case nil:
			continue
		case *api.ProblemDetail:
			d = x
		case huma.ErrorDetailer:
			hd := x.ErrorDetail()
			d = &api.ProblemDetail{Message: hd.Message, Location: hd.Location, Value: hd.Value}
		default:
			d = &api.ProblemDetail{Message: e.Error()}
		}
		details = append(details, d)
		if d.Location == "" {
			parts = append(parts, d.Message)
		} else {
			parts = append(parts, strings.TrimPrefix(d.Location, "body.")+": "+d.Message)
		}
	}
	if status == http.StatusUnprocessableEntity {
		status = http.StatusBadRequest
		if len(parts) > 0 {
			msg = "the request is not valid: " + strings.Join(parts, "; ")
		}
	}
	if len(details) == 0 {
		details = nil
	}
	return api.NewProblem(status, msg, details...)
}

// OpenAPI is the REST API's OpenAPI document (YAML) as every server serves it at
// APIPrefix/openapi.yaml, and as api/openapi.yaml holds it (go generate ./api).
func OpenAPI() ([]byte, error) {
	a := newAPI(&Server{})
	b, err := a.h.OpenAPI().YAML()
	if err != nil {
		return nil, fmt.Errorf("the OpenAPI document: %w", err)
	}
	return b, nil
}

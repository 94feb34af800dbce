package server

import (
	"context"
	"fmt"
	"net/http"
	"time"

	"github.com/danielgtaylor/huma/v2"

	"rangecopy/api"
	"rangecopy/catalog"
)

func tokenOut(t catalog.Token) api.TokenOut {
	out := api.TokenOut{ID: t.ID, Name: t.Name, Role: api.Role(t.Role), Scopes: t.Scopes.Strings(), CreatedAt: t.CreatedAt,
		ExpiresAt: t.ExpiresAt, RotatedAt: t.RotatedAt, PreviousSecretUntil: t.PreviousSecretUntil, LastUsedAt: t.LastUsedAt, RevokedAt: t.RevokedAt}
	for _, r := range t.Rights {
		out.Rights = append(out.Rights, string(r))
	}
	return out
}

// tokenSpec reads the body of POST /tokens; the error is a 400 naming every wrong field.
func tokenSpec(in api.TokenCreateRequest) (catalog.TokenSpec, error) {
	spec := catalog.TokenSpec{Name: in.Name, Role: catalog.Role(in.Role)}
	var fe fieldErrs
	for i, s := range in.Scopes {
		sc, err := catalog.ParseScope(s)
		if err != nil {
			fe.add(fmt.Sprintf("scopes[%d]", i), err.Error(), s)
			continue
		}
		spec.Scopes = append(spec.Scopes, sc)
	}
	for i, r := range in.Rights {
		if !catalog.Right(r).Valid() {
			fe.add(fmt.Sprintf("rights[%d]", i), fmt.Sprintf("unknown right %q: want %s", r, catalog.RightForceCutover), r)
			continue
		}
		spec.Rights = append(spec.Rights, catalog.Right(r))
	}
	if in.ExpiresIn != "" {
		d, err := catalog.ParseLifetime(in.ExpiresIn)
		if err != nil {
			fe.add("expiresIn", err.Error(), in.ExpiresIn)
		}
		spec.Lifetime = d
	}
	return spec, fe.err()
}

// rotateOptions reads the body of POST /tokens/{id}/rotate.
func rotateOptions(in api.TokenRotateRequest) (catalog.RotateOptions, error) {
	var o catalog.RotateOptions
	var fe fieldErrs
	if in.Grace != "" {
		d, err := time.ParseDuration(in.Grace)
		if err != nil || d < 0 || d > catalog.MaxRotationGrace {
			fe.add("grace", fmt.Sprintf("want a Go duration from 0s to %s, such as 10m", catalog.MaxRotationGrace), in.Grace)
		}
		o.Grace = d
	}
	if in.ExpiresIn != "" {
		d, err := catalog.ParseLifetime(in.ExpiresIn)
		if err != nil {
			fe.add("expiresIn", err.Error(), in.ExpiresIn)
		}
		o.Lifetime = &d
	}
	return o, fe.err()
}

func (a *rest) registerTokens() {
	cat := a.s.cat
	list := op("list-tokens", http.MethodGet, "/tokens", "List tokens (never their secrets)", catalog.RoleAdmin, "tokens")
	list.Errors = append(list.Errors, http.StatusBadRequest)
	huma.Register(a.h, list, func(ctx context.Context, in *struct{ api.PageQuery }) (*struct{ Body api.TokenList }, error) {
		ts, err := cat.ListTokens(ctx)
		if err != nil {
			return nil, a.problem(err, "tokens")
		}
		page, next, err := pageAfterItem(ts, func(t catalog.Token) string { return t.ID }, in.PageQuery)
		if err != nil {
			return nil, err
		}
		out := &struct{ Body api.TokenList }{Body: api.TokenList{Tokens: []api.TokenOut{}, Next: next}}
		for _, t := range page {
			out.Body.Tokens = append(out.Body.Tokens, tokenOut(t))
		}
		return out, nil
	})
	create := op("create-token", http.MethodPost, "/tokens", "Create a token; its secret is shown once", catalog.RoleAdmin, "tokens")
	create.DefaultStatus = http.StatusCreated
	create.Errors = append(create.Errors, http.StatusBadRequest)
	huma.Register(a.h, create, func(ctx context.Context, in *struct {
		Body api.TokenCreateRequest
	}) (*struct{ Body api.TokenCreated }, error) {
		spec, err := tokenSpec(in.Body)
		if err != nil {
			return nil, err
		}
		t, secret, err := cat.NewToken(ctx, spec)
		if err != nil {
			return nil, a.problem(err, "token")
		}
		return &struct{ Body api.TokenCreated }{Body: api.TokenCreated{TokenOut: tokenOut(t), Secret: secret}}, nil
	})
	get := op("get-token", http.MethodGet, "/tokens/{id}", "Show a token (never its secret)", catalog.RoleAdmin, "tokens")
	get.Errors = append(get.Errors, http.StatusNotFound)
	huma.Register(a.h, get, func(ctx context.Context, in *struct {
		ID string `path:"id" minLength:"1" maxLength:"64" doc:"the token's id"`
	}) (*struct{ Body api.TokenOut }, error) {
		t, err := cat.GetToken(ctx, in.ID)
		if err != nil {
			return nil, a.problem(err, "token "+in.ID)
		}
		return &struct{ Body api.TokenOut }{Body: tokenOut(t)}, nil
	})
	rotate := op("rotate-token", http.MethodPost, "/tokens/{id}/rotate", "Give a token a new secret; the old one stops working after the grace", catalog.RoleAdmin, "tokens")
	rotate.Description += " The token keeps its id, name, role, scopes and rights; the new secret is shown once. An expired token works again; a revoked one is not rotated (409)."
	rotate.Errors = append(rotate.Errors, http.StatusNotFound, http.StatusConflict)
	huma.Register(a.h, rotate, func(ctx context.Context, in *struct {
		ID   string `path:"id" minLength:"1" maxLength:"64" doc:"the token's id"`
		Body *api.TokenRotateRequest
	}) (*struct{ Body api.TokenCreated }, error) {
		var body api.TokenRotateRequest
		if in.Body != nil {
			body = *in.Body
		}
		opts, err := rotateOptions(body)
		if err != nil {
			return nil, err
		}
		t, secret, err := cat.RotateToken(ctx, in.ID, opts)
		if err != nil {
			return nil, a.problem(err, "token "+in.ID)
		}
		return &struct{ Body api.TokenCreated }{Body: api.TokenCreated{TokenOut: tokenOut(t), Secret: secret}}, nil
	})
	revoke := op("revoke-token", http.MethodDelete, "/tokens/{id}", "Revoke a token", catalog.RoleAdmin, "tokens")
	revoke.Errors = append(revoke.Errors, http.StatusNotFound)
	huma.Register(a.h, revoke, func(ctx context.Context, in *struct {
		ID string `path:"id" minLength:"1" maxLength:"64" doc:"the token's id"`
	}) (*struct{ Body api.TokenOut }, error) {
		t, err := cat.RevokeToken(ctx, in.ID)
		if err != nil {
			return nil, a.problem(err, "token "+in.ID)
		}
		return &struct{ Body api.TokenOut }{Body: tokenOut(t)}, nil
	})
	audit := op("list-audit", http.MethodGet, "/audit", "Read the audit log, newest first", catalog.RoleAdmin, "tokens")
	audit.Errors = append(audit.Errors, http.StatusBadRequest)
	huma.Register(a.h, audit, func(ctx context.Context, in *struct {
		Token string `query:"token" maxLength:"64" doc:"keep this token's entries"`
		api.PageQuery
	}) (*struct{ Body api.AuditList }, error) {
		page, err := cat.ListAudit(ctx, in.Token, in.Cursor, in.Limit)
		if err != nil {
			return nil, a.problem(err, "audit log")
		}
		out := &struct{ Body api.AuditList }{}
		out.Body.Entries = []api.AuditOut{}
		for _, e := range page.Entries {
			out.Body.Entries = append(out.Body.Entries, api.AuditOut{ID: e.ID, Time: e.Time, TokenID: e.TokenID, TokenName: e.TokenName,
				Role: api.Role(e.Role), Method: e.Method, Path: e.Path, RemoteAddr: e.RemoteAddr, Status: e.Status, Operation: e.Message})
		}
		out.Body.Next = page.Next
		return out, nil
	})
}

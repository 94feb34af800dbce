package server

import (
	"context"
	"net/http"

	"github.com/danielgtaylor/huma/v2"

	"rangecopy/api"
	"rangecopy/catalog"
)

func tokenOut(t catalog.Token) api.TokenOut {
	return api.TokenOut{ID: t.ID, Name: t.Name, Role: api.Role(t.Role), CreatedAt: t.CreatedAt, LastUsedAt: t.LastUsedAt, RevokedAt: t.RevokedAt}
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
		t, secret, err := cat.CreateToken(ctx, in.Body.Name, catalog.Role(in.Body.Role))
		if err != nil {
			return nil, a.problem(err, "token")
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

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
	huma.Register(a.h, op("list-tokens", http.MethodGet, "/tokens", "List tokens (never their secrets)", catalog.RoleAdmin, "tokens"),
		func(ctx context.Context, _ *struct{}) (*struct {
			Body struct {
				Tokens []api.TokenOut `json:"tokens" doc:"oldest first, revoked ones too"`
			}
		}, error) {
			ts, err := cat.ListTokens(ctx)
			if err != nil {
				return nil, a.problem(err, "tokens")
			}
			out := &struct {
				Body struct {
					Tokens []api.TokenOut `json:"tokens" doc:"oldest first, revoked ones too"`
				}
			}{}
			out.Body.Tokens = []api.TokenOut{}
			for _, t := range ts {
				out.Body.Tokens = append(out.Body.Tokens, tokenOut(t))
			}
			return out, nil
		})
	create := op("create-token", http.MethodPost, "/tokens", "Create a token; its secret is shown once", catalog.RoleAdmin, "tokens")
	create.DefaultStatus = http.StatusCreated
	create.Errors = append(create.Errors, http.StatusBadRequest)
	type created struct {
		api.TokenOut
		Secret string `json:"secret" doc:"the bearer secret: shown only now"`
	}
	huma.Register(a.h, create, func(ctx context.Context, in *struct {
		Body struct {
			Name string `json:"name" minLength:"1" maxLength:"255" doc:"whom or what the token is for"`
			Role string `json:"role" enum:"viewer,operator,admin" doc:"what it may do"`
		}
	}) (*struct{ Body created }, error) {
		t, secret, err := cat.CreateToken(ctx, in.Body.Name, catalog.Role(in.Body.Role))
		if err != nil {
			return nil, a.problem(err, "token")
		}
		return &struct{ Body created }{Body: created{TokenOut: tokenOut(t), Secret: secret}}, nil
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
		Token  string `query:"token" maxLength:"64" doc:"keep this token's entries"`
		Cursor string `query:"cursor" maxLength:"1024" doc:"the next of the page before"`
		Limit  int    `query:"limit" minimum:"1" maximum:"1000" default:"100" doc:"page size"`
	}) (*struct {
		Body struct {
			Entries []api.AuditOut `json:"entries" doc:"newest first"`
			Next    string         `json:"next,omitempty" doc:"cursor of the next (older) page"`
		}
	}, error) {
		page, err := cat.ListAudit(ctx, in.Token, in.Cursor, in.Limit)
		if err != nil {
			return nil, a.problem(err, "audit log")
		}
		out := &struct {
			Body struct {
				Entries []api.AuditOut `json:"entries" doc:"newest first"`
				Next    string         `json:"next,omitempty" doc:"cursor of the next (older) page"`
			}
		}{}
		out.Body.Entries = []api.AuditOut{}
		for _, e := range page.Entries {
			out.Body.Entries = append(out.Body.Entries, api.AuditOut{ID: e.ID, Time: e.Time, TokenID: e.TokenID, TokenName: e.TokenName,
				Role: api.Role(e.Role), Method: e.Method, Path: e.Path, RemoteAddr: e.RemoteAddr, Status: e.Status, Operation: e.Message})
		}
		out.Body.Next = page.Next
		return out, nil
	})
}

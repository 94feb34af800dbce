package server

import (
	"context"
	"net/http"
	"time"

	"github.com/danielgtaylor/huma/v2"

	"rangecopy/catalog"
)

// TokenOut is a token as listed: never its secret.
type TokenOut struct {
	ID         string     `json:"id" doc:"the token's id (not secret)"`
	Name       string     `json:"name" doc:"whom or what it is for"`
	Role       string     `json:"role" enum:"viewer,operator,admin" doc:"what it may do"`
	CreatedAt  time.Time  `json:"createdAt" doc:"when it was created"`
	LastUsedAt *time.Time `json:"lastUsedAt,omitempty" doc:"when it last authenticated, to within a minute"`
	RevokedAt  *time.Time `json:"revokedAt,omitempty" doc:"when it was revoked"`
}

func tokenOut(t catalog.Token) TokenOut {
	return TokenOut{ID: t.ID, Name: t.Name, Role: string(t.Role), CreatedAt: t.CreatedAt, LastUsedAt: t.LastUsedAt, RevokedAt: t.RevokedAt}
}

// AuditOut is one entry of the audit log.
type AuditOut struct {
	ID         int64     `json:"id" doc:"orders the entries"`
	Time       time.Time `json:"time" doc:"when the call was made"`
	TokenID    string    `json:"tokenId,omitempty" doc:"the caller's token"`
	TokenName  string    `json:"tokenName,omitempty" doc:"the caller's token name"`
	Role       string    `json:"role,omitempty" doc:"the caller's role"`
	Method     string    `json:"method" doc:"HTTP method"`
	Path       string    `json:"path" doc:"request path"`
	RemoteAddr string    `json:"remoteAddr" doc:"the caller's address"`
	Status     int       `json:"status" doc:"HTTP status of the answer"`
	Operation  string    `json:"operation,omitempty" doc:"the operation called"`
}

func (a *api) registerTokens() {
	cat := a.s.cat
	huma.Register(a.h, op("list-tokens", http.MethodGet, "/tokens", "List tokens (never their secrets)", catalog.RoleAdmin, "tokens"),
		func(ctx context.Context, _ *struct{}) (*struct {
			Body struct {
				Tokens []TokenOut `json:"tokens" doc:"oldest first, revoked ones too"`
			}
		}, error) {
			ts, err := cat.ListTokens(ctx)
			if err != nil {
				return nil, a.problem(err, "tokens")
			}
			out := &struct {
				Body struct {
					Tokens []TokenOut `json:"tokens" doc:"oldest first, revoked ones too"`
				}
			}{}
			out.Body.Tokens = []TokenOut{}
			for _, t := range ts {
				out.Body.Tokens = append(out.Body.Tokens, tokenOut(t))
			}
			return out, nil
		})
	create := op("create-token", http.MethodPost, "/tokens", "Create a token; its secret is shown once", catalog.RoleAdmin, "tokens")
	create.DefaultStatus = http.StatusCreated
	create.Errors = append(create.Errors, http.StatusBadRequest)
	type created struct {
		TokenOut
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
	}) (*struct{ Body TokenOut }, error) {
		t, err := cat.RevokeToken(ctx, in.ID)
		if err != nil {
			return nil, a.problem(err, "token "+in.ID)
		}
		return &struct{ Body TokenOut }{Body: tokenOut(t)}, nil
	})
	audit := op("list-audit", http.MethodGet, "/audit", "Read the audit log, newest first", catalog.RoleAdmin, "tokens")
	audit.Errors = append(audit.Errors, http.StatusBadRequest)
	huma.Register(a.h, audit, func(ctx context.Context, in *struct {
		Token  string `query:"token" maxLength:"64" doc:"keep this token's entries"`
		Cursor string `query:"cursor" maxLength:"1024" doc:"the next of the page before"`
		Limit  int    `query:"limit" minimum:"1" maximum:"1000" default:"100" doc:"page size"`
	}) (*struct {
		Body struct {
			Entries []AuditOut `json:"entries" doc:"newest first"`
			Next    string     `json:"next,omitempty" doc:"cursor of the next (older) page"`
		}
	}, error) {
		page, err := cat.ListAudit(ctx, in.Token, in.Cursor, in.Limit)
		if err != nil {
			return nil, a.problem(err, "audit log")
		}
		out := &struct {
			Body struct {
				Entries []AuditOut `json:"entries" doc:"newest first"`
				Next    string     `json:"next,omitempty" doc:"cursor of the next (older) page"`
			}
		}{}
		out.Body.Entries = []AuditOut{}
		for _, e := range page.Entries {
			out.Body.Entries = append(out.Body.Entries, AuditOut{ID: e.ID, Time: e.Time, TokenID: e.TokenID, TokenName: e.TokenName,
				Role: string(e.Role), Method: e.Method, Path: e.Path, RemoteAddr: e.RemoteAddr, Status: e.Status, Operation: e.Message})
		}
		out.Body.Next = page.Next
		return out, nil
	})
}

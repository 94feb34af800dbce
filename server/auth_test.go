package server

import (
	"net/http"
	"sort"
	"strings"
	"testing"

	"rangecopy/catalog"
	"rangecopy/testenv"
)

// TestEveryOperationNeedsItsRole calls every operation of the spec that needs a token:
// without one (401), with a revoked one (401), and with each role below the one it needs
// (403); each refusal is in the audit log. Nothing is created by a refused call.
func TestEveryOperationNeedsItsRole(t *testing.T) {
	env := testenv.Get(t)
	r := newRig(t, env, 0)
	ctx := t.Context()
	_, revoked, err := r.s.Catalog().CreateToken(ctx, "to revoke", catalog.RoleAdmin)
	if err != nil {
		t.Fatal(err)
	}
	ts, _ := r.s.Catalog().ListTokens(ctx)
	for _, tok := range ts {
		if tok.Name == "to revoke" {
			if _, err := r.s.Catalog().RevokeToken(ctx, tok.ID); err != nil {
				t.Fatal(err)
			}
		}
	}
	secrets := map[catalog.Role]string{catalog.RoleViewer: r.viewer, catalog.RoleOperator: r.oper}
	calls, refusals := 0, 0
	var paths []string
	for p := range r.spec.Paths.Map() {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	for _, p := range paths {
		for method, o := range r.spec.Paths.Value(p).Operations() {
			if o.Security == nil || len(*o.Security) == 0 {
				continue
			}
			need, _ := o.Extensions[roleMeta].(string)
			if need == "" {
				need = roleFromDescription(o.Description)
			}
			if need == "" {
				t.Errorf("%s %s: needs a token but says no role", method, p)
				continue
			}
			path := strings.NewReplacer("{id}", "some-id", "{name}", "some-name").Replace(p)
			var body any
			if method == http.MethodPost || method == http.MethodPut || method == http.MethodPatch {
				body = "{}"
			}
			calls++
			for _, secret := range []string{"", revoked, "rct_not-a-real-secret"} {
				if a := r.do(secret, method, path, body); a.status != http.StatusUnauthorized {
					t.Errorf("%s %s with token %q: %d %s; want 401", method, path, secret, a.status, a.body)
				} else if a.header.Get("WWW-Authenticate") == "" {
					t.Errorf("%s %s: 401 without WWW-Authenticate", method, path)
				}
				refusals++
			}
			for role, secret := range secrets {
				if role.Allows(catalog.Role(need)) {
					continue
				}
				if a := r.do(secret, method, path, body); a.status != http.StatusForbidden {
					t.Errorf("%s %s as %s (needs %s): %d %s; want 403", method, path, role, need, a.status, a.body)
				}
				refusals++
			}
		}
	}
	if calls < 15 {
		t.Errorf("only %d operations need a token; want every one but the health checks", calls)
	}
	page, err := r.s.Catalog().ListAudit(ctx, "", "", catalog.MaxPageSize)
	if err != nil {
		t.Fatal(err)
	}
	denied := 0
	for _, e := range page.Entries {
		if e.Status == http.StatusUnauthorized || e.Status == http.StatusForbidden {
			denied++
		}
	}
	if denied != refusals {
		t.Errorf("audit log: %d refusals recorded, %d made", denied, refusals)
	}
	if cs, _ := r.s.Catalog().ListClusters(ctx); len(cs) != 0 {
		t.Errorf("refused calls created clusters: %v", cs)
	}
	t.Logf("%d operations, %d refusals, all in the audit log", calls, refusals)
}

// roleFromDescription reads "Needs a token of role R or above." from an operation's
// description (the spec's form of the role an operation needs).
func roleFromDescription(d string) string {
	const p = "Needs a token of role "
	i := strings.Index(d, p)
	if i < 0 {
		return ""
	}
	rest := d[i+len(p):]
	if j := strings.IndexByte(rest, ' '); j > 0 {
		return rest[:j]
	}
	return ""
}

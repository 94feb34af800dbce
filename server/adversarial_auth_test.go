package server

import (
	"bytes"
	"errors"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"rangecopy/api"
	"rangecopy/catalog"
	"rangecopy/dashboard"
	"rangecopy/testenv"
	"rangecopy/testenv/copytest"
)

// syncBuffer is a log sink the server writes from many goroutines.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// newLoggedRig is newRig whose server also logs, from info up, to the buffer it returns.
func newLoggedRig(t *testing.T, env *testenv.Env, workers int) (*rig, *syncBuffer) {
	t.Helper()
	logs := &syncBuffer{}
	r := newRigWith(t, env, workers, t.TempDir(), "/"+testenv.UniqueName(t, "srv"), "", func(c *Config) {
		c.Logger = slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelInfo}))
	})
	return r, logs
}

// TestAdversarialSecrets sends every kind of bad credential: none, not a bearer, garbage, a
// well-formed unknown secret, an expired, a revoked and a rotated-out one. Each is a 401
// with WWW-Authenticate whose answer names no token (neither id nor name), while the
// server's log names the token for whoever looks into it. A secret within its rotation's
// grace, and the rotated one, work.
func TestAdversarialSecrets(t *testing.T) {
	env := testenv.Get(t)
	r, logs := newLoggedRig(t, env, 0)
	ctx := t.Context()
	cat := r.s.Catalog()

	expired, expiredSecret, err := cat.NewToken(ctx, catalog.TokenSpec{Name: "expired-reporter", Role: catalog.RoleAdmin, Lifetime: time.Microsecond})
	if err != nil {
		t.Fatal(err)
	}
	revoked, revokedSecret, err := cat.CreateToken(ctx, "revoked-exporter", catalog.RoleAdmin)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := cat.RevokeToken(ctx, revoked.ID); err != nil {
		t.Fatal(err)
	}
	rotated, oldSecret, err := cat.CreateToken(ctx, "rotated-deployer", catalog.RoleAdmin)
	if err != nil {
		t.Fatal(err)
	}
	// Rotated through the API, as an admin would.
	a := r.do(r.admin, http.MethodPost, api.APIPrefix+"/tokens/"+rotated.ID+"/rotate", map[string]any{})
	if a.status != http.StatusOK {
		t.Fatalf("rotate: %d %s", a.status, a.body)
	}
	var rot api.TokenCreated
	a.decode(t, &rot)
	if rot.ID != rotated.ID || rot.Name != rotated.Name || rot.Secret == "" || rot.Secret == oldSecret || rot.RotatedAt == nil {
		t.Fatalf("rotated %+v", rot)
	}
	graced, gracedOld, err := cat.CreateToken(ctx, "graced-deployer", catalog.RoleViewer)
	if err != nil {
		t.Fatal(err)
	}
	a = r.do(r.admin, http.MethodPost, api.APIPrefix+"/tokens/"+graced.ID+"/rotate", map[string]any{"grace": "1h"})
	var gr api.TokenCreated
	a.decode(t, &gr)
	if a.status != http.StatusOK || gr.PreviousSecretUntil == nil {
		t.Fatalf("rotate with a grace: %d %s", a.status, a.body)
	}
	unknown, _ := catalog.GenerateSecret()

	for _, c := range []struct {
		what, header, says string
		tok                *catalog.Token
	}{
		{"no token", "", "no bearer token", nil},
		{"basic auth", "Basic YWRtaW46YWRtaW4=", "not a bearer token", nil},
		{"garbage", "Bearer garbage", "not a rangecopy token secret", nil},
		{"a 10 KB bearer", "Bearer " + strings.Repeat("rc_", 3400), "not a rangecopy token secret", nil},
		{"unknown secret", "Bearer " + unknown, "unknown token", nil},
		{"expired", "Bearer " + expiredSecret, "token expired at " + expired.ExpiresAt.Format(time.RFC3339) + "; rotate it with rangecopy token rotate", &expired},
		{"revoked", "Bearer " + revokedSecret, "revoked at", &revoked},
		{"rotated out", "Bearer " + oldSecret, "replaced by a rotation", &rotated},
	} {
		for _, path := range []string{"/tokens", "/jobs", "/clusters"} {
			var a answer
			if c.header == "" {
				a = r.do("", http.MethodGet, api.APIPrefix+path, nil)
			} else {
				a = r.do("", http.MethodGet, api.APIPrefix+path, nil, "Authorization", c.header)
			}
			body := string(a.body)
			if a.status != http.StatusUnauthorized || a.header.Get("WWW-Authenticate") == "" || !strings.Contains(body, c.says) {
				t.Errorf("%s on %s: %d %s; want a 401 saying %q", c.what, path, a.status, body, c.says)
			}
			for _, tok := range []catalog.Token{expired, revoked, rotated, graced} {
				if strings.Contains(body, tok.ID) || strings.Contains(body, tok.Name) {
					t.Errorf("%s on %s: the answer names token %s (%s): %s", c.what, path, tok.ID, tok.Name, body)
				}
			}
		}
		if c.tok != nil && !strings.Contains(logs.String(), c.tok.ID) {
			t.Errorf("%s: the server's log does not name token %s", c.what, c.tok.ID)
		}
	}
	// The new secrets work; the graced old one too, for its grace.
	for what, s := range map[string]string{"rotated": rot.Secret, "graced new": gr.Secret, "graced old": gracedOld} {
		if a := r.do(s, http.MethodGet, api.APIPrefix+"/jobs", nil); a.status != http.StatusOK {
			t.Errorf("%s secret: %d %s", what, a.status, a.body)
		}
	}
	// A revoked token is not rotated back to life.
	if a := r.do(r.admin, http.MethodPost, api.APIPrefix+"/tokens/"+revoked.ID+"/rotate", map[string]any{}); a.status != http.StatusConflict {
		t.Errorf("rotate a revoked token: %d %s; want 409", a.status, a.body)
	}
	// Rotating an expired token makes it work again.
	a = r.do(r.admin, http.MethodPost, api.APIPrefix+"/tokens/"+expired.ID+"/rotate", map[string]any{"expiresIn": "1d"})
	var er api.TokenCreated
	a.decode(t, &er)
	if a.status != http.StatusOK || er.ExpiresAt == nil || time.Until(*er.ExpiresAt) < 23*time.Hour {
		t.Fatalf("rotate an expired token: %d %s", a.status, a.body)
	}
	if a := r.do(er.Secret, http.MethodGet, api.APIPrefix+"/tokens", nil); a.status != http.StatusOK {
		t.Errorf("the expired token's new secret: %d %s", a.status, a.body)
	}
	// Bad rotation and creation bodies name the field.
	for _, c := range []struct {
		path  string
		body  map[string]any
		field string
	}{
		{"/tokens/" + graced.ID + "/rotate", map[string]any{"grace": "1y"}, "grace"},
		{"/tokens/" + graced.ID + "/rotate", map[string]any{"grace": "200h"}, "grace"},
		{"/tokens/" + graced.ID + "/rotate", map[string]any{"expiresIn": "soon"}, "expiresIn"},
		{"/tokens", map[string]any{"name": "x", "role": "operator", "scopes": []string{"dst:ns a:*"}}, "scopes[0]"},
		{"/tokens", map[string]any{"name": "x", "role": "operator", "scopes": []string{"dst"}}, "scopes[0]"},
		{"/tokens", map[string]any{"name": "x", "role": "operator", "rights": []string{"root"}}, "rights[0]"},
		{"/tokens", map[string]any{"name": "x", "role": "operator", "expiresIn": "-1d"}, "expiresIn"},
	} {
		if a := r.do(r.admin, http.MethodPost, api.APIPrefix+c.path, c.body); a.status != http.StatusBadRequest || !strings.Contains(string(a.body), c.field) {
			t.Errorf("POST %s %v: %d %s; want a 400 naming %s", c.path, c.body, a.status, a.body, c.field)
		}
	}
	// Created through the API with scopes, rights and an expiry: shown in get and list.
	a = r.do(r.admin, http.MethodPost, api.APIPrefix+"/tokens", map[string]any{"name": "scoped ci", "role": "operator",
		"scopes": []string{"dst:ns_a:*", "dst:default:t1"}, "rights": []string{"force-cutover"}, "expiresIn": "90d"})
	var made api.TokenCreated
	a.decode(t, &made)
	if a.status != http.StatusCreated || strings.Join(made.Scopes, ",") != "dst:ns_a:*,dst:default:t1" || len(made.Rights) != 1 || made.ExpiresAt == nil {
		t.Fatalf("create a scoped token: %d %s", a.status, a.body)
	}
	var got api.TokenOut
	r.do(r.admin, http.MethodGet, api.APIPrefix+"/tokens/"+made.ID, nil).decode(t, &got)
	if strings.Join(got.Scopes, ",") != "dst:ns_a:*,dst:default:t1" || got.Rights[0] != "force-cutover" || got.ExpiresAt == nil || !got.ExpiresAt.Equal(*made.ExpiresAt) {
		t.Errorf("get-token = %+v", got)
	}
	var list api.TokenList
	r.do(r.admin, http.MethodGet, api.APIPrefix+"/tokens", nil).decode(t, &list)
	for _, tok := range list.Tokens {
		if tok.ID == r.adminID(t) && strings.Join(tok.Scopes, ",") != "*" {
			t.Errorf("an unscoped token lists scopes %v, want [*]", tok.Scopes)
		}
	}
}

// adminID is the id of the rig's admin token.
func (r *rig) adminID(t *testing.T) string {
	t.Helper()
	tok, err := r.s.Catalog().Authenticate(t.Context(), r.admin)
	if err != nil {
		t.Fatal(err)
	}
	return tok.ID
}

// TestAdversarialScopes gives operators tokens scoped to one target table, and to another
// namespace, and has them try every mutating operation on jobs, relocations and
// verifications: outside its scope a token gets a 403 naming its scopes (and nothing is
// made), inside it is served. A forced cut-over needs the force-cutover right (an
// unscoped operator and an admin without it get a 403) and a reason (400), and is written
// to the audit log with the reason.
func TestAdversarialScopes(t *testing.T) {
	env := testenv.Get(t)
	r := newRig(t, env, 2)
	r.registerClusters(env)
	ctx := t.Context()
	cat := r.s.Catalog()
	in := copytest.CreateSource(t, env, "scopein")
	copytest.WriteRounds(t, env.Source, in, copytest.BinaryRows(60), 1, time.Now().UnixMilli()-3_600_000, true)
	copytest.DropTargetLater(t, env, in)
	out := testenv.UniqueName(t, "scopeout") // never made: every call naming it is refused first

	mint := func(name string, scopes []string, rights ...catalog.Right) (catalog.Token, string) {
		t.Helper()
		sc, err := catalog.ParseScopes(scopes)
		if err != nil {
			t.Fatal(err)
		}
		tok, secret, err := cat.NewToken(ctx, catalog.TokenSpec{Name: name, Role: catalog.RoleOperator, Scopes: sc, Rights: rights})
		if err != nil {
			t.Fatal(err)
		}
		return tok, secret
	}
	_, inside := mint("scoped to the table", []string{"dst:default:" + in})
	elsewhereTok, elsewhere := mint("scoped to another namespace", []string{"dst:ns_other:*"})
	forcerTok, forcer := mint("may force", []string{"dst:default:" + in}, catalog.RightForceCutover)

	forbidden := func(what string, a answer, scope string) {
		t.Helper()
		if a.status != http.StatusForbidden || !strings.Contains(string(a.body), scope) {
			t.Errorf("%s: %d %s; want a 403 naming scope %s", what, a.status, a.body, scope)
		}
	}
	post := func(secret, path string, body any) answer {
		t.Helper()
		return r.do(secret, http.MethodPost, api.APIPrefix+path, body)
	}

	// Jobs: outside the scope (another table, another cluster, another namespace's token).
	job := func(target, table string) map[string]any {
		return map[string]any{"source": "src", "target": target, "table": in, "targetTable": table, "createTable": true, "bandwidth": "2KB/s"}
	}
	forbidden("submit into another table", post(inside, "/jobs", job("dst", out)), "dst:default:"+in)
	forbidden("submit into another cluster", post(inside, "/jobs", job("src", in+"_copy")), "dst:default:"+in)
	forbidden("submit by another namespace's token", post(elsewhere, "/jobs", job("dst", in)), "dst:ns_other:*")
	if page, _ := cat.ListJobs(ctx, catalog.JobFilter{}); len(page.Jobs) != 0 {
		t.Fatalf("refused submissions made jobs: %+v", page.Jobs)
	}
	a := post(inside, "/jobs", job("dst", in))
	if a.status != http.StatusCreated {
		t.Fatalf("submit inside the scope: %d %s", a.status, a.body)
	}
	var j api.JobOut
	a.decode(t, &j)
	forbidden("pause by another namespace's token", post(elsewhere, "/jobs/"+j.ID+"/pause", nil), "dst:ns_other:*")
	forbidden("bandwidth by another namespace's token", r.do(elsewhere, http.MethodPatch, api.APIPrefix+"/jobs/"+j.ID, map[string]any{"bandwidth": "1MB/s"}), "dst:ns_other:*")
	forbidden("cancel by another namespace's token", post(elsewhere, "/jobs/"+j.ID+"/cancel", nil), "dst:ns_other:*")
	// The dashboard's actions are held to the same scopes.
	ds := dashSource{r.s.api}
	elsewhereP := dashboard.Principal{TokenID: elsewhereTok.ID, Name: elsewhereTok.Name, Role: dashboard.Role(elsewhereTok.Role)}
	var ue *dashboard.UserError
	if err := ds.Act(ctx, elsewhereP, j.ID, dashboard.ActionPause, ""); !errors.As(err, &ue) || ue.Status != http.StatusForbidden || !strings.Contains(ue.Message, "dst:ns_other:*") {
		t.Errorf("pause from the dashboard by another namespace's token: %v; want a 403 naming its scope", err)
	}
	if a := r.do(inside, http.MethodPatch, api.APIPrefix+"/jobs/"+j.ID, map[string]any{"bandwidth": "1KB/s"}); a.status != http.StatusOK {
		t.Errorf("bandwidth inside the scope: %d %s", a.status, a.body)
	}
	if a := post(inside, "/jobs/"+j.ID+"/cancel", nil); a.status != http.StatusOK {
		t.Errorf("cancel inside the scope: %d %s", a.status, a.body)
	}
	r.waitJob(j.ID, 3*time.Minute, "cancelled", func(v api.JobOut) bool { return v.State.Final() })

	// Verifications (whose repair writes the target).
	ver := func(table string) map[string]any {
		return map[string]any{"source": "src", "target": "dst", "table": in, "targetTable": table, "repair": true}
	}
	forbidden("verify another table", post(inside, "/verifications", ver(out)), "dst:default:"+in)
	forbidden("verify by another namespace's token", post(elsewhere, "/verifications", ver(in)), "dst:ns_other:*")
	if a := post(inside, "/verifications", ver(in)); a.status != http.StatusCreated {
		t.Errorf("verify inside the scope: %d %s", a.status, a.body)
	} else {
		var v api.VerificationOutput
		a.decode(t, &v)
		r.waitVerification(v.ID, 3*time.Minute)
	}

	// Relocations: create, control and cut over.
	reloc := func(tables ...string) map[string]any {
		return map[string]any{"source": "src", "target": "dst", "tables": tables, "schedule": "@every 1h", "margin": "30s"}
	}
	forbidden("relocate into another table", post(inside, "/relocations", reloc(in+"→"+out)), "dst:default:"+in)
	forbidden("relocate two tables, one outside", post(inside, "/relocations", reloc(in, out)), "dst:default:"+in)
	forbidden("relocate by another namespace's token", post(elsewhere, "/relocations", reloc(in)), "dst:ns_other:*")
	if rs, _ := cat.ListRelocations(ctx, false); len(rs) != 0 {
		t.Fatalf("refused creations made relocations: %+v", rs)
	}
	a = post(inside, "/relocations", reloc(in))
	if a.status != http.StatusCreated {
		t.Fatalf("relocate inside the scope: %d %s", a.status, a.body)
	}
	var rel api.RelocationOut
	a.decode(t, &rel)
	t.Cleanup(func() { post(r.admin, "/relocations/"+rel.ID+"/cancel", nil) })
	for _, c := range []struct {
		what, method, path string
		body               any
	}{
		{"pause", http.MethodPost, "/pause", nil},
		{"resume", http.MethodPost, "/resume", nil},
		{"cancel", http.MethodPost, "/cancel", nil},
		{"patch", http.MethodPatch, "", map[string]any{"bandwidth": "1MB/s"}},
		{"cutover", http.MethodPost, "/cutover", map[string]any{}},
		{"forced cutover", http.MethodPost, "/cutover", map[string]any{"force": true, "reason": "why not"}},
	} {
		forbidden(c.what+" by another namespace's token", r.do(elsewhere, c.method, api.APIPrefix+"/relocations/"+rel.ID+c.path, c.body), "dst:ns_other:*")
	}
	if _, err := ds.RelocationAction(ctx, elsewhereP, rel.ID, dashboard.RelocationPause); !errors.As(err, &ue) || ue.Status != http.StatusForbidden {
		t.Errorf("pause a relocation from the dashboard by another namespace's token: %v; want a 403", err)
	}
	if a := r.do(inside, http.MethodPatch, api.APIPrefix+"/relocations/"+rel.ID, map[string]any{"bandwidth": "50MB/s"}); a.status != http.StatusOK {
		t.Errorf("patch inside the scope: %d %s", a.status, a.body)
	}
	if a := post(inside, "/relocations/"+rel.ID+"/cutover", map[string]any{"force": true, "dryRun": true}); a.status != http.StatusOK {
		t.Errorf("a forced dry run changes nothing and needs no right: %d %s", a.status, a.body)
	}
	rel = r.waitRelocation(rel.ID, 4*time.Minute, "catching up", func(v api.RelocationOut) bool { return v.Phase != "copying" })
	if rel.Phase != "catching-up" && rel.Phase != "ready" {
		t.Fatalf("after the full copy: %s (%s)", rel.Phase, rel.Why)
	}

	// A forced cut-over: refused without the right (an operator's, an admin's), refused
	// without a reason, then made and audited with its reason.
	for who, secret := range map[string]string{"an operator": r.oper, "an admin": r.admin, "a scoped operator": inside} {
		a := post(secret, "/relocations/"+rel.ID+"/cutover", map[string]any{"force": true, "reason": "the source is on fire"})
		if a.status != http.StatusForbidden || !strings.Contains(string(a.body), "force-cutover") {
			t.Errorf("a forced cut-over by %s without the right: %d %s; want a 403 naming force-cutover", who, a.status, a.body)
		}
	}
	for _, reason := range []string{"", "   "} {
		a := post(forcer, "/relocations/"+rel.ID+"/cutover", map[string]any{"force": true, "reason": reason})
		if a.status != http.StatusBadRequest || !strings.Contains(string(a.body), "reason") {
			t.Errorf("a forced cut-over with reason %q: %d %s; want a 400 naming reason", reason, a.status, a.body)
		}
	}
	if got, _ := cat.GetRelocation(ctx, rel.ID); got.Phase != string(rel.Phase) {
		t.Fatalf("refused cut-overs moved the relocation to %s", got.Phase)
	}
	const reason = "INC-4711: the source cluster's disks fail tonight"
	a = post(forcer, "/relocations/"+rel.ID+"/cutover", map[string]any{"force": true, "reason": reason})
	var cut api.CutoverOut
	a.decode(t, &cut)
	if a.status != http.StatusOK || !cut.Started || !strings.Contains(cut.Relocation.Why, "forced") {
		t.Fatalf("a forced cut-over with the right and a reason: %d %s", a.status, a.body)
	}
	page, err := cat.ListAudit(ctx, forcerTok.ID, "", catalog.MaxPageSize)
	if err != nil {
		t.Fatal(err)
	}
	audited := false
	for _, e := range page.Entries {
		if strings.Contains(e.Message, reason) && strings.HasSuffix(e.Path, "/relocations/"+rel.ID+"/cutover") && e.TokenName == "may force" {
			audited = true
		}
	}
	if !audited {
		t.Errorf("the forced cut-over's reason is not in the audit log: %+v", page.Entries)
	}
	rel = r.waitRelocation(rel.ID, 5*time.Minute, "done", func(v api.RelocationOut) bool { return v.Phase == "done" || v.Phase == "failed" })
	if rel.Phase != "done" {
		t.Errorf("the forced cut-over ended %s (%s)", rel.Phase, rel.Why)
	}
	// Every refusal above is in the audit log as a 403 of the token that tried.
	page, _ = cat.ListAudit(ctx, elsewhereTok.ID, "", catalog.MaxPageSize)
	refused := 0
	for _, e := range page.Entries {
		if e.Status == http.StatusForbidden {
			refused++
		}
	}
	if refused < 12 {
		t.Errorf("the audit log holds %d refusals of the out-of-scope token, want 12 or more", refused)
	}
}

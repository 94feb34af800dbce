package server

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/danielgtaylor/huma/v2"

	"rangecopy/api"
	"rangecopy/catalog"
	"rangecopy/relocation"
)

// A token's scopes restrict where it may write: the target cluster and table of a job it
// submits or controls, of a relocation it creates or controls, and of a verification (whose
// repair writes the target). The handlers of those operations ask mayWrite before they act;
// a refusal is a 403 that names the token's scopes and the target they do not cover.

// mayWrite returns nil if the caller may write table ("[namespace:]name") of cluster, or a
// 403 naming its scopes.
func mayWrite(ctx context.Context, cluster, table string) error {
	p := callerOf(ctx)
	if p.all || p.scopes.AllowsTable(cluster, table) {
		return nil
	}
	return huma.Error403Forbidden(fmt.Sprintf("token %s is scoped to %s, which does not cover table %s of cluster %s: use a token whose scope does (rangecopy token create --scope)",
		p.tokenID, p.scopes, table, cluster))
}

// mayWriteTables is mayWrite of every target table of a relocation's scope.
func mayWriteTables(ctx context.Context, cluster string, tables []catalog.RelocationTable) error {
	for _, t := range tables {
		target := t.Target
		if target == "" {
			target = t.Source
		}
		if err := mayWrite(ctx, cluster, target); err != nil {
			return err
		}
	}
	return nil
}

// mayCreateRelocation checks the targets of a relocation to be created; tables that do not
// parse are left to the create's own checks (a 400).
func mayCreateRelocation(ctx context.Context, in api.RelocationCreate) error {
	var tables []catalog.RelocationTable
	for _, s := range in.Tables {
		if tm, err := relocation.ParseTableMap(s); err == nil {
			tables = append(tables, catalog.RelocationTable{Source: tm.Source, Target: tm.Target})
		}
	}
	return mayWriteTables(ctx, in.Target, tables)
}

// mayWriteJob checks the target of a job the caller would change. A job the catalog does not
// know is left to the operation (a 404).
func (a *rest) mayWriteJob(ctx context.Context, id string) error {
	if p := callerOf(ctx); p.all || len(p.scopes) == 0 {
		return nil
	}
	j, err := a.s.cat.GetJob(ctx, id)
	if errors.Is(err, catalog.ErrNotFound) {
		return nil
	}
	if err != nil {
		return a.problem(err, "job "+id)
	}
	return mayWrite(ctx, j.TargetCluster, j.TargetTable)
}

// mayWriteRelocation checks the targets of a relocation the caller would change. One the
// catalog does not know is left to the operation (a 404).
func (a *rest) mayWriteRelocation(ctx context.Context, id string) error {
	if p := callerOf(ctx); p.all || len(p.scopes) == 0 {
		return nil
	}
	r, err := a.s.cat.GetRelocation(ctx, id)
	if errors.Is(err, catalog.ErrNotFound) {
		return nil
	}
	if err != nil {
		return a.problem(err, "relocation "+id)
	}
	return mayWriteTables(ctx, r.TargetCluster, r.Tables)
}

// mayForceCutover checks a forced cut-over: the caller's token must hold the force-cutover
// right (a 403 otherwise), and the reason must say why (a 400 otherwise).
func mayForceCutover(ctx context.Context, reason string) error {
	p := callerOf(ctx)
	if !p.all && !hasRight(p.rights, catalog.RightForceCutover) {
		return huma.Error403Forbidden(fmt.Sprintf("a forced cut-over passes over the lag and verification gates: it needs a token with the %s right, which token %s does not hold (rangecopy token create --right %s)",
			catalog.RightForceCutover, p.tokenID, catalog.RightForceCutover))
	}
	if strings.TrimSpace(reason) == "" {
		return fieldProblem("reason", "a forced cut-over needs a reason, which goes to the audit log", reason)
	}
	return nil
}

func hasRight(rs []catalog.Right, r catalog.Right) bool {
	for _, x := range rs {
		if x == r {
			return true
		}
	}
	return false
}

// dashMayWrite checks, for the dashboard, that the token tokenID may change the job (kind
// "job") or relocation (kind "relocation") id, as the API's operations check it. No token (a
// server without authentication) may change everything.
func (a *rest) dashMayWrite(ctx context.Context, tokenID, kind, id string) error {
	if tokenID == "" || a.s.cfg.InsecureNoAuth {
		return nil
	}
	t, err := a.s.cat.GetToken(ctx, tokenID)
	if err != nil {
		return a.problem(err, "token "+tokenID)
	}
	ctx = context.WithValue(ctx, principalKey{}, &principal{tokenID: t.ID, name: t.Name, role: t.Role, scopes: t.Scopes, rights: t.Rights})
	if kind == "relocation" {
		return a.mayWriteRelocation(ctx, id)
	}
	return a.mayWriteJob(ctx, id)
}

// auditForce records a forced cut-over's reason in the audit log before it is made: a
// forced cut-over is never made unrecorded.
func (a *rest) auditForce(ctx context.Context, id, reason string) error {
	p := callerOf(ctx)
	e := catalog.AuditEntry{TokenID: p.tokenID, TokenName: p.name, Role: p.role, Method: "POST",
		Path: api.APIPrefix + "/relocations/" + id + "/cutover", RemoteAddr: p.addr, Status: 202,
		Message: "forced cut-over (lag and verification gates passed over), reason: " + reason}
	if _, err := a.s.cat.AppendAudit(ctx, e); err != nil {
		a.s.metrics.catalogErrors.Inc()
		return huma.Error503ServiceUnavailable("the audit log cannot record the forced cut-over now; nothing was done", err)
	}
	return nil
}
